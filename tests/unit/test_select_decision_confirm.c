/* Unit tests of the confirmation stage of select's decision
 * (select/decision_confirm.h) on synthetic samples: a gain Holm held back
 * among 20 tests is selected (DECISION_CONFIRMED) when fresh runs show it
 * clearly, and not when they show no change, a gain within the fresh A/A
 * difference, or a workload significantly slower; nothing is retested when nothing is held back; the retest
 * reads the fresh runs alone (its interval's means are theirs, and the
 * first runs' borderline gain, which one test alone would pass, does not
 * carry over); a confirmed function's figures for the reports and the
 * budget are the fresh runs' (decision_estimate*); and on pure noise (identical arms, 1000 simulated
 * selections) the two stages together select falsely in at most 10% of
 * them, the union bound of their 5% each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/decision.h"
#include "select/decision_confirm.h"

#define NR 5
#define HF 20
#define NV 2

static const char *names[HF];
static const int eligible[NV] = {0, 1};

/* Stage 1: 20 functions, one workload, the baseline and one set; f0 ~3.5%
 * faster (p ~ 0.04: significant alone, held back by Holm over 20 tests),
 * the others unchanged (the baseline's runs in another order). */
struct data {
    double samples[NV * HF * NR], totals[NV * NR], aa[HF * NR], aa_totals[NR];
    struct decision_input in;
};

static void stage1(struct data *x)
{
    static const double base[NR] = {1000, 1030, 970, 1010, 990};
    static const double gain[NR] = {965, 935, 995, 955, 975};
    for (size_t f = 0; f < HF; f++) {
        names[f] = "f";
        for (size_t r = 0; r < NR; r++) {
            x->samples[(0 * HF + f) * NR + r] = base[r];
            x->samples[(1 * HF + f) * NR + r] = f == 0 ? gain[r] : base[(r + 1) % NR];
        }
    }
    for (size_t i = 0; i < NV * NR; i++) x->totals[i] = 1000.0 * HF;
    x->in = (struct decision_input){.n_functions = HF, .n_workloads = 1, .n_variants = NV, .n_runs = NR,
                                    .functions = names, .samples = x->samples, .totals = x->totals,
                                    .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
}

/* Fresh runs: every function as the baseline's, f0's variant times `ratio`
 * of it (noise of its own); with aa_ratio > 0, an A/A arm at that ratio. */
static void fresh(struct data *x, size_t nr, double ratio, double aa_ratio)
{
    static const double base[6] = {1000, 1020, 985, 1010, 990, 1005};
    static const double jitter[6] = {3, -4, 1, -2, 4, -1};
    for (size_t f = 0; f < HF; f++)
        for (size_t r = 0; r < nr; r++) {
            x->samples[(0 * HF + f) * nr + r] = base[r];
            x->samples[(1 * HF + f) * nr + r] = f == 0 ? base[r] * ratio + jitter[r] : base[(r + 1) % nr];
            x->aa[f * nr + r] = base[r] * aa_ratio + jitter[(r + 2) % nr];
        }
    for (size_t i = 0; i < NV * nr; i++) x->totals[i] = 1000.0 * HF;
    for (size_t r = 0; r < nr; r++) x->aa_totals[r] = 1000.0 * HF;
    x->in.n_runs = nr;
    x->in.aa_samples = aa_ratio > 0 ? x->aa : NULL;
    x->in.aa_totals = aa_ratio > 0 ? x->aa_totals : NULL;
}

static void held_back(struct data *x, struct decision *d)
{
    stage1(x);
    decide(&x->in, d);
    assert_int_equal(d->functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(d->functions[0].held[1], 1);
    assert_int_equal(d->n_unadjusted, 1);
    assert_int_equal(decision_confirm_pairs(d), 1);
    int need[NV];
    decision_confirm_arms(d, need);
    assert_int_equal(need[0], 1);
    assert_int_equal(need[1], 1);
}

/* Held back by Holm with a set whose outputs differ: not held, so never
 * retested, and the decision counts why (the report says it). */
static void test_unheld_ineligible_counted(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    stage1(&x);
    int fe[HF * NV];
    for (size_t f = 0; f < HF; f++) fe[f * NV] = 0, fe[f * NV + 1] = f != 0;
    x.in.function_eligible = fe;
    decide(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(d.functions[0].held[1], 0);
    assert_int_equal(d.functions[0].n_unheld_ineligible, 1);
    assert_int_equal(d.functions[0].n_unheld_slower, 0);
    assert_int_equal(decision_confirm_pairs(&d), 0);
    for (size_t f = 1; f < HF; f++) assert_int_equal(d.functions[f].n_unheld_ineligible, 0);
    decision_free(&d);
}

static void test_confirmed_when_fresh_runs_gain(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    held_back(&x, &d);
    fresh(&x, NR, 0.9, 1.0);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    assert_int_equal(d.functions[0].chosen, 1);
    assert_int_equal(d.functions[0].confirm_holm[1], 1);
    assert_int_equal(d.confirmation.n_runs, NR);
    assert_int_equal(d.confirmation.n_tests, 1);
    assert_int_equal(d.confirmation.n_functions, 1);
    assert_int_equal(d.confirmation.n_confirmed, 1);
    assert_int_equal(d.confirmation.calibrated, 1);
    assert_int_equal(d.n_unadjusted, 1);   /* held back by the first stage, still counted */
    assert_string_equal(decision_reason_code(DECISION_CONFIRMED), "confirmed");
    for (size_t f = 1; f < HF; f++) {
        assert_int_equal(d.functions[f].chosen, -1);
        assert_null(d.functions[f].confirm);   /* not retested */
    }
    decision_free(&d);
}

/* What the reports and the budget take for f0 (decision_estimate*): once
 * confirmed, the fresh runs' interval and time saved, not the first runs'
 * (which picked it); retested but not confirmed, or never retested, the
 * first runs'. */
static void test_estimate_from_fresh_runs(void **state)
{
    (void)state;
    struct data x, first;
    struct decision d;
    stage1(&first);
    held_back(&x, &d);
    fresh(&x, NR, 0.9, 1.0);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    assert_int_equal(d.functions[0].confirmed, 1);
    assert_true(decision_estimate_fresh(&d, 0, 1));
    assert_ptr_equal(decision_estimate(&d, 0, 1), &d.functions[0].confirm[1]);
    double fresh_base = (1000 + 1020 + 985 + 1010 + 990) / 5.0, fresh_var = fresh_base * 0.9 + 0.4;
    assert_true(fabs(decision_estimate(&d, 0, 1)->mean_b - fresh_var) < 1e-9);
    assert_true(fabs(d.functions[0].by_variant[1].mean_b - 965) < 1e-9);   /* the first runs' kept */
    /* time saved: the fresh runs' share, whatever input is given */
    double saved = (fresh_base - fresh_var) / (1000.0 * HF);
    assert_true(fabs(decision_estimate_saved(&d, &first.in, 0, 0, 1) - saved) < 1e-12);
    assert_true(fabs(decision_saved_share(&first.in, 0, 0, 1) - 35.0 / (1000.0 * HF)) < 1e-12);
    /* other functions: the first runs' */
    assert_false(decision_estimate_fresh(&d, 1, 1));
    assert_ptr_equal(decision_estimate(&d, 1, 1), &d.functions[1].by_variant[1]);
    assert_true(fabs(decision_estimate_saved(&d, &first.in, 0, 1, 1) - decision_saved_share(&first.in, 0, 1, 1)) <
                1e-12);
    decision_free(&d);

    /* retested, not confirmed: the first runs' */
    held_back(&x, &d);
    fresh(&x, NR, 1.0, 1.0);
    decision_confirm(&x.in, &d);
    assert_non_null(d.functions[0].confirm);
    assert_false(decision_estimate_fresh(&d, 0, 1));
    assert_ptr_equal(decision_estimate(&d, 0, 1), &d.functions[0].by_variant[1]);
    assert_true(fabs(decision_estimate_saved(&d, &first.in, 0, 0, 1) - 35.0 / (1000.0 * HF)) < 1e-12);
    decision_free(&d);
}

static void test_not_confirmed_without_change(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    held_back(&x, &d);
    fresh(&x, NR, 1.0, 1.0);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_non_null(d.functions[0].confirm);
    assert_int_equal(d.functions[0].confirm_holm[1], 0);
    assert_int_equal(d.confirmation.n_tests, 1);
    assert_int_equal(d.confirmation.n_confirmed, 0);
    assert_int_equal(d.n_unadjusted, 1);
    decision_free(&d);

    /* a 10% gain within what the fresh A/A arm shows (15%): no gain */
    held_back(&x, &d);
    fresh(&x, NR, 0.9, 0.85);
    decision_confirm(&x.in, &d);
    assert_true(d.functions[0].confirm[1].widened > 0);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    decision_free(&d);
}

/* The retest reads the fresh runs only: its interval holds their means, and
 * the first runs' gain (p ~ 0.04, which one test alone passes) is not
 * pooled with fresh runs showing the opposite. */
static void test_fresh_runs_alone(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    /* the first runs given again would pass the retest (one test, p ~ 0.04):
     * which is why they must not be reused */
    held_back(&x, &d);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    decision_free(&d);

    held_back(&x, &d);
    fresh(&x, 4, 1.04, 1.0);   /* 4 fresh rounds, the variant 4% slower */
    decision_confirm(&x.in, &d);
    assert_int_equal(d.confirmation.n_runs, 4);
    const struct stats_interval *iv = &d.functions[0].confirm[1];
    double base = (1000 + 1020 + 985 + 1010) / 4.0;
    assert_true(fabs(iv->mean_a - base) < 1e-9);
    assert_true(iv->mean_b > iv->mean_a);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    decision_free(&d);
}

static void test_nothing_held_back(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    stage1(&x);
    for (size_t r = 0; r < NR; r++) x.samples[(1 * HF + 0) * NR + r] *= 0.8;   /* a clear gain: Holm passes it */
    decide(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_int_equal(decision_confirm_pairs(&d), 0);
    int need[NV];
    decision_confirm_arms(&d, need);
    assert_int_equal(need[0], 1);
    assert_int_equal(need[1], 0);
    assert_int_equal(d.confirmation.n_runs, 0);
    decision_free(&d);

    /* no gain at all: nothing held back either */
    stage1(&x);
    for (size_t r = 0; r < NR; r++) x.samples[(1 * HF + 0) * NR + r] = x.samples[(0 * HF + 0) * NR + (r + 2) % NR];
    decide(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_NO_GAIN);
    assert_int_equal(decision_confirm_pairs(&d), 0);
    decision_free(&d);
}

/* Two workloads: the fresh runs must show the gain without making any
 * workload significantly slower, as decide() asks. */
static void test_fresh_slower_somewhere(void **state)
{
    (void)state;
    static const double base[NR] = {1000, 1030, 970, 1010, 990};
    static const double gain[NR] = {965, 935, 995, 955, 975};
    static const double jitter[NR] = {3, -4, 1, -2, 4};
    double samples[2 * NV * HF * NR], totals[2 * NV * NR];
    for (size_t w = 0; w < 2; w++)
        for (size_t f = 0; f < HF; f++)
            for (size_t r = 0; r < NR; r++) {
                samples[((w * NV + 0) * HF + f) * NR + r] = base[r];
                samples[((w * NV + 1) * HF + f) * NR + r] = f == 0 ? gain[r] : base[(r + 1) % NR];
            }
    for (size_t i = 0; i < 2 * NV * NR; i++) totals[i] = 1000.0 * HF;
    for (size_t f = 0; f < HF; f++) names[f] = "f";
    struct decision_input in = {.n_functions = HF, .n_workloads = 2, .n_variants = NV, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
    double first[2 * NV * HF * NR];
    memcpy(first, samples, sizeof first);
    struct decision d;
    decide(&in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(decision_confirm_pairs(&d), 1);
    /* fresh: f0 much faster on workload 0, 10% slower on workload 1 */
    for (size_t r = 0; r < NR; r++) {
        samples[((0 * NV + 1) * HF + 0) * NR + r] = base[r] * 0.6 + jitter[r];
        samples[((1 * NV + 1) * HF + 0) * NR + r] = base[r] * 1.1 + jitter[r];
    }
    decision_confirm(&in, &d);
    assert_true(stats_faster(&d.functions[0].confirm[1]));   /* faster summed over the workloads */
    assert_int_equal(d.functions[0].confirm_holm[1], 1);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);   /* but slower on one */
    assert_int_equal(d.confirmation.n_confirmed, 0);
    decision_free(&d);

    /* the same gain on both workloads: confirmed */
    memcpy(samples, first, sizeof first);
    decide(&in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    for (size_t r = 0; r < NR; r++) {
        samples[((0 * NV + 1) * HF + 0) * NR + r] = base[r] * 0.6 + jitter[r];
        samples[((1 * NV + 1) * HF + 0) * NR + r] = base[r] * 0.6 + jitter[r];
    }
    decision_confirm(&in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    decision_free(&d);
}

/* Pure noise: every arm the same code, multiplicative noise per run and per
 * function. Over 1000 simulated selections (two sets, 20 functions, 5 runs,
 * an A/A arm; 5 fresh rounds whenever something is held back), count those
 * with any function selected by either stage. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

#define SV 3
static void noise(double *samples, double *aa, double *totals, double *aa_totals, size_t nr)
{
    for (size_t v = 0; v <= SV; v++)
        for (size_t r = 0; r < nr; r++) {
            double run = exp(0.03 * gauss());   /* the machine's mood in that run */
            double total = 0;
            for (size_t f = 0; f < HF; f++) {
                double s = 500 * run * exp(0.02 * gauss());
                total += s;
                if (v == SV) aa[f * nr + r] = s;
                else samples[(v * HF + f) * nr + r] = s;
            }
            if (v == SV) aa_totals[r] = total;
            else totals[v * nr + r] = total;
        }
}

static void test_noise_false_selections(void **state)
{
    (void)state;
    static const int elig[SV] = {0, 1, 1};
    double samples[SV * HF * NR], aa[HF * NR], totals[SV * NR], aa_totals[NR];
    size_t stage1_false = 0, stage2_false = 0, any_false = 0, with_stage = 0, retests = 0;
    for (size_t f = 0; f < HF; f++) names[f] = "f";
    for (int trial = 0; trial < 1000; trial++) {
        noise(samples, aa, totals, aa_totals, NR);
        struct decision_input in = {.n_functions = HF, .n_workloads = 1, .n_variants = SV, .n_runs = NR,
                                    .functions = names, .samples = samples, .totals = totals,
                                    .variant_eligible = elig, .min_share = 0.02, .min_samples = 20,
                                    .aa_samples = aa, .aa_totals = aa_totals};
        struct decision d;
        decide(&in, &d);
        size_t s1 = 0, s2 = 0;
        for (size_t f = 0; f < HF; f++) s1 += d.functions[f].reason == DECISION_SELECTED;
        if (decision_confirm_pairs(&d)) {
            with_stage++;
            retests += decision_confirm_pairs(&d);
            noise(samples, aa, totals, aa_totals, NR);   /* fresh runs */
            decision_confirm(&in, &d);
            s2 = d.confirmation.n_confirmed;
        }
        stage1_false += s1 > 0;
        stage2_false += s2 > 0;
        any_false += s1 + s2 > 0;
        decision_free(&d);
    }
    printf("pure noise, 1000 selections: %zu with a confirmation stage (%zu retests), false selections: stage 1 in "
           "%zu, confirmation in %zu, either in %zu\n", with_stage, retests, stage1_false, stage2_false, any_false);
    assert_true(with_stage > 0);   /* the stage ran: this measures it */
    assert_true(stage2_false <= 50);
    assert_true(any_false <= 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confirmed_when_fresh_runs_gain),
        cmocka_unit_test(test_unheld_ineligible_counted),
        cmocka_unit_test(test_not_confirmed_without_change),
        cmocka_unit_test(test_estimate_from_fresh_runs),
        cmocka_unit_test(test_fresh_runs_alone),
        cmocka_unit_test(test_nothing_held_back),
        cmocka_unit_test(test_fresh_slower_somewhere),
        cmocka_unit_test(test_noise_false_selections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
