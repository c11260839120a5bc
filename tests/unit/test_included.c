/* Unit tests of lib/candidates/included: the verdict on a definition in a
 * source file that several TUs #include, from sightings made by hand the
 * way analyze.c makes them (one per including TU). The libclang side
 * (sightings from real TUs) is covered by cli test_included_source.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/included.h"
#include "util/util.h"

static const struct included_tu TUS[] = {
    {"/p/wrap/k-8.c", "/p/b/k-8.o"},
    {"/p/wrap/k-12.c", "/p/b/k-12.o"},
};

static struct sighting seen(size_t compile, const char *symbol, const char *spelled, int is_static)
{
    struct sighting g;
    memset(&g, 0, sizeof g);
    g.compile = compile;
    g.file = (char *)"/p/k.c";
    g.insert_offset = 100;
    g.symbol = (char *)symbol;
    g.spelled = (char *)spelled;
    g.is_static = is_static;
    return g;
}

static const char *note_string(json_t *note, const char *key)
{
    return json_string_value(json_object_get(note, key));
}

static void test_same_symbol_everywhere(void **state)
{
    (void)state;
    struct sighting a = seen(0, "quantize", "quantize", 1), b = seen(1, "quantize", "quantize", 1);
    const struct sighting *all[] = {&a, &b};
    struct included_verdict v;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_non_null(v.note);
    assert_string_equal(note_string(v.note, "kind"), "included-source");
    assert_true(json_is_true(json_object_get(v.note, "static")));
    assert_int_equal(json_array_size(json_object_get(v.note, "symbols")), 1);
    assert_int_equal(json_array_size(json_object_get(v.note, "tus")), 2);
    assert_string_equal(note_string(json_array_get(json_object_get(v.note, "tus"), 1), "output"), "/p/b/k-12.o");
    assert_null(json_object_get(v.note, "spelling"));   /* one symbol: the name itself is the argument */
    assert_non_null(strstr(note_string(v.note, "detail"), "k-8.c (quantize), k-12.c (quantize)"));
    json_decref(v.note);
}

static void test_renamed_by_plain_define(void **state)
{
    (void)state;
    /* #define _jpeg_fdct_islow jpeg_fdct_islow / jpeg12_fdct_islow */
    struct sighting a = seen(0, "jpeg_fdct_islow", "_jpeg_fdct_islow", 0),
                    b = seen(1, "jpeg12_fdct_islow", "_jpeg_fdct_islow", 0);
    const struct sighting *all[] = {&a, &b};
    struct included_verdict v;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_string_equal(note_string(v.note, "spelling"), "_jpeg_fdct_islow");
    json_t *symbols = json_object_get(v.note, "symbols");
    assert_int_equal(json_array_size(symbols), 2);
    assert_string_equal(json_string_value(json_array_get(symbols, 0)), "jpeg_fdct_islow");
    assert_string_equal(json_string_value(json_array_get(symbols, 1)), "jpeg12_fdct_islow");
    assert_false(json_is_true(json_object_get(v.note, "static")));
    json_decref(v.note);
}

static void test_renamed_static_needs_no_spelling(void **state)
{
    (void)state;
    /* FMVGEN_CLONES_STATIC names no symbol: any rename is fine. */
    struct sighting a = seen(0, "color_quantize", "_color_quantize", 1),
                    b = seen(1, "color_quantize_12", NULL, 1);
    b.spelling_why = (char *)"not an identifier";
    const struct sighting *all[] = {&a, &b};
    struct included_verdict v;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_null(json_object_get(v.note, "spelling"));
    json_decref(v.note);
}

static void test_renamed_otherwise_is_excluded(void **state)
{
    (void)state;
    struct sighting a = seen(0, "add_8", "NAME", 0), b = seen(1, "add_12", "NAME", 0);
    a.spelling_why = (char *)"its name is written NAME (line 3), a macro that is not a plain '#define NAME add_8'";
    const struct sighting *all[] = {&a, &b};
    struct included_verdict v;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_MACRO);
    assert_string_equal(v.detail, "renamed by macro in TU k-8.c (to add_8): its name is written NAME (line 3), a "
                                  "macro that is not a plain '#define NAME add_8', so the attribute line cannot "
                                  "name each TU's symbol");
    assert_null(v.note);
    free(v.detail);

    /* C++: mangled symbols that differ cannot come from one spelling. */
    struct sighting c = seen(0, "_Z3addPfi", "add", 0), d = seen(1, "_Z6add_12Pfi", "add", 0);
    c.cxx = d.cxx = 1;
    const struct sighting *cxx[] = {&c, &d};
    included_verdict(cxx, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_MACRO);
    assert_non_null(strstr(v.detail, "mangled"));
    free(v.detail);
}

static void test_excluded_in_one_tu_is_excluded_everywhere(void **state)
{
    (void)state;
    struct sighting a = seen(0, "f", "f", 0), b = seen(1, "f_12", "f", 0);
    b.reason = REASON_USED_BEFORE_DEFINITION;
    b.detail = (char *)"used at line 9 of k-12.c before its definition";
    const struct sighting *all[] = {&a, &b};
    struct included_verdict v;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_USED_BEFORE_DEFINITION);
    assert_string_equal(v.detail, "in TU k-12.c, which also compiles k.c: used at line 9 of k-12.c before its "
                                  "definition");
    assert_null(v.note);
    free(v.detail);
}

/* Each TU's redeclaration (redecl.h) goes into the one file: alike in
 * every TU it is a candidate; different, or written by one TU only, it is
 * excluded, saying both. */
static void test_redeclarations_must_agree(void **state)
{
    (void)state;
    const char *proto = "static void f(T *a, int n);";
    struct sighting a = seen(0, "f", "f", 1), b = seen(1, "f", "f", 1);
    a.redecl_text = b.redecl_text = (char *)proto;
    a.redecl_offset = b.redecl_offset = 40;
    const struct sighting *all[] = {&a, &b};
    struct included_verdict v;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_non_null(v.note);
    json_decref(v.note);

    b.redecl_text = (char *)"static void f(float *a, int n);";
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_USED_BEFORE_DEFINITION);
    assert_string_equal(v.detail, "TUs k-8.c and k-12.c, which both compile k.c, would redeclare it differently above "
                                  "its first use ('static void f(T *a, int n);' at offset 40, 'static void f(float "
                                  "*a, int n);' at offset 40), and the file takes one line");
    assert_null(v.note);
    free(v.detail);

    b.redecl_text = NULL;   /* used early in k-8.c only */
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_USED_BEFORE_DEFINITION);
    assert_non_null(strstr(v.detail, "'none' at offset"));
    free(v.detail);

    b.redecl_text = (char *)proto;
    b.redecl_offset = 41;
    included_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_USED_BEFORE_DEFINITION);
    free(v.detail);
}

static void test_no_sightings(void **state)
{
    (void)state;
    struct included_verdict v;
    included_verdict(NULL, 0, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_null(v.note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_symbol_everywhere),
        cmocka_unit_test(test_renamed_by_plain_define),
        cmocka_unit_test(test_renamed_static_needs_no_spelling),
        cmocka_unit_test(test_renamed_otherwise_is_excluded),
        cmocka_unit_test(test_excluded_in_one_tu_is_excluded_everywhere),
        cmocka_unit_test(test_redeclarations_must_agree),
        cmocka_unit_test(test_no_sightings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
