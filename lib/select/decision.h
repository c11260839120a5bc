/* decision.h - the selection rule of `fmvgen select`. Input: for every
 * candidate function, workload and variant (variant 0 = the baseline, then
 * one per target set, each with *all* candidates cloned), the function's
 * profile samples in each run, and each run's total samples. Output: per
 * function, the target set it gets, or none, and why.
 *
 * A function is selected for a set when
 *   - the set's variant is eligible (its outputs equal the baseline's, or
 *     match within --tolerance; its --test passed),
 *   - its own time, summed over the workloads, drops significantly (the 95%
 *     interval of baseline minus variant is above 0: stats.h),
 *   - no workload makes it significantly slower,
 *   - it holds at least min_share of the baseline's samples of some
 *     workload (judged per workload: a short workload it dominates counts as
 *     much as a long one beside it), and enough samples to judge
 *     (min_samples per run, on average, summed over the workloads).
 * Among the sets that qualify it takes the one with the best speedup. */
#ifndef FMVGEN_SELECT_DECISION_H
#define FMVGEN_SELECT_DECISION_H

#include <stddef.h>

#include "select/stats.h"

struct decision_input {
    size_t n_functions, n_workloads, n_variants, n_runs;
    const char *const *functions;
    /* samples[((w * n_variants + v) * n_functions + f) * n_runs + r] */
    const double *samples;
    /* totals[(w * n_variants + v) * n_runs + r]: every sample of that run */
    const double *totals;
    const int *variant_eligible;   /* [v]; variant 0 (baseline) is ignored */
    double min_share;              /* e.g. 0.02 */
    double min_samples;            /* e.g. 20 */
};

enum decision_reason {
    DECISION_SELECTED,
    DECISION_COLD,            /* share below min_share */
    DECISION_FEW_SAMPLES,     /* too few samples for a verdict */
    DECISION_NO_GAIN,         /* no eligible set made it significantly faster */
    DECISION_SLOWER,          /* every set that gained somewhere was slower elsewhere,
                               * or every eligible set was significantly slower */
    DECISION_INELIGIBLE,      /* it gained only with a set whose variant was not eligible */
};

struct decision_function {
    int chosen;                 /* variant index (>= 1) or -1 */
    enum decision_reason reason;
    double share;               /* of the baseline's samples: the largest over the workloads */
    double base_samples;        /* mean per run, summed over workloads */
    struct stats_interval *by_variant;   /* [v]; [0] unused; over all workloads */
    int best_ineligible;        /* variant that would have won if eligible, or -1 */
    int *qualifies;             /* [v]: eligible, significantly faster, slower on no
                                 * workload (the share and sample rules aside) */
};

struct decision {
    size_t n_functions, n_variants;
    struct decision_function *functions;
};

void decide(const struct decision_input *in, struct decision *out);

/* Does workload w run for a fixed time instead of a fixed amount of work
 * (a benchmark looping until a deadline: tjbench -benchtime, lz4 -b -i)?
 * Then a faster clone does more iterations in the same time and no speedup
 * can show. Told from the samples, which count CPU time: with fixed work, a
 * candidate's samples that drop take the run's total down with them; with
 * fixed time, the code around the candidates runs more often and fills the
 * time they saved, and the total stays put. So w is judged fixed-time when
 * on some variant the candidates' significant changes (stats.h, summed, net)
 * move at least DECISION_FIXED_TIME_MOVE of the baseline's samples, and on
 * every such variant the total moves by less than half of that. Variants
 * never profiled (totals 0) are left out. */
#define DECISION_FIXED_TIME_MOVE 0.08
struct decision_fixed_time {
    int fixed;
    int variant;          /* the variant with the largest move, or -1 */
    double moved;         /* its candidates' net change, share of the baseline's total */
    double total_moved;   /* the change of its total, the same way */
};
void decision_fixed_time(const struct decision_input *in, size_t w, struct decision_fixed_time *out);
void decision_free(struct decision *d);

/* "selected", "cold", ... (for the reports). */
const char *decision_reason_name(enum decision_reason r);

#endif
