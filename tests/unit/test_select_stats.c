/* Unit tests of the statistics that hold select's verdicts on identical
 * code: p-values of Welch's t (known values, agreeing with the 95%
 * interval), widening an interval by an A/A margin, Holm-Bonferroni on
 * hand-made p-values, the seeded order of the arms in each round
 * (deterministic for a seed, every arm once per round, rounds differ), the
 * preference for the set adding less code when intervals overlap, and the
 * A/A calibration inside decide(): a bias two identical arms show keeps a
 * function of that size from being selected, and Holm holds back a
 * borderline gain among many tests; the A/A note names only the hot
 * functions it counts, not a cold one whose few samples differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/decision.h"
#include "select/report.h"
#include "select/stats.h"
#include "test_select_helpers.h"
#include "util/shuffle.h"

static void test_pvalue(void **state)
{
    (void)state;
    /* t at the 97.5% quantile gives p = 0.05 */
    assert_true(fabs(stats_t_pvalue(12.706, 1) - 0.05) < 1e-3);
    assert_true(fabs(stats_t_pvalue(2.776, 4) - 0.05) < 1e-3);
    assert_true(fabs(stats_t_pvalue(-2.228, 10) - 0.05) < 1e-3);
    assert_true(fabs(stats_t_pvalue(1.96, 1e6) - 0.05) < 1e-3);
    /* t = 1, df = 1 (Cauchy): P(|T| >= 1) = 0.5 */
    assert_true(fabs(stats_t_pvalue(1, 1) - 0.5) < 1e-9);
    assert_true(fabs(stats_t_pvalue(0, 5) - 1) < 1e-9);
    assert_true(stats_t_pvalue(50, 3) < 1e-4);
    assert_true(stats_t_pvalue(INFINITY, 3) == 0);
    assert_true(stats_t_pvalue(2, 0) == 1);

    /* the p-value agrees with the interval */
    double a[] = {10, 11, 9, 10, 10}, b[] = {5, 5.5, 4.5, 5, 5}, c[] = {10, 14, 6, 12, 8}, d[] = {9, 13, 7, 11, 9};
    struct stats_interval iv;
    stats_welch(a, 5, b, 5, &iv);
    assert_true(stats_faster(&iv) && iv.p < 0.05);
    stats_welch(c, 5, d, 5, &iv);
    assert_true(!stats_faster(&iv) && iv.p > 0.05);
    stats_welch(a, 1, b, 1, &iv);
    assert_true(iv.p == 1);
}

static void test_widen(void **state)
{
    (void)state;
    double a[] = {100, 102, 98, 101, 99}, b[] = {90, 92, 88, 91, 89};
    struct stats_interval iv;
    stats_welch_log(a, 5, b, 5, &iv);
    assert_true(iv.log_scale && stats_faster(&iv));
    double lo = iv.speedup_lo, hi = iv.speedup_hi, diff = iv.diff;
    /* widened by less than its gain: still faster, a wider interval, a larger p */
    double p0 = iv.p;
    stats_widen(&iv, 0.02);
    assert_true(iv.speedup_lo < lo && iv.speedup_hi > hi && fabs(iv.diff - diff) < 1e-12);
    assert_true(fabs(iv.speedup_lo * exp(0.02) - lo) < 1e-9);
    assert_true(stats_faster(&iv) && iv.p > p0 && iv.p < 0.05);
    /* by as much as the whole gain: no verdict, p = 1 */
    stats_widen(&iv, diff);
    assert_false(stats_faster(&iv));
    assert_true(iv.p == 1);
    /* on the linear scale, speedups through the baseline mean */
    stats_welch(a, 5, b, 5, &iv);
    stats_widen(&iv, 5);
    assert_true(fabs(iv.speedup_lo - iv.mean_a / (iv.mean_a - iv.lo)) < 1e-9);
    assert_true(fabs(iv.widened - 5) < 1e-12);
    /* nothing happens with no margin */
    stats_welch(a, 5, b, 5, &iv);
    struct stats_interval same = iv;
    stats_widen(&iv, 0);
    assert_memory_equal(&iv, &same, sizeof iv);
}

static void test_holm(void **state)
{
    (void)state;
    /* m = 4, alpha 0.05: thresholds 0.0125, 0.0167, 0.025, 0.05 in p order */
    double p[] = {0.04, 0.001, 0.013, 0.02};
    int rej[4];
    stats_holm(p, 4, 0.05, rej);
    /* 0.001 <= 0.0125 yes; 0.013 <= 0.0167 yes; 0.02 <= 0.025 yes; 0.04 <= 0.05 yes */
    assert_int_equal(rej[0] + rej[1] + rej[2] + rej[3], 4);
    double q[] = {0.04, 0.001, 0.013, 0.03};
    stats_holm(q, 4, 0.05, rej);
    /* 0.03 > 0.025 stops the steps: it and 0.04 stay */
    assert_int_equal(rej[1], 1);
    assert_int_equal(rej[2], 1);
    assert_int_equal(rej[3], 0);
    assert_int_equal(rej[0], 0);
    /* the step-down stops at the first failure, even when a later p would pass its own threshold */
    double r[] = {0.02, 0.02, 0.02};
    stats_holm(r, 3, 0.05, rej);
    assert_int_equal(rej[0] + rej[1] + rej[2], 0);   /* 0.02 > 0.0167 */
    /* one test: the plain level */
    double one[] = {0.049};
    stats_holm(one, 1, 0.05, rej);
    assert_int_equal(rej[0], 1);
    /* a NaN counts as 1; an empty family is fine */
    double nan_p[] = {NAN, 0.001};
    stats_holm(nan_p, 2, 0.05, rej);
    assert_int_equal(rej[0], 0);
    assert_int_equal(rej[1], 1);
    stats_holm(NULL, 0, 0.05, rej);
}

static void test_round_order(void **state)
{
    (void)state;
    enum { N = 4, ROUNDS = 40 };
    size_t a[N], b[N];
    int first[N] = {0}, differs = 0;
    for (size_t round = 0; round < ROUNDS; round++) {
        shuffle_round_order(12345, round, N, a);
        shuffle_round_order(12345, round, N, b);
        assert_memory_equal(a, b, sizeof a);   /* deterministic for a seed */
        int seen[N] = {0};
        for (size_t i = 0; i < N; i++) {
            assert_true(a[i] < N);
            seen[a[i]]++;
        }
        for (size_t i = 0; i < N; i++) assert_int_equal(seen[i], 1);   /* every arm, once */
        first[a[0]]++;
        shuffle_round_order(12346, round, N, b);
        differs |= memcmp(a, b, sizeof a) != 0;
    }
    assert_true(differs);   /* another seed, another order */
    for (size_t i = 0; i < N; i++) assert_true(first[i] > 0);   /* every arm leads some round */
    shuffle_round_order(1, 0, 1, a);
    assert_int_equal(a[0], 0);
    shuffle_round_order(1, 0, 0, a);
    assert_true(shuffle_new_seed() < (1ULL << 53));
}

static struct stats_interval ratio_iv(double s, double lo, double hi)
{
    return (struct stats_interval){.valid = 1, .speedup = s, .speedup_lo = lo, .speedup_hi = hi};
}

static void test_prefer_smaller(void **state)
{
    (void)state;
    struct stats_interval iv[3] = {{0}, ratio_iv(1.50, 1.30, 1.70), ratio_iv(1.40, 1.20, 1.60)};
    int q[3] = {0, 1, 1};
    double bytes[3] = {0, 900, 400};
    /* overlapping intervals: the set adding less code */
    assert_int_equal(decision_prefer_smaller(iv, q, bytes, 3), 2);
    /* no code sizes: the fastest */
    assert_int_equal(decision_prefer_smaller(iv, q, NULL, 3), 1);
    double unknown[3] = {0, 900, -1};
    assert_int_equal(decision_prefer_smaller(iv, q, unknown, 3), 1);
    /* the fastest is also the smallest */
    double smaller1[3] = {0, 300, 400};
    assert_int_equal(decision_prefer_smaller(iv, q, smaller1, 3), 1);
    /* disjoint intervals: the measurements tell them apart, the fastest stays */
    iv[2] = ratio_iv(1.15, 1.10, 1.20);
    assert_int_equal(decision_prefer_smaller(iv, q, bytes, 3), 1);
    /* only qualifying sets count */
    iv[2] = ratio_iv(1.40, 1.20, 1.60);
    int only1[3] = {0, 1, 0};
    assert_int_equal(decision_prefer_smaller(iv, only1, bytes, 3), 1);
    int none[3] = {0, 0, 0};
    assert_int_equal(decision_prefer_smaller(iv, none, bytes, 3), -1);
}

/* One function, one workload, baseline + one variant + the A/A arm, 5 runs:
 * base ~1000 samples, the variant `variant` and the A/A arm `aa`. */
#define NR 5
static void aa_decide(double variant, double aa, const double *bytes, struct decision *d)
{
    static const char *const names[1] = {"f"};
    static const double jitter[NR] = {0, 4, -4, 2, -2};
    static const int eligible[2] = {0, 1};
    double samples[2 * NR], totals[2 * NR], aa_samples[NR], aa_totals[NR];
    for (size_t r = 0; r < NR; r++) {
        samples[r] = 1000 + jitter[r];
        samples[NR + r] = variant + jitter[(r + 2) % NR];
        aa_samples[r] = aa + jitter[(r + 1) % NR];
        totals[r] = totals[NR + r] = 4000 + jitter[r];
        aa_totals[r] = 4000 * aa / 1000 + jitter[(r + 3) % NR];
    }
    struct decision_input in = {.n_functions = 1, .n_workloads = 1, .n_variants = 2, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20,
                                .aa_samples = aa_samples, .aa_totals = aa_totals, .code_bytes = bytes};
    decide(&in, d);
}

static void test_aa_calibration(void **state)
{
    (void)state;
    struct decision d;
    /* identical arms agree: a 5% gain is selected, nothing widened */
    aa_decide(950, 1000, NULL, &d);
    assert_true(d.calibrated);
    assert_int_equal(d.n_aa_checked, 1);
    assert_int_equal(d.n_aa_biased, 0);
    assert_true(d.functions[0].aa_margin == 0);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_true(d.aa_workload[0].valid && d.aa_workload_margin[0] == 0);
    decision_free(&d);

    /* the A/A arm itself reads 8% faster than the baseline (an order or
     * state bias): the same 5% "gain" is no longer a verdict */
    aa_decide(950, 920, NULL, &d);
    assert_int_equal(d.n_aa_biased, 1);
    assert_true(d.functions[0].aa_margin > 0);
    assert_true(d.functions[0].by_variant[1].widened > 0);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_int_equal(d.functions[0].reason, DECISION_CALIBRATION);
    assert_true(d.aa_workload_margin[0] > 0);   /* the totals say it too */
    decision_free(&d);

    /* a gain well beyond the bias survives it */
    aa_decide(500, 920, NULL, &d);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    decision_free(&d);

    /* no A/A arm: no calibration, as before */
    {
        static const char *const names[1] = {"f"};
        static const int eligible[2] = {0, 1};
        double samples[2 * NR] = {1000, 1004, 996, 1002, 998, 950, 954, 946, 952, 948}, totals[2 * NR];
        for (size_t i = 0; i < 2 * NR; i++) totals[i] = 4000;
        struct decision_input in = {.n_functions = 1, .n_workloads = 1, .n_variants = 2, .n_runs = NR,
                                    .functions = names, .samples = samples, .totals = totals,
                                    .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
        decide(&in, &d);
        assert_false(d.calibrated);
        assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
        decision_free(&d);
    }
}

/* The A/A note and its count agree: a cold function (below --min-share /
 * min_samples, never judged) whose handful of samples differ between the
 * identical arms has an interval excluding no change, but it is neither
 * counted in "N of M hot functions" nor named (libsndfile's select said "4
 * of 13 hot functions differed" beside "1 of 13", naming psf_store_read_chunk
 * 0.00x [0.00, 0.00] and pcm_init 0.29x, two functions of 0-8 samples). */
static void test_aa_note_hot_only(void **state)
{
    (void)state;
    static const char *const names[2] = {"hot", "cold"};
    static const double jitter[NR] = {0, 4, -4, 2, -2};
    static const double cold[NR] = {8, 9, 7, 8, 8}, cold_aa[NR] = {1, 0, 1, 0, 1};
    static const int eligible[2] = {0, 1};
    double samples[2 * 2 * NR], totals[2 * NR], aa_samples[2 * NR], aa_totals[NR];
    for (size_t r = 0; r < NR; r++) {
        for (size_t v = 0; v < 2; v++) {
            samples[(v * 2 + 0) * NR + r] = 1000 + jitter[(r + v) % NR];
            samples[(v * 2 + 1) * NR + r] = cold[(r + v) % NR];
            totals[v * NR + r] = 4000 + jitter[r];
        }
        aa_samples[0 * NR + r] = 1000 + jitter[(r + 3) % NR];
        aa_samples[1 * NR + r] = cold_aa[r];
        aa_totals[r] = 4000 + jitter[(r + 2) % NR];
    }
    struct decision_input in = {.n_functions = 2, .n_workloads = 1, .n_variants = 2, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20,
                                .aa_samples = aa_samples, .aa_totals = aa_totals};
    struct decision d;
    decide(&in, &d);
    assert_int_equal(d.n_aa_checked, 1);
    assert_int_equal(d.n_aa_biased, 0);
    assert_true(d.functions[1].aa.valid && d.functions[1].aa_margin > 0);   /* its interval excludes 1 */
    assert_int_equal(d.functions[1].aa_biased, 0);                          /* but it is not judged */
    assert_int_equal(d.functions[0].aa_biased, 0);

    /* the same in a report: no A/A note */
    struct select_report r;
    sel_report_init(&r);
    for (size_t f = 0; f < 2; f++) {
        size_t i = sel_add_function(&r, names[f], "x.c", 3 + (int)f);
        struct decision_function *df = &r.decision.functions[i];
        df->aa = d.functions[f].aa;
        df->aa_margin = d.functions[f].aa_margin;
        df->aa_biased = d.functions[f].aa_biased;
    }
    r.decision.calibrated = 1;
    r.decision.n_aa_checked = d.n_aa_checked;
    r.decision.n_aa_biased = d.n_aa_biased;
    decision_free(&d);
    select_note_statistics(&r);
    for (size_t i = 0; i < r.notes.n; i++) assert_null(strstr(r.notes.v[i], "A/A calibration"));

    /* the hot one biased: the note counts it and names it alone */
    r.decision.functions[0].aa_biased = 1;
    r.decision.functions[0].aa_margin = 0.05;
    r.decision.n_aa_biased = 1;
    select_note_statistics(&r);
    size_t found = 0;
    for (size_t i = 0; i < r.notes.n; i++) {
        if (!strstr(r.notes.v[i], "A/A calibration")) continue;
        found++;
        assert_non_null(strstr(r.notes.v[i], "1 of 1 hot functions"));
        assert_non_null(strstr(r.notes.v[i], "itself: hot "));
        assert_null(strstr(r.notes.v[i], "cold"));
    }
    assert_int_equal(found, 1);
    select_report_free(&r);
}

/* Holm inside decide(): twenty hot functions, one of which gains a little
 * (p between 0.05/20 and 0.05): significant by its own interval, held back
 * over the family; with one function only it is selected. */
#define HF 20
static void holm_decide(size_t nf, struct decision *d)
{
    static const char *names[HF];
    static const double base[NR] = {1000, 1030, 970, 1010, 990};
    static const double gain[NR] = {965, 935, 995, 955, 975};   /* ~3.5% less, p ~ 0.04 on the log scale */
    static const int eligible[2] = {0, 1};
    double samples[2 * HF * NR], totals[2 * NR];
    for (size_t f = 0; f < nf; f++) {
        names[f] = "f";
        for (size_t r = 0; r < NR; r++) {
            samples[(0 * nf + f) * NR + r] = base[r];
            samples[(1 * nf + f) * NR + r] = f == 0 ? gain[r] : base[(r + 1) % NR];
        }
    }
    for (size_t i = 0; i < 2 * NR; i++) totals[i] = 1000.0 * (double)nf;
    struct decision_input in = {.n_functions = nf, .n_workloads = 1, .n_variants = 2, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
    decide(&in, d);
}

static void test_holm_in_decision(void **state)
{
    (void)state;
    struct decision d;
    holm_decide(1, &d);
    assert_true(d.functions[0].by_variant[1].p < 0.05 && d.functions[0].by_variant[1].p > 0.05 / HF);
    assert_int_equal(d.n_tests, 1);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    decision_free(&d);

    holm_decide(HF, &d);
    assert_int_equal(d.n_tests, HF);
    assert_true(stats_faster(&d.functions[0].by_variant[1]));   /* its own interval excludes no change */
    assert_int_equal(d.functions[0].chosen, -1);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(d.n_unadjusted, 1);
    for (size_t f = 1; f < HF; f++) assert_int_equal(d.functions[f].chosen, -1);
    assert_string_equal(decision_reason_code(DECISION_MULTIPLE_TESTS), "multiple-tests");
    decision_free(&d);
}

/* The smaller set inside decide(): two sets with overlapping intervals. */
static void test_smaller_in_decision(void **state)
{
    (void)state;
    static const char *const names[1] = {"f"};
    static const double jitter[NR] = {0, 4, -4, 2, -2};
    static const int eligible[3] = {0, 1, 1};
    double samples[3 * NR], totals[3 * NR];
    for (size_t r = 0; r < NR; r++) {
        samples[r] = 1000 + jitter[r];
        samples[NR + r] = 600 + jitter[(r + 1) % NR];        /* set 1: 1.67x */
        samples[2 * NR + r] = 605 + jitter[(r + 2) % NR];    /* set 2: 1.65x, overlapping */
    }
    for (size_t i = 0; i < 3 * NR; i++) totals[i] = 4000;
    double bytes[3] = {-1, 2000, 800};
    struct decision_input in = {.n_functions = 1, .n_workloads = 1, .n_variants = 3, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20,
                                .code_bytes = bytes};
    struct decision d;
    decide(&in, &d);
    assert_int_equal(d.functions[0].fastest, 1);
    assert_int_equal(d.functions[0].chosen, 2);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    decision_free(&d);
    in.code_bytes = NULL;
    decide(&in, &d);
    assert_int_equal(d.functions[0].chosen, 1);
    decision_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pvalue),           cmocka_unit_test(test_widen),
        cmocka_unit_test(test_holm),             cmocka_unit_test(test_round_order),
        cmocka_unit_test(test_prefer_smaller),   cmocka_unit_test(test_aa_calibration),
        cmocka_unit_test(test_holm_in_decision), cmocka_unit_test(test_smaller_in_decision),
        cmocka_unit_test(test_aa_note_hot_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
