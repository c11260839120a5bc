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
 * Among the sets that qualify it takes the one with the best speedup.
 *
 * Many small gains: a project can have several functions that each gain a
 * few percent, none significantly on its own with a handful of runs, while
 * cloning them all does pay (the all-candidates build beats a selection of
 * the significant ones). So the functions left without a verdict against
 * them (cold, too few samples, no significant gain) are also judged as one
 * group: per eligible set, their samples summed per run. The group is fixed
 * before any speedup is looked at - picking the functions that happened to
 * gain and then testing their sum would find "gains" in pure noise. When
 * the group is significantly faster with a set (and slower on no workload),
 * holds min_share of some workload and enough samples, its members that
 * gained (fewer mean samples with the set, significantly slower on no
 * workload) and hold at least DECISION_GROUP_MEMBER_SHARE of some workload
 * are selected together with that set (DECISION_SELECTED_TOGETHER). The
 * end-to-end confirmation then checks the whole selection.
 *
 * Statistics that hold on identical code:
 *   - A/A calibration: the baseline also runs as an arm of its own (same
 *     build, its own place in each round's random order). Per function, the
 *     interval of baseline vs A/A is what identical code shows; when it
 *     excludes no change, every interval of that function is widened by its
 *     far bound (stats_widen): a variant must beat the baseline by more than
 *     the baseline differs from itself (DECISION_CALIBRATION otherwise). The
 *     same is done with each workload's total samples for the end-to-end
 *     intervals (decision.aa_workload, applied by the confirmation).
 *   - Many tests: every (hot function, target set) comparison with an
 *     interval is one test of a family; a function is selected only when
 *     Holm-Bonferroni rejects "no change" for it at alpha (0.05 family-wise)
 *     besides its interval excluding it (DECISION_MULTIPLE_TESTS otherwise).
 *     The group of small gains is a test of its own per eligible set, at
 *     alpha divided by the number of sets tested (Bonferroni).
 *   - Held back by Holm alone (the interval excludes no change, the other
 *     criteria are met: decision_function.held): such comparisons can be
 *     tested again on fresh runs (decision_confirm.h), a family of their
 *     own; those it rejects are selected (DECISION_CONFIRMED).
 *   - Smaller code: among the sets that qualify, the fastest is taken unless
 *     the interval of a set whose clones add fewer bytes (code_bytes)
 *     overlaps its interval: then the smallest such set (the measurements
 *     cannot tell them apart; the code they add can). */
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
    /* [v], or NULL: every variant ran. 0: v's build failed or its
     * workloads never ran (its --test failed): its samples are no
     * measurement, so it gets no interval and no verdict rests on it. */
    const int *variant_profiled;
    /* [f * n_variants + v], or NULL: variant_eligible for every function.
     * A function can be eligible for a variant that is not: its clones
     * there hold no FMA instruction, so they compute what the baseline
     * does, while other functions' FMA made the outputs differ. */
    const int *function_eligible;
    double min_share;              /* e.g. 0.02 */
    double min_samples;            /* e.g. 20 */
    /* The A/A arm: the baseline run again as an arm of its own in the same
     * rounds. aa_samples[(w * n_functions + f) * n_runs + r], aa_totals[w *
     * n_runs + r]; both NULL: no calibration. */
    const double *aa_samples, *aa_totals;
    /* [f * n_variants + v]: bytes f's clones add in variant v's build, < 0
     * when unknown; NULL: none known (the fastest set is kept). */
    const double *code_bytes;
    double alpha;                  /* family-wise error rate; 0: DECISION_ALPHA */
    /* [f * n_variants + v], or NULL: none known. 1 when every clone of f in
     * variant v's build is f's default code (select/cloneisa.h): v cannot
     * change f's time, so whatever its runs show is noise. Such a pair is
     * no test of the family and never qualifies; a function whose every
     * set is such gets DECISION_SAME_CODE. */
    const int *same_code;
};

#define DECISION_ALPHA 0.05

enum decision_reason {
    DECISION_SELECTED,
    DECISION_COLD,            /* share below min_share */
    DECISION_FEW_SAMPLES,     /* too few samples for a verdict */
    DECISION_NO_GAIN,         /* no eligible set made it significantly faster */
    DECISION_SLOWER,          /* every set that gained somewhere was slower elsewhere,
                               * or every eligible set was significantly slower */
    DECISION_INELIGIBLE,      /* it gained only with a set whose variant was not eligible */
    DECISION_SELECTED_TOGETHER, /* not significant alone; selected with the group of
                                 * small gains, which is (struct decision_group) */
    DECISION_MULTIPLE_TESTS,  /* its interval excludes no change, but Holm over all the
                               * functions' tests does not reject it */
    DECISION_CALIBRATION,     /* faster, but by no more than the baseline differs from
                               * itself (its interval widened by the A/A calibration) */
    DECISION_SAME_CODE,       /* with every set, its clones are its default's code */
    DECISION_CODE_BUDGET,     /* selected by its timings, dropped for the code-growth
                               * budget (select/budget.h): the fit keeping the most gain leaves it out */
    DECISION_CONFIRMED,       /* held back by Holm (DECISION_MULTIPLE_TESTS), or
                               * near-significant, then confirmed on fresh runs
                               * (decision_confirm.h) */
};

/* A group member must hold this fraction of min_share of some workload: a
 * function below it adds clones for a gain no run can show. */
#define DECISION_GROUP_MEMBER_SHARE 0.1

struct decision_function {
    int chosen;                 /* variant index (>= 1) or -1 */
    enum decision_reason reason;
    double share;               /* of the baseline's samples: the largest over the workloads */
    double base_samples;        /* mean per run, summed over workloads */
    struct stats_interval *by_variant;   /* [v]; [0] unused; over all workloads */
    int best_ineligible;        /* variant that would have won if eligible, or -1 */
    int *qualifies;             /* [v]: eligible, significantly faster, slower on no
                                 * workload (the share and sample rules aside) */
    int *holm;                  /* [v]: in the family of tests and rejected by Holm */
    int *held;                  /* [v]: significantly faster by its own interval, eligible,
                                 * slower on no workload, but not rejected by Holm */
    /* Sets faster by their own interval, not rejected by Holm, and not held
     * (so never retested): how many because their outputs or tests differ
     * (not eligible), how many because they are slower on some workload */
    int n_unheld_ineligible, n_unheld_slower;
    /* The confirmation on fresh runs (decision_confirm.h): NULL when f was
     * not retested, else [v]: the fresh runs' interval of each retested set
     * (A/A-widened; invalid for the others) */
    struct stats_interval *confirm;
    int *confirm_holm;          /* [v]: with confirm, rejected by the retest's Holm */
    /* With confirm: [v * n_workloads + w], the share of workload w's
     * baseline samples set v saved in the fresh runs (decision_saved_share
     * on them; 0 for a set not retested) */
    double *confirm_saved;
    /* >= 1: near-significant with this set and retested on fresh runs
     * (decision_confirm_near); 0: not */
    int near_set;
    double near_saved;          /* with near_set: the largest share of a workload's time
                                 * the first runs say it saved with that set */
    int confirmed;              /* 1 or 2: confirmed by the retest (DECISION_CONFIRMED) at
                                 * that look (decision_confirm.h); stays set when the
                                 * code-growth budget drops it afterwards */
    int fastest;                /* the qualifying set with the best speedup, or -1;
                                 * chosen differs when a smaller-code set overlaps it */
    int budget_dropped;         /* >= 1: DECISION_CODE_BUDGET dropped it with this set, the
                                 * one its summary line and bytes show; else 0 */
    int budget_from;            /* >= 1: the set its timings chose, which the code-growth
                                 * budget replaced by the cheaper chosen (select/budget.h);
                                 * 0: not replaced */
    int budget_room;            /* 1: kept with its set only because the code-growth budget
                                 * gave others cheaper sets (select/budget_sets.h) */
    double budget_alone;        /* with budget_dropped: the bytes it would add selected
                                 * alone, with the fixed parts it needs (CPU detection,
                                 * padding); 0: unknown */
    int budget_needs_growth;    /* with budget_alone: the smallest whole --max-growth
                                 * percent whose fit holds budget_alone; else 0 */
    struct stats_interval aa;   /* baseline vs the A/A arm (valid: calibrated) */
    double aa_margin;           /* > 0: aa excluded no change; by_variant widened by it */
    int aa_biased;              /* 1: judged (hot) and aa excluded no change: counted in
                                 * decision.n_aa_biased, named by the A/A note; a cold
                                 * function's aa_margin is not (too few samples to tell) */
};

/* The group of small gains (see the top). */
struct decision_group {
    int chosen;                  /* variant index (>= 1) the members got, or -1 */
    size_t n_pool;               /* functions judged together */
    size_t n_members;            /* of them, selected (DECISION_SELECTED_TOGETHER) */
    double share;                /* the pool's largest share of a workload's baseline */
    struct stats_interval by_variant_chosen;   /* the pool's interval with chosen */
};

struct decision {
    size_t n_functions, n_variants, n_workloads;
    struct decision_function *functions;
    struct decision_group group;
    double alpha;
    size_t n_tests;              /* the family Holm corrects over */
    size_t n_unadjusted;         /* functions significant by their interval alone
                                  * that Holm held back (before any confirmation) */
    int calibrated;              /* an A/A arm ran */
    size_t n_aa_checked, n_aa_biased;   /* functions with an A/A interval; of them,
                                         * excluding no change (widened) */
    /* [w]: each workload's total samples, baseline vs A/A; aa_workload_margin[w] >
     * 0 when it excluded no change (the end-to-end intervals get widened by it) */
    struct stats_interval *aa_workload;
    double *aa_workload_margin;
    struct decision_confirmation {
        size_t n_asked;          /* fresh rounds --confirm-runs asks for when something
                                  * is held back; 0: the stage is off (set by the caller) */
        size_t n_runs;           /* fresh rounds run; 0: no confirmation stage */
        size_t n_tests;          /* comparisons retested: the family of the retest */
        size_t n_functions;      /* functions retested */
        size_t n_confirmed;      /* of them, selected (DECISION_CONFIRMED) */
        size_t n_near;           /* of the functions retested, those retested as near-significant
                                  * (decision_confirm_near), not held back by Holm */
        size_t n_near_found;     /* near-significant before the cap (DECISION_NEAR_MAX) */
        size_t n_near_confirmed; /* of n_near, confirmed */
        int calibrated;          /* the fresh rounds had an A/A arm */
        double alpha;            /* each look's family-wise level; 0: the decision's alpha
                                  * (set by the caller: alpha / 2 with a second look) */
        int n_looks;             /* 1, or 2 after decision_confirm_again */
        size_t n_runs_first;     /* the first look's fresh rounds (n_runs: all of them) */
        size_t n_confirmed_second;   /* of n_confirmed, at the second look */
        size_t n_profiled_runs;  /* runs of those rounds (set by the caller) */
    } confirmation;
};

void decide(const struct decision_input *in, struct decision *out);

/* For decision_confirm.c: per run, f's samples in variant v (in the A/A
 * arm) summed over the workloads; f significantly slower with v on some
 * workload (with two workloads or more). */
void decision_summed(const struct decision_input *in, size_t v, size_t f, double *out);
void decision_aa_summed(const struct decision_input *in, size_t f, double *out);
int decision_slower_somewhere(const struct decision_input *in, size_t v, size_t f);

/* The share of workload w's baseline samples that function f's clones of
 * variant v saved in the profiled runs (mean baseline minus mean variant,
 * over the baseline's mean total; negative when it got slower). */
double decision_saved_share(const struct decision_input *in, size_t w, size_t f, size_t v);

/* Does a workload run for a fixed time instead of a fixed amount of work (a
 * benchmark looping until a deadline: tjbench -benchtime, lz4 -b -i)? Then
 * a faster clone does more iterations in the same time and no speedup can
 * show in time. Told from two measurements that disagree: the profiles say
 * the selected functions saved `saved` of the workload's time (their samples
 * fell; samples count CPU time, which a busy machine shares out unevenly,
 * so they cannot tell fixed time alone), while the end-to-end wall times
 * of the baseline and the selected build (e2e, stats_compare_log) show no
 * significant gain and exclude even half of the predicted one
 * (1 / (1 - saved/2)). At least DECISION_FIXED_TIME_SAVED must have been
 * saved for a verdict. */
#define DECISION_FIXED_TIME_SAVED 0.08
int decision_fixed_time(double saved, const struct stats_interval *e2e);
/* Did the wall times of a workload measure waits rather than work? 1 when
 * the baseline's median wall time is at least DECISION_WAITS_RATIO times its
 * median CPU time: its runs waited - for a busy machine's CPUs, or for I/O -
 * and clones change the work, not the waits, so the CPU-time interval is the
 * steadier figure. */
#define DECISION_WAITS_RATIO 1.3
int decision_waits_dominate(double wall_median, double cpu_median);

void decision_free(struct decision *d);

/* The set to take among the qualifying ones (qualifies[v], v >= 1): the
 * fastest (by_variant[v].speedup), unless the interval of a set whose clones
 * add fewer bytes (bytes[v] >= 0) overlaps the fastest's interval: then
 * the one of those that adds the fewest. -1 when none qualifies. */
int decision_prefer_smaller(const struct stats_interval *by_variant, const int *qualifies, const double *bytes,
                            size_t n_variants);

/* The margin an A/A interval asks for on the scale of iv (log or linear,
 * converted through the baseline mean when they differ): 0 when aa
 * includes no change. */
double decision_aa_margin(const struct stats_interval *aa, const struct stats_interval *iv);

/* "selected", "cold", ... (for the reports). */
const char *decision_reason_name(enum decision_reason r);
/* A short stable code: "cold", "no-gain", "multiple-tests", ... */
const char *decision_reason_code(enum decision_reason r);

#endif
