/* Unit tests of lib/patch for static functions of a project header
 * (candidates/header.h's "header-switch" notes, made by hand here): the
 * guarded line in the header, the switch lines in the TUs' sources, and
 * the subsets `fmvgen select` builds (each function its own set, or only
 * some functions). The scan side and the builds: cli test_header_template.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/marker.h"
#include "patch/plan.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"
#include "test_plan_helpers.h"

static const char *const FILES[] = {"plain.c", "simd.c", "poly.h", "twice.h", "util.h", "kernels.h"};

static void set_notes(struct project *p, const char *name, const char *notes)
{
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(p->st), "UPDATE functions SET notes = ? WHERE name = ?", -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(q, 1, notes, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
    assert_int_equal(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
}

static void open_project(struct project *p)
{
    project_open_fixture(p, "header-template", FILES, sizeof FILES / sizeof *FILES);
    add_candidate(p, "poly.h", "poly_mac", "static void poly_mac(");
    add_candidate(p, "twice.h", "sum_by2", "static long FUNCTION(");
    add_candidate(p, "twice.h", "sum_by3", "static long FUNCTION(");
    char *plain = path_join(p->dir, "plain.c"), *simd = path_join(p->dir, "simd.c");
    char *n = xasprintf("[{\"kind\": \"header-switch\", \"detail\": \"d\", \"tag\": \"FMVGEN_CLONE_poly_h_poly_mac\", "
                        "\"tus\": [{\"source\": \"%s\", \"symbol\": \"poly_mac\"}], \"symbols\": [\"poly_mac\"], "
                        "\"static\": true, \"off\": [{\"source\": \"%s\", \"reason\": \"intrinsics\"}]}]",
                        plain, simd);
    set_notes(p, "poly_mac", n);
    free(n);
    const char *names[] = {"sum_by2", "sum_by3"};
    for (int i = 0; i < 2; i++) {
        n = xasprintf("[{\"kind\": \"header-switch\", \"detail\": \"d\", \"tag\": \"FMVGEN_CLONE_twice_h_%s\", "
                      "\"tus\": [{\"source\": \"%s\", \"symbol\": \"%s\"}], \"symbols\": [\"%s\"], \"static\": true, "
                      "\"off\": [], \"expansion\": {\"spelled\": \"FUNCTION\", \"place\": \"twice_h\", "
                      "\"symbols\": [\"sum_by2\", \"sum_by3\"]}}]",
                      names[i], plain, names[i], names[i]);
        set_notes(p, names[i], n);
        free(n);
    }
    free(plain);
    free(simd);
}

static int count(const char *text, const char *needle)
{
    int c = 0;
    for (const char *at = text; (at = strstr(at, needle)); at++) c++;
    return c;
}

/* Every candidate: the guarded line, one block for both expansions, the
 * switches in plain.c above its first #include, nothing in simd.c. */
static void test_all(void **state)
{
    (void)state;
    struct project p;
    open_project(&p);
    struct strvec targets = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &targets), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &targets, 1, &plan), 0);
    assert_int_equal(plan.nfunctions, 3);
    const char *t = plan.text;
    assert_non_null(strstr(t, "+#ifdef FMVGEN_CLONE_poly_h_poly_mac\n+FMVGEN_CLONES_STATIC\n+#endif\n static void "
                              "poly_mac("));
    assert_int_equal(count(t, "+FMVGEN_CLONES_IN_TU(twice_h, FUNCTION)\n static long FUNCTION("), 1);
    assert_int_equal(count(t, "+#ifndef FMVGEN_CLONE_twice_h_sum_by2\n+# define FMVGEN_CLONE_twice_h_sum_by2\n"), 1);
    assert_int_equal(count(t, "+#ifndef FMVGEN_CLONE_twice_h_sum_by3\n"), 1);
    /* the place's gate: on only where the TU defines FMVGEN_CLONES_ON_twice_h, once */
    assert_int_equal(count(t, "+# ifdef FMVGEN_CLONES_ON_twice_h\n+#  define FMVGEN_CLONES_GATE_twice_h(attr) attr\n"), 1);
    assert_int_equal(count(t, "+#define FMVGEN_CLONES_ON_twice_h 1 "), 1);
    assert_non_null(strstr(t, "+#define FMVGEN_CLONE_poly_h_poly_mac 1 /* fmvgen: poly.h's poly_mac multi-versioned in "
                              "this TU */\n+#define FMVGEN_CLONES_ON_twice_h 1 /* fmvgen: this TU multi-versions "
                              "expansions of twice.h */\n+#define FMVGEN_CLONE_twice_h_sum_by2 FMVGEN_CLONES_STATIC /* fmvgen: "
                              "twice.h's sum_by2 multi-versioned in this TU */\n+#define FMVGEN_CLONE_twice_h_sum_by3 "
                              "FMVGEN_CLONES_STATIC"));
    assert_non_null(strstr(t, "in this TU */\n #include \"kernels.h\""));
    assert_null(strstr(t, "--- a/simd.c"));
    patch_plan_free(&plan);
    sv_free(&targets);
    project_close(&p);
}

/* select's subsets: sum_by3 alone keeps both defaults in the header and
 * switches sum_by3 only; each function its own set names its macro in its
 * switch (pasted) or its guarded line. */
static void test_subsets(void **state)
{
    (void)state;
    struct project p;
    open_project(&p);
    struct strvec avx2 = STRVEC_INIT, v4 = STRVEC_INIT, only = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    assert_int_equal(targets_parse("arch=x86-64-v4", &v4), 0);
    sv_push(&only, "sum_by3");
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_only(p.st, &avx2, 1, &only, &plan), 0);
    assert_int_equal(plan.nfunctions, 1);
    assert_int_equal(count(plan.text, "+#ifndef FMVGEN_CLONE_twice_h_sum_by2\n"), 1);
    assert_int_equal(count(plan.text, "+#define FMVGEN_CLONE_twice_h_"), 1);
    assert_non_null(strstr(plan.text, "+#define FMVGEN_CLONE_twice_h_sum_by3 FMVGEN_CLONES_STATIC"));
    assert_int_equal(count(plan.text, "+#define FMVGEN_CLONES_ON_twice_h 1 "), 1);   /* its first switch gates */
    assert_null(strstr(plan.text, "poly_mac"));
    patch_plan_free(&plan);

    struct patch_assignments a = {0};
    patch_assign(&a, "sum_by2", &avx2);
    patch_assign(&a, "poly_mac", &v4);
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    assert_int_equal(plan.nsets, 2);
    assert_non_null(strstr(plan.text, "+#define FMVGEN_CLONE_twice_h_sum_by2 FMVGEN_CLONES_AVX2_STATIC"));
    assert_non_null(strstr(plan.text, "+#ifdef FMVGEN_CLONE_poly_h_poly_mac\n+FMVGEN_CLONES_X86_64_V4_STATIC\n"));
    assert_null(strstr(plan.text, "+#define FMVGEN_CLONE_twice_h_sum_by3"));
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    sv_free(&avx2);
    sv_free(&v4);
    sv_free(&only);
    project_close(&p);
}

/* The switched line marks its definition as patched (candidates/marker.h):
 * the marker above "#endif"; an "#endif" alone, or a marker two lines up
 * without it, does not. */
static void test_switched_line_is_a_marker(void **state)
{
    (void)state;
    const char *t = "#ifdef FMVGEN_CLONE_poly_h_f\nFMVGEN_CLONES_STATIC\n#endif\nstatic void f(void)\n";
    size_t f = (size_t)(strstr(t, "static void f") - t), at = 0;
    assert_int_equal(patch_marker_at(t, strlen(t), f, &at), strlen("FMVGEN_CLONES_STATIC"));
    assert_int_equal(at, strlen("#ifdef FMVGEN_CLONE_poly_h_f\n"));
    const char *x = "FMVGEN_CLONES_IN_TU(twice_h, FUNCTION)\nstatic long FUNCTION(int n)\n";
    assert_int_equal(patch_marker_at(x, strlen(x), strlen("FMVGEN_CLONES_IN_TU(twice_h, FUNCTION)\n"), NULL),
                     strlen("FMVGEN_CLONES_IN_TU"));
    const char *plain = "#if X\nint a;\n#endif\nstatic void f(void)\n";
    assert_int_equal(patch_marker_at(plain, strlen(plain), (size_t)(strstr(plain, "static") - plain), NULL), 0);
    const char *two = "FMVGEN_CLONES_STATIC\nint a;\nstatic void f(void)\n";
    assert_int_equal(patch_marker_at(two, strlen(two), (size_t)(strstr(two, "static") - two), NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all),
        cmocka_unit_test(test_subsets),
        cmocka_unit_test(test_switched_line_is_a_marker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
