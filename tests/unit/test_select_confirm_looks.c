/* Unit tests of the confirmation's second look (select/decision_confirm.h:
 * decision_confirm_undecided, decision_confirm_again) on synthetic samples:
 * a 4% gain held back by Holm that the first 8 fresh rounds leave leaning
 * but unconfirmed at half the level is confirmed on all 16 (confirmed = 2,
 * its figures from the 16); one confirmed at the first look keeps its
 * verdict and figures whatever the second shows; without a lean no second
 * look is asked for; and on pure noise, 1000 selections with up to two
 * looks at 2.5% each select falsely in the confirmation at most 5% of the
 * time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "select/decision.h"
#include "select/decision_confirm.h"

#define HF 20
#define NV 2
#define NR1 5    /* the first stage's rounds */
#define NL 8     /* rounds per look */

static const char *names[HF];
static const int eligible[NV] = {0, 1};

static uint64_t rng;
static double uniform(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* Rounds of one workload: samples[(v * HF + f) * nr + r], the A/A arm's
 * aa[f * nr + r]; every function ~500 samples with 3% noise, function f's
 * variant (for f < n_gain) at gain[f] of the baseline. */
struct rounds {
    size_t nr;
    double samples[NV * HF * 2 * NL], totals[NV * 2 * NL], aa[HF * 2 * NL], aa_totals[2 * NL];
};

static void draw(struct rounds *x, size_t nr, const double *gain, size_t n_gain)
{
    x->nr = nr;
    for (size_t r = 0; r < nr; r++)
        for (size_t v = 0; v <= NV; v++) {
            double total = 0;
            for (size_t f = 0; f < HF; f++) {
                double s = 500 * exp(0.03 * gauss());
                if (v == 1 && f < n_gain) s *= gain[f];
                total += s;
                if (v == NV) x->aa[f * nr + r] = s;
                else x->samples[(v * HF + f) * nr + r] = s;
            }
            if (v == NV) x->aa_totals[r] = total;
            else x->totals[v * nr + r] = total;
        }
}

/* The first n rounds of x, in an n-round layout. */
static void first_rounds(const struct rounds *x, size_t n, struct rounds *out)
{
    out->nr = n;
    for (size_t row = 0; row < NV * HF; row++) memcpy(&out->samples[row * n], &x->samples[row * x->nr], n * sizeof(double));
    for (size_t row = 0; row < HF; row++) memcpy(&out->aa[row * n], &x->aa[row * x->nr], n * sizeof(double));
    for (size_t v = 0; v < NV; v++) memcpy(&out->totals[v * n], &x->totals[v * x->nr], n * sizeof(double));
    memcpy(out->aa_totals, x->aa_totals, n * sizeof(double));
}

/* all = a's NL rounds, then b's NL. */
static void join_rounds(const struct rounds *a, const struct rounds *b, struct rounds *all)
{
    all->nr = 2 * NL;
    for (size_t row = 0; row < NV * HF; row++) {
        memcpy(&all->samples[row * 2 * NL], &a->samples[row * NL], NL * sizeof(double));
        memcpy(&all->samples[row * 2 * NL + NL], &b->samples[row * NL], NL * sizeof(double));
    }
    for (size_t row = 0; row < HF; row++) {
        memcpy(&all->aa[row * 2 * NL], &a->aa[row * NL], NL * sizeof(double));
        memcpy(&all->aa[row * 2 * NL + NL], &b->aa[row * NL], NL * sizeof(double));
    }
    for (size_t v = 0; v < NV; v++) {
        memcpy(&all->totals[v * 2 * NL], &a->totals[v * NL], NL * sizeof(double));
        memcpy(&all->totals[v * 2 * NL + NL], &b->totals[v * NL], NL * sizeof(double));
    }
    memcpy(all->aa_totals, a->aa_totals, NL * sizeof(double));
    memcpy(all->aa_totals + NL, b->aa_totals, NL * sizeof(double));
}

static struct decision_input input(struct rounds *x)
{
    return (struct decision_input){.n_functions = HF, .n_workloads = 1, .n_variants = NV, .n_runs = x->nr,
                                   .functions = names, .samples = x->samples, .totals = x->totals,
                                   .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20,
                                   .aa_samples = x->aa, .aa_totals = x->aa_totals};
}

/* Stage 1 with f0 (and f1 when two) held back by Holm: their variants
 * ~3.5% faster on 5 rounds (p ~ 0.04), the others the baseline's. */
static void held_back(struct decision *d, size_t n_held)
{
    static const double base[NR1] = {1000, 1030, 970, 1010, 990};
    static const double gain[NR1] = {965, 935, 995, 955, 975};
    static double samples[NV * HF * NR1], totals[NV * NR1];
    for (size_t f = 0; f < HF; f++) {
        names[f] = "f";
        for (size_t r = 0; r < NR1; r++) {
            samples[f * NR1 + r] = base[r];
            samples[(HF + f) * NR1 + r] = f < n_held ? gain[r] : base[(r + 1) % NR1];
        }
    }
    for (size_t i = 0; i < NV * NR1; i++) totals[i] = 1000.0 * HF;
    struct decision_input in = {.n_functions = HF, .n_workloads = 1, .n_variants = NV, .n_runs = NR1,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
    decide(&in, d);
    for (size_t f = 0; f < n_held; f++) assert_int_equal(d->functions[f].reason, DECISION_MULTIPLE_TESTS);
    assert_int_equal(decision_confirm_pairs(d), n_held);
    d->confirmation.alpha = d->alpha / 2;   /* as select's confirmation sets it */
}

/* The seed of the 16 fresh rounds: the first 8 leave f0's 4% gain leaning
 * but unconfirmed at 2.5%, all 16 confirm it (found by trying seeds; the
 * asserts say what the draw must show). */
#define LEAN_SEED 5
/* The seed of test_first_look_kept's first look: f0 confirmed, f1 leaning
 * but not (found the same way). */
#define KEPT_SEED 1

static void test_second_look_confirms(void **state)
{
    (void)state;
    static struct rounds all, look1;
    const double gain[1] = {1 / 1.04};
    rng = LEAN_SEED;
    draw(&all, 2 * NL, gain, 1);
    first_rounds(&all, NL, &look1);
    struct decision d;
    held_back(&d, 1);
    struct decision_input in1 = input(&look1), in2 = input(&all);
    decision_confirm(&in1, &d);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_true(d.functions[0].confirm[1].diff > 0);   /* leaning */
    assert_true(d.functions[0].confirm[1].rank);
    assert_int_equal(decision_confirm_undecided(&d), 1);
    decision_confirm_again(&in2, &d);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    assert_int_equal(d.functions[0].confirmed, 2);
    assert_int_equal(d.confirmation.n_looks, 2);
    assert_int_equal(d.confirmation.n_runs, 2 * NL);
    assert_int_equal(d.confirmation.n_runs_first, NL);
    assert_int_equal(d.confirmation.n_confirmed, 1);
    assert_int_equal(d.confirmation.n_confirmed_second, 1);
    assert_int_equal(d.confirmation.n_tests, 1);
    /* its figures: all 16 rounds' */
    double mean = 0;
    for (size_t r = 0; r < 2 * NL; r++) mean += all.samples[(HF + 0) * 2 * NL + r] / (2 * NL);
    assert_true(fabs(d.functions[0].confirm[1].mean_b - mean) < 1e-9);
    assert_int_equal(decision_confirm_undecided(&d), 0);   /* two looks at most */
    decision_free(&d);
}

/* f0 confirmed at the first look (a 15% gain), f1 leaning: the second look
 * runs for f1 and leaves f0's verdict and figures as the first look made
 * them, though its second-look rounds show nothing. */
static void test_first_look_kept(void **state)
{
    (void)state;
    static struct rounds all, look1;
    const double gain1[2] = {1 / 1.15, 1 / 1.04}, gain2[2] = {1, 1 / 1.04};
    rng = KEPT_SEED;
    draw(&look1, NL, gain1, 2);
    rng = KEPT_SEED + 1;
    static struct rounds more;
    draw(&more, NL, gain2, 2);
    join_rounds(&look1, &more, &all);
    struct decision d;
    held_back(&d, 2);
    struct decision_input in1 = input(&look1), in2 = input(&all);
    decision_confirm(&in1, &d);
    assert_int_equal(d.functions[0].confirmed, 1);
    struct stats_interval kept = d.functions[0].confirm[1];
    if (!decision_confirm_undecided(&d)) {   /* f1 decided at once: nothing to look at again */
        decision_free(&d);
        fail_msg("f1 should lean but stay unconfirmed at the first look (seed %d)", KEPT_SEED);
    }
    decision_confirm_again(&in2, &d);
    assert_int_equal(d.functions[0].confirmed, 1);
    assert_int_equal(d.functions[0].reason, DECISION_CONFIRMED);
    assert_memory_equal(&d.functions[0].confirm[1], &kept, sizeof kept);
    assert_int_equal(d.confirmation.n_tests, 2);   /* f0 still in the family */
    decision_free(&d);
}

/* Two functions confirmed at the first look and a third leaning: the
 * second look's family holds all three pairs (the first two no longer
 * "retested" by their reason): its arrays must have room for them (a heap
 * overflow under ASan in session 23's CI). The first seed from 1 whose
 * first look gives that is used. */
static void test_second_look_two_kept(void **state)
{
    (void)state;
    static struct rounds all, look1, more;
    const double gain1[3] = {1 / 1.15, 1 / 1.15, 1 / 1.04}, gain2[3] = {1, 1, 1 / 1.04};
    for (uint64_t seed = 1; seed < 200; seed++) {
        rng = seed;
        draw(&look1, NL, gain1, 3);
        rng = seed + 1000;
        draw(&more, NL, gain2, 3);
        join_rounds(&look1, &more, &all);
        struct decision d;
        held_back(&d, 3);
        struct decision_input in1 = input(&look1), in2 = input(&all);
        decision_confirm(&in1, &d);
        if (d.functions[0].confirmed != 1 || d.functions[1].confirmed != 1 || d.functions[2].confirmed ||
            !decision_confirm_undecided(&d)) {
            decision_free(&d);
            continue;
        }
        assert_int_equal(decision_confirm_pairs(&d), 1);   /* only f2 is still retested */
        decision_confirm_again(&in2, &d);
        assert_int_equal(d.confirmation.n_tests, 3);       /* f0 and f1 still in the family */
        assert_int_equal(d.functions[0].confirmed, 1);
        assert_int_equal(d.functions[1].confirmed, 1);
        decision_free(&d);
        return;
    }
    fail_msg("no seed below 200 left f2 leaning with f0, f1 confirmed at the first look");
}

/* No lean (the fresh rounds show the variant slower): no second look. */
static void test_no_lean_no_second_look(void **state)
{
    (void)state;
    static struct rounds look1;
    const double gain[1] = {1.05};
    rng = 11;
    draw(&look1, NL, gain, 1);
    struct decision d;
    held_back(&d, 1);
    struct decision_input in1 = input(&look1);
    decision_confirm(&in1, &d);
    assert_int_equal(d.functions[0].reason, DECISION_MULTIPLE_TESTS);
    assert_true(d.functions[0].confirm[1].diff < 0);
    assert_int_equal(decision_confirm_undecided(&d), 0);
    decision_free(&d);
}

/* Pure noise: every function and arm the same; stage 1 on 5 rounds, the
 * confirmation on 8, a second look on 16 when undecided. */
static void test_noise_two_looks(void **state)
{
    (void)state;
    static struct rounds first, all, look1;
    size_t with_stage = 0, second = 0, false_conf = 0;
    for (size_t f = 0; f < HF; f++) names[f] = "f";
    rng = 2026;
    for (int trial = 0; trial < 1000; trial++) {
        draw(&first, NR1, NULL, 0);
        struct decision_input in = input(&first);
        struct decision d;
        decide(&in, &d);
        if (decision_confirm_pairs(&d)) {
            with_stage++;
            d.confirmation.alpha = d.alpha / 2;
            draw(&all, 2 * NL, NULL, 0);
            first_rounds(&all, NL, &look1);
            struct decision_input in1 = input(&look1), in2 = input(&all);
            decision_confirm(&in1, &d);
            if (decision_confirm_undecided(&d)) {
                second++;
                decision_confirm_again(&in2, &d);
            }
            false_conf += d.confirmation.n_confirmed > 0;
        }
        decision_free(&d);
    }
    printf("pure noise, 1000 selections: %zu with a confirmation, %zu of them with a second look, false "
           "confirmations in %zu\n", with_stage, second, false_conf);
    assert_true(with_stage > 0 && second > 0);   /* both looks ran: this measures them */
    assert_true(false_conf <= 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_look_confirms),
        cmocka_unit_test(test_first_look_kept),
        cmocka_unit_test(test_second_look_two_kept),
        cmocka_unit_test(test_no_lean_no_second_look),
        cmocka_unit_test(test_noise_two_looks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
