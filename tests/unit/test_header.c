/* Unit tests of lib/candidates/header: the per-TU verdict on a static
 * function defined in a project header, from sightings made by hand the
 * way analyze.c makes them (one per including TU). The libclang side and
 * the patch are covered by cli test_header_template.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/header.h"
#include "util/util.h"

/* cr32.c and cr32s.c, and cr64.c compiled twice (static and shared) */
static const struct included_tu TUS[] = {
    {"/p/src/cr32.c", "/p/b/cr32.o"},
    {"/p/src/cr32s.c", "/p/b/cr32s.o"},
    {"/p/src/cr64.c", "/p/b/cr64.o"},
    {"/p/src/cr64.c", "/p/b/shared/cr64.o"},
};

static struct sighting seen(size_t compile, const char *symbol)
{
    struct sighting g;
    memset(&g, 0, sizeof g);
    g.compile = compile;
    g.file = (char *)"/p/src/poly-fir.h";
    g.insert_offset = 200;
    g.symbol = (char *)symbol;
    g.spelled = (char *)"FUNCTION";
    g.is_static = 1;
    return g;
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void test_tag(void **state)
{
    (void)state;
    char *t = header_switch_tag("/p/src/poly-fir.h", "vpoly3");
    assert_string_equal(t, "FMVGEN_CLONE_poly_fir_h_vpoly3");
    free(t);
}

/* Eligible in cr32.c, intrinsics in cr32s.c: on in cr32.c only, the note
 * naming the switch, the TU that defines it and the one that does not. */
static void test_tus_disagree(void **state)
{
    (void)state;
    struct sighting a = seen(0, "vpoly3"), b = seen(1, "vpoly3");
    b.reason = REASON_INTRINSICS;
    b.detail = (char *)"calls the intrinsic _mm_add_ps";
    const struct sighting *all[] = {&a, &b};
    struct header_verdict v;
    header_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_int_equal(v.tu_reason[0], REASON_NONE);
    assert_int_equal(v.tu_reason[1], REASON_INTRINSICS);
    assert_string_equal(v.tu_detail[1], "calls the intrinsic _mm_add_ps");
    json_t *note = v.note_of[0];
    assert_non_null(note);
    assert_null(v.note_of[1]);
    assert_int_equal(v.nnotes, 1);
    assert_string_equal(str(note, "kind"), "header-switch");
    assert_string_equal(str(note, "tag"), "FMVGEN_CLONE_poly_fir_h_vpoly3");
    assert_true(json_is_true(json_object_get(note, "static")));
    assert_null(json_object_get(note, "expansion"));   /* one name per TU */
    json_t *tus = json_object_get(note, "tus"), *off = json_object_get(note, "off");
    assert_int_equal(json_array_size(tus), 1);
    assert_string_equal(str(json_array_get(tus, 0), "source"), "/p/src/cr32.c");
    assert_string_equal(str(json_array_get(tus, 0), "symbol"), "vpoly3");
    assert_int_equal(json_array_size(off), 1);
    assert_string_equal(str(json_array_get(off, 0), "source"), "/p/src/cr32s.c");
    assert_string_equal(str(json_array_get(off, 0), "reason"), "intrinsics");
    assert_string_equal(str(note, "detail"), "static function of header poly-fir.h: cloned in the TUs that define "
                                               "FMVGEN_CLONE_poly_fir_h_vpoly3 (cr32.c); not in cr32s.c (intrinsics)");
    header_verdict_free(&v, 2);
}

/* Excluded in every TU: no note, the rows keep their own reasons. */
static void test_none_eligible(void **state)
{
    (void)state;
    struct sighting a = seen(0, "f"), b = seen(1, "f");
    a.reason = b.reason = REASON_INTRINSICS;
    const struct sighting *all[] = {&a, &b};
    struct header_verdict v;
    header_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_int_equal(v.nnotes, 0);
    assert_int_equal(v.tu_reason[0], REASON_INTRINSICS);
    header_verdict_free(&v, 2);
}

/* libsoxr's cr-core.c includes poly-fir.h three times ("#define FUNCTION
 * vpoly1", vpoly2, vpoly3): one switch per name, pasted from FUNCTION;
 * cr32s.c's vpoly3 uses intrinsics. */
static void test_expanded_under_several_names(void **state)
{
    (void)state;
    struct sighting a = seen(0, "vpoly1"), b = seen(0, "vpoly3"), c = seen(1, "vpoly3");
    c.reason = REASON_INTRINSICS;
    const struct sighting *all[] = {&a, &b, &c};
    struct header_verdict v;
    header_verdict(all, 3, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_int_equal(v.nnotes, 2);
    assert_non_null(v.note_of[0]);
    assert_non_null(v.note_of[1]);
    assert_null(v.note_of[2]);
    assert_string_equal(str(v.note_of[0], "tag"), "FMVGEN_CLONE_poly_fir_h_vpoly1");
    assert_string_equal(str(v.note_of[1], "tag"), "FMVGEN_CLONE_poly_fir_h_vpoly3");
    json_t *x = json_object_get(v.note_of[1], "expansion");
    assert_string_equal(str(x, "spelled"), "FUNCTION");
    assert_string_equal(str(x, "place"), "poly_fir_h");
    assert_int_equal(json_array_size(json_object_get(x, "symbols")), 2);
    assert_int_equal(json_array_size(json_object_get(v.note_of[1], "off")), 1);
    assert_int_equal(json_array_size(json_object_get(v.note_of[0], "off")), 0);
    header_verdict_free(&v, 3);
}

/* Several names from one place, not written as one macro: no switch can
 * tell them apart, excluded everywhere. */
static void test_expansions_not_told_apart(void **state)
{
    (void)state;
    struct sighting a = seen(0, "vpoly1"), b = seen(0, "vpoly3");
    a.spelled = (char *)"vpoly1";
    const struct sighting *all[] = {&a, &b};
    struct header_verdict v;
    header_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_HEADER);
    assert_string_equal(v.detail, "defined 2 times from this place of header poly-fir.h in TU cr32.c (vpoly1, vpoly3: "
                                  "the header is included more than once with other macros), and its name is written "
                                  "as itself, not as a macro: no switch can tell the expansions apart");
    assert_int_equal(v.nnotes, 0);
    header_verdict_free(&v, 2);
}

/* A redeclaration would be one more line in the header, not switched. */
static void test_used_before_definition(void **state)
{
    (void)state;
    struct sighting a = seen(0, "f"), b = seen(2, "f");
    b.redecl_text = (char *)"static void f(int);";
    const struct sighting *all[] = {&a, &b};
    struct header_verdict v;
    header_verdict(all, 2, TUS, &v);
    assert_int_equal(v.reason, REASON_USED_BEFORE_DEFINITION);
    assert_non_null(strstr(v.detail, "(TU cr64.c)"));
    assert_int_equal(v.nnotes, 0);
    header_verdict_free(&v, 2);
}

/* cr64.c compiled twice; one compile excludes it: the switch would go
 * into cr64.c for both, so it is off in both. */
static void test_source_compiled_twice(void **state)
{
    (void)state;
    struct sighting a = seen(0, "f"), b = seen(2, "f"), c = seen(3, "f");
    c.reason = REASON_ATTRIBUTE;
    c.detail = (char *)"stands under '#pragma GCC target'";
    const struct sighting *all[] = {&a, &b, &c};
    struct header_verdict v;
    header_verdict(all, 3, TUS, &v);
    assert_int_equal(v.reason, REASON_NONE);
    assert_int_equal(v.tu_reason[0], REASON_NONE);
    assert_int_equal(v.tu_reason[1], REASON_ATTRIBUTE);
    assert_string_equal(v.tu_detail[1], "cr64.c is compiled twice, and the other compile (/p/b/shared/cr64.o) excludes "
                                        "it: stands under '#pragma GCC target'");
    assert_int_equal(json_array_size(json_object_get(v.note_of[0], "tus")), 1);
    assert_int_equal(json_array_size(json_object_get(v.note_of[0], "off")), 2);
    header_verdict_free(&v, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tag),
        cmocka_unit_test(test_tus_disagree),
        cmocka_unit_test(test_none_eligible),
        cmocka_unit_test(test_expanded_under_several_names),
        cmocka_unit_test(test_expansions_not_told_apart),
        cmocka_unit_test(test_used_before_definition),
        cmocka_unit_test(test_source_compiled_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
