/* Unit tests of lib/patch with per-function target sets (a store filled by
 * hand from the select-mixed fixture): their macros, preamble blocks,
 * header, builds with gcc/clang/clang-19/tcc/C89 and re-patching; C++
 * attribute lists and a static function linked twice. Patch assembly with
 * one set: test_patch.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patch/apply.h"
#include "patch/diff.h"
#include "patch/plan.h"
#include "run/spawn.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

#include "test_plan_helpers.h"

static const char *const MIXED_FILES[] = {"mixed.c", "other.c", "mixed.h", "main.c"};
static const char LEVELS_MACRO[] = "FMVGEN_CLONES_X86_64_V3_X86_64_V4";

/* The select-mixed fixture with its four kernels as candidates. */
static void mixed_open(struct project *p)
{
    project_open_fixture(p, "select-mixed", MIXED_FILES, sizeof MIXED_FILES / sizeof *MIXED_FILES);
    add_candidate(p, "mixed.c", "add_ints", "void add_ints(");
    add_candidate(p, "mixed.c", "dot_ints", "long dot_ints(");
    add_candidate(p, "mixed.c", "triple", "static void\ntriple(");
    add_candidate(p, "mixed.c", "triple_all", "void triple_all(");
    add_candidate(p, "other.c", "square_ints", "void square_ints(");
}

/* add_ints and triple get avx2; dot_ints and square_ints the psABI levels;
 * triple_all nothing. */
static void mixed_assign(struct patch_assignments *a)
{
    struct strvec levels = STRVEC_INIT, avx2 = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &levels), 0);
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    patch_assign(a, "dot_ints", &avx2);   /* overridden just below: the last one counts */
    patch_assign(a, "add_ints", &avx2);
    patch_assign(a, "dot_ints", &levels);
    patch_assign(a, "triple", &avx2);
    patch_assign(a, "square_ints", &levels);
    sv_free(&levels);
    sv_free(&avx2);
}

static char *file_of(const struct patch_plan *plan, const char *rel)
{
    for (size_t i = 0; i < plan->nfiles; i++)
        if (!strcmp(plan->files[i].rel, rel)) return plan->files[i].new_data;
    fail_msg("%s is not in the plan", rel);
    return NULL;
}

static void test_macro_names(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"avx2", "FMVGEN_CLONES_AVX2"},
        {TARGETS_DEFAULT, "FMVGEN_CLONES_X86_64_V3_X86_64_V4"},
        {"arch=haswell,avx512f", "FMVGEN_CLONES_HASWELL_AVX512F"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct strvec t = STRVEC_INIT;
        assert_int_equal(targets_parse(cases[i][0], &t), 0);
        char *name = patch_macro_name(&t);
        assert_string_equal(name, cases[i][1]);
        free(name);
        sv_free(&t);
    }
}

static void test_plan_mixed_sets_text(void **state)
{
    (void)state;
    struct project p;
    mixed_open(&p);
    struct patch_assignments a = {0};
    mixed_assign(&a);
    assert_int_equal(a.n, 4);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    if (getenv("TEST_PATCH_SHOW")) fputs(plan.text, stderr);
    assert_int_equal(plan.nfunctions, 4);   /* triple_all is not assigned */
    assert_int_equal(plan.nfiles, 2);
    assert_int_equal(plan.nsets, 2);
    assert_string_equal(plan.sets[0].macro, "FMVGEN_CLONES_AVX2");   /* first used (add_ints) first */
    assert_false(plan.sets[0].fma);
    assert_string_equal(plan.sets[1].macro, LEVELS_MACRO);
    assert_true(plan.sets[1].fma);
    assert_true(plan.fma);
    assert_false(plan.exact);

    /* The two-set preamble: each macro pair in its own guarded block, with
     * the compiler-specific spellings and the clang < 18 alias. */
    char *pre = patch_preamble_sets(plan.sets, plan.nsets, "\n");
    static const char *const lines[] = {
        "/* fmvgen: FMVGEN_CLONES_<SET>(symbol) - FMVGEN_CLONES_<SET>_STATIC for static\n",
        " *   FMVGEN_CLONES_AVX2: avx2, default\n",
        " *   FMVGEN_CLONES_X86_64_V3_X86_64_V4: arch=x86-64-v3, arch=x86-64-v4, default\n",
        "#ifndef FMVGEN_CLONES_AVX2_STATIC\n"
        "# if !defined(FMVGEN_NO_CLONES) && defined(__has_attribute) && defined(__x86_64__) && defined(__ELF__)\n"
        "#  if !defined(__GLIBC__) && !defined(_FEATURES_H)\n"
        "#   include <limits.h>\n"
        "#  endif\n"
        "#  if defined(__GLIBC__) && !defined(__UCLIBC__) && __has_attribute(target_clones)\n"
        "#   define FMVGEN_CLONES_AVX2_STATIC __attribute__((target_clones(\"avx2\", \"default\") FMVGEN_NO_IPA_RA_))\n"
        "#   if defined(__clang__) && __clang_major__ < 18\n",
        "#    define FMVGEN_CLONES_AVX2(sym) FMVGEN_IFUNC_ALIAS_(sym) __attribute__((target_clones(\"avx2\", "
        "\"default\")))\n"
        "     /* It also makes the resolver of a static function a global symbol: two\n"
        "      * files' static functions of one name would not link. No clones. */\n"
        "#    undef FMVGEN_CLONES_AVX2_STATIC\n"
        "#    define FMVGEN_CLONES_AVX2_STATIC\n"
        "#   else\n"
        "#    define FMVGEN_CLONES_AVX2(sym) FMVGEN_CLONES_AVX2_STATIC\n",
        "# ifndef FMVGEN_CLONES_AVX2_STATIC\n#  define FMVGEN_CLONES_AVX2_STATIC\n#  define FMVGEN_CLONES_AVX2(sym)\n"
        "# endif\n#endif\n#ifndef FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC\n",
        "#  if defined(__GLIBC__) && !defined(__UCLIBC__) && __has_attribute(target_clones)\n"
        "    /* clang < 19 mis-dispatches arch=x86-64-vN, gcc < 11 lacks it: feature names */\n"
        "#   if " TARGETS_FEATURE_SPELLING_CONDITION "\n"
        "#    define FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC __attribute__((target_clones(\"avx2\", \"avx512f\", "
        "\"default\") FMVGEN_NO_IPA_RA_))\n"
        "#   else\n"
        "#    define FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC __attribute__((target_clones(\"arch=x86-64-v3\", "
        "\"arch=x86-64-v4\", \"default\") FMVGEN_NO_IPA_RA_))\n",
        "#    define FMVGEN_CLONES_X86_64_V3_X86_64_V4(sym) FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC\n",
        "#  define FMVGEN_CLONES_X86_64_V3_X86_64_V4(sym)\n# endif\n#endif\n\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        if (!strstr(pre, lines[i])) fail_msg("preamble lacks:\n%s\nin:\n%s", lines[i], pre);
    }
    assert_null(strstr(pre, "FMVGEN_CLONES_STATIC"));
    assert_null(strstr(pre, "FMVGEN_CLONES("));
    /* each explanation once */
    const char *alias = strstr(pre, "clang < 18 names the dispatcher");
    assert_non_null(alias);
    assert_null(strstr(alias + 1, "clang < 18 names the dispatcher"));

    /* mixed.c: that preamble once, above its first candidate; each function
     * with its own set's macro, the static one with _STATIC. */
    const char *m = file_of(&plan, "mixed.c");
    const char *at = strstr(m, pre);
    assert_non_null(at);
    assert_true(at == strstr(m, "#include \"mixed.h\"\n\n") + strlen("#include \"mixed.h\"\n\n"));
    assert_null(strstr(at + strlen(pre), "#ifndef FMVGEN_CLONES_AVX2_STATIC"));   /* once */
    assert_non_null(strstr(m, "#endif\n\nFMVGEN_CLONES_AVX2(add_ints)\nvoid add_ints("));
    assert_non_null(strstr(m, "}\n\nFMVGEN_CLONES_X86_64_V3_X86_64_V4(dot_ints)\nlong dot_ints("));
    assert_non_null(strstr(m, "}\n\nFMVGEN_CLONES_AVX2_STATIC\nstatic void\ntriple("));
    assert_non_null(strstr(m, "}\n\nvoid triple_all("));
    free(pre);

    /* other.c uses one set: its block alone, the one-set comment, named. */
    const char *o = file_of(&plan, "other.c");
    assert_non_null(strstr(o, "/* fmvgen: FMVGEN_CLONES_X86_64_V3_X86_64_V4(symbol) - "
                              "FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC for static functions -\n"));
    assert_non_null(strstr(o, "#ifndef FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC\n"));
    assert_null(strstr(o, "AVX2"));
    assert_non_null(strstr(o, "#endif\n\nFMVGEN_CLONES_X86_64_V3_X86_64_V4(square_ints)\nvoid square_ints("));

    /* The header: the sets, each function's targets, FMA by function. */
    const char *first_diff = strstr(plan.text, "\n--- a/");
    assert_non_null(first_diff);
    char *header = xstrndup(plan.text, (size_t)(first_diff - plan.text));
    static const char *const says[] = {
        ("Target sets (2):\n"
         "  FMVGEN_CLONES_AVX2: avx2, default\n"
         "  FMVGEN_CLONES_X86_64_V3_X86_64_V4: arch=x86-64-v3, arch=x86-64-v4, default\n"
         "    spelled avx2, avx512f for clang < 19 and gcc < 11"),
        "  mixed.c:7 add_ints: targets avx2; ",
        "  mixed.c:13 dot_ints: targets arch=x86-64-v3, arch=x86-64-v4; ",
        "  mixed.c:21 triple: targets avx2; ",
        "  other.c:5 square_ints: targets arch=x86-64-v3, arch=x86-64-v4; ",
        ("FMA WARNING: with GCC and clang >= 19 these targets enable FMA: arch=x86-64-v3, arch=x86-64-v4.\n"
         "They are the targets of dot_ints, square_ints.\n"
         "The clang < 19 and gcc < 11 spelling (avx2, avx512f) enables FMA only in avx512f.\n"
         "Their clones may contract a*b+c"),
    };
    for (size_t i = 0; i < sizeof says / sizeof *says; i++)
        if (!strstr(header, says[i])) fail_msg("header lacks:\n%s\nin:\n%s", says[i], header);
    assert_null(strstr(header, "triple_all"));
    assert_null(strstr(header, "\nTargets: "));
    for (const char *l = header; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        assert_false(!strncmp(l, "--- ", 4) || !strncmp(l, "+++ ", 4) || !strncmp(l, "@@", 2));
    free(header);

    /* --json: the sets, and each function's targets and macro. */
    json_t *j = patch_plan_to_json(&plan);
    assert_int_equal(json_array_size(json_object_get(j, "sets")), 2);
    json_t *fns = json_object_get(j, "functions");
    json_t *add = json_array_get(fns, 0);
    assert_string_equal(json_string_value(json_object_get(add, "name")), "add_ints");
    assert_string_equal(json_string_value(json_object_get(add, "macro")), "FMVGEN_CLONES_AVX2");
    assert_int_equal(json_array_size(json_object_get(add, "targets")), 2);   /* avx2, default */
    json_decref(j);
    patch_plan_free(&plan);

    /* Every function with the same set: exactly the one-set patch. */
    struct patch_assignments same = {0};
    struct strvec avx2 = STRVEC_INIT, names = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    for (size_t i = 0; i < a.n; i++) {
        patch_assign(&same, a.v[i].name, &avx2);
        sv_push(&names, a.v[i].name);
    }
    struct patch_plan one, ref;
    assert_int_equal(patch_plan_build_assigned(p.st, &same, &one), 0);
    assert_int_equal(patch_plan_build_only(p.st, &avx2, 1, &names, &ref), 0);
    assert_int_equal(one.nsets, 1);
    assert_string_equal(one.sets[0].macro, "FMVGEN_CLONES");
    assert_string_equal(one.text, ref.text);
    assert_non_null(strstr(one.text, "+FMVGEN_CLONES(add_ints)\n"));
    patch_plan_free(&one);
    patch_plan_free(&ref);

    /* A function given no target is an error. */
    struct strvec none = STRVEC_INIT;
    patch_assign(&same, "dot_ints", &none);
    assert_int_equal(patch_plan_build_assigned(p.st, &same, &one), -1);
    patch_plan_free(&one);

    sv_free(&names);
    sv_free(&avx2);
    patch_assignments_free(&same);
    patch_assignments_free(&a);
    project_close(&p);
}

/* The program's nm output (symbols only, one per line). */
static char *symbols_of(const char *dir, const char *prog)
{
    char *argv[] = {"nm", "--format=just-symbols", (char *)prog, NULL};
    char *out = NULL;
    assert_int_equal(run_in(dir, argv, &out), 0);
    return out;
}

/* 1 when symbols holds a line starting with prefix. */
static int has_symbol(const char *symbols, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *l = symbols; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, prefix, n)) return 1;
    return 0;
}

/* A definition led by C++11 attribute lists: a static function's line goes
 * below lists that fill their lines (clang refuses __attribute__ before
 * "[[...]]"); a list sharing the declaration's line, or an external function
 * (clang < 18's alias asm cannot follow a list), is left out; the patched file
 * builds and clones with g++, clang++ 14 and 19; patched once, it is not
 * patched again. */
static void test_plan_cxx_attribute_lists(void **state)
{
    (void)state;
    static const char *const files[] = {"attr.cpp"};
    struct project p;
    project_open_fixture(&p, "patch-cxx-attr", files, 1);
    add_candidate(&p, "attr.cpp", "_Z11sum_nonnullPKii", "[[gnu::nonnull]]\nint sum_nonnull(");
    add_candidate(&p, "attr.cpp", "_ZL10sum_staticPKii", "[[gnu::nonnull]] [[gnu::nothrow]]\n");
    add_candidate(&p, "attr.cpp", "_Z13sum_same_linePKii", "[[gnu::nonnull]] int sum_same_line(");
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &t), 0);
    struct patch_plan plan;
    fmv_set_quiet(1);
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    fmv_set_quiet(0);
    assert_int_equal(plan.nfunctions, 1);
    const char *text = file_of(&plan, "attr.cpp");
    if (getenv("TEST_PATCH_SHOW")) fputs(text, stderr);
    assert_non_null(strstr(text, "\n\n[[gnu::nonnull]]\nint sum_nonnull("));
    assert_non_null(strstr(text, "\n[[gnu::nonnull]] [[gnu::nothrow]]\n  [[gnu::nonnull(1)]]\n"
                                 "FMVGEN_CLONES_STATIC\nstatic int sum_static("));
    assert_non_null(strstr(text, "\n\n[[gnu::nonnull]] int sum_same_line("));
    assert_int_equal(plan.skipped.n, 2);
    assert_non_null(strstr(plan.skipped.v[0], "attr.cpp:7 _Z11sum_nonnullPKii: it starts with a C++11 attribute list"));
    assert_non_null(strstr(plan.skipped.v[1], "attr.cpp:24 _Z13sum_same_linePKii: a C++11 attribute list"));
    assert_non_null(strstr(plan.text, "+FMVGEN_CLONES_STATIC\n static int sum_static("));

    char *path = path_join(p.dir, "attr.cpp");
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    const char *compilers[] = {"g++", "clang++-14", "clang++-19"};
    for (size_t c = 0; c < sizeof compilers / sizeof *compilers; c++) {
        if (!have_command(compilers[c])) continue;
        char *argv[] = {(char *)compilers[c], "-O2", "-o", "attr", "attr.cpp", NULL};
        if (run_in(p.dir, argv, NULL) != 0) fail_msg("%s does not build the patched attr.cpp", compilers[c]);
        char *run[] = {"./attr", NULL};
        assert_int_equal(run_in(p.dir, run, NULL), 0);
        char *syms = symbols_of(p.dir, "attr");
        /* clang < 18 clones no static function (its resolver would be a
         * global symbol); gcc: arch_x86_64_v4; clang 19: arch_x86-64-v4 */
        if (!strcmp(compilers[c], "clang++-14")) {
            assert_false(has_symbol(syms, "_ZL10sum_staticPKii."));
        } else if (!has_symbol(syms, "_ZL10sum_staticPKii.avx512f") && !has_symbol(syms, "_ZL10sum_staticPKii.arch_x86_64_v4") &&
            !has_symbol(syms, "_ZL10sum_staticPKii.arch_x86-64-v4"))
            fail_msg("%s: no clone of sum_static in:\n%s", compilers[c], syms);
        free(syms);
    }
    free(path);
    project_close(&p);

    /* Patched and rescanned (the definition's extent still starts at the
     * lists): already patched, nothing to do. */
    project_open_fixture(&p, "patch-cxx-attr", files, 1);
    path = path_join(p.dir, "attr.cpp");
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    free(path);
    patch_plan_free(&plan);
    add_candidate(&p, "attr.cpp", "_ZL10sum_staticPKii", "[[gnu::nonnull]] [[gnu::nothrow]]\n");
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 0);
    assert_int_equal(plan.already, 1);
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* Two files' static functions of one name (F6): clang < 18 makes a cloned
 * static function's resolver a global symbol ("multiple definition of
 * helper.resolver"), so the preamble clones no static function there: the
 * patched program links with clang 14, and gcc and clang 19 still clone
 * both helpers. */
static void test_plan_static_twice_links(void **state)
{
    (void)state;
    static const char *const files[] = {"st_a.c", "st_b.c", "st_main.c"};
    struct project p;
    project_open_fixture(&p, "patch-static-twice", files, 3);
    add_candidate(&p, "st_a.c", "helper", "static int helper(");
    add_candidate(&p, "st_b.c", "helper", "static int helper(");
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &t), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 2);
    for (size_t i = 0; i < 2; i++) {
        const char *text = file_of(&plan, files[i]);
        assert_non_null(strstr(text, "\nFMVGEN_CLONES_STATIC\nstatic int helper("));
        assert_non_null(strstr(plan.text, "FMVGEN_CLONES_STATIC is empty\nthere, static functions get no clones."));
        char *path = path_join(p.dir, files[i]);
        assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
        free(path);
    }
    const char *compilers[] = {"gcc", "clang-14", "clang-19"};
    for (size_t c = 0; c < sizeof compilers / sizeof *compilers; c++) {
        if (!have_command(compilers[c])) continue;
        char *argv[] = {(char *)compilers[c], "-O2", "-o", "st", "st_a.c", "st_b.c", "st_main.c", NULL};
        if (run_in(p.dir, argv, NULL) != 0) fail_msg("%s does not build the patched files", compilers[c]);
        char *run[] = {"./st", NULL};
        assert_int_equal(run_in(p.dir, run, NULL), 0);
        char *syms = symbols_of(p.dir, "st");
        int cloned = has_symbol(syms, "helper.resolver");
        if (cloned != (strcmp(compilers[c], "clang-14") != 0))
            fail_msg("%s: helper %s:\n%s", compilers[c], cloned ? "cloned" : "not cloned", syms);
        free(syms);
    }
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* The mixed patch, applied to the copy by patch(1), built by gcc, clang 14, clang 19
 * (when installed) and tcc, and strictly as C89: each function has the
 * clones of its own set, and the programs print what the unpatched one
 * does, natively and on an emulated Haswell. */
static void test_plan_mixed_sets_compile(void **state)
{
    (void)state;
    struct project p;
    mixed_open(&p);
    struct patch_assignments a = {0};
    mixed_assign(&a);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);

    char *expected = NULL;
    {
        char *argv[] = {"gcc", "-O2", "-o", "base", "mixed.c", "other.c", "main.c", NULL};
        assert_int_equal(run_in(p.dir, argv, NULL), 0);
        char *run[] = {"./base", NULL};
        assert_int_equal(run_in(p.dir, run, &expected), 0);
        assert_string_equal(expected, "-243\n");
    }
    /* the patch text applies with patch(1) and gives the planned contents */
    char *patch_file = path_join(p.dir, "mixed.patch");
    assert_int_equal(write_file_atomic(patch_file, plan.text, strlen(plan.text)), 0);
    {
        char *argv[] = {"patch", "-p1", "-s", "-i", patch_file, NULL};
        assert_int_equal(run_in(p.dir, argv, NULL), 0);
    }
    free(patch_file);
    for (size_t i = 0; i < plan.nfiles; i++) {
        size_t len;
        char *now = read_file(plan.files[i].path, &len);
        assert_non_null(now);
        assert_int_equal(len, plan.files[i].new_len);
        assert_memory_equal(now, plan.files[i].new_data, len);
        free(now);
    }

    const char *compilers[] = {"gcc", "clang", "clang-19", "tcc"};
    for (size_t c = 0; c < sizeof compilers / sizeof *compilers; c++) {
        const char *cc = compilers[c];
        if (strcmp(cc, "gcc") != 0 && !have_command(cc)) {
            fprintf(stderr, "skipped: %s is not installed\n", cc);
            continue;
        }
        char *prog = xasprintf("fmv-%s", cc);
        char *argv[] = {(char *)cc, "-O2", "-o", prog, "mixed.c", "other.c", "main.c", NULL};
        if (run_in(p.dir, argv, NULL) != 0) fail_msg("%s does not build the patched files", cc);
        char *run[] = {prog, NULL}, *out = NULL;
        char *path = path_join(p.dir, prog);
        run[0] = path;
        assert_int_equal(run_in(p.dir, run, &out), 0);
        assert_string_equal(out, expected);
        free(out);
        char *syms = symbols_of(p.dir, prog);
        if (!strcmp(cc, "gcc")) {
            assert_true(has_symbol(syms, "add_ints.avx2"));
            assert_true(has_symbol(syms, "triple.avx2"));
            assert_true(has_symbol(syms, "dot_ints.arch_x86_64_v3"));
            assert_true(has_symbol(syms, "dot_ints.arch_x86_64_v4"));
            assert_true(has_symbol(syms, "square_ints.arch_x86_64_v3"));
            assert_false(has_symbol(syms, "add_ints.arch_"));
            assert_false(has_symbol(syms, "dot_ints.avx2"));
            assert_false(has_symbol(syms, "triple_all."));
        } else if (!strcmp(cc, "clang")) {
            /* clang 14 gets feature names: the levels are avx2 + avx512f */
            assert_true(has_symbol(syms, "add_ints.avx2"));
            assert_true(has_symbol(syms, "dot_ints.avx512f"));
            assert_true(has_symbol(syms, "square_ints.avx512f"));
            assert_false(has_symbol(syms, "add_ints.avx512f"));
            assert_false(has_symbol(syms, "triple.avx512f"));
        } else if (!strcmp(cc, "clang-19")) {
            assert_true(has_symbol(syms, "add_ints.avx2"));
            assert_true(has_symbol(syms, "dot_ints.arch_x86-64-v3"));
            assert_true(has_symbol(syms, "square_ints.arch_x86-64-v4"));
            assert_false(has_symbol(syms, "add_ints.arch_"));
            assert_false(has_symbol(syms, "dot_ints.avx2"));
        } else {   /* tcc: no target_clones, plain functions */
            assert_false(has_symbol(syms, "add_ints."));
            assert_false(has_symbol(syms, "dot_ints."));
        }
        free(syms);
        if (!strcmp(cc, "gcc") && have_command("qemu-x86_64")) {
            char *emu[] = {"qemu-x86_64", "-cpu", "Haswell", path, NULL};
            assert_int_equal(run_in(p.dir, emu, &out), 0);
            assert_string_equal(out, expected);
            free(out);
        }
        free(path);
        free(prog);
    }
    /* Plain C89 preprocessor and syntax. */
    for (size_t c = 0; c < 2; c++) {
        for (size_t f = 0; f < 2; f++) {
            char *argv[] = {(char *)compilers[c], "-std=c89", "-pedantic-errors", "-Wall", "-Wextra", "-Werror",
                            "-O2", "-c", (char *)(f ? "other.c" : "mixed.c"), "-o", "c89.o", NULL};
            if (run_in(p.dir, argv, NULL) != 0) fail_msg("%s -std=c89 -pedantic-errors rejects the patch", compilers[c]);
        }
    }
    /* -DFMVGEN_NO_CLONES: plain functions. */
    {
        char *argv[] = {"gcc", "-O2", "-DFMVGEN_NO_CLONES", "-o", "plain", "mixed.c", "other.c", "main.c", NULL};
        assert_int_equal(run_in(p.dir, argv, NULL), 0);
        char *syms = symbols_of(p.dir, "plain");
        assert_false(has_symbol(syms, "add_ints."));
        assert_false(has_symbol(syms, "dot_ints."));
        free(syms);
    }
    free(expected);
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    project_close(&p);
}

/* The mixed patch applied, then rescanned: functions under either kind of
 * line (FMVGEN_CLONES_AVX2_STATIC, FMVGEN_CLONES_<SET>(sym)) are left
 * alone; new candidates reuse a block the file already has and get the
 * blocks it lacks. */
static void test_plan_mixed_sets_already_patched(void **state)
{
    (void)state;
    struct project p;
    mixed_open(&p);
    struct patch_assignments a = {0};
    mixed_assign(&a);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    char *mixed = path_join(p.dir, "mixed.c");
    char *m = xstrdup(file_of(&plan, "mixed.c"));
    assert_int_equal(write_file_atomic(mixed, m, strlen(m)), 0);
    patch_plan_free(&plan);
    /* the rescan: the same candidates, at their new places */
    assert_int_equal(sqlite3_exec(store_db(p.st), "DELETE FROM functions", NULL, NULL, NULL), SQLITE_OK);
    add_candidate(&p, "mixed.c", "add_ints", "void add_ints(");
    add_candidate(&p, "mixed.c", "dot_ints", "long dot_ints(");
    add_candidate(&p, "mixed.c", "triple", "static void\ntriple(");
    add_candidate(&p, "other.c", "square_ints", "void square_ints(");
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    assert_int_equal(plan.already, 3);
    assert_int_equal(plan.nfunctions, 1);   /* square_ints, in the untouched other.c */
    assert_string_equal(plan.functions[0].name, "square_ints");
    assert_string_equal(plan.sets[0].macro, "FMVGEN_CLONES");   /* the one set left */
    patch_plan_free(&plan);

    /* triple_all now (the levels, whose block mixed.c has) and square_ints
     * with avx2: mixed.c gets the attribute only, other.c the avx2 block. */
    add_candidate(&p, "mixed.c", "triple_all", "void triple_all(");
    struct patch_assignments b = {0};
    struct strvec levels = STRVEC_INIT, avx2 = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &levels), 0);
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    patch_assign(&b, "triple_all", &levels);
    patch_assign(&b, "square_ints", &avx2);
    assert_int_equal(patch_plan_build_assigned(p.st, &b, &plan), 0);
    assert_int_equal(plan.nfunctions, 2);
    assert_int_equal(plan.nsets, 2);
    const char *m2 = file_of(&plan, "mixed.c");
    assert_non_null(strstr(m2, "}\n\nFMVGEN_CLONES_X86_64_V3_X86_64_V4(triple_all)\nvoid triple_all("));
    const char *block = strstr(m2, "#ifndef FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC");
    assert_non_null(block);
    assert_null(strstr(block + 1, "#ifndef FMVGEN_CLONES_X86_64_V3_X86_64_V4_STATIC"));   /* not repeated */
    assert_int_equal(strlen(m2), strlen(m) + strlen("FMVGEN_CLONES_X86_64_V3_X86_64_V4(triple_all)\n"));
    const char *o = file_of(&plan, "other.c");
    assert_non_null(strstr(o, "#ifndef FMVGEN_CLONES_AVX2_STATIC\n"));
    assert_non_null(strstr(o, "FMVGEN_CLONES_AVX2(square_ints)\nvoid square_ints("));
    assert_non_null(strstr(plan.text, "Already patched, left alone: 3 functions."));
    patch_plan_free(&plan);
    sv_free(&levels);
    sv_free(&avx2);
    patch_assignments_free(&b);
    free(mixed);
    free(m);
    patch_assignments_free(&a);
    project_close(&p);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_macro_names),
        cmocka_unit_test(test_plan_mixed_sets_text),
        cmocka_unit_test(test_plan_cxx_attribute_lists),
        cmocka_unit_test(test_plan_static_twice_links),
        cmocka_unit_test(test_plan_mixed_sets_compile),
        cmocka_unit_test(test_plan_mixed_sets_already_patched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
