/* outlined.h - time that cloning moved out of a function. target_clones can
 * stop the compiler from inlining a function's static callees: a big static
 * helper with one call site is inlined in the baseline (GCC's
 * -finline-functions-called-once), but the clones give it two call sites
 * (foo.avx2, foo.default), so it stays out of line - compiled for the default
 * ISA. The function's own samples then drop while the helper's appear: the
 * time moved, it did not get faster (docs/FINDINGS.md, "Helpers").
 *
 * So a local (static) function of a candidate's source file that no
 * baseline run ever sampled - it was inlined there - but a variant's run did
 * is counted as time of that file's candidates in that run, split among them
 * by their baseline samples in that workload. Whether a helper counts is
 * decided from the baseline alone, so no variant's speed picks what is
 * added. */
#ifndef FMVGEN_SELECT_OUTLINED_H
#define FMVGEN_SELECT_OUTLINED_H

#include <stddef.h>

#include "util/util.h"

struct outlined_log {
    size_t n, cap;
    struct outlined_entry {
        size_t w, v, r;
        char *file;      /* basename of its source (STT_FILE) */
        char *symbol;    /* clone/piece suffix folded: "kf_bfly5" */
        double samples;
    } *v;
};

/* One sampled local symbol of run r of workload w on variant v (0: the
 * baseline) that belongs to no candidate. */
void outlined_add(struct outlined_log *log, size_t w, size_t v, size_t r, const char *file, const char *symbol,
                  double samples);

/* Adds the moved time into samples (the layout of decision_input:
 * [((w * nv + v) * nf + f) * nr + r]). sources[f] are the basenames of the
 * files whose STT_FILE f's symbols carry (attribution_sources). moved[f *
 * nv + v] (may be NULL) gets the mean samples per run added to f in v, and
 * helpers[f] (may be NULL) the names of the helpers added to f. */
void outlined_apply(const struct outlined_log *log, const struct strvec *sources, size_t nw, size_t nv, size_t nf,
                    size_t nr, double *samples, double *moved, struct strvec *helpers);

void outlined_log_free(struct outlined_log *log);

#endif
