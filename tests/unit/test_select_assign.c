/* Unit tests of lib/select, the decision's way out: the report writers
 * (text and JSON), the path from a decision to the selected patch (each
 * function with the target set it chose, in one patch: select/assign.h),
 * and where variants build (the three layouts of select/tree.h, with
 * commands checking what they see). test_select.c holds the statistics,
 * attribution and the selection rule. */
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

#define NR 4   /* runs per variant */


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
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_decision_to_patch),
        cmocka_unit_test(test_tree_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
