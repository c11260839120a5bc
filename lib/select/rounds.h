/* rounds.h - one stage of `fmvgen select`'s profiled rounds (the first
 * stage's, or the confirmation's), as the decision reads them
 * (decision.h's decision_input layouts, nr rounds innermost):
 *   samples, name_samples  [((w * nv + v) * nf + f) * nr + r]
 *   aa_samples, aa_name_samples  [(w * nf + f) * nr + r]  (the A/A arm)
 *   totals  [(w * nv + v) * nr + r],  aa_totals  [w * nr + r]
 *   position  [arm * nr + r]: the arm's place in round r (arm nv: the A/A
 *             arm), -1 when it did not run
 * with nf functions, nv variants (0: the baseline), nw workloads. The
 * logs hold what is applied to samples once a stage's rounds are in
 * (outlined.h, libcalls.h). */
#ifndef FMVGEN_SELECT_ROUNDS_H
#define FMVGEN_SELECT_ROUNDS_H

#include <stddef.h>

#include "select/libcalls.h"
#include "select/outlined.h"

struct rounds {
    size_t nr;
    double *samples, *name_samples, *aa_samples, *aa_name_samples, *totals, *aa_totals;
    int *position;
    struct outlined_log helpers_log;
    struct libcall_log libcall_log;
};

/* nr rounds of zeros, every position -1, empty logs. */
void rounds_init(struct rounds *d, size_t nf, size_t nv, size_t nw, size_t nr);

void rounds_free(struct rounds *d);

/* a's rounds followed by b's (the same nf, nv, nw), into a: every array
 * row by row, a->nr = a's + b's rounds; b is freed. The logs are not
 * joined: each stage applies its own before the join (a keeps its own). */
void rounds_append(struct rounds *a, struct rounds *b, size_t nf, size_t nv, size_t nw);

#endif
