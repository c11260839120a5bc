/* Unit tests of lib/select: Welch intervals (known values, no interval from
 * one run, significance both ways), clone symbols folded back onto their
 * function (GCC, Clang, compiler-made pieces, kernel samples left out), the
 * selection rule (hot and faster: selected with the best eligible set; cold;
 * too few samples; a gain only on an ineligible set is held back; faster in
 * sum but slower on one workload). The report writers, the path from a
 * decision to the patch and the build trees: test_select_assign.c. */
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
