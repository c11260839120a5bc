/* Unit tests of select/fmabisect.h's report side on a hand-made report
 * (what the session fills): a culprit the decision held back for the FMA
 * set gets the fma-changes-output note naming the output, a line in the
 * notes and report.json's reason fma-changes-output; a cleared function
 * selected with the FMA set gets a note naming the bisection; a culprit
 * the decision did not hold back for the FMA set keeps its own reason; and
 * report.json's fma_bisect and fma_verdict; the fallback when the selected
 * build fails its check with cleared functions at the FMA set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "select/assign.h"
#include "select/fmabisect.h"
#include "select/report.h"
#include "test_select_helpers.h"

static void test_notes_and_json(void **state)
{
    (void)state;
    struct select_session s;
    memset(&s, 0, sizeof s);
    struct select_report *r = &s.rep;
    sel_report_init(r);
    r->variants[1].eligible = 0;
    r->variants[1].fma = 1;
    r->variants[1].failure = xstrdup("output of './p' differs from the baseline's at line 2 (floats-differ)");
    size_t culprit = sel_add_function(r, "axpy", "k.c", 3);
    size_t cleared = sel_add_function(r, "madd", "k.c", 9);
    size_t other = sel_add_function(r, "scale", "k.c", 15);
    r->decision.functions[culprit].reason = DECISION_INELIGIBLE;
    r->decision.functions[culprit].best_ineligible = 1;
    r->functions[culprit].fma_verdict = FMA_VERDICT_CHANGES_OUTPUT;
    r->functions[culprit].fma_why = xstrdup("output of './p' differs from the baseline's at line 2 (floats-differ)");
    r->decision.functions[cleared].reason = DECISION_SELECTED;
    r->decision.functions[cleared].chosen = 1;
    r->functions[cleared].fma_verdict = FMA_VERDICT_CLEARED;
    r->decision.functions[other].reason = DECISION_NO_GAIN;
    r->functions[other].fma_verdict = FMA_VERDICT_CHANGES_OUTPUT;
    r->functions[other].fma_why = xstrdup("output of './p' differs");
    r->fma_bisect = (struct select_fma_bisect){.limit = 8, .n_builds = 3, .variant = 1, .exact = 2,
                                               .why = xstrdup("fma-levels changed an output"), .n_cleared = 1,
                                               .n_culprits = 2};
    sv_push(&r->fma_bisect.tests, "fma-bisect-1: axpy, madd at fma-levels: output of './p' differs");
    select_apply_decision(r);
    session_note_fma_bisect(&s);
    assert_string_equal(select_function_verdict(r, culprit),
                        "fma-changes-output: its fma-levels clones change an output: output of './p' differs from "
                        "the baseline's at line 2 (floats-differ)");
    assert_non_null(strstr(select_function_verdict(r, cleared), "FMA bisection"));
    assert_string_equal(select_function_verdict(r, other), "no target set made it significantly faster");
    int noted = 0;
    for (size_t i = 0; i < r->notes.n; i++) noted += strstr(r->notes.v[i], "axpy was held back from fma-levels") != NULL;
    assert_int_equal(noted, 1);
    json_t *j = select_report_json(r);
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, culprit), "reason")),
                        "fma-changes-output");
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, culprit), "fma_verdict")),
                        "fma-changes-output");
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, cleared), "fma_verdict")), "cleared");
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, other), "reason")), "no-gain");
    json_t *b = json_object_get(j, "fma_bisect");
    assert_int_equal(json_integer_value(json_object_get(b, "builds")), 3);
    assert_string_equal(json_string_value(json_object_get(b, "variant")), "fma-levels");
    assert_string_equal(json_string_value(json_object_get(b, "others_at")), "fma-free");
    assert_int_equal(json_array_size(json_object_get(b, "tests")), 1);
    json_decref(j);
    char *md = select_report_markdown(r);
    assert_non_null(strstr(md, "FMA bisection (fma-levels): 3 extra builds (limit 8)"));
    assert_non_null(strstr(md, "- fma-bisect-1: axpy, madd"));
    free(md);
    select_report_free(r);
}

/* The selected build failed its check with a cleared function at the FMA
 * set: it is dropped, the rest is to be built once more; with nothing such
 * selected (or nothing left), no retry. */
static void test_fallback(void **state)
{
    (void)state;
    struct select_session s;
    memset(&s, 0, sizeof s);
    struct select_report *r = &s.rep;
    sel_report_init(r);
    s.builds = xcalloc(r->n_variants + 3, sizeof *s.builds);
    s.sources = xcalloc(r->n_variants + 3, sizeof *s.sources);
    size_t cleared = sel_add_function(r, "madd", "k.c", 9);
    size_t plain = sel_add_function(r, "scale", "k.c", 15);
    r->functions[cleared].fma_verdict = FMA_VERDICT_CLEARED;
    r->functions[cleared].in_patch = 1;
    r->functions[cleared].set = 1;
    r->functions[plain].in_patch = 1;
    r->functions[plain].set = 2;
    struct patch_assignments retry = {0};
    /* no bisection ran: nothing to retry */
    r->fma_bisect.variant = -1;
    assert_int_equal(session_fma_fallback(&s, "output of './p' differs", &retry), 0);
    r->fma_bisect.variant = 1;
    r->fma_bisect.exact = 2;
    assert_int_equal(session_fma_fallback(&s, "output of './p' differs", &retry), 1);
    assert_int_equal(retry.n, 1);
    assert_string_equal(retry.v[0].name, "scale");
    assert_string_equal(retry.v[0].targets.v[0], "avx2");
    assert_false(r->functions[cleared].in_patch);
    assert_int_equal(r->functions[cleared].fma_verdict, FMA_VERDICT_CHANGES_OUTPUT);
    assert_non_null(strstr(r->functions[cleared].note, "output of './p' differs"));
    assert_int_equal(r->n_selected, 1);
    assert_string_equal(r->patch_targets, "avx2");
    /* nothing cleared is selected any more: the caller withdraws */
    assert_int_equal(session_fma_fallback(&s, "again", &retry), 0);
    assert_int_equal(retry.n, 1);
    patch_assignments_free(&retry);
    free(s.builds);
    free(s.sources);
    select_report_free(r);
}

static void test_no_search_no_json(void **state)
{
    (void)state;
    struct select_report r;
    sel_report_init(&r);
    r.fma_bisect.variant = -1;
    json_t *j = select_report_json(&r);
    assert_true(json_is_null(json_object_get(j, "fma_bisect")));
    json_decref(j);
    select_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notes_and_json),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_no_search_no_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
