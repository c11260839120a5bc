/* libcalls.h - time in library calls that a candidate's clones replace
 * with an instruction. At the baseline a function may call floorf, lrint
 * (libm) or __popcountdi2 (libgcc), and its clones compute the same in one
 * roundss or popcnt (the candidate's dropped calls say which: stored as
 * data, functions.dropped_calls, store/dropped.h; its ISA evidence text
 * "roundss replaces floorf, ceilf (2 calls)" is rendered from the same
 * list and never read back).
 * perf credits the callee's time to the callee, not to the caller, so the
 * caller's baseline time, its share and its gain would be undercounted.
 *
 * So in every run of every arm (baseline, each variant, the A/A arm) the
 * samples of a symbol that is such a dropped callee - its own name, or a
 * glibc implementation of it, "__floorf_sse41", "__lrint_c" - are counted
 * as time of the candidates that drop it. When several
 * candidates drop the same callee, its samples are split among them by
 * their own baseline samples in that workload (no call graph tells which
 * one called: the split is said, never hidden); when none of them was
 * sampled, equally. Whether a symbol counts is decided from the dropped
 * calls alone, the same in every arm, so no variant's speed picks what is added.
 * Time other callers spend in the same callee is counted too: the note
 * says so. */
#ifndef FMVGEN_SELECT_LIBCALLS_H
#define FMVGEN_SELECT_LIBCALLS_H

#include <stddef.h>

#include "measure/profile.h"
#include "patch/plan.h"
#include "util/util.h"

/* The calls each of the nf candidates drops (its dropped_calls), into
 * dropped[f] (no duplicates). The display names of candidates with ISA
 * evidence whose calls are not known (a row of an analysis before store
 * schema 4) are appended to unknown: nothing is credited to them, and the
 * caller says so. */
void libcalls_dropped(const struct patch_function *fns, size_t nf, struct strvec *dropped, struct strvec *unknown);

/* 1 when the profile symbol sym is callee's code: "floorf", or a glibc
 * implementation "__floorf_sse41", "__floorf_c" (the callee between "__"
 * and "_" + letters and digits). */
int libcalls_symbol_is(const char *sym, const char *callee);

struct libcall_log {
    size_t n, cap;
    struct libcall_entry {
        size_t w, v, r;
        int aa;          /* the A/A arm (v is 0 then) */
        char *callee;    /* as the dropped calls name it */
        double samples;
    } *v;
};

/* Logs the samples of p (run r of workload w on variant v, or of the A/A
 * arm) in any callee some candidate drops (dropped[f], f < nf). */
void libcalls_log_profile(struct libcall_log *log, const struct profile *p, const struct strvec *dropped,
                          size_t nf, size_t w, size_t v, size_t r, int aa);

/* Adds the logged samples to the candidates that drop each callee, in
 * samples (decision_input's layout, [((w * nv + v) * nf + f) * nr + r])
 * and aa_samples ([(w * nf + f) * nr + r], may be NULL). Per f (each may be
 * NULL): credited[f], the mean baseline samples per run added (summed over
 * the workloads); seen[f], the callees that added any; shared_with[f], the
 * names (names[g]) of the other candidates a callee's samples were split
 * with. */
void libcalls_apply(const struct libcall_log *log, const struct strvec *dropped, const char *const *names,
                    size_t nw, size_t nv, size_t nf, size_t nr, double *samples, double *aa_samples, double *credited, struct strvec *seen,
                    struct strvec *shared_with);

void libcall_log_free(struct libcall_log *log);

#endif
