/* Unit tests of how the reports give a confirmed function's gain
 * (decision_confirm.h, decision_estimate): on a hand-made report where the
 * first stage says 3x and the confirmation's fresh runs say 1.2x, the
 * terminal summary, report.md's table, report.html and report.json give
 * 1.2x, marked as the fresh runs', with the first stage's interval kept
 * beside it in report.json; a function selected by the first stage keeps
 * its own figures; the run counts say which runs each counts, and the
 * Markdown says where a confirmed function's figures come from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/decision_confirm.h"
#include "select/report.h"
#include "test_select_helpers.h"

/* kern: held back by Holm, then confirmed with fma-levels (first stage 3x,
 * fresh runs 1.2x); other: selected by the first stage with fma-levels
 * (2x); both in the patch. 27 profiled runs, 9 confirmation runs. */
static void confirmed_report(struct select_report *r)
{
    sel_report_init(r);
    r->decision.alpha = 0.05;
    r->decision.n_tests = 4;
    r->decision.n_unadjusted = 1;
    r->decision.confirmation = (struct decision_confirmation){.n_asked = 3, .n_runs = 3, .n_tests = 1,
                                                              .n_functions = 1, .n_confirmed = 1,
                                                              .n_profiled_runs = 9};
    r->n_profiled_runs = 27;
    r->n_builds = 3;
    size_t f = sel_add_function(r, "kern", "k.c", 3);
    struct decision_function *d = &r->decision.functions[f];
    d->chosen = 1;
    d->reason = DECISION_CONFIRMED;
    d->confirmed = 1;
    d->share = 0.4;
    d->base_samples = 300;
    sel_interval(&d->by_variant[1], 300, 100);
    sel_interval(&d->by_variant[2], 300, 150);
    d->held = xcalloc(3, sizeof *d->held);
    d->held[1] = 1;
    d->confirm = xcalloc(3, sizeof *d->confirm);
    d->confirm_holm = xcalloc(3, sizeof *d->confirm_holm);
    d->confirm_holm[1] = 1;
    sel_interval(&d->confirm[1], 120, 100);
    r->functions[f].in_patch = 1;
    r->functions[f].set = 1;
    f = sel_add_function(r, "other", "k.c", 9);
    d = &r->decision.functions[f];
    d->chosen = 1;
    d->reason = DECISION_SELECTED;
    d->share = 0.2;
    d->base_samples = 200;
    sel_interval(&d->by_variant[1], 200, 100);
    r->functions[f].in_patch = 1;
    r->functions[f].set = 1;
}

static void test_estimate(void **state)
{
    (void)state;
    struct select_report r;
    confirmed_report(&r);
    assert_true(decision_estimate_fresh(&r.decision, 0, 1));
    assert_false(decision_estimate_fresh(&r.decision, 0, 2));   /* not retested */
    assert_false(decision_estimate_fresh(&r.decision, 1, 1));   /* selected by the first stage */
    assert_true(fabs(decision_estimate(&r.decision, 0, 1)->speedup - 1.2) < 1e-9);
    assert_true(fabs(decision_estimate(&r.decision, 0, 2)->speedup - 2.0) < 1e-9);
    assert_true(fabs(decision_estimate(&r.decision, 1, 1)->speedup - 2.0) < 1e-9);
    /* shown with its best set when not in the patch: by the estimates
     * (fma-levels' 1.2x fresh is below fma-free's 2x) */
    r.functions[0].in_patch = 0;
    assert_int_equal(select_shown_variant(&r, 0), 2);
    /* dropped by the budget after the confirmation: still the fresh figure */
    r.decision.functions[0].reason = DECISION_CODE_BUDGET;
    r.decision.functions[0].chosen = -1;
    assert_true(fabs(decision_estimate(&r.decision, 0, 1)->speedup - 1.2) < 1e-9);
    /* retested but not confirmed: the first stage's */
    r.decision.functions[0].confirmed = 0;
    r.decision.functions[0].reason = DECISION_MULTIPLE_TESTS;
    assert_false(decision_estimate_fresh(&r.decision, 0, 1));
    assert_true(fabs(decision_estimate(&r.decision, 0, 1)->speedup - 3.0) < 1e-9);
    select_report_free(&r);
}

static void test_text_and_markdown(void **state)
{
    (void)state;
    struct select_report r;
    confirmed_report(&r);
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "kern"));
    assert_non_null(strstr(sum, "1.20x ["));
    assert_non_null(strstr(sum, "(fresh runs) with fma-levels"));
    assert_non_null(strstr(sum, "2.00x ["));   /* other: its own */
    assert_null(strstr(sum, "3.00x"));
    assert_non_null(strstr(sum, "their speedups from the fresh rounds"));
    free(sum);
    char *md = select_report_markdown(&r);
    const char *row = strstr(md, "| kern");
    assert_non_null(row);
    const char *eol = strchr(row, '\n');
    assert_non_null(eol);
    char *line = xstrndup(row, (size_t)(eol - row));
    assert_non_null(strstr(line, "1.20x ["));
    assert_non_null(strstr(line, "(fresh runs)"));
    assert_null(strstr(line, "3.00x"));
    free(line);
    assert_null(strstr(md, "3.00x"));
    assert_non_null(strstr(md, "27 profiled runs, 9 confirmation runs (fresh rounds, not among the profiled)"));
    assert_non_null(strstr(md, "winner's curse"));
    free(md);
    char *html = select_report_html(&r);
    assert_non_null(strstr(html, "1.20x"));
    assert_null(strstr(html, "3.00x"));
    free(html);
    select_report_free(&r);
}

static void test_json(void **state)
{
    (void)state;
    struct select_report r;
    confirmed_report(&r);
    json_t *j = select_report_json(&r);
    json_t *iv = json_object_get(json_object_get(sel_function_json(j, 0), "variants"), "fma-levels");
    assert_true(fabs(json_real_value(json_object_get(iv, "speedup")) - 1.2) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(iv, "estimate_from")), "confirmation_runs");
    json_t *first = json_object_get(iv, "profiled_runs_interval");
    assert_true(json_is_object(first));
    assert_true(fabs(json_real_value(json_object_get(first, "speedup")) - 3.0) < 1e-9);
    /* a set not retested, and a function of the first stage: theirs */
    iv = json_object_get(json_object_get(sel_function_json(j, 0), "variants"), "fma-free");
    assert_string_equal(json_string_value(json_object_get(iv, "estimate_from")), "profiled_runs");
    assert_true(json_is_null(json_object_get(iv, "profiled_runs_interval")));
    iv = json_object_get(json_object_get(sel_function_json(j, 1), "variants"), "fma-levels");
    assert_true(fabs(json_real_value(json_object_get(iv, "speedup")) - 2.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(iv, "estimate_from")), "profiled_runs");
    /* the run counts, each apart */
    assert_int_equal(json_integer_value(json_object_get(j, "profiled_runs")), 27);
    assert_int_equal(json_integer_value(json_object_get(j, "confirmation_runs")), 9);
    json_t *counts = json_object_get(j, "run_counts");
    assert_int_equal(json_integer_value(json_object_get(counts, "total")), 36);
    assert_non_null(strstr(json_string_value(json_object_get(counts, "profiled_runs")), "without the confirmation"));
    assert_non_null(strstr(json_string_value(json_object_get(j, "estimates")), "confirmation's fresh runs"));
    json_decref(j);
    select_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_text_and_markdown),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
