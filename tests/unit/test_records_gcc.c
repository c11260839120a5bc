/* Unit tests of the GCC reader (lib/records/gcc_json.c) on records that
 * gcc 12 writes at test time for tests/fixtures/records: the function is the
 * one compiled after inlining, SLP counts, epilogues fold into the widest
 * width, a loop that needs AVX2 shows only with -mavx2, C++ functions are
 * mangled symbols, clone suffixes are stripped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "test_records_util.h"

static void read_gcc(const char *tmp, const char *tag, const char *src, const char *const *extra,
                     struct record_list *out)
{
    char *path = gcc_records(tmp, tag, src, extra);
    assert_int_equal(records_read_gcc_json(path, record_list_add, out), 0);
    free(path);
}

static void test_inlined_helper_slp_and_clones(void **state)
{
    struct record_list l = RECORD_LIST_INIT;
    read_gcc(*state, "base", "kernels.c", NULL, &l);

    /* The helper's loop is reported in its caller, at the helper's line;
     * GCC vectorizes it and its epilogue: two records before dedup. */
    assert_true(count_function(&l, "foo") >= 2);
    assert_int_equal(count_function(&l, "add_helper"), 0);
    record_list_dedup(&l);
    assert_int_equal(count_function(&l, "foo"), 1);
    const struct loop_record *foo = find_record(&l, "foo", LOOP_VECTORIZED);
    assert_non_null(foo);
    assert_int_equal(foo->line, marked_line("kernels.c", "helper-loop"));
    assert_int_equal(foo->vector_bytes, 16);   /* SSE2 baseline; the 8-byte epilogue folded in */
    assert_int_equal(foo->vector_lanes, 0);
    assert_non_null(strstr(foo->file, "kernels.c"));
    assert_string_equal(foo->message, "loop vectorized using 16 byte vectors");

    const struct loop_record *slp = find_record(&l, "slp4", LOOP_SLP);
    assert_non_null(slp);
    assert_int_equal(slp->line, marked_line("kernels.c", "slp"));
    assert_int_equal(slp->vector_bytes, 16);
    assert_null(find_record(&l, "slp4", LOOP_VECTORIZED));

    /* "scale.constprop.0" is reported as the source function scale. */
    const struct loop_record *scale = find_record(&l, "scale", LOOP_VECTORIZED);
    assert_non_null(scale);
    for (size_t i = 0; i < l.n; i++) assert_null(strchr(l.v[i].function, '.'));

    /* int32*int32 into int64 does not vectorize at the SSE2 baseline. */
    assert_int_equal(count_function(&l, "dot64"), 0);
    assert_int_equal(count_function(&l, "caller"), 0);
    assert_int_equal(count_function(&l, "scalar_only"), 0);
    record_list_free(&l);
}

static void test_avx2_only_loop_and_wider_vectors(void **state)
{
    static const char *const avx2[] = {"-mavx2", NULL};
    struct record_list l = RECORD_LIST_INIT;
    read_gcc(*state, "avx2", "kernels.c", avx2, &l);
    record_list_dedup(&l);
    const struct loop_record *dot = find_record(&l, "dot64", LOOP_VECTORIZED);
    assert_non_null(dot);
    assert_int_equal(dot->line, marked_line("kernels.c", "dot64-loop"));
    assert_int_equal(dot->vector_bytes, 32);
    assert_int_equal(find_record(&l, "foo", LOOP_VECTORIZED)->vector_bytes, 32);
    assert_int_equal(find_record(&l, "slp4", LOOP_SLP)->vector_bytes, 32);
    record_list_free(&l);
}

static void test_cxx_functions_are_mangled_symbols(void **state)
{
    struct record_list l = RECORD_LIST_INIT;
    read_gcc(*state, "cxx", "methods.cpp", NULL, &l);
    record_list_dedup(&l);
    static const char *const expected[] = {
        "_ZN2ns3Vec3addERKS0_",   /* ns::Vec::add(const ns::Vec&), out-of-line method */
        "_ZN2ns5saxpyEPfPKffi",   /* ns::saxpy(float*, const float*, float, int) */
        "_ZN2ns5saxpyEPdPKddi",   /* its double overload: a separate function */
        "_Z3useRN2ns3VecE",       /* use(ns::Vec&), into which Vec::scale was inlined */
        "cfun",                   /* extern "C" */
    };
    assert_int_equal(l.n, sizeof expected / sizeof *expected);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        const struct loop_record *r = find_record(&l, expected[i], LOOP_VECTORIZED);
        assert_non_null(r);
        assert_int_equal(r->vector_bytes, 16);
    }
    assert_int_equal(find_record(&l, "_Z3useRN2ns3VecE", LOOP_VECTORIZED)->line,
                     marked_line("methods.cpp", "scale-method"));
    record_list_free(&l);
}

static int stop_after_first(const struct loop_record *rec, void *ctx)
{
    (void)rec;
    ++*(int *)ctx;
    return 1;
}

static void test_callback_can_stop_reading(void **state)
{
    char *path = gcc_records(*state, "stop", "kernels.c", NULL);
    int calls = 0;
    assert_int_equal(records_read_gcc_json(path, stop_after_first, &calls), 0);
    assert_int_equal(calls, 1);
    /* The same file through the format dispatcher the ingest uses. */
    struct record_list l = RECORD_LIST_INIT;
    assert_int_equal(records_read_file("gcc-json", path, record_list_add, &l), 0);
    assert_true(l.n >= 3);
    record_list_free(&l);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inlined_helper_slp_and_clones),
        cmocka_unit_test(test_avx2_only_loop_and_wider_vectors),
        cmocka_unit_test(test_cxx_functions_are_mangled_symbols),
        cmocka_unit_test(test_callback_can_stop_reading),
    };
    return cmocka_run_group_tests(tests, records_tmp_setup, records_tmp_teardown);
}
