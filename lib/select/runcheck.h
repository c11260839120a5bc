/* runcheck.h - the profiled runs of `fmvgen select`, proven (ranwhat.h):
 * each run of a variant's workload is profiled as that variant runs
 * (in its mount namespace, select/isolation.h, perf inside it so that perf
 * reads the files the run saw), with perf's mmap records; the paths are
 * mapped back to the variant's copy; then the checks of ranwhat.h. A
 * failed check is one error line and stops the selection: its verdicts
 * would compare the user's code with itself. Inside lib/select only. */
#ifndef FMVGEN_SELECT_RUNCHECK_H
#define FMVGEN_SELECT_RUNCHECK_H

#include <stddef.h>
#include <time.h>

#include "measure/profile.h"

struct select_session;
struct select_runcheck;

struct select_runcheck *select_runcheck_new(const struct select_session *s);
void select_runcheck_free(struct select_runcheck *c);

/* Profiles workload w of variant v (its round-th run; v == n_variants: the
 * selected build) into *p, then checks
 * 1 and 3 of ranwhat.h. 0, or -1 after one error line (*p then empty). */
int select_runcheck_profile(struct select_runcheck *c, struct select_session *s, size_t v, size_t w, size_t round,
                            struct profile *p);

/* After the patched variant v built: 0 when some linked program or library
 * under its build dir was written at or after since (the build's start), or
 * when there is none; else -1 after one error line - every one is still the
 * copy of the user's build, so the build did not compile the patched
 * sources into anything, and no run could measure a clone. */
int select_runcheck_rebuilt(const struct select_session *s, size_t v, const struct timespec *since);

/* Check 2 of ranwhat.h over every run profiled. 0, or -1 after one error
 * line. */
int select_runcheck_finish(struct select_runcheck *c, struct select_session *s);

#endif
