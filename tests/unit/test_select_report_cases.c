/* Unit tests of what select's report says in cases real projects showed
 * (lz4, libjpeg-turbo): a speedup that cannot be known (a function the
 * variant never sampled), unsampled functions in the text, the summary's
 * folding of cold functions, slower and ineligible ones, copies only, the
 * small-gains group in report.json, a name two candidates share, and the
 * noise note. Split from test_select_report.c (code size and reference). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/assign.h"
#include "select/report.h"
#include "test_select_helpers.h"
#include "util/util.h"

/* ---- what real projects showed (lz4, libjpeg-turbo) ---- */

/* Appends a function to r: its per-run samples on the baseline and on each
 * target set (n runs), with the decision fields the rule would give. */
static size_t add_function(struct select_report *r, const char *name, const char *file, double share,
                           enum decision_reason why, int chosen, const double *base, const double *variant, size_t n)
{
    size_t f = sel_add_function(r, name, file, 20 + (int)r->n_functions);
    struct decision_function *d = &r->decision.functions[f];
    d->chosen = chosen;
    d->reason = why;
    d->share = share;
    d->base_samples = stats_mean(base, n);
    for (size_t v = 1; v < r->n_variants; v++) stats_welch(base, n, variant, n, &d->by_variant[v]);
    return f;
}

static void test_unknown_speedup_json(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    double zero[] = {0, 0, 0}, some[] = {40, 44, 36}, base[] = {30, 33, 27};
    /* the variant never sampled it: +inf from stats, written null with why */
    size_t gone = add_function(&r, "gone", "g.c", 0.3, DECISION_NO_GAIN, -1, base, zero, 3);
    /* neither side sampled it: stats says 1, which is no measurement */
    size_t never = add_function(&r, "never", "n.c", 0, DECISION_COLD, -1, zero, zero, 3);
    /* only the variant sampled it: a ratio of nothing */
    size_t late = add_function(&r, "late", "l.c", 0, DECISION_COLD, -1, zero, some, 3);
    assert_true(isinf(r.decision.functions[gone].by_variant[1].speedup));
    assert_true(r.decision.functions[never].by_variant[1].speedup == 1);
    r.decision.functions[late].share = NAN;   /* any non-finite real: null, never a vanished key */
    r.min_share = INFINITY;
    json_t *j = select_report_json(&r);
    const char *expect[][2] = {{"gone", "not sampled by this variant"},
                               {"never", "not sampled by either build"},
                               {"late", "not sampled by the baseline"}};
    size_t idx[] = {gone, never, late};
    for (int i = 0; i < 3; i++) {
        json_t *fj = sel_function_json(j, idx[i]);
        assert_string_equal(json_string_value(json_object_get(fj, "name")), expect[i][0]);
        json_t *iv = json_object_get(json_object_get(fj, "variants"), "fma-levels");
        json_t *sp = json_object_get(iv, "speedup");
        assert_non_null(sp);
        assert_true(json_is_null(sp));   /* never 0: that reads as "infinitely slower" */
        assert_string_equal(json_string_value(json_object_get(iv, "speedup_unknown")), expect[i][1]);
        assert_true(json_is_null(json_object_get(iv, "speedup_low")));
        assert_true(json_is_null(json_object_get(iv, "speedup_high")));
    }
    /* a baseline that never sampled it has no share (not 0%) */
    assert_true(json_is_null(json_object_get(sel_function_json(j, never), "share")));
    assert_false(json_is_true(json_object_get(sel_function_json(j, never), "baseline_sampled")));
    assert_true(json_is_null(json_object_get(sel_function_json(j, late), "share")));
    assert_true(json_is_true(json_object_get(sel_function_json(j, gone), "baseline_sampled")));
    assert_true(json_is_null(json_object_get(j, "min_share")));
    /* a measured speedup keeps its number, and says nothing is unknown */
    json_t *dot = json_object_get(json_object_get(sel_function_json(j, 0), "variants"), "fma-levels");
    assert_true(json_real_value(json_object_get(dot, "speedup")) > 1.9);
    assert_true(json_is_null(json_object_get(dot, "speedup_unknown")));
    /* the whole document serializes (jansson refuses inf/nan reals) */
    char *text = json_dumps(j, 0);
    assert_non_null(text);
    assert_null(strstr(text, "\"speedup\": 0.0"));
    assert_null(strstr(text, "\"speedup\":0.0"));
    free(text);
    json_decref(j);
    select_report_free(&r);
}

static void test_unsampled_text(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    double zero[] = {0, 0, 0}, some[] = {2, 3, 1};
    add_function(&r, "never", "n.c", 0, DECISION_COLD, -1, zero, zero, 3);
    size_t late = add_function(&r, "late", "l.c", 0, DECISION_NO_GAIN, -1, zero, some, 3);
    free(r.functions[late].note);
    r.functions[late].note = xstrdup("shown in the summary");   /* a note keeps it out of the folded line */
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "| never | n.c:22 | not sampled | 0 | - | - |"));
    assert_non_null(strstr(md, "| late | l.c:23 | not sampled | 0 | - | - |"));
    assert_null(strstr(md, "0.00x"));
    assert_null(strstr(md, "1.00x [1.00, 1.00]"));
    assert_null(strstr(md, "[0.00, inf]"));
    free(md);
    char *html = select_report_html(&r);
    /* no bar for them: the label, then "not sampled" without a rect */
    const char *at = strstr(html, ">never</text>");
    assert_non_null(at);
    assert_true(strncmp(at, ">never</text><text", 18) == 0);
    const char *end = strstr(at, "\n");
    assert_non_null(strstr(at, "not sampled"));
    assert_true(strstr(at, "not sampled") < end);
    assert_null(strstr(html, "0.00x"));
    assert_null(strstr(html, "infx"));
    free(html);
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "late                     not sampled  shown in the summary"));
    assert_null(strstr(sum, "  0.0%"));
    free(sum);
    select_report_free(&r);
}

static void test_summary_folds_cold(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    r.decision.functions[1].reason = DECISION_NO_GAIN;
    double few[] = {1, 0, 2}, cold[] = {5, 6, 4};
    for (int i = 0; i < 70; i++) {
        char name[16];
        snprintf(name, sizeof name, "cold%d", i);
        add_function(&r, name, "c.c", 0.001, DECISION_COLD, -1, cold, cold, 3);
    }
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "rare%d", i);
        add_function(&r, name, "c.c", 0.03, DECISION_FEW_SAMPLES, -1, few, few, 3);
    }
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "  yes dot "));
    assert_non_null(strstr(sum, "  no  scale "));
    /* a function timed without a significant gain says how near it came */
    const char *scale = strstr(sum, "  no  scale ");
    assert_non_null(strstr(scale, "no target set made it significantly faster (measured: 1.00x ["));
    assert_non_null(strstr(scale, "] with fma-levels)"));
    const char *dot_end = strchr(strstr(sum, "  yes dot "), '\n');
    assert_true(strstr(sum, "(measured: ") > dot_end);   /* the selected one shows its own interval */
    assert_null(strstr(sum, "cold0"));
    assert_null(strstr(sum, "rare3"));
    assert_non_null(strstr(sum, "  and 74 more: 70 cold (below 2.0% of the run), 4 too few samples - report.md "
                                "lists every candidate\n"));
    free(sum);
    char *md = select_report_markdown(&r);   /* the full table stays */
    assert_non_null(strstr(md, "| cold69 |"));
    assert_non_null(strstr(md, "| rare3 |"));
    free(md);
    select_report_free(&r);

    /* nothing to fold: no such line */
    sel_make_report(&r);
    sum = select_report_summary(&r);
    assert_null(strstr(sum, "more:"));
    free(sum);
    select_report_free(&r);
}

/* A set that is not eligible (its outputs differ: FMA) but made a
 * function significantly slower is said in the summary beside the
 * measured figure (libebur128: 0.77x with FMA clones); the selected
 * function's line does not get it. */
static void test_summary_slower_ineligible(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    r.decision.functions[1].reason = DECISION_NO_GAIN;
    r.variants[1].eligible = 0;
    r.variants[1].failure = xstrdup("output differs");
    double b3[] = {100, 104, 96}, slow[] = {130, 134, 126}, same3[] = {101, 103, 97};
    stats_welch(b3, 3, slow, 3, &r.decision.functions[1].by_variant[1]);
    stats_welch(b3, 3, same3, 3, &r.decision.functions[1].by_variant[2]);
    char *sum = select_report_summary(&r);
    const char *scale = strstr(sum, "  no  scale ");
    assert_non_null(scale);
    assert_non_null(strstr(scale, "no target set made it significantly faster (measured: 1.00x ["));
    assert_non_null(strstr(scale, "] with fma-free; slower with fma-levels, not eligible: 0.77x ["));
    char *dot = xstrndup(strstr(sum, "  yes dot "), (size_t)(scale - strstr(sum, "  yes dot ")));
    assert_null(strstr(dot, "not eligible"));
    free(dot);
    free(sum);
    /* not slower: nothing said */
    stats_welch(b3, 3, same3, 3, &r.decision.functions[1].by_variant[1]);
    sum = select_report_summary(&r);
    assert_null(strstr(sum, "not eligible"));
    free(sum);
    select_report_free(&r);
}

/* A function the code-growth budget trimmed to the copy that ran
 * (select/trimcopies.h): its summary line says which copy it keeps and
 * which CPUs run its default instead. */
static void test_summary_copy_only(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    char *sum = select_report_summary(&r);
    assert_null(strstr(sum, "copy alone"));
    free(sum);
    r.functions[0].copy_only = xstrdup("arch=x86-64-v4");
    sum = select_report_summary(&r);
    const char *dot = strstr(sum, "  yes dot ");
    assert_non_null(dot);
    assert_non_null(strstr(dot, ", its arch=x86-64-v4 copy alone (the set's others never ran here; left out for the "
                                "code-growth budget, so a CPU without arch=x86-64-v4 runs the default)"));
    free(sum);
    select_report_free(&r);
}

/* The group of small gains (decision.h) in report.json: what was judged
 * together, what was selected with it, and its own interval. */
static void test_small_gains_json(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    json_t *j = select_report_json(&r);
    json_t *g = json_object_get(j, "small_gains");
    assert_true(json_is_null(json_object_get(g, "variant")));   /* make_report chose no group */
    json_decref(j);
    r.decision.group = (struct decision_group){.chosen = 1, .n_pool = 9, .n_members = 4, .share = 0.12,
                                               .by_variant_chosen = {.valid = 1, .mean_a = 120, .mean_b = 100, .speedup = 1.2,
                                                                     .speedup_lo = 1.1, .speedup_hi = 1.3}};
    j = select_report_json(&r);
    g = json_object_get(j, "small_gains");
    assert_int_equal(json_integer_value(json_object_get(g, "pool")), 9);
    assert_int_equal(json_integer_value(json_object_get(g, "selected")), 4);
    assert_string_equal(json_string_value(json_object_get(g, "variant")), r.variants[1].name);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(g, "speedup"), "speedup")) - 1.2) < 1e-9);
    json_decref(j);
    select_report_free(&r);
}

static void test_ambiguous_name(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    r.functions[0].in_patch = 0;   /* as select fills it before the rule */
    r.n_selected = 0;
    double base[] = {300, 310, 290}, fast[] = {150, 155, 145};
    /* libjpeg-turbo: static start_pass in two files, each credited with the
     * samples of both; the profile "chose" one of them */
    size_t a = add_function(&r, "start_pass", "jcmaster.c", 0.3, DECISION_SELECTED, 1, base, fast, 3);
    size_t b = add_function(&r, "start_pass", "jdmaster.c", 0.3, DECISION_NO_GAIN, -1, base, base, 3);
    select_apply_decision(&r);
    assert_true(r.functions[0].in_patch);   /* dot: unique name, chosen: selected */
    assert_false(r.functions[a].in_patch);
    assert_false(r.functions[b].in_patch);
    assert_non_null(r.functions[a].note);
    assert_non_null(strstr(r.functions[a].note, "not selected, ambiguous name: 2 candidates are named start_pass"));
    assert_int_equal(select_name_count(&r, a), 2);
    assert_int_equal(select_name_count(&r, 0), 1);
    struct patch_assignments pa = {0};
    assert_int_equal(select_patch_assignments(&r, &pa), 0);
    assert_int_equal(pa.n, 1);   /* dot only */
    patch_assignments_free(&pa);
    int noted = 0;
    for (size_t i = 0; i < r.notes.n; i++)
        noted |= strstr(r.notes.v[i], "start_pass (jcmaster.c:22) was not selected: its name is not unique") != NULL;
    assert_true(noted);

    json_t *j = select_report_json(&r);
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, a), "reason")), "ambiguous-name");
    assert_true(json_is_false(json_object_get(sel_function_json(j, a), "name_unique")));
    assert_true(json_is_false(json_object_get(sel_function_json(j, b), "name_unique")));
    assert_int_equal(json_integer_value(json_object_get(sel_function_json(j, b), "candidates_with_this_name")), 2);
    assert_true(json_is_true(json_object_get(sel_function_json(j, 0), "name_unique")));
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, 0), "reason")), "selected");
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, b), "reason")), "no-gain");
    json_decref(j);
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "| start_pass [name not unique: 2 candidates] | jcmaster.c:22 |"));
    assert_non_null(strstr(md, "| start_pass [name not unique: 2 candidates] | jdmaster.c:23 |"));
    assert_null(strstr(md, "| dot [name"));
    assert_non_null(strstr(md, "**Names not unique:** 2 candidates share their name with another candidate"));
    assert_non_null(strstr(md, "`start_pass` (jcmaster.c:22, jdmaster.c:23)"));
    free(md);
    char *html = select_report_html(&r);
    assert_non_null(strstr(html, ">start_pass [name not unique]</text>"));
    free(html);
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "  no  start_pass                30.0%  not selected, ambiguous name: 2 candidates are "
                                "named start_pass, and the profile credits each with the samples of all [name not "
                                "unique: 2 candidates]\n"));
    assert_non_null(strstr(sum, "names not unique (2 candidates; the profile credits each with the samples of all, "
                                "so none is selected on them): start_pass (2)\n"));
    free(sum);
    select_report_free(&r);
}

static void test_noise_said(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    /* narrow: dot 2x within a few percent, end to end tight */
    double base[] = {1000, 1001, 999}, half[] = {500, 501, 499};
    stats_welch(base, 3, half, 3, &r.decision.functions[0].by_variant[1]);
    assert_false(select_interval_wide(&r.decision.functions[0].by_variant[1]));
    assert_false(select_interval_wide(&r.workloads[0].e2e));
    char *md = select_report_markdown(&r), *sum = select_report_summary(&r);
    assert_null(strstr(md, "Noisy"));
    assert_null(strstr(sum, "noise:"));
    free(md);
    free(sum);
    /* a noisy machine: the selected function's and the end-to-end interval wide */
    double wb[] = {100, 140, 60}, wf[] = {50, 80, 30}, tb[] = {1.0, 1.4, 0.7}, ts[] = {0.6, 0.9, 0.5};
    stats_welch(wb, 3, wf, 3, &r.decision.functions[0].by_variant[1]);
    stats_welch_log(tb, 3, ts, 3, &r.workloads[0].e2e);
    assert_true(select_interval_wide(&r.decision.functions[0].by_variant[1]));
    assert_true(select_interval_wide(&r.workloads[0].e2e));
    md = select_report_markdown(&r);
    sum = select_report_summary(&r);
    assert_non_null(strstr(md, "**Noisy measurements.** The 95% intervals of dot ("));
    assert_non_null(strstr(md, ") and the end-to-end time of './prog 100000' ("));
    assert_non_null(strstr(md, "are wide (wider than 20% of the speedup): the machine was noisy"));
    assert_non_null(strstr(sum, "noise: The 95% intervals of dot ("));
    assert_non_null(strstr(sum, "rerun with more --runs (now 3)"));
    free(md);
    free(sum);
    json_t *j = select_report_json(&r);
    json_t *e2e = json_object_get(sel_workload_json(j, 0), "end_to_end");
    assert_true(json_is_true(json_object_get(e2e, "wide")));
    json_decref(j);
    /* an unselected function's wide interval is no reason to warn */
    r.functions[0].in_patch = 0;
    stats_welch_log(tb, 3, tb, 3, &r.workloads[0].e2e);
    r.workloads[0].timed = 0;
    md = select_report_markdown(&r);
    assert_null(strstr(md, "Noisy"));
    free(md);
    select_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_speedup_json),
        cmocka_unit_test(test_unsampled_text),
        cmocka_unit_test(test_summary_folds_cold),
        cmocka_unit_test(test_summary_slower_ineligible),
        cmocka_unit_test(test_summary_copy_only),
        cmocka_unit_test(test_small_gains_json),
        cmocka_unit_test(test_ambiguous_name),
        cmocka_unit_test(test_noise_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
