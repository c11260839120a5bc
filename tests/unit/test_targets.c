/* Unit tests of lib/targets: --targets parsing, flags, the widest target,
 * the FMA table checked against what gcc/clang really emit, the compiler
 * spellings (and that the preamble's #if condition agrees with them for
 * every installed compiler), and validation by test compile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/spawn.h"
#include "test_run_helpers.h"
#include "targets/targets.h"
#include "util/util.h"

static void test_parse_default_and_dedup(void **state)
{
    (void)state;
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &t), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.v[0], "arch=x86-64-v3");
    assert_string_equal(t.v[1], "arch=x86-64-v4");
    sv_free(&t);
    assert_int_equal(targets_parse(" avx2 , default,avx2,\"avx512f\"", &t), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.v[0], "avx2");
    assert_string_equal(t.v[1], "avx512f");
    sv_free(&t);
}

static void test_parse_rejects_unknown(void **state)
{
    (void)state;
    struct strvec t = STRVEC_INIT;
    fmv_set_quiet(1);
    assert_int_equal(targets_parse("avx2,avx9000", &t), -1);
    assert_int_equal(t.n, 0);   /* nothing half-parsed */
    assert_int_equal(targets_parse("arch=x86-64-v7", &t), -1);
    assert_int_equal(targets_parse("default", &t), -1);   /* nothing besides default */
    fmv_set_quiet(0);
    sv_free(&t);
}

static void test_flags_and_widest(void **state)
{
    (void)state;
    struct strvec f = STRVEC_INIT;
    assert_int_equal(target_compile_flags("arch=x86-64-v4", &f), 0);
    assert_int_equal(target_compile_flags("avx2", &f), 0);
    assert_int_equal(target_compile_flags("nonsense", &f), -1);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.v[0], "-march=x86-64-v4");
    assert_string_equal(f.v[1], "-mavx2");
    sv_free(&f);

    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2,arch=x86-64-v4,arch=x86-64-v3", &t), 0);
    assert_string_equal(targets_widest(&t), "arch=x86-64-v4");
    sv_free(&t);
    assert_int_equal(targets_parse("sse4.2,avx2", &t), 0);
    assert_string_equal(targets_widest(&t), "avx2");
    sv_free(&t);
}

static void test_fma_table(void **state)
{
    (void)state;
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_EXACT, &t), 0);
    assert_false(targets_enable_fma(&t));
    sv_free(&t);
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &t), 0);
    assert_true(targets_enable_fma(&t));
    sv_free(&t);
    assert_false(target_enables_fma("avx2"));
    assert_true(target_enables_fma("avx512f"));
    assert_true(target_enables_fma("fma"));
    assert_true(target_is_cpu_model("arch=haswell"));
    assert_false(target_is_cpu_model("arch=x86-64-v3"));
}

static void test_spellings(void **state)
{
    (void)state;
    assert_string_equal(target_spell("arch=x86-64-v3", "clang", 14), "avx2");
    assert_string_equal(target_spell("arch=x86-64-v4", "clang", 18), "avx512f");
    assert_string_equal(target_spell("arch=x86-64-v3", "clang", 19), "arch=x86-64-v3");
    assert_string_equal(target_spell("arch=x86-64-v3", "gcc", 12), "arch=x86-64-v3");
    assert_string_equal(target_spell("arch=x86-64-v3", "gcc", 10), "avx2");
    assert_string_equal(target_spell("avx2", "clang", 14), "avx2");
    struct strvec t = STRVEC_INIT, s = STRVEC_INIT;
    assert_int_equal(targets_parse("arch=x86-64-v3,avx2", &t), 0);
    targets_spell(&t, "clang", 14, &s);
    assert_int_equal(s.n, 1);   /* both are "avx2" there: clang rejects duplicates */
    sv_free(&t);
    sv_free(&s);
}

/* ---- against the installed compilers ---- */

/* Compiles text with cc and extra args; returns captured stdout (or the
 * output file's text with -S), NULL when the compile failed. */
static char *compile(const char *cc, const char *dir, const char *text, const char *mode)
{
    char *src = path_join(dir, "t.c"), *out = path_join(dir, "t.out");
    assert_int_equal(write_file_atomic(src, text, strlen(text)), 0);
    char *argv[] = {(char *)cc, "-O3", (char *)mode, src, "-o", out, NULL};
    struct run_opts o = {.null_stdout = 1, .null_stderr = 1};
    char *result = NULL;
    if (run_argv(argv, &o, NULL) == 0) result = read_file(out, NULL);
    free(src);
    free(out);
    return result;
}

static int dumpmajor(const char *cc)
{
    char *argv[] = {(char *)cc, "-dumpversion", NULL};
    struct run_opts o = {.capture_stdout = 1, .null_stderr = 1};
    struct run_result r;
    int major = run_argv(argv, &o, &r) == 0 && r.out ? atoi(r.out) : 0;
    run_result_free(&r);
    return major;
}

static const struct {
    const char *path, *kind;
} COMPILERS[] = {{"gcc", "gcc"}, {"clang-14", "clang"}, {"clang-19", "clang"}, {"clang", "clang"}};

/* The patch preamble picks the spelling with TARGETS_FEATURE_SPELLING_CONDITION:
 * each compiler must land on the branch target_spell() chooses for it. */
static void test_condition_matches_spelling(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-targets");
    char *text = xasprintf("#if %s\nfeature_names\n#else\narch_names\n#endif\n", TARGETS_FEATURE_SPELLING_CONDITION);
    int checked = 0;
    for (size_t i = 0; i < sizeof COMPILERS / sizeof *COMPILERS; i++) {
        if (!have(COMPILERS[i].path)) continue;
        int major = dumpmajor(COMPILERS[i].path);
        char *out = compile(COMPILERS[i].path, dir, text, "-E");
        assert_non_null(out);
        int feature = strstr(out, "feature_names") != NULL;
        const char *spelled = target_spell("arch=x86-64-v3", COMPILERS[i].kind, major);
        assert_int_equal(feature, !strcmp(spelled, "avx2"));
        free(out);
        checked++;
    }
    assert_true(checked >= 2);   /* gcc and clang are required */
    free(text);
    remove_tree(dir);
    free(dir);
}

/* The FMA column of the table, measured: a*b+c compiled in a clone of each
 * target (as spelled for the compiler) does or does not become vfmadd. */
static void test_fma_table_matches_compilers(void **state)
{
    (void)state;
    static const char *const targets[] = {"avx2", "sse4.2", "arch=x86-64-v2", "avx512f", "fma", "arch=x86-64-v3",
                                          "arch=x86-64-v4"};
    char *dir = make_temp_dir("test-targets");
    for (size_t i = 0; i < sizeof COMPILERS / sizeof *COMPILERS; i++) {
        if (!have(COMPILERS[i].path)) continue;
        int major = dumpmajor(COMPILERS[i].path);
        for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
            const char *spelled = target_spell(targets[t], COMPILERS[i].kind, major);
            char *text = xasprintf("__attribute__((target_clones(\"%s\", \"default\")))\n"
                                   "void f(double *restrict a, const double *restrict b, const double *restrict c, "
                                   "int n) { for (int i = 0; i < n; i++) a[i] = a[i] * b[i] + c[i]; }\n",
                                   spelled);
            char *asm_text = compile(COMPILERS[i].path, dir, text, "-S");
            assert_non_null(asm_text);
            int fused = strstr(asm_text, "vfmadd") != NULL;
            /* The spelled target decides (clang 14 gets "avx2" for v3). */
            if (fused != target_enables_fma(spelled))
                fail_msg("%s %d, target %s (spelled %s): vfmadd %s", COMPILERS[i].path, major, targets[t], spelled,
                         fused ? "found" : "missing");
            free(asm_text);
            free(text);
        }
    }
    remove_tree(dir);
    free(dir);
}

static void test_validate_with_compilers(void **state)
{
    (void)state;
    struct strvec good = STRVEC_INIT, bad = STRVEC_INIT;
    assert_int_equal(targets_parse("arch=x86-64-v3,arch=x86-64-v4,avx2", &good), 0);
    sv_push(&bad, "avx2");
    sv_push(&bad, "arch=no-such-cpu");   /* not in the table: only the compiler can say */
    for (size_t i = 0; i < sizeof COMPILERS / sizeof *COMPILERS; i++) {
        if (!have(COMPILERS[i].path)) continue;
        int major = dumpmajor(COMPILERS[i].path);
        assert_int_equal(targets_validate(&good, COMPILERS[i].path, COMPILERS[i].kind, major), 0);
        fmv_set_quiet(1);
        assert_int_equal(targets_validate(&bad, COMPILERS[i].path, COMPILERS[i].kind, major), -1);
        fmv_set_quiet(0);
    }
    fmv_set_quiet(1);
    assert_int_equal(targets_validate(&good, "/nonexistent/cc", "gcc", 12), -1);
    fmv_set_quiet(0);
    sv_free(&good);
    sv_free(&bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_default_and_dedup),
        cmocka_unit_test(test_parse_rejects_unknown),
        cmocka_unit_test(test_flags_and_widest),
        cmocka_unit_test(test_fma_table),
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_condition_matches_spelling),
        cmocka_unit_test(test_fma_table_matches_compilers),
        cmocka_unit_test(test_validate_with_compilers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
