/* stats.h - the statistics `fmvgen select` decides with: a confidence
 * interval for "how much less time does B take than A" from repeated runs
 * (Welch's t on the two samples' means: no equal-variance assumption, since a
 * faster clone often also varies less; or, for a function's samples from
 * enough runs, a rank interval: see stats_compare_samples), and the speedup
 * that goes with it.
 *
 * The samples are whatever the caller measured per run: a function's profile
 * samples (its CPU time in units of the sampling period) or a whole run's
 * wall time. One number per run, never one sample for a verdict. */
#ifndef FMVGEN_SELECT_STATS_H
#define FMVGEN_SELECT_STATS_H

#include <stddef.h>

double stats_mean(const double *v, size_t n);
/* Sample standard deviation (n-1); 0 for n < 2. */
double stats_sd(const double *v, size_t n);

/* Two-sided 95% quantile of Student's t with df degrees of freedom
 * (df may be fractional, as Welch's is); df <= 0 gives +inf. */
double stats_t975(double df);

struct stats_interval {
    int valid;            /* 0: fewer than 2 values on a side: no interval */
    double mean_a, mean_b;
    double diff, lo, hi;  /* mean_a - mean_b with its 95% interval */
    double speedup;       /* mean_a / mean_b; +inf when only mean_b is 0 (B never
                           * sampled), 1 when both are (nothing measured) */
    double speedup_lo, speedup_hi;   /* mean_a / (mean_a - lo|hi), the same way;
                                      * +inf when unbounded */
    int log_scale;        /* diff/lo/hi are differences of logs (stats_welch_log) */
    int rank;             /* a rank interval (stats_rank_log): diff is the
                           * Hodges-Lehmann shift, p the Mann-Whitney test's */
    double se, df;        /* standard error of diff and Welch's degrees of freedom;
                           * a rank interval: its half-width toward 0 / 1.96 and
                           * df = INFINITY (what stats_widen recomputes p from) */
    double p;             /* two-sided p-value of "no difference" (beyond widened),
                           * 1 when not valid; p < 0.05 as the interval excludes 0 */
    double widened;       /* the margin stats_widen added on each side, 0 when none */
};

/* Welch's interval for mean(a) - mean(b). lo > 0: B is significantly
 * faster; hi < 0: significantly slower. */
void stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out);

/* The same on log(a) - log(b), for positive values such as run times: the
 * interval of the ratio mean_a/mean_b is multiplicative (exp of the log
 * interval), never unbounded, and an outlier run weighs less. speedup is
 * exp(mean log a - mean log b); diff/lo/hi are on the log scale. Values <= 0
 * make the interval invalid. */
void stats_welch_log(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out);

/* The rank interval on log(a) - log(b): diff is the Hodges-Lehmann shift
 * (the median of the na*nb pairwise differences of logs), lo/hi the
 * distribution-free 95% interval that inverts the Wilcoxon-Mann-Whitney
 * test, p that test's two-sided p-value (exact without ties up to 40 runs a
 * side, else the normal approximation): p < 0.05 exactly when the interval
 * excludes 0 (without ties). Speedups as stats_welch_log. It assumes
 * nothing of the noise's shape: one run in three slowed by 1.5x moves a
 * mean (and widens Welch's interval) but barely moves ranks. With too few
 * runs for any 95% interval (3 and 3, or fewer) lo/hi are -inf/+inf. Values
 * <= 0 or fewer than 2 a side make the interval invalid. */
void stats_rank_log(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out);

/* Runs a side from which stats_compare_samples uses the rank interval: with
 * 8 and 8 the smallest p the test can give is 2/C(16,8) = 0.00016, so Holm
 * can reject in a family of up to 300 comparisons; with 5 and 5 (select's
 * default) it is 0.0079, which no family of 7 or more can ever reject. */
#define STATS_RANK_MIN_RUNS 8
#define STATS_RANK_MIN_RUNS_TEXT "8"

/* For a function's profile samples per run, machine noise being
 * multiplicative (a run slowed by a busy neighbour is slowed in every
 * function by one factor, and one such run out of three hides even a 5x gain
 * on the linear scale), when every run on both sides sampled it:
 *   - stats_rank_log with at least STATS_RANK_MIN_RUNS runs a side: the
 *     slowdowns a shared machine causes are one-sided bursts (some runs
 *     1.3-1.6x slower, none faster), which inflate Welch's variance and hide
 *     gains of 10-15% that the runs' ranks still show
 *     (bench/rank_sim.py: the same 5% false positives, 2-4x the power);
 *   - stats_welch_log with fewer.
 * stats_welch where some run has none (a function the clones made vanish, or
 * one never sampled), where a log has no meaning. */
void stats_compare_samples(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out);

/* For a workload's seconds per run (wall or CPU, end to end), compared on
 * the log scale: stats_rank_log with at least STATS_RANK_MIN_RUNS runs a
 * side (the slow bursts of a shared machine move a whole run as they move
 * a function's samples), stats_welch_log with fewer. Values <= 0 or fewer
 * than 2 a side make the interval invalid, as stats_welch_log's. */
void stats_compare_log(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out);

/* Two-sided p-value of Student's t statistic t with df degrees of freedom
 * (P(|T| >= |t|)); 1 when df <= 0; the normal P(|Z| >= |t|) when df is
 * INFINITY. */
double stats_t_pvalue(double t, double df);

/* Widens iv by margin on each side of its scale (log or linear): lo -=
 * margin, hi += margin, the speedups and p recomputed so that p is the
 * p-value of "the difference is no larger than margin" (p < 0.05 exactly
 * when the widened 95% interval excludes 0). Used with the A/A calibration:
 * a difference two identical arms also show is no gain. margin <= 0 or an
 * invalid interval: nothing changes. */
void stats_widen(struct stats_interval *iv, double margin);

/* Holm-Bonferroni over m p-values at family-wise level alpha: sorted
 * ascending, the k-th smallest (k = 0..m-1) is rejected while every one
 * before it was and p <= alpha / (m - k). reject[i] = 1 for the rejected
 * hypotheses (p[i] of NaN counts as 1). */
void stats_holm(const double *p, size_t m, double alpha, int *reject);

/* 1 when the interval excludes no change in B's favour (lo > 0). */
int stats_faster(const struct stats_interval *iv);
/* 1 when B is significantly slower (hi < 0). */
int stats_slower(const struct stats_interval *iv);

#endif
