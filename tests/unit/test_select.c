/* Unit tests of lib/select: Welch intervals (known values, no interval from
 * one run, significance both ways), clone symbols folded back onto their
 * function (GCC, Clang, compiler-made pieces, kernel samples left out), the
 * selection rule (hot and faster: selected with the best eligible set; cold;
 * too few samples; a gain only on an ineligible set is held back; faster in
 * sum but slower on one workload), and the report writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/attribution.h"
#include "select/decision.h"
#include "select/report.h"
#include "select/stats.h"
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
        {"foo.avx2", 0, 10}, {"foo.default", 0, 3}, {"foo.avx2.cold", 0, 1}, {"foobar", 0, 50},
        {"foo.resolver", 0, 0}, {"foo", 1, 7}, {"main", 0, 5},
    };
    struct profile p = {.entries = e, .n = sizeof e / sizeof *e, .total_samples = 76};
    assert_int_equal(attribution_samples(&p, "foo"), 14);   /* not foobar, not the kernel's foo */
    assert_int_equal(attribution_samples(&p, "foobar"), 50);
    assert_int_equal(attribution_samples(&p, "absent"), 0);
    assert_string_equal(attribution_hottest_symbol(&p, "foo"), "foo.avx2");
    assert_null(attribution_hottest_symbol(&p, "absent"));
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
    r.variants[0] = (struct select_variant){xstrdup("baseline"), xstrdup(""), 0, 1, NULL, xstrdup("identical"), 0};
    r.variants[1] = (struct select_variant){xstrdup("fma-free"), xstrdup("avx2"), 0, 1, NULL, xstrdup("identical"), 1};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_attribution),
        cmocka_unit_test(test_decision),
        cmocka_unit_test(test_decision_workloads),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
