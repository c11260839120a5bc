/* Unit tests of the rank interval (stats_rank_log) and of where select uses
 * it (stats_compare_samples, decide()): exact Mann-Whitney p-values and
 * Hodges-Lehmann intervals against values counted by brute force (every
 * arrangement of the pooled ranks enumerated, bench/rank_sim.py's
 * reference), the normal approximation beyond 40 runs and with ties, the
 * A/A widening of a rank interval, the switch at STATS_RANK_MIN_RUNS (and
 * report.json's name for the test), and a
 * function whose 15% gain Welch's test misses among one-sided slow bursts
 * while the ranks select it - and identical arms with the same bursts that
 * they do not; end to end (stats_compare_log, slowdown.h), a selected build
 * 12% slower among the same bursts that only the ranks flag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "select/decision.h"
#include "select/report.h"
#include "select/slowdown.h"
#include "select/stats.h"

#define NEAR(x, y, eps) assert_true(fabs((x) - (y)) < (eps))

static void test_exact_values(void **state)
{
    (void)state;
    struct stats_interval iv;
    /* complete separation, 8 and 8: p = 2 / C(16,8); HL ratio 3; interval
     * [d(14), d(51)] of the 64 ratios a/b: 2 and 6 */
    double a[8] = {10, 11, 12, 13, 14, 15, 16, 17}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    stats_rank_log(a, 8, b, 8, &iv);
    assert_true(iv.valid && iv.rank && iv.log_scale);
    NEAR(iv.p, 2.0 / 12870, 1e-9);
    NEAR(iv.speedup, 3.0, 1e-9);
    NEAR(iv.speedup_lo, 2.0, 1e-9);
    NEAR(iv.speedup_hi, 6.0, 1e-9);
    assert_true(stats_faster(&iv));
    NEAR(iv.mean_a, 13.5, 1e-9);
    NEAR(iv.mean_b, 4.5, 1e-9);

    /* 6 and 6, interleaved: U = 12, p = 0.3939..., k = 5 */
    double c[6] = {3, 4, 5, 6, 7, 8}, e[6] = {1, 2, 9, 10, 11, 12};
    stats_rank_log(c, 6, e, 6, &iv);
    NEAR(iv.p, 0.393939394, 1e-6);
    NEAR(iv.speedup, 0.666666667, 1e-6);
    NEAR(iv.speedup_lo, 0.363636364, 1e-6);
    NEAR(iv.speedup_hi, 4.0, 1e-6);
    assert_false(stats_faster(&iv) || stats_slower(&iv));

    /* a 10% faster variant, both arms with slow bursts: U = 46, p = 0.1605 */
    double base[8] = {1000, 1010, 1490, 995, 1005, 1520, 1002, 1008};
    double var[8] = {900, 905, 1350, 898, 1400, 902, 910, 1380};
    stats_rank_log(base, 8, var, 8, &iv);
    NEAR(iv.p, 0.160528361, 1e-6);
    NEAR(iv.speedup, 1.107437285, 1e-6);
    NEAR(iv.speedup_lo, 0.740740741, 1e-6);
    NEAR(iv.speedup_hi, 1.122222222, 1e-6);
    /* the interval excludes 1 exactly when p < 0.05 */
    assert_int_equal(stats_faster(&iv) || stats_slower(&iv), iv.p < 0.05);

    /* invalid: a value <= 0, or fewer than 2 a side */
    double z[8] = {1, 2, 3, 4, 5, 6, 7, 0};
    stats_rank_log(a, 8, z, 8, &iv);
    assert_false(iv.valid);
    assert_true(iv.p == 1);
    stats_rank_log(a, 1, b, 8, &iv);
    assert_false(iv.valid);

    /* 3 and 3: no 95% interval exists (the smallest two-sided p is 2/20);
     * 4 and 4 separated: p = 2/70, the interval [d(1), d(16)] */
    stats_rank_log(a, 3, b, 3, &iv);
    assert_true(iv.valid);
    assert_true(isinf(iv.lo) && iv.lo < 0 && isinf(iv.hi));
    NEAR(iv.p, 0.1, 1e-9);
    assert_false(stats_faster(&iv));
    stats_rank_log(a, 4, b, 4, &iv);
    NEAR(iv.p, 2.0 / 70, 1e-9);
    NEAR(iv.speedup_lo, 10.0 / 4, 1e-9);
    NEAR(iv.speedup_hi, 13.0 / 1, 1e-9);
    assert_true(stats_faster(&iv));
}

/* Beyond 40 runs a side, and with ties: the normal approximation. */
static void test_normal_approximation(void **state)
{
    (void)state;
    enum { N = 50 };
    double a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = 1000 + 3 * i;          /* 1000 .. 1147 */
        b[i] = 900 + 3 * i;           /* 10% below, overlapping */
        c[i] = 1000 + 3 * ((i * 7) % N);   /* a permutation of a: every value tied */
    }
    struct stats_interval iv;
    stats_rank_log(a, N, b, N, &iv);
    assert_true(iv.valid && iv.rank);
    assert_true(iv.p < 1e-6);
    assert_true(stats_faster(&iv));
    NEAR(log(iv.speedup), log(1.1), 0.02);
    assert_true(iv.speedup_lo > 1 && iv.speedup_hi < 1.25);

    stats_rank_log(a, N, c, N, &iv);   /* identical samples: no difference at all */
    assert_true(iv.valid);
    NEAR(iv.p, 1.0, 1e-9);
    NEAR(iv.speedup, 1.0, 1e-12);
    assert_false(stats_faster(&iv) || stats_slower(&iv));
}

/* A rank interval widened by an A/A margin: p recomputed from its
 * half-width toward 0, p < 0.05 exactly when the widened interval excludes 0. */
static void test_widen_rank(void **state)
{
    (void)state;
    double a[8] = {10, 11, 12, 13, 14, 15, 16, 17}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct stats_interval iv;
    stats_rank_log(a, 8, b, 8, &iv);
    double lo = iv.lo;
    stats_widen(&iv, lo / 2);   /* still excludes 0 */
    assert_true(stats_faster(&iv));
    assert_true(iv.p < 0.05 && iv.p > 2.0 / 12870);
    stats_rank_log(a, 8, b, 8, &iv);
    stats_widen(&iv, lo * 1.01);   /* now holds 0 */
    assert_false(stats_faster(&iv));
    assert_true(iv.p >= 0.05);
    stats_rank_log(a, 8, b, 8, &iv);
    stats_widen(&iv, log(iv.speedup) + 0.01);   /* beyond the estimate */
    NEAR(iv.p, 1.0, 1e-12);
    NEAR(stats_t_pvalue(1.959964, INFINITY), 0.05, 1e-5);
}

/* stats_compare_samples: Welch below STATS_RANK_MIN_RUNS, ranks from it,
 * linear Welch when a run sampled nothing. */
static void test_compare_switch(void **state)
{
    (void)state;
    double a[8] = {10, 11, 12, 13, 14, 15, 16, 17}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct stats_interval iv;
    stats_compare_samples(a, STATS_RANK_MIN_RUNS - 1, b, STATS_RANK_MIN_RUNS - 1, &iv);
    assert_true(iv.valid && iv.log_scale && !iv.rank);
    stats_compare_samples(a, STATS_RANK_MIN_RUNS, b, STATS_RANK_MIN_RUNS, &iv);
    assert_true(iv.valid && iv.log_scale && iv.rank);
    json_t *o = select_interval_json(&iv);   /* report.json names the test */
    assert_string_equal(json_string_value(json_object_get(o, "test")), "mann-whitney");
    json_decref(o);
    b[3] = 0;
    stats_compare_samples(a, 8, b, 8, &iv);
    assert_true(iv.valid && !iv.log_scale && !iv.rank);
    o = select_interval_json(&iv);
    assert_string_equal(json_string_value(json_object_get(o, "test")), "welch");
    json_decref(o);
}

/* One function, one workload, baseline + one variant + the A/A arm, 10
 * runs, three of each arm slowed 1.45-1.6x (a busy host), at different
 * rounds: `gain` the variant's speedup on its undisturbed runs. */
#define NR 10
static const double jitter[NR] = {0, 6, -5, 3, -2, 8, -7, 1, -3, 5};
static const double burst_base[NR] = {1, 1.5, 1, 1, 1.45, 1, 1, 1.6, 1, 1};
static const double burst_var[NR] = {1.55, 1, 1, 1.5, 1, 1, 1.45, 1, 1, 1};
static const double burst_aa[NR] = {1, 1, 1.6, 1, 1, 1.5, 1, 1, 1.45, 1};

static double base_run(size_t r)
{
    return (1000 + jitter[r]) * burst_base[r];
}

static double variant_run(size_t r, double gain)
{
    return (1000 / gain + jitter[(r + 3) % NR]) * burst_var[r];
}

static void burst_decide(double gain, size_t n_runs, struct decision *d)
{
    static const char *const names[1] = {"f"};
    static const int eligible[2] = {0, 1};
    double samples[2 * NR], totals[2 * NR], aa_samples[NR], aa_totals[NR];
    for (size_t r = 0; r < n_runs; r++) {
        samples[r] = base_run(r);
        samples[n_runs + r] = variant_run(r, gain);
        aa_samples[r] = (1000 + jitter[(r + 6) % NR]) * burst_aa[r];
        totals[r] = 2 * samples[r];
        totals[n_runs + r] = 2 * samples[n_runs + r];
        aa_totals[r] = 2 * aa_samples[r];
    }
    struct decision_input in = {.n_functions = 1, .n_workloads = 1, .n_variants = 2, .n_runs = n_runs,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20,
                                .aa_samples = aa_samples, .aa_totals = aa_totals};
    decide(&in, d);
}

static void test_bursts(void **state)
{
    (void)state;
    struct decision d;
    /* 10 runs: the ranks see the 15% gain through the bursts */
    burst_decide(1.15, NR, &d);
    assert_true(d.functions[0].by_variant[1].rank);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_int_equal(d.functions[0].chosen, 1);
    NEAR(d.functions[0].by_variant[1].speedup, 1.15, 0.03);
    decision_free(&d);
    /* the same runs under Welch's test (what select did): no verdict */
    {
        double base[NR], var[NR];
        for (size_t r = 0; r < NR; r++) base[r] = base_run(r), var[r] = variant_run(r, 1.15);
        struct stats_interval w;
        stats_welch_log(base, NR, var, NR, &w);
        assert_false(stats_faster(&w));
    }
    /* identical arms with the same bursts: nothing selected */
    burst_decide(1.0, NR, &d);
    assert_int_not_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_int_equal(d.functions[0].chosen, -1);
    decision_free(&d);
    /* 5 runs (select's default): Welch, as before */
    burst_decide(1.15, 5, &d);
    assert_false(d.functions[0].by_variant[1].rank);
    decision_free(&d);
}

/* A workload's seconds per run end to end: the same switch at
 * STATS_RANK_MIN_RUNS, and invalid (not a linear interval) with a run of 0
 * s. */
static void test_compare_log(void **state)
{
    (void)state;
    double a[8] = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}, b[8] = {2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7};
    struct stats_interval iv;
    stats_compare_log(a, STATS_RANK_MIN_RUNS - 1, b, STATS_RANK_MIN_RUNS - 1, &iv);
    assert_true(iv.valid && iv.log_scale && !iv.rank && stats_slower(&iv));
    stats_compare_log(a, STATS_RANK_MIN_RUNS, b, STATS_RANK_MIN_RUNS, &iv);
    assert_true(iv.valid && iv.log_scale && iv.rank && stats_slower(&iv));
    b[2] = 0;
    stats_compare_log(a, 8, b, 8, &iv);
    assert_false(iv.valid);
    stats_compare_log(a, 1, b, 1, &iv);
    assert_false(iv.valid);
}

/* The selected build 12% slower on its undisturbed runs, both arms with
 * one-sided bursts: slowdown_confirm (the fresh runs of a flagged
 * workload) reads it slower by rank from 10 runs; Welch's interval, what it
 * used before, holds 1. */
static void test_e2e_bursts(void **state)
{
    (void)state;
    double base_s[NR], sel_s[NR];
    for (size_t r = 0; r < NR; r++) {
        base_s[r] = base_run(r) / 1000;   /* seconds, the baseline's bursts */
        sel_s[r] = variant_run(r, 1 / 1.12) / 1000;
    }
    struct timing_result base = {.runs = NR, .seconds = base_s, .cpu_seconds = base_s},
                         sel = {.runs = NR, .seconds = sel_s, .cpu_seconds = sel_s};
    struct stats_interval wall, cpu;
    assert_int_equal(slowdown_confirm(&base, &sel, 0, 1, &wall, &cpu), 1);
    assert_true(cpu.rank && wall.rank);
    NEAR(cpu.speedup, 1 / 1.12, 0.03);
    struct stats_interval w;
    stats_welch_log(base_s, NR, sel_s, NR, &w);
    assert_false(stats_slower(&w));
    /* identical builds with the same bursts: not slower */
    for (size_t r = 0; r < NR; r++) sel_s[r] = variant_run(r, 1) / 1000;
    assert_int_equal(slowdown_confirm(&base, &sel, 0, 1, &wall, &cpu), 0);
    /* 5 runs: Welch */
    base.runs = sel.runs = 5;
    slowdown_confirm(&base, &sel, 0, 1, &wall, &cpu);
    assert_false(cpu.rank);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_values),        cmocka_unit_test(test_normal_approximation),
        cmocka_unit_test(test_widen_rank),          cmocka_unit_test(test_compare_switch),
        cmocka_unit_test(test_bursts),              cmocka_unit_test(test_compare_log),
        cmocka_unit_test(test_e2e_bursts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
