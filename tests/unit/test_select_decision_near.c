/* Unit tests of the near-significant retest of select's decision
 * (select/decision_confirm.h, decision_confirm_near) on fixed samples: which
 * hot functions without a significant gain are retested on fresh runs (the
 * point estimate's gain and time saved, the interval's p, eligibility, the
 * default's code, the cap of DECISION_NEAR_MAX keeping those that save the
 * most), the verdict the fresh runs alone give them, one family with the
 * comparisons Holm held back, the one-sided retest, and on pure noise
 * (1000 simulated selections) false selections by the retest at most 5%. */
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
#define NV 3   /* baseline, "levels", "free" */

static const char *names[HF];
static const int eligible[NV] = {0, 1, 1};

struct data {
    double samples[NV * HF * NR], totals[NV * NR], aa[HF * NR], aa_totals[NR];
    int function_eligible[HF * NV], same_code[HF * NV];
    struct decision_input in;
};

static double *at(struct data *x, size_t v, size_t f)
{
    return &x->samples[(v * HF + f) * NR];
}

/* steady: the unchanged functions; noisy: a near-significant 4% gain
 * (p ~ 0.14 over 5 runs); noisier: the same gain, p above 0.3 */
static const double steady[NR] = {1000, 1030, 970, 1010, 990};
static const double noisy[NR] = {1000, 1050, 950, 1030, 970};
static const double noisier[NR] = {1000, 1150, 850, 1100, 900};

/* f gains `gain` (0.04: 4%) with set v, its runs `base` scaled by scale */
static void gains(struct data *x, size_t f, size_t v, const double *base, double gain, double scale)
{
    for (size_t r = 0; r < NR; r++) {
        at(x, 0, f)[r] = base[r] * scale;
        for (size_t u = 1; u < NV; u++)
            at(x, u, f)[r] = base[(r + 1) % NR] * scale * (u == v ? 1 / (1 + gain) : 1);
    }
}

/* Stage 1, one workload of 10000 samples a run: every function unchanged
 * with both sets, but
 *   f0: 4% faster with "free", 10% of the workload: near-significant
 *   f1: 1.5% faster with "free" (below DECISION_NEAR_GAIN)
 *   f2: like f0, but "free" changes its outputs (not eligible for it)
 *   f3: like f0 at 2.5% of the workload: saves 0.1% (below DECISION_NEAR_SAVED)
 *   f4: 4% faster with "free", too noisy (p above DECISION_NEAR_P)
 *   f5: like f0, but its "free" clones are its default's code */
static void stage1(struct data *x)
{
    memset(x, 0, sizeof *x);
    for (size_t f = 0; f < HF; f++) {
        names[f] = "f";
        gains(x, f, 1, steady, 0, 1);
        for (size_t v = 0; v < NV; v++) x->function_eligible[f * NV + v] = 1;
    }
    gains(x, 0, 2, noisy, 0.04, 1);
    gains(x, 1, 2, noisy, 0.015, 1);
    gains(x, 2, 2, noisy, 0.04, 1);
    x->function_eligible[2 * NV + 2] = 0;
    gains(x, 3, 2, noisy, 0.04, 0.25);
    gains(x, 4, 2, noisier, 0.04, 1);
    gains(x, 5, 2, noisy, 0.04, 1);
    x->same_code[5 * NV + 2] = 1;
    for (size_t i = 0; i < NV * NR; i++) x->totals[i] = 10000;
    x->in = (struct decision_input){.n_functions = HF, .n_workloads = 1, .n_variants = NV, .n_runs = NR,
                                    .functions = names, .samples = x->samples, .totals = x->totals,
                                    .variant_eligible = eligible, .function_eligible = x->function_eligible,
                                    .same_code = x->same_code, .min_share = 0.02, .min_samples = 20};
}

/* Fresh runs: every function as the baseline's, f's "free" variant times
 * `ratio` (noise of its own), and an A/A arm like the baseline. */
static void fresh(struct data *x, size_t f0, double ratio)
{
    static const double base[NR] = {1000, 1020, 985, 1010, 990};
    static const double jitter[NR] = {3, -4, 1, -2, 4};
    for (size_t f = 0; f < HF; f++)
        for (size_t r = 0; r < NR; r++) {
            at(x, 0, f)[r] = base[r];
            at(x, 1, f)[r] = base[(r + 1) % NR];
            at(x, 2, f)[r] = f == f0 ? base[r] * ratio + jitter[r] : base[(r + 1) % NR];
            x->aa[f * NR + r] = base[(r + 2) % NR] + jitter[(r + 2) % NR];
        }
    for (size_t i = 0; i < NV * NR; i++) x->totals[i] = 10000;
    for (size_t r = 0; r < NR; r++) x->aa_totals[r] = 10000;
    x->in.aa_samples = x->aa;
    x->in.aa_totals = x->aa_totals;
}

static void test_which_are_retested(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    stage1(&x);
    decide(&x.in, &d);
    /* the preconditions: none significant, f0's gain near-significant */
    for (size_t f = 0; f < HF; f++) assert_int_equal(d.functions[f].reason, DECISION_NO_GAIN);
    const struct stats_interval *iv = &d.functions[0].by_variant[2];
    assert_true(iv->p > 0.05 && iv->p <= DECISION_NEAR_P);
    assert_true(d.functions[4].by_variant[2].p > DECISION_NEAR_P);
    assert_int_equal(decision_confirm_pairs(&d), 0);   /* nothing held back by Holm */

    assert_int_equal(decision_confirm_near(&x.in, &d), 1);
    assert_int_equal(d.functions[0].near_set, 2);
    assert_true(fabs(d.functions[0].near_saved - decision_saved_share(&x.in, 0, 0, 2)) < 1e-12);
    assert_true(d.functions[0].near_saved >= DECISION_NEAR_SAVED);
    for (size_t f = 1; f < HF; f++) assert_int_equal(d.functions[f].near_set, 0);
    assert_int_equal(d.confirmation.n_near, 1);
    assert_int_equal(d.confirmation.n_near_found, 1);
    assert_int_equal(decision_confirm_pairs(&d), 1);
    assert_true(decision_confirm_retests(&d, 0, 2));
    assert_false(decision_confirm_retests(&d, 0, 1));
    assert_false(decision_confirm_retests(&d, 2, 2));
    int need[NV];
    decision_confirm_arms(&d, need);
    assert_int_equal(need[0], 1);
    assert_int_equal(need[1], 0);   /* only the arms the retest needs */
    assert_int_equal(need[2], 1);
    decision_free(&d);
}

/* Six near-significant functions: the four that save the most. */
static void test_cap(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    stage1(&x);
    static const double gain[6] = {0.04, 0.05, 0.035, 0.06, 0.045, 0.03};
    static const size_t fs[6] = {0, 6, 7, 8, 9, 10};
    for (size_t i = 0; i < 6; i++) gains(&x, fs[i], 2, noisy, gain[i], 1);
    decide(&x.in, &d);
    for (size_t i = 0; i < 6; i++) assert_int_equal(d.functions[fs[i]].reason, DECISION_NO_GAIN);
    assert_int_equal(decision_confirm_near(&x.in, &d), DECISION_NEAR_MAX);
    assert_int_equal(d.confirmation.n_near_found, 6);
    assert_int_equal(d.confirmation.n_near, 4);
    /* kept: 6%, 5%, 4.5%, 4%; left out: 3.5% (f7) and 3% (f10) */
    assert_int_equal(d.functions[0].near_set, 2);
    assert_int_equal(d.functions[6].near_set, 2);
    assert_int_equal(d.functions[8].near_set, 2);
    assert_int_equal(d.functions[9].near_set, 2);
    assert_int_equal(d.functions[7].near_set, 0);
    assert_int_equal(d.functions[10].near_set, 0);
    assert_int_equal(decision_confirm_pairs(&d), 4);
    decision_free(&d);
}

/* The verdict comes from the fresh runs alone. */
static void test_verdicts(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    stage1(&x);
    decide(&x.in, &d);
    decision_confirm_near(&x.in, &d);
    fresh(&x, 0, 0.93);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    assert_int_equal(d.functions[0].chosen, 2);
    assert_int_equal(d.functions[0].confirmed, 1);
    assert_int_equal(d.functions[0].confirm_holm[2], 1);
    assert_int_equal(d.confirmation.n_tests, 1);
    assert_int_equal(d.confirmation.n_functions, 1);
    assert_int_equal(d.confirmation.n_confirmed, 1);
    assert_int_equal(d.confirmation.n_near_confirmed, 1);
    /* the reports' figures: the fresh runs' */
    assert_true(decision_estimate_fresh(&d, 0, 2));
    assert_ptr_equal(decision_estimate(&d, 0, 2), &d.functions[0].confirm[2]);
    for (size_t f = 1; f < HF; f++) assert_null(d.functions[f].confirm);
    decision_free(&d);

    /* fresh runs without the gain: it keeps its reason */
    stage1(&x);
    decide(&x.in, &d);
    decision_confirm_near(&x.in, &d);
    fresh(&x, 0, 1.0);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_NO_GAIN);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_non_null(d.functions[0].confirm);
    assert_int_equal(d.confirmation.n_confirmed, 0);
    assert_false(decision_estimate_fresh(&d, 0, 2));
    decision_free(&d);

    /* the first runs given again would not pass: their gain does not count */
    stage1(&x);
    decide(&x.in, &d);
    decision_confirm_near(&x.in, &d);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_NO_GAIN);
    decision_free(&d);
}

/* The retest is one-sided: a fresh gain whose two-sided p is between 5%
 * and 10% is confirmed (one comparison in the family). */
static void test_one_sided(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    stage1(&x);
    decide(&x.in, &d);
    decision_confirm_near(&x.in, &d);
    fresh(&x, 0, 0.984);
    decision_confirm(&x.in, &d);
    const struct stats_interval *iv = &d.functions[0].confirm[2];
    assert_true(iv->p > 0.05 && iv->p < 0.10);
    assert_false(stats_faster(iv));
    assert_int_equal(d.functions[0].confirm_holm[2], 1);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    decision_free(&d);

    /* and slower is never confirmed */
    stage1(&x);
    decide(&x.in, &d);
    decision_confirm_near(&x.in, &d);
    fresh(&x, 0, 1.07);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.functions[0].confirm_holm[2], 0);
    assert_int_equal(d.functions[0].reason, DECISION_NO_GAIN);
    decision_free(&d);
}

/* One family: a comparison Holm held back (f11, significant alone) and a
 * near-significant one (f0) are retested together, Holm over both. */
static void test_one_family_with_held_back(void **state)
{
    (void)state;
    struct data x;
    struct decision d;
    static const double gain[NR] = {965, 935, 995, 955, 975};
    stage1(&x);
    for (size_t r = 0; r < NR; r++) at(&x, 1, 11)[r] = gain[r];
    decide(&x.in, &d);
    assert_int_equal(d.functions[11].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(decision_confirm_pairs(&d), 1);
    assert_int_equal(decision_confirm_near(&x.in, &d), 1);
    assert_int_equal(d.functions[11].near_set, 0);
    assert_int_equal(decision_confirm_pairs(&d), 2);
    int need[NV];
    decision_confirm_arms(&d, need);
    assert_int_equal(need[1], 1);
    assert_int_equal(need[2], 1);
    fresh(&x, 0, 0.93);
    for (size_t r = 0; r < NR; r++) at(&x, 1, 11)[r] = at(&x, 0, 11)[r] * 0.93 + (r % 2 ? 3 : -3);
    decision_confirm(&x.in, &d);
    assert_int_equal(d.confirmation.n_tests, 2);
    assert_int_equal(d.confirmation.n_functions, 2);
    assert_int_equal(d.confirmation.n_near, 1);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    assert_int_equal(d.functions[11].reason, DECISION_CONFIRMED);
    assert_int_equal(d.functions[11].chosen, 1);
    assert_int_equal(d.confirmation.n_near_confirmed, 1);
    decision_free(&d);
}

/* Pure noise (every arm the same code; per run a machine factor shared by
 * every function, per function noise of its own): over 1000 selections,
 * how often the retest - near-significant and held back - selects
 * anything. Its family-wise rate is alpha (5%). */
static uint64_t rng = 0x2545f4914f6cdd1dull;
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

static void noise(struct data *x)
{
    for (size_t v = 0; v <= NV; v++)
        for (size_t r = 0; r < NR; r++) {
            double run = exp(0.03 * gauss()), total = 0;
            for (size_t f = 0; f < HF; f++) {
                double s = 500 * run * exp(0.02 * gauss());
                total += s;
                if (v == NV) x->aa[f * NR + r] = s;
                else at(x, v, f)[r] = s;
            }
            if (v == NV) x->aa_totals[r] = total;
            else x->totals[v * NR + r] = total;
        }
}

static void test_noise_false_selections(void **state)
{
    (void)state;
    struct data x;
    size_t with_near = 0, near = 0, stage2_false = 0, near_false = 0;
    for (int trial = 0; trial < 1000; trial++) {
        stage1(&x);
        x.in.function_eligible = NULL;
        x.in.same_code = NULL;
        x.in.aa_samples = x.aa;
        x.in.aa_totals = x.aa_totals;
        noise(&x);
        struct decision d;
        decide(&x.in, &d);
        size_t n = decision_confirm_near(&x.in, &d);
        assert_true(n <= DECISION_NEAR_MAX);
        if (decision_confirm_pairs(&d)) {
            with_near += n > 0;
            near += n;
            noise(&x);   /* fresh runs */
            decision_confirm(&x.in, &d);
            stage2_false += d.confirmation.n_confirmed > 0;
            near_false += d.confirmation.n_near_confirmed > 0;
        }
        decision_free(&d);
    }
    printf("pure noise, 1000 selections: %zu with near-significant retests (%zu functions); selections by the "
           "retest in %zu (near-significant in %zu)\n", with_near, near, stage2_false, near_false);
    assert_true(with_near > 100);   /* the retest ran: this measures it */
    assert_true(stage2_false <= 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_which_are_retested),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_one_sided),
        cmocka_unit_test(test_one_family_with_held_back),
        cmocka_unit_test(test_noise_false_selections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
