/* Unit tests of the Clang reader (lib/records/clang_yaml.c) on records that
 * clang 14 and (when installed) clang-19 write at test time for
 * tests/fixtures/records through -Xclang -opt-record-file: the function is
 * the one compiled after inlining, SLP counts, the width is in lanes, a loop
 * that needs AVX2 shows only with -mavx2, C++ functions are mangled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "test_records_util.h"

static void read_clang(const char *cc, const char *tmp, const char *tag, const char *src, const char *const *extra,
                       struct record_list *out)
{
    char *path = clang_records(cc, tmp, tag, src, extra);
    assert_int_equal(records_read_clang_yaml(path, record_list_add, out), 0);
    free(path);
}

static void check_kernels(const char *cc, const char *tmp)
{
    static const char *const avx2[] = {"-mavx2", NULL};
    char *tag = xasprintf("%s-base", cc);
    struct record_list l = RECORD_LIST_INIT;
    read_clang(cc, tmp, tag, "kernels.c", NULL, &l);
    record_list_dedup(&l);

    const struct loop_record *foo = find_record(&l, "foo", LOOP_VECTORIZED);
    assert_non_null(foo);
    assert_int_equal(count_function(&l, "add_helper"), 0);
    assert_int_equal(foo->line, marked_line("kernels.c", "helper-loop"));
    assert_int_equal(foo->vector_lanes, 4);    /* 4 floats in an SSE register */
    assert_int_equal(foo->vector_bytes, 0);    /* Clang does not say bytes */
    assert_non_null(strstr(foo->message, "vectorization width: 4"));

    int slp_at_mark = 0;
    for (size_t i = 0; i < l.n; i++)
        slp_at_mark |= l.v[i].kind == LOOP_SLP && !strcmp(l.v[i].function, "slp4") &&
                       l.v[i].line == marked_line("kernels.c", "slp");
    assert_true(slp_at_mark);
    assert_null(find_record(&l, "slp4", LOOP_VECTORIZED));
    assert_non_null(find_record(&l, "scale", LOOP_VECTORIZED));
    assert_int_equal(count_function(&l, "dot64"), 0);
    assert_int_equal(count_function(&l, "scalar_only"), 0);
    record_list_free(&l);
    free(tag);

    tag = xasprintf("%s-avx2", cc);
    read_clang(cc, tmp, tag, "kernels.c", avx2, &l);
    record_list_dedup(&l);
    const struct loop_record *dot = find_record(&l, "dot64", LOOP_VECTORIZED);
    assert_non_null(dot);
    assert_int_equal(dot->line, marked_line("kernels.c", "dot64-loop"));
    assert_int_equal(dot->vector_lanes, 4);   /* 4 int64 sums in a YMM register */
    assert_int_equal(find_record(&l, "foo", LOOP_VECTORIZED)->vector_lanes, 8);
    record_list_free(&l);
    free(tag);
}

static void check_methods(const char *cc, const char *tmp)
{
    char *tag = xasprintf("%s-cxx", cc);
    struct record_list l = RECORD_LIST_INIT;
    read_clang(cc, tmp, tag, "methods.cpp", NULL, &l);
    record_list_dedup(&l);
    static const struct {
        const char *symbol;
        int lanes;
    } expected[] = {
        {"_ZN2ns3Vec3addERKS0_", 4}, {"_ZN2ns5saxpyEPfPKffi", 4}, {"_ZN2ns5saxpyEPdPKddi", 2},
        {"_Z3useRN2ns3VecE", 4},     {"cfun", 4},
    };
    assert_int_equal(l.n, sizeof expected / sizeof *expected);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        const struct loop_record *r = find_record(&l, expected[i].symbol, LOOP_VECTORIZED);
        assert_non_null(r);
        assert_int_equal(r->vector_lanes, expected[i].lanes);
    }
    assert_int_equal(find_record(&l, "_Z3useRN2ns3VecE", LOOP_VECTORIZED)->line,
                     marked_line("methods.cpp", "scale-method"));
    record_list_free(&l);
    free(tag);
}

static void test_clang14_kernels(void **state) { check_kernels("clang", *state); }
static void test_clang14_methods(void **state) { check_methods("clang", *state); }

static void test_clang19_kernels(void **state)
{
    if (!have_compiler("clang-19")) skip();
    check_kernels("clang-19", *state);
}

static void test_clang19_methods(void **state)
{
    if (!have_compiler("clang-19")) skip();
    check_methods("clang-19", *state);
}

/* Clang writes an empty file for a TU without functions: valid, no records. */
static void test_tu_without_functions_has_empty_valid_file(void **state)
{
    char *src = path_join(*state, "data.c");
    assert_int_equal(write_file_atomic(src, "int table[4] = {1, 2, 3, 4};\n", 29), 0);
    char *yaml = path_join(*state, "data.yaml");
    char *obj = path_join(*state, "data.o");
    char *argv[] = {"clang", "-O2", "-c", src, "-o", obj, "-Xclang", "-opt-record-file", "-Xclang", yaml, NULL};
    assert_int_equal(run_argv(argv, NULL, NULL), 0);
    struct record_list l = RECORD_LIST_INIT;
    assert_int_equal(records_read_clang_yaml(yaml, record_list_add, &l), 0);
    assert_int_equal(l.n, 0);
    free(src);
    free(yaml);
    free(obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clang14_kernels),
        cmocka_unit_test(test_clang14_methods),
        cmocka_unit_test(test_clang19_kernels),
        cmocka_unit_test(test_clang19_methods),
        cmocka_unit_test(test_tu_without_functions_has_empty_valid_file),
    };
    return cmocka_run_group_tests(tests, records_tmp_setup, records_tmp_teardown);
}
