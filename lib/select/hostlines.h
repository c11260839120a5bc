/* hostlines.h - the time of a kernel that the baseline inlined into its
 * host. A static kernel that main calls once is compiled inside main in the
 * baseline (candidates/inlined.h: its "inlined-into" note names the hosts),
 * so the baseline's profile has no symbol of it: its time is main's. Its
 * clones are out of line, so in a variant its time is its own. Counting by
 * symbol would compare nothing with something. So in every run of every arm
 * (baseline, A/A, variants alike) a kernel is credited, besides its own
 * symbols' samples, with the samples taken at each address of a host's code
 * whose inline frames (DWARF, `addr2line -i -f`) hold a frame of the kernel
 * - the kernel's own lines and those of whatever was inlined into it there,
 * its helpers among them -, or whose line (the innermost frame's) lies in
 * the kernel's definition: clang 19 keeps the line table of a vectorized
 * loop it inlined but may drop its inline scope (docs/FINDINGS.md,
 * "Profiles"). The same rule
 * on both sides: in a variant the kernel is out of line and the hosts'
 * code holds it no more.
 *
 * Without line information (a build without -g) or where a host's symbol
 * cannot be found in its file, the address stays unresolved: its samples
 * are counted as unresolved, and the caller must not judge a kernel whose
 * hosts' samples are mostly unresolved (hostlines_unjudged). */
#ifndef FMVGEN_SELECT_HOSTLINES_H
#define FMVGEN_SELECT_HOSTLINES_H

#include <jansson.h>
#include <stddef.h>

#include "measure/profile.h"
#include "util/util.h"

/* A kernel as its hosts' inline frames must show it. */
struct hostlines_function {
    const char *name;        /* the symbol (C name or mangled C++) */
    char *const *files;      /* NULL-terminated: its sources (basenames compared) */
    char *const *hosts;      /* NULL-terminated: its "inlined-into" hosts; NULL or
                              * empty: no host, nothing to count */
    const char *file;        /* its definition: file (basename compared) and */
    int line, end_line;      /* lines; end_line 0: unknown (frames only) */
};

/* The hosts of an "inlined-into" note in notes (a function's notes array;
 * NULL: none), each by its symbol as the ELF spells it (its "symbol"; its
 * "name" where it has none), appended to hosts (no duplicates), and, when
 * names is not NULL, their names to show (display names: "main(int, char
 * **)") to names, one a host appended. Returns how many hosts notes names. */
size_t hostlines_hosts_of(const json_t *notes, struct strvec *hosts, struct strvec *names);

struct hostlines;   /* addresses resolved to inline frames, per file: reused across runs */
struct hostlines *hostlines_new(void);
void hostlines_free(struct hostlines *h);

/* For each f of fs[0..nf) with hosts: samples[f] = the samples of p's
 * sites (profile_opts.sites, dso paths readable here) in a host's symbols
 * whose inline frames hold a frame named fs[f].name whose file is one of
 * its sources (any file when addr2line names none), or whose innermost
 * line lies in [line, end_line] of its file; unresolved[f] = the samples
 * of its hosts' sites with no frames or no line known; host_samples[f] = all
 * samples of its hosts' sites. Arrays of nf, overwritten. */
void hostlines_count(struct hostlines *h, const struct profile *p, const struct hostlines_function *fs, size_t nf,
                     long *samples, long *unresolved, long *host_samples);

/* 1 when unresolved samples are too many of host_samples (totals over the
 * baseline's runs) for the kernel's credited samples to be its time: more
 * than a tenth. */
int hostlines_unjudged(long unresolved, long host_samples);

/* The verdict inlinedkernels.h acts on (totals over the baseline's runs):
 * HOSTLINES_JUDGED also when the hosts took fewer than min_host samples,
 * whatever the share unresolved (a cold host: a handful of samples, one
 * of them in a prologue addr2line places on no line, is no reason not to
 * judge - the kernel is judged, and found cold, like any other function);
 * else HOSTLINES_NO_LINES when no sample resolved (a build without -g),
 * HOSTLINES_UNPLACED when some did but more than a tenth did not. */
enum hostlines_verdict { HOSTLINES_JUDGED = 0, HOSTLINES_NO_LINES, HOSTLINES_UNPLACED };
enum hostlines_verdict hostlines_verdict(long unresolved, long host_samples, long min_host);

#endif
