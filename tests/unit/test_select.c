/* Unit tests of lib/select: Welch intervals (known values, no interval from
 * one run, significance both ways), clone symbols folded back onto their
 * function (GCC, Clang, compiler-made pieces, kernel samples left out), the
 * selection rule (hot and faster: selected with the best eligible set; cold;
 * too few samples; a gain only on an ineligible set is held back; faster in
 * sum but slower on one workload), the report writers, and the path from a
 * decision to the selected patch: each function with the target set it
 * chose, in one patch (select/assign.h); where variants build (the three
 * layouts of select/tree.h, with commands checking what they see). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "patch/plan.h"
#include "select/assign.h"
#include "select/attribution.h"
#include "select/decision.h"
#include "select/outlined.h"
#include "select/report.h"
#include "select/result.h"
#include "select/session.h"
#include "select/stats.h"
#include "select/tree.h"
#include "select/workload_output.h"
#include "targets/targets.h"
#include "util/util.h"

#include "test_plan_helpers.h"

static void test_welch(void **state)
{
    (void)state;
    double a[] = {10, 11, 9, 10, 10}, b[] = {5, 5.5, 4.5, 5, 5};
    struct stats_interval iv;
    stats_welch(a, 5, b, 5, &iv);
    assert_true(iv.valid);
    assert_true(fabs(iv.diff - 5.0) < 1e-9);
    assert_true(fabs(iv.speedup - 2.0) < 1e-9);
    /* sd(a)=0.7071, sd(b)=0.3536: se=0.3536, df=5.88 -> t~2.46, half~0.87 */
    assert_true(iv.lo > 4.0 && iv.lo < 4.3);
    assert_true(iv.hi > 5.7 && iv.hi < 6.0);
    assert_true(iv.speedup_lo < 2.0 && iv.speedup_hi > 2.0);
    assert_true(stats_faster(&iv));
    assert_false(stats_slower(&iv));

    stats_welch(b, 5, a, 5, &iv);
    assert_true(stats_slower(&iv));
    assert_false(stats_faster(&iv));

    /* overlapping noise: no verdict either way */
    double c[] = {10, 14, 6, 12, 8}, d[] = {9, 13, 7, 11, 9};
    stats_welch(c, 5, d, 5, &iv);
    assert_false(stats_faster(&iv));
    assert_false(stats_slower(&iv));

    /* one run: no interval, never significant */
    stats_welch(a, 1, b, 1, &iv);
    assert_false(iv.valid);
    assert_false(stats_faster(&iv));

    /* on the log scale: the ratio's interval is multiplicative and bounded */
    stats_welch_log(a, 5, b, 5, &iv);
    assert_true(iv.valid);
    assert_true(iv.speedup > 1.95 && iv.speedup < 2.05);
    assert_true(iv.speedup_lo > 1.5 && iv.speedup_lo < iv.speedup);
    assert_true(iv.speedup_hi > iv.speedup && isfinite(iv.speedup_hi));
    double z[] = {1, 0, 2};
    stats_welch_log(z, 3, b, 3, &iv);
    assert_false(iv.valid);

    assert_true(fabs(stats_t975(1) - 12.706) < 1e-9);
    assert_true(fabs(stats_t975(10) - 2.228) < 1e-9);
    assert_true(stats_t975(1000) > 1.96 && stats_t975(1000) < 1.97);
    assert_true(stats_t975(2.5) < 4.303 && stats_t975(2.5) > 3.182);
}

static void test_attribution(void **state)
{
    (void)state;
    char *s;
    s = attribution_base_name("foo.arch_x86_64_v3");
    assert_string_equal(s, "foo");
    free(s);
    s = attribution_base_name("foo.default.1");
    assert_string_equal(s, "foo");
    free(s);
    s = attribution_base_name("_Z3sumPKii");
    assert_string_equal(s, "_Z3sumPKii");
    free(s);
    s = attribution_clone_suffix("foo.arch_x86-64-v3.1");
    assert_string_equal(s, "arch_x86-64-v3");
    free(s);
    s = attribution_clone_suffix("foo.avx2");
    assert_string_equal(s, "avx2");
    free(s);
    s = attribution_clone_suffix("foo");
    assert_string_equal(s, "");
    free(s);

    struct profile_entry e[] = {
        {"foo.avx2", 0, 10, NULL, 0}, {"foo.default", 0, 3, NULL, 0}, {"foo.avx2.cold", 0, 1, NULL, 0},
        {"foobar", 0, 50, NULL, 0}, {"foo.resolver", 0, 0, NULL, 0}, {"foo", 1, 7, NULL, 0}, {"main", 0, 5, NULL, 0},
    };
    struct profile p = {.entries = e, .n = sizeof e / sizeof *e, .total_samples = 76};
    assert_int_equal(attribution_samples(&p, "foo"), 14);   /* not foobar, not the kernel's foo */
    assert_int_equal(attribution_samples(&p, "foobar"), 50);
    assert_int_equal(attribution_samples(&p, "absent"), 0);
    assert_string_equal(attribution_hottest_symbol(&p, "foo"), "foo.avx2");
    assert_null(attribution_hottest_symbol(&p, "absent"));
}

/* fmvgen's own dispatch names (elf/fmvnames.h) are credited to the function
 * they serve: cpuid copies, resolver, trampoline code, pointer mode's
 * renamed body and its clones; fmvgen_cpu_levels is nobody's. */
static void test_attribution_fmvgen_names(void **state)
{
    (void)state;
    static const char *const base[][2] = {
        {"fmvgen_cp_foo_x86_64_v3", "foo"},      {"fmvgen_cp_foo_default", "foo"},
        {"fmvgen_cp_my_fn_avx2", "my_fn"},       {"fmvgen_cp_foo_x86_64_v4.cold", "foo"},
        {"fmvgen_cp_a_x86_64_v2", "a"},          {"fmvgen_resolve_foo", "foo"},
        {"foo.fmvgen_init", "foo"},              {"foo.fmvgen_ctor", "foo"},
        {"fmvgen_mv_foo.arch_x86_64_v3", "foo"}, {"fmvgen_mv_foo", "foo"},
        {"fmvgen_cpu_levels", "fmvgen_cpu_levels"},
        /* an LTO link's renames keep the function (resolver and copies alike) */
        {"fmvgen_resolve_foo.lto_priv.0", "foo"}, {"fmvgen_cp_foo_default.lto_priv.1", "foo"},
        {"fmvgen_cpu_levels.lto_priv.0", "fmvgen_cpu_levels"},
        /* the linked file's one (patch/cpuid.h: the contract's version a tail) */
        {"fmvgen_cpu_levels.v1", "fmvgen_cpu_levels"},
        /* not one of the copies' slugs: an ordinary name */
        {"fmvgen_cp_foo_sse4", "fmvgen_cp_foo_sse4"}, {"fmvgen_cp_default", "fmvgen_cp_default"},
    };
    for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
        char *s = attribution_base_name(base[i][0]);
        assert_string_equal(s, base[i][1]);
        free(s);
    }
    char *s = attribution_clone_suffix("fmvgen_cp_foo_x86_64_v3");
    assert_string_equal(s, "x86_64_v3");
    free(s);

    struct profile_entry e[] = {
        {"fmvgen_cp_foo_x86_64_v3", 0, 10, NULL, 0}, {"fmvgen_cp_foo_default", 0, 2, NULL, 0},
        {"fmvgen_resolve_foo", 0, 30, NULL, 0},      {"foo.fmvgen_init", 0, 1, NULL, 0},
        {"foo", 0, 1, NULL, 0},                      {"fmvgen_cp_foobar_avx2", 0, 50, NULL, 0},
        {"fmvgen_cpu_levels", 0, 4, NULL, 0},        {"fmvgen_cpu_levels.v1", 0, 3, NULL, 0},
        /* ifunc reach in an LTO link: the resolver renamed, no trampoline */
        {"fmvgen_resolve_foo.lto_priv.0", 0, 40, NULL, 0},
    };
    struct profile p = {.entries = e, .n = sizeof e / sizeof *e, .total_samples = 141};
    assert_int_equal(attribution_samples(&p, "foo"), 84);      /* not foobar's copy, not the CPU check */
    assert_int_equal(attribution_samples(&p, "foobar"), 50);
    /* the resolvers hold the most, but the copy that ran is the answer */
    assert_string_equal(attribution_hottest_symbol(&p, "foo"), "fmvgen_cp_foo_x86_64_v3");
}

/* 2 functions x 1 workload x 3 variants x 4 runs. */
#define NF 2
#define NV 3
#define NR 4
static void fill_runs(double *samples, size_t v, size_t f, double base)
{
    static const double jitter[NR] = {0, 3, -2, 1};
    for (size_t r = 0; r < NR; r++) samples[(v * NF + f) * NR + r] = base + jitter[r];
}

static void run_decision(const double per_fn[NV][NF], const int *eligible, double min_samples, struct decision *d)
{
    static const char *const names[NF] = {"hot", "cold"};
    double samples[NV * NF * NR], totals[NV * NR];
    for (size_t v = 0; v < NV; v++) {
        for (size_t f = 0; f < NF; f++) fill_runs(samples, v, f, per_fn[v][f]);
        for (size_t r = 0; r < NR; r++) totals[v * NR + r] = 2000;
    }
    struct decision_input in = {.n_functions = NF, .n_workloads = 1, .n_variants = NV, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = min_samples};
    decide(&in, d);
}

static void test_decision(void **state)
{
    (void)state;
    struct decision d;
    /* hot: 1000 -> 400 (v1) or 600 (v2); cold: 10 everywhere */
    const double gain[NV][NF] = {{1000, 10}, {400, 10}, {600, 10}};
    int both[NV] = {0, 1, 1};
    run_decision(gain, both, 20, &d);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_int_equal(d.functions[0].chosen, 1);
    assert_true(d.functions[0].qualifies[1] && d.functions[0].qualifies[2]);
    assert_true(fabs(d.functions[0].share - 0.5) < 0.01);
    assert_int_equal(d.functions[1].reason, DECISION_COLD);
    assert_int_equal(d.functions[1].chosen, -1);
    decision_free(&d);

    /* the FMA set not eligible: the other set is chosen */
    int only2[NV] = {0, 0, 1};
    run_decision(gain, only2, 20, &d);
    assert_int_equal(d.functions[0].chosen, 2);
    decision_free(&d);

    /* the only gaining set not eligible: held back */
    const double gain1[NV][NF] = {{1000, 10}, {400, 10}, {1000, 10}};
    run_decision(gain1, only2, 20, &d);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_int_equal(d.functions[0].reason, DECISION_INELIGIBLE);
    assert_int_equal(d.functions[0].best_ineligible, 1);
    decision_free(&d);

    /* the gaining set not eligible as a variant, but eligible for this
     * function (its clones there hold no FMA instruction): chosen */
    {
        static const char *const names[NF] = {"hot", "cold"};
        double samples[NV * NF * NR], totals[NV * NR];
        for (size_t v = 0; v < NV; v++) {
            for (size_t f = 0; f < NF; f++) fill_runs(samples, v, f, gain1[v][f]);
            for (size_t r = 0; r < NR; r++) totals[v * NR + r] = 2000;
        }
        int per_fn[NF * NV] = {0, 1, 1, /* cold: */ 0, 0, 1};
        struct decision_input in = {.n_functions = NF, .n_workloads = 1, .n_variants = NV, .n_runs = NR,
                                    .functions = names, .samples = samples, .totals = totals,
                                    .variant_eligible = only2, .function_eligible = per_fn, .min_share = 0.02,
                                    .min_samples = 20};
        decide(&in, &d);
        assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
        assert_int_equal(d.functions[0].chosen, 1);
        decision_free(&d);
    }

    /* slower with both sets: not selected */
    const double slower[NV][NF] = {{1000, 10}, {1300, 10}, {1100, 10}};
    run_decision(slower, both, 20, &d);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_int_equal(d.functions[0].reason, DECISION_NO_GAIN);
    decision_free(&d);

    /* too few samples for a verdict */
    run_decision(gain, both, 5000, &d);
    assert_int_equal(d.functions[0].reason, DECISION_FEW_SAMPLES);
    assert_int_equal(d.functions[0].chosen, -1);
    decision_free(&d);
}

/* Clones that are the default's code (decision_input.same_code): a gain
 * the runs show is noise. With every set such: DECISION_SAME_CODE and no
 * test in the family; with one set such: the other set decides. */
static void test_decision_same_code(void **state)
{
    (void)state;
    static const char *const names[NF] = {"hot", "cold"};
    const double gain[NV][NF] = {{1000, 10}, {400, 10}, {600, 10}};
    double samples[NV * NF * NR], totals[NV * NR];
    for (size_t v = 0; v < NV; v++) {
        for (size_t f = 0; f < NF; f++) fill_runs(samples, v, f, gain[v][f]);
        for (size_t r = 0; r < NR; r++) totals[v * NR + r] = 2000;
    }
    int both[NV] = {0, 1, 1};
    int everywhere[NF * NV] = {0, 1, 1, 0, 0, 0};
    struct decision_input in = {.n_functions = NF, .n_workloads = 1, .n_variants = NV, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = both, .min_share = 0.02, .min_samples = 20,
                                .same_code = everywhere};
    struct decision d;
    decide(&in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_SAME_CODE);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_int_equal(d.n_tests, 0);   /* the cold one is judged by no test either */
    assert_string_equal(decision_reason_code(DECISION_SAME_CODE), "same-code");
    decision_free(&d);

    /* the faster set is the default's code: the other one is chosen */
    int first[NF * NV] = {0, 1, 0, 0, 0, 0};
    in.same_code = first;
    decide(&in, &d);
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_int_equal(d.functions[0].chosen, 2);
    assert_int_equal(d.n_tests, 1);
    decision_free(&d);
}

/* Two workloads: faster in sum, significantly slower on the second. */
static void test_decision_workloads(void **state)
{
    (void)state;
    static const char *const names[1] = {"f"};
    static const double jitter[NR] = {0, 3, -2, 1};
    /* [w][v] base values; variant 1 only */
    const double base[2][2] = {{1000, 300}, {200, 260}};
    double samples[2 * 2 * NR], totals[2 * 2 * NR];
    for (size_t w = 0; w < 2; w++)
        for (size_t v = 0; v < 2; v++)
            for (size_t r = 0; r < NR; r++) {
                samples[(w * 2 + v) * NR + r] = base[w][v] + jitter[r];
                totals[(w * 2 + v) * NR + r] = 2000;
            }
    int eligible[2] = {0, 1};
    struct decision_input in = {.n_functions = 1, .n_workloads = 2, .n_variants = 2, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
    struct decision d;
    decide(&in, &d);
    assert_int_equal(d.functions[0].chosen, -1);
    assert_int_equal(d.functions[0].reason, DECISION_SLOWER);
    decision_free(&d);
}

/* The share is judged per workload: "short" is 30% of a short workload
 * (1000 samples a run) beside a ten times longer one (10000) where it never
 * runs - 2.7% of all the samples together, under a 5% minimum, but hot where
 * it runs; "thin" holds 1% of each workload and stays cold. */
static void test_decision_share_per_workload(void **state)
{
    (void)state;
    static const char *const names[2] = {"short", "thin"};
    static const double jitter[NR] = {0, 3, -2, 1};
    /* [w][v][f] mean samples; variant 1 halves "short" */
    const double mean[2][2][2] = {{{300, 10}, {150, 10}}, {{0, 100}, {0, 100}}};
    const double total[2] = {1000, 10000};
    double samples[2 * 2 * 2 * NR], totals[2 * 2 * NR];
    for (size_t w = 0; w < 2; w++)
        for (size_t v = 0; v < 2; v++) {
            for (size_t f = 0; f < 2; f++)
                for (size_t r = 0; r < NR; r++)
                    samples[((w * 2 + v) * 2 + f) * NR + r] = mean[w][v][f] ? mean[w][v][f] + jitter[r] : 0;
            for (size_t r = 0; r < NR; r++) totals[(w * 2 + v) * NR + r] = total[w];
        }
    int eligible[2] = {0, 1};
    struct decision_input in = {.n_functions = 2, .n_workloads = 2, .n_variants = 2, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.05, .min_samples = 20};
    struct decision d;
    decide(&in, &d);
    assert_true(fabs(d.functions[0].share - 0.3) < 0.005);   /* not 300 / 11000 */
    assert_int_equal(d.functions[0].reason, DECISION_SELECTED);
    assert_int_equal(d.functions[0].chosen, 1);
    assert_true(fabs(d.functions[1].share - 0.01) < 0.001);
    assert_int_equal(d.functions[1].reason, DECISION_COLD);
    assert_int_equal(d.functions[1].chosen, -1);
    decision_free(&d);
}

/* Many small gains (decision.h, the group): six functions of 5% each lose
 * 5 of 100 samples a run with the variant, none significantly alone (each
 * run's noise is +-8), while their noise cancels in the sum (each function's
 * is the same pattern, shifted by one run), so together they are
 * significantly faster. "worse" gets slower and "tiny" is too small to be
 * worth its clones: both stay out. Without the gain, no group is chosen. */
#define SG_NF 8
#define SG_NR 6
static void small_gains_input(double gain, double *samples, double *totals, struct decision_input *in)
{
    static const char *const names[SG_NF] = {"a", "b", "c", "d", "e", "f", "worse", "tiny"};
    static const double noise[SG_NR] = {-8, 8, -4, 4, 0, 0};
    static const double extra[SG_NR] = {0, 1, 0, -1, 1, -1};   /* so that the sum is not exact */
    static const int eligible[2] = {0, 1};
    for (size_t v = 0; v < 2; v++) {
        for (size_t f = 0; f < SG_NF; f++)
            for (size_t r = 0; r < SG_NR; r++) {
                double x;
                if (f < 6) x = (v ? 100 - gain : 100) + noise[(r + f + 3 * v) % SG_NR] + (f == 0 ? extra[r] : 0);
                else if (f == 6) x = v ? 104 : 100;
                else x = v ? 0.5 : 1;
                samples[(v * SG_NF + f) * SG_NR + r] = x;
            }
        for (size_t r = 0; r < SG_NR; r++) totals[v * SG_NR + r] = 2000;
    }
    *in = (struct decision_input){.n_functions = SG_NF, .n_workloads = 1, .n_variants = 2, .n_runs = SG_NR,
                                  .functions = names, .samples = samples, .totals = totals,
                                  .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
}

static void test_decision_small_gains(void **state)
{
    (void)state;
    double samples[2 * SG_NF * SG_NR], totals[2 * SG_NR];
    struct decision_input in;
    struct decision d;
    small_gains_input(5, samples, totals, &in);
    decide(&in, &d);
    for (size_t f = 0; f < 6; f++) {
        assert_false(stats_faster(&d.functions[f].by_variant[1]));   /* not significant alone */
        assert_int_equal(d.functions[f].reason, DECISION_SELECTED_TOGETHER);
        assert_int_equal(d.functions[f].chosen, 1);
    }
    assert_int_equal(d.functions[6].reason, DECISION_NO_GAIN);
    assert_int_equal(d.functions[6].chosen, -1);
    assert_int_equal(d.functions[7].reason, DECISION_COLD);
    assert_int_equal(d.functions[7].chosen, -1);
    assert_int_equal(d.group.chosen, 1);
    assert_int_equal(d.group.n_pool, 8);
    assert_int_equal(d.group.n_members, 6);
    assert_true(stats_faster(&d.group.by_variant_chosen));
    decision_free(&d);

    /* the same noise, no gain: the functions that happen to look faster
     * are not picked */
    small_gains_input(0, samples, totals, &in);
    decide(&in, &d);
    assert_int_equal(d.group.chosen, -1);
    assert_int_equal(d.group.n_members, 0);
    for (size_t f = 0; f < SG_NF; f++) assert_int_equal(d.functions[f].chosen, -1);
    decision_free(&d);
}

/* Wall times that measure waits (a busy machine: 3x the CPU time) point to
 * the CPU-time interval; a workload that got its CPU does not, nor one whose
 * CPU time was not measured. */
static void test_waits_dominate(void **state)
{
    (void)state;
    assert_true(decision_waits_dominate(3.7, 1.2));
    assert_true(decision_waits_dominate(1.3, 1.0));
    assert_false(decision_waits_dominate(1.05, 1.0));
    assert_false(decision_waits_dominate(0.6, 1.2));   /* threads: more CPU than wall */
    assert_false(decision_waits_dominate(1.0, 0));
}

/* Time moved into helpers the clones no longer inline (outlined.h): a
 * helper of a.c that no baseline run sampled counts as a.c's candidates'
 * (split by their baseline samples); one the baseline sampled too, and one
 * of a file without candidates, do not. */
static void test_outlined(void **state)
{
    (void)state;
    enum { W = 1, V = 2, F = 3, R = 2 };
    /* f0, f1 in a.c (baseline 300 and 100 a run), f2 in b.c */
    double samples[W * V * F * R] = {300, 300, 100, 100, 50, 50, /* variant: */ 30, 30, 10, 10, 50, 50};
    struct strvec sources[F] = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT};
    sv_push(&sources[0], "src/a.c");
    sv_push(&sources[1], "a.c");
    sv_push(&sources[2], "b.c");
    struct outlined_log log = {0};
    outlined_add(&log, 0, 0, 0, "a.c", "always", 5);
    outlined_add(&log, 0, 1, 0, "a.c", "always", 9);
    for (size_t r = 0; r < R; r++) {
        outlined_add(&log, 0, 1, r, "a.c", "helper", 360);
        outlined_add(&log, 0, 1, r, "c.c", "other", 50);
    }
    double moved[F * V] = {0};
    struct strvec helpers[F] = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT};
    outlined_apply(&log, sources, W, V, F, R, samples, moved, helpers);
    assert_true(fabs(samples[6] - (30 + 270)) < 1e-9);   /* 3/4 of 360 to f0 */
    assert_true(fabs(samples[8] - (10 + 90)) < 1e-9);    /* 1/4 to f1 */
    assert_true(fabs(samples[10] - 50) < 1e-9);          /* b.c: nothing */
    assert_true(fabs(samples[0] - 300) < 1e-9);          /* the baseline: nothing */
    assert_true(fabs(moved[0 * V + 1] - 270) < 1e-9);
    assert_int_equal(helpers[0].n, 1);
    assert_string_equal(helpers[0].v[0], "helper");
    assert_int_equal(helpers[2].n, 0);
    for (size_t f = 0; f < F; f++) {
        sv_free(&sources[f]);
        sv_free(&helpers[f]);
    }
    outlined_log_free(&log);
}

/* What of a workload's stdout is compared (select/workload_output.h). */
static void test_workload_output(void **state)
{
    (void)state;
    struct workload_output o;
    struct output_diff d;
    /* the same twice: everything compared */
    workload_output_learn(&o, "sum 42\n", "sum 42\n");
    assert_int_equal(o.mode, WORKLOAD_OUTPUT_ALL);
    const char *other = "sum 43\n";
    workload_output_compare(&o, other, strlen(other), -1, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    workload_output_free(&o);

    /* a timing line varies: it is masked, the others still count */
    workload_output_learn(&o, "sum 42\nspeed 812.5 MB/s\ncrc 7\n", "sum 42\nspeed 799.1 MB/s\ncrc 7\n");
    assert_int_equal(o.mode, WORKLOAD_OUTPUT_MASKED);
    assert_int_equal(o.n_masked, 1);
    assert_int_equal(o.first_masked, 2);
    const char *faster = "sum 42\nspeed 2400 MB/s\ncrc 7\n";
    workload_output_compare(&o, faster, strlen(faster), -1, &d);
    assert_int_equal(d.match, OUTPUT_IDENTICAL);
    output_diff_free(&d);
    const char *wrong = "sum 42\nspeed 2400 MB/s\ncrc 8\n";
    workload_output_compare(&o, wrong, strlen(wrong), -1, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.line, 3);
    output_diff_free(&d);
    const char *longer = "sum 42\nspeed 2400 MB/s\ncrc 7\nextra\n";
    workload_output_compare(&o, longer, strlen(longer), -1, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    const char *floats = "sum 42.0000001\nspeed 1 MB/s\ncrc 7\n";   /* the tolerance still applies */
    workload_output_free(&o);
    workload_output_learn(&o, "sum 42.0\nspeed 812.5 MB/s\ncrc 7\n", "sum 42.0\nspeed 799.1 MB/s\ncrc 7\n");
    workload_output_compare(&o, floats, strlen(floats), 1e-6, &d);
    assert_int_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    output_diff_free(&d);
    workload_output_free(&o);

    /* the number of lines varies: not compared */
    workload_output_learn(&o, "run 1\n", "run 1\nrun 2\n");
    assert_int_equal(o.mode, WORKLOAD_OUTPUT_NOT_COMPARED);
    workload_output_compare(&o, "anything", 8, -1, &d);
    assert_int_equal(d.match, OUTPUT_IDENTICAL);
    output_diff_free(&d);
    workload_output_free(&o);
}

/* A workload that runs for a fixed time (decision_fixed_time): the
 * selected function's samples fell by 40% of the run (600 -> 200 of 1000 a
 * run, decision_saved_share), so a fixed amount of work would take ~1.67x
 * less time; the end-to-end interval decides. */
static void test_fixed_time(void **state)
{
    (void)state;
    static const char *const names[1] = {"dot"};
    static const double jitter[NR] = {0, 3, -2, 1};
    double samples[2 * NR], totals[2 * NR];
    for (size_t r = 0; r < NR; r++) {
        samples[r] = 600 + jitter[r];
        samples[NR + r] = 200 - jitter[r];
        totals[r] = 1000 + jitter[r];
        totals[NR + r] = 1000 - jitter[r];   /* fixed time: the total did not follow */
    }
    int eligible[2] = {0, 1};
    struct decision_input in = {.n_functions = 1, .n_workloads = 1, .n_variants = 2, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = eligible, .min_share = 0.02, .min_samples = 20};
    double saved = decision_saved_share(&in, 0, 0, 1);
    assert_true(fabs(saved - 0.4) < 0.005);

    /* wall times of baseline and selected: [run] */
    double base[] = {0.301, 0.302, 0.300, 0.301}, same[] = {0.302, 0.300, 0.301, 0.302};
    double faster[] = {0.181, 0.18, 0.182, 0.18}, noisy_base[] = {0.3, 0.6, 0.35, 0.5},
           noisy_sel[] = {0.2, 0.45, 0.25, 0.5};
    struct stats_interval e2e;
    stats_welch_log(base, NR, same, NR, &e2e);
    assert_true(decision_fixed_time(saved, &e2e));      /* the same time: fixed time */
    assert_false(decision_fixed_time(0.05, &e2e));      /* too little saved to tell */
    stats_welch_log(base, NR, faster, NR, &e2e);
    assert_false(decision_fixed_time(saved, &e2e));     /* fixed work: the time followed */
    stats_welch_log(noisy_base, NR, noisy_sel, NR, &e2e);
    assert_false(stats_faster(&e2e));
    assert_false(decision_fixed_time(saved, &e2e));     /* too noisy to exclude the gain */
    stats_welch_log(base, 1, same, 1, &e2e);
    assert_false(decision_fixed_time(saved, &e2e));     /* no interval */

    /* a busy machine (TSVC, session 14): the wall times waited, 0.66x
     * [0.47, 0.92], while the CPU time, which decides, followed the work */
    struct select_workload_result wr = {0};
    double waited[] = {0.45, 0.46, 0.44, 0.45};
    stats_welch_log(base, NR, waited, NR, &wr.e2e);
    stats_welch_log(base, NR, faster, NR, &wr.e2e_cpu);
    assert_true(decision_fixed_time(saved, &wr.e2e));
    wr.cpu_decides = 1;
    assert_ptr_equal(select_deciding_e2e(&wr), &wr.e2e_cpu);
    assert_false(decision_fixed_time(saved, select_deciding_e2e(&wr)));
    wr.cpu_decides = 0;
    assert_true(decision_fixed_time(saved, select_deciding_e2e(&wr)));
}

static void test_report(void **state)
{
    (void)state;
    struct select_report r = {0};
    r.runs = 3;
    r.min_share = 0.02;
    r.tolerance = -1;
    r.n_builds = 4;
    r.n_variants = 2;
    r.variants = xcalloc(2, sizeof *r.variants);
    r.variants[0] = (struct select_variant){.name = xstrdup("baseline"), .targets = xstrdup(""), .built = 1,
                                            .output_match = xstrdup("identical")};
    r.variants[1] = (struct select_variant){.name = xstrdup("fma-free"), .targets = xstrdup("avx2"), .built = 1,
                                            .output_match = xstrdup("identical"), .eligible = 1};
    r.n_functions = 1;
    r.functions = xcalloc(1, sizeof *r.functions);
    r.functions[0].name = xstrdup("dot");
    r.functions[0].display_name = xstrdup("dot");
    r.functions[0].file = xstrdup("k.c");
    r.functions[0].line = 7;
    r.functions[0].in_patch = 1;
    r.functions[0].set = 1;
    r.functions[0].ran = xcalloc(3, sizeof(char *));
    r.functions[0].ran[1] = xstrdup("dot.avx2");
    r.decision.n_functions = 1;
    r.decision.n_variants = 2;
    r.decision.functions = xcalloc(1, sizeof *r.decision.functions);
    r.decision.functions[0].chosen = 1;
    r.decision.functions[0].share = 0.9;
    r.decision.functions[0].by_variant = xcalloc(2, sizeof(struct stats_interval));
    double a[] = {10, 11, 9}, b[] = {5, 5.5, 4.5};
    stats_welch(a, 3, b, 3, &r.decision.functions[0].by_variant[1]);
    r.n_selected = 1;
    r.patch_targets = xstrdup("avx2");
    sv_push(&r.notes, "a note");

    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "| dot | k.c:7 | 90.0% |"));
    assert_non_null(strstr(md, "2.00x ["));
    assert_non_null(strstr(md, "(dot.avx2)"));
    assert_non_null(strstr(md, "1 of 1 candidates selected (targets avx2)"));
    assert_non_null(strstr(md, "- a note"));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *f = json_array_get(json_object_get(j, "functions"), 0);
    assert_true(json_is_true(json_object_get(f, "selected")));
    assert_string_equal(json_string_value(json_object_get(f, "target_set")), "fma-free");
    json_t *v = json_object_get(json_object_get(f, "variants"), "fma-free");
    assert_string_equal(json_string_value(json_object_get(v, "clone_ran")), "dot.avx2");
    assert_true(json_real_value(json_object_get(v, "speedup")) > 1.99);
    json_decref(j);
    char *html = select_report_html(&r);
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, ">dot</text>"));
    assert_non_null(strstr(html, "2.00x with fma-free"));
    free(html);
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "yes dot"));
    free(sum);
    select_report_free(&r);
}

/* ---- from the decision to the patch (no timing) ---- */

static const char *const MIXED_FILES[] = {"mixed.c", "other.c", "mixed.h", "main.c"};
enum { MX_ADD, MX_DOT, MX_TRIPLE, MX_TRIPLE_ALL, MX_SQUARE, MX_N };
static const char *const MIXED_FNS[MX_N] = {"add_ints", "dot_ints", "triple", "triple_all", "square_ints"};

/* A report over the select-mixed candidates with the variants select
 * builds, decided from samples by the real rule: [v][f] mean samples. */
static void mixed_report(const double per_fn[3][MX_N], const int eligible[3], struct select_report *r)
{
    memset(r, 0, sizeof *r);
    r->runs = NR;
    r->min_share = 0.02;
    r->tolerance = -1;
    r->n_variants = 1 + select_n_target_sets;
    assert_int_equal(r->n_variants, 3);
    r->variants = xcalloc(r->n_variants, sizeof *r->variants);
    r->variants[0] = (struct select_variant){.name = xstrdup("baseline"), .targets = xstrdup(""), .built = 1,
                                             .output_match = xstrdup("")};
    for (size_t v = 1; v < r->n_variants; v++)
        r->variants[v] = (struct select_variant){.name = xstrdup(select_target_sets[v - 1].name),
                                                 .targets = xstrdup(select_target_sets[v - 1].targets),
                                                 .built = 1, .output_match = xstrdup("identical"),
                                                 .eligible = eligible[v]};
    r->n_functions = MX_N;
    r->functions = xcalloc(MX_N, sizeof *r->functions);
    for (size_t f = 0; f < MX_N; f++) {
        r->functions[f].name = xstrdup(MIXED_FNS[f]);
        r->functions[f].display_name = xstrdup(MIXED_FNS[f]);
        r->functions[f].file = xstrdup("mixed.c");
        r->functions[f].ran = xcalloc(r->n_variants + 1, sizeof(char *));
    }
    static const double jitter[NR] = {0, 3, -2, 1};
    double samples[3 * MX_N * NR], totals[3 * NR];
    for (size_t v = 0; v < 3; v++) {
        for (size_t f = 0; f < MX_N; f++)
            for (size_t k = 0; k < NR; k++) samples[(v * MX_N + f) * NR + k] = per_fn[v][f] + jitter[k];
        for (size_t k = 0; k < NR; k++) totals[v * NR + k] = 6000;
    }
    struct decision_input in = {.n_functions = MX_N, .n_workloads = 1, .n_variants = 3, .n_runs = NR,
                                .functions = (const char *const *)MIXED_FNS, .samples = samples,
                                .totals = totals, .variant_eligible = eligible, .min_share = 0.02,
                                .min_samples = 20};
    decide(&in, &r->decision);
}

/* add_ints and triple are fastest with avx2 (triple is even slower with the
 * FMA levels), dot_ints and square_ints with the levels, triple_all is
 * cold: the patch gives each its own set, in one build. */
static void test_decision_to_patch(void **state)
{
    (void)state;
    /* [variant][function]: baseline, fma-levels, fma-free */
    const double per_fn[3][MX_N] = {
        {1000, 1000, 1000, 10, 1000},
        {600, 400, 1100, 10, 450},
        {400, 700, 500, 10, 1000},
    };
    const int both[3] = {0, 1, 1};
    struct select_report r;
    mixed_report(per_fn, both, &r);
    assert_int_equal(r.decision.functions[MX_ADD].chosen, 2);
    assert_int_equal(r.decision.functions[MX_DOT].chosen, 1);
    assert_int_equal(r.decision.functions[MX_TRIPLE].chosen, 2);
    assert_int_equal(r.decision.functions[MX_SQUARE].chosen, 1);
    assert_int_equal(r.decision.functions[MX_TRIPLE_ALL].reason, DECISION_COLD);

    select_apply_decision(&r);
    struct patch_assignments a = {0};
    assert_int_equal(select_patch_assignments(&r, &a), 0);
    assert_int_equal(r.n_selected, 4);
    assert_int_equal(a.n, 4);
    assert_false(r.functions[MX_TRIPLE_ALL].in_patch);
    assert_int_equal(r.functions[MX_ADD].set, 2);
    assert_int_equal(r.functions[MX_DOT].set, 1);
    assert_string_equal(r.patch_targets, TARGETS_DEFAULT "; " TARGETS_EXACT);
    assert_int_equal(r.notes.n, 0);

    struct project p;
    project_open_fixture(&p, "select-mixed", MIXED_FILES, sizeof MIXED_FILES / sizeof *MIXED_FILES);
    add_candidate(&p, "mixed.c", "add_ints", "void add_ints(");
    add_candidate(&p, "mixed.c", "dot_ints", "long dot_ints(");
    add_candidate(&p, "mixed.c", "triple", "static void\ntriple(");
    add_candidate(&p, "mixed.c", "triple_all", "void triple_all(");
    add_candidate(&p, "other.c", "square_ints", "void square_ints(");
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    assert_int_equal(plan.nfunctions, 4);
    assert_int_equal(plan.nsets, 2);
    assert_non_null(strstr(plan.text, "+FMVGEN_CLONES_AVX2(add_ints)\n void add_ints("));
    assert_non_null(strstr(plan.text, "+FMVGEN_CLONES_X86_64_V3_X86_64_V4(dot_ints)\n long dot_ints("));
    assert_non_null(strstr(plan.text, "+FMVGEN_CLONES_AVX2_STATIC\n static void\n triple("));
    assert_non_null(strstr(plan.text, "+FMVGEN_CLONES_X86_64_V3_X86_64_V4(square_ints)\n void square_ints("));
    assert_null(strstr(plan.text, "(triple_all)"));
    assert_non_null(strstr(plan.text, "They are the targets of dot_ints, square_ints.\n"));
    patch_plan_free(&plan);

    /* the report says which set each function got */
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "4 of 5 candidates selected (targets " TARGETS_DEFAULT "; " TARGETS_EXACT ")"));
    assert_non_null(strstr(md, "| fma-free | selected |"));
    assert_non_null(strstr(md, "| fma-levels | selected |"));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *fns = json_object_get(j, "functions");
    assert_string_equal(json_string_value(json_object_get(json_array_get(fns, MX_TRIPLE), "target_set")), "fma-free");
    assert_string_equal(json_string_value(json_object_get(json_array_get(fns, MX_SQUARE), "target_set")),
                        "fma-levels");
    assert_string_equal(json_string_value(json_object_get(json_array_get(fns, MX_SQUARE), "targets")),
                        TARGETS_DEFAULT);
    assert_string_equal(json_string_value(json_object_get(json_array_get(fns, MX_ADD), "targets")), TARGETS_EXACT);
    assert_true(json_is_null(json_object_get(json_array_get(fns, MX_TRIPLE_ALL), "targets")));
    json_decref(j);
    patch_assignments_free(&a);
    select_report_free(&r);

    /* The levels' variant not eligible (outputs differ): the functions that
     * gain with avx2 too get it; square_ints, which gains only with the
     * levels, is held back and the report says why. */
    const int only_free[3] = {0, 0, 1};
    mixed_report(per_fn, only_free, &r);
    r.variants[1].failure = xstrdup("output of './b' differs from the baseline's at line 2 (floats-differ); "
                                    "--tolerance accepts that");
    select_apply_decision(&r);
    assert_int_equal(select_patch_assignments(&r, &a), 0);
    assert_int_equal(a.n, 3);
    assert_int_equal(r.functions[MX_DOT].set, 2);
    assert_false(r.functions[MX_SQUARE].in_patch);
    assert_string_equal(r.patch_targets, TARGETS_EXACT);
    assert_int_equal(r.notes.n, 1);
    assert_non_null(strstr(r.notes.v[0], "square_ints was held back: it gained with fma-levels"));
    assert_non_null(strstr(r.notes.v[0], "(floats-differ); --tolerance accepts that"));
    assert_non_null(strstr(r.functions[MX_SQUARE].note, "gained only with fma-levels, which is not eligible: output"));
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    assert_int_equal(plan.nsets, 1);   /* one set: the plain one-set macros */
    assert_non_null(strstr(plan.text, "+FMVGEN_CLONES(dot_ints)\n"));
    assert_null(strstr(plan.text, "FMVGEN_CLONES_AVX2"));
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    select_report_free(&r);

    /* the same with text that differs (not floats): --tolerance is not
     * suggested, neither in the notes nor in the function's "why" */
    mixed_report(per_fn, only_free, &r);
    r.variants[1].failure = xstrdup("output of './b' differs from the baseline's at line 2 (different)");
    select_apply_decision(&r);
    assert_int_equal(r.notes.n, 1);
    assert_null(strstr(r.notes.v[0], "tolerance"));
    assert_null(strstr(r.functions[MX_SQUARE].note, "tolerance"));
    assert_null(strstr(decision_reason_name(DECISION_INELIGIBLE), "tolerance"));
    select_report_free(&r);

    /* nothing selected: no assignment, no targets */
    const double flat[3][MX_N] = {{1000, 1000, 1000, 10, 1000}, {1000, 1000, 1000, 10, 1000},
                                  {1000, 1000, 1000, 10, 1000}};
    mixed_report(flat, both, &r);
    select_apply_decision(&r);
    assert_int_equal(select_patch_assignments(&r, &a), 0);
    assert_int_equal(a.n, 0);
    assert_null(r.patch_targets);
    assert_int_equal(r.n_selected, 0);
    patch_assignments_free(&a);
    select_report_free(&r);
    project_close(&p);
}

/* ---- where variants build (select/tree.h) ---- */

static char *text_at(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    char *t = read_file(p, NULL);
    free(p);
    return t;
}

static void put_text(const char *dir, const char *name, const char *text)
{
    char *p = path_join(dir, name);
    assert_int_equal(write_file_atomic(p, text, strlen(text)), 0);
    free(p);
}

/* The three layouts of tree.h on a tiny project (root with a.c, and a
 * configured-looking build/ below it), built by shell commands that check
 * where they run and what they see. */
static void test_tree_layouts(void **state)
{
    (void)state;
    char *root = make_temp_dir("test-tree-root");
    char *work = make_temp_dir("test-tree-work");
    char *outside = make_temp_dir("test-tree-outside");
    put_text(root, "a.c", "original\n");
    char *user_build = path_join(root, "build");
    assert_int_equal(mkdir_p(user_build, 0755), 0);
    put_text(user_build, "junk", "the user's build\n");
    struct patch_file pf = {.rel = (char *)"a.c", .new_data = (char *)"patched\n", .new_len = 8};
    struct patch_plan plan = {.files = &pf, .nfiles = 1};
    struct variant_build b;
    char *src = NULL, *expect = NULL;

    /* in-tree: one copy, built in place, patched */
    struct select_tree t = {.root = root, .builddir = root,
                            .build = "test -f a.c && test -d build && printf %s \"$FMVGEN_SOURCE_DIR\" > where"};
    assert_int_equal(select_tree_check(&t), 0);
    assert_int_equal(select_tree_build(&t, "in", &plan, work, &b, &src), 0);
    expect = path_join(work, "in");
    assert_string_equal(b.dir, expect);
    assert_string_equal(src, expect);
    char *s = text_at(b.dir, "where");
    assert_string_equal(s, expect);
    free(s);
    s = text_at(b.dir, "a.c");
    assert_string_equal(s, "patched\n");
    free(s);
    free(expect);
    free(src);
    variant_build_free(&b);

    /* below the root, no configure: built in the copy's build/ */
    t = (struct select_tree){.root = root, .builddir = user_build, .build = "test -f junk && test -f ../a.c"};
    assert_int_equal(select_tree_check(&t), 0);
    assert_int_equal(select_tree_build(&t, "below", NULL, work, &b, &src), 0);
    expect = xasprintf("%s/below/build", work);
    assert_string_equal(b.dir, expect);
    free(expect);
    expect = path_join(work, "below");
    assert_string_equal(src, expect);
    free(expect);
    free(src);
    variant_build_free(&b);

    /* below the root with configure: a fresh build dir beside a source copy
     * without the user's build dir */
    t.configure = "test -z \"$(ls -A)\" && touch configured";
    t.build = "test -f configured && test -f \"$FMVGEN_SOURCE_DIR/a.c\" && test ! -e \"$FMVGEN_SOURCE_DIR/build\"";
    assert_int_equal(select_tree_build(&t, "fresh", &plan, work, &b, &src), 0);
    expect = path_join(work, "fresh");
    assert_string_equal(b.dir, expect);
    free(expect);
    expect = path_join(work, "src-fresh");
    assert_string_equal(src, expect);
    free(expect);
    s = text_at(src, "a.c");
    assert_string_equal(s, "patched\n");
    free(s);
    free(src);
    variant_build_free(&b);

    /* elsewhere: refused without configure, built with it */
    t = (struct select_tree){.root = root, .builddir = outside, .build = "true"};
    assert_int_equal(select_tree_check(&t), -1);
    t.configure = "echo configuring; exit 3";
    assert_int_equal(select_tree_check(&t), 0);
    assert_int_equal(select_tree_build(&t, "failing", NULL, work, &b, &src), -1);
    assert_string_equal(b.failure, "configure: exit status 3");
    assert_non_null(strstr(b.log, "configuring"));
    free(src);
    variant_build_free(&b);
    t.configure = "true";
    t.build = "exit 5";
    assert_int_equal(select_tree_build(&t, "failing-build", NULL, work, &b, &src), -1);
    assert_string_equal(b.failure, "exit status 5");
    free(src);
    variant_build_free(&b);

    /* the user's tree is as it was */
    s = text_at(root, "a.c");
    assert_string_equal(s, "original\n");
    free(s);
    s = text_at(user_build, "junk");
    assert_string_equal(s, "the user's build\n");
    free(s);

    struct strvec argv = STRVEC_INIT;
    select_tree_command("echo hi", "/src", &argv);
    assert_int_equal(argv.n, 5);
    assert_string_equal(argv.v[0], "env");
    assert_string_equal(argv.v[1], "FMVGEN_SOURCE_DIR=/src");
    assert_string_equal(argv.v[4], "echo hi");
    sv_free(&argv);

    remove_tree(root);
    remove_tree(work);
    remove_tree(outside);
    free(root);
    free(work);
    free(outside);
    free(user_build);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_attribution),
        cmocka_unit_test(test_attribution_fmvgen_names),
        cmocka_unit_test(test_decision),
        cmocka_unit_test(test_decision_same_code),
        cmocka_unit_test(test_decision_workloads),
        cmocka_unit_test(test_decision_share_per_workload),
        cmocka_unit_test(test_decision_small_gains),
        cmocka_unit_test(test_waits_dominate),
        cmocka_unit_test(test_outlined),
        cmocka_unit_test(test_workload_output),
        cmocka_unit_test(test_fixed_time),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_decision_to_patch),
        cmocka_unit_test(test_tree_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
