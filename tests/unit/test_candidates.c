/* Unit tests of lib/candidates on the C fixture (tests/fixtures/candidates-c):
 * every eligibility rule, exact insert lines, SIMD #ifdef notes, records
 * without a function (plain logs), parse errors, CRLF sources and two
 * files with the same basename. Store rows are built by hand with the
 * function names GCC and Clang write for C (the plain name, GCC clones
 * suffixed ".avx2", ".constprop.0"). */
#include "test_candidates_helpers.h"

#include "candidates/tuargs.h"

#define C_DIR FIXTURES_DIR "/candidates-c"

static const char *const GCC_ARGV[] = {"gcc", "-O3", "-Wall", "-MD", "-MF", "rules.d", "-c", "rules.c",
                                       "-o", "rules.o", "-fno-tree-loop-distribute-patterns", NULL};

/* Each function of rules.c/kernels.h with the reason it must get. */
static const struct {
    const char *record_name;   /* as the compiler writes it */
    const char *row_name;      /* as stored */
    const char *reason;        /* NULL: candidate */
    int line;                  /* a loop line in it */
} C_RULES[] = {
    {"macro_add", "macro_add", "macro", 13},
    {"uses_helper", "uses_helper", NULL, 17},
    {"uses_header_helper", "uses_header_helper", NULL, 14},
    {"sum_own_line", "sum_own_line", NULL, 31},
    {"plain_inline", "plain_inline", "inline", 37},
    {"gnu_inline_kw", "gnu_inline_kw", "inline", 39},
    {"extern_inline", "extern_inline", "inline", 41},
    {"always", "always", "inline", 43},
    {"variadic_sum", "variadic_sum", "variadic", 50},
    {"has_target", "has_target", "attribute", 55},
    {"has_clones.avx2", "has_clones", "attribute", 59},
    {"is_weak", "is_weak", "attribute", 62},
    {"is_naked", "is_naked", "attribute", 64},
    {"with_intrinsics", "with_intrinsics", NULL, 68},   /* SSE: the x86-64 baseline (intrinsics.h) */
    {"with_builtin", "with_builtin", "intrinsics", 73},
    {"with_asm", "with_asm", "inline-asm", 79},
    {"simd_path", "simd_path", NULL, 88},
    {"inside_simd_block", "inside_simd_block", NULL, 95},
    {"clean_candidate", "clean_candidate", NULL, 102},
    {"main", "main", "main", 108},
    {"header_defined", "header_defined", NULL, 9},   /* external, switched per TU (header.h) */
    {"header_helper", "header_helper", "header", 14},
    {"compiler_made_fn", "compiler_made_fn", "not-found", 1},
    {"derived_switch", "derived_switch", NULL, 117},
    {"local_derived", "local_derived", NULL, 132},
    {"api_macro_fn", "api_macro_fn", NULL, 139},
    {"hot_prev_line", "hot_prev_line", NULL, 144},   /* hot from PROJ_HOT: redeclared above */
    {"under_pragma", "under_pragma", "attribute", 151},
    {"after_pragma", "after_pragma", NULL, 153},
    {"tagged_fn", "tagged_fn", "tag-name", 159},
    {"nested_tag", "nested_tag", NULL, 161},
    {"never_inlined", "never_inlined", NULL, 166},   /* noinline: redeclared above */
    {"header_noinline", "header_noinline", NULL, 171},   /* noinline from kernels.h's macro: the same */
    {"noinline_after_proto", "noinline_after_proto", NULL, 176},   /* not its first declaration */
    {"ctor_noinline", "ctor_noinline", "attribute", 188},   /* constructor beside noinline: kept plain */
    {"late_tag", "late_tag", "tag-name", 181},   /* the enum tag comes after it */
    {"between_tags", "between_tags", NULL, 182},
};

static int64_t add_c_rules(struct store *st, const char *variant)
{
    int64_t id = cand_add_compile(st, C_DIR, "rules.c", "c", "gcc", GCC_ARGV);
    for (size_t i = 0; i < sizeof C_RULES / sizeof C_RULES[0]; i++)
        cand_add_loop(st, id, variant, C_RULES[i].record_name, "rules.c", C_RULES[i].line);
    return id;
}

static void test_every_c_rule_has_its_reason(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_c_rules(f->st, "build");
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    size_t n = sizeof C_RULES / sizeof C_RULES[0];
    int want_candidates = 0;
    for (size_t i = 0; i < n; i++) {
        cand_expect(f->st, id, C_RULES[i].row_name, C_RULES[i].reason);
        want_candidates += C_RULES[i].reason == NULL;
    }
    assert_int_equal(stats.candidates, want_candidates);
    assert_int_equal(stats.excluded, (int)n - want_candidates);
    assert_int_equal(stats.unparsable_tus, 0);
    assert_int_equal(cand_count(f->st, "1"), (int)n);
}

static void test_details_name_what_blocks(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_c_rules(f->st, "build");
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    static const struct {
        const char *name, *needle;
    } DETAILS[] = {
        {"has_target", "target))"},     {"has_clones", "target_clones"}, {"is_weak", "weak"},
        {"is_naked", "naked"},          {"plain_inline", "inline"},      {"gnu_inline_kw", "static inline"},
        {"extern_inline", "extern inline"}, {"always", "always_inline"},
        {"with_builtin", "uses the target builtin __builtin_ia32_pause"},
        {"with_asm", "line 80"},        {"macro_add", "DEFINE_ADD"},
        {"under_pragma", "'#pragma GCC target(\"avx2\")' (line 150)"},
    };
    for (size_t i = 0; i < sizeof DETAILS / sizeof DETAILS[0]; i++) {
        struct cand_row r;
        cand_get(f->st, id, DETAILS[i].name, &r);
        assert_int_equal(r.count, 1);
        if (!r.detail || !strstr(r.detail, DETAILS[i].needle))
            fail_msg("%s: detail '%s' lacks '%s'", DETAILS[i].name, r.detail ? r.detail : "", DETAILS[i].needle);
        cand_row_free(&r);
    }
}

static void test_insert_lines_are_exact(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_c_rules(f->st, "build");
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    /* static and the return type on their own line above the name. */
    cand_expect_insert(f->st, id, "sum_own_line", 27, "static int\n");
    cand_expect_insert(f->st, id, "uses_helper", 20, "void uses_helper(");
    cand_expect_insert(f->st, id, "clean_candidate", 100, "void clean_candidate(");
    /* A leading attribute is part of the definition, also from a macro on
     * the line above; an empty API macro on the line is too (no note). */
    cand_expect_insert(f->st, id, "has_clones", 57, "__attribute__((target_clones(");
    cand_expect_insert(f->st, id, "hot_prev_line", 141, "PROJ_HOT\n");
    /* An attribute clang refuses beside target_clones on a first
     * declaration: a redeclaration with the attribute goes above. */
    static const struct {
        const char *name, *note;
    } REDECLARED[] = {
        {"hot_prev_line", "redeclared:carries __attribute__((hot)), which clang cannot combine with target_clones on a "
                          "function's first declaration: the patch declares it with the attribute at line 141, above "
                          "its definition, which clang then accepts: void hot_prev_line(int *a, int n);"},
        {"never_inlined", "at line 166, above its definition, which clang then accepts: static void never_inlined(int *a, int n);"},
        {"header_noinline", "redeclared:carries __attribute__((noinline)), which clang cannot combine"},
    };
    for (size_t i = 0; i < sizeof REDECLARED / sizeof REDECLARED[0]; i++) {
        char *n = cand_notes_text(f->st, id, REDECLARED[i].name);
        if (!strstr(n, REDECLARED[i].note)) fail_msg("%s: notes '%s' lack '%s'", REDECLARED[i].name, n, REDECLARED[i].note);
        free(n);
    }
    cand_expect_insert(f->st, id, "api_macro_fn", 139, "PROJ_API int api_macro_fn(");
    char *notes = cand_notes_text(f->st, id, "api_macro_fn");
    assert_string_equal(notes, "");
    free(notes);
    struct cand_row r;
    cand_get(f->st, id, "sum_own_line", &r);
    assert_int_equal(r.line, 27);
    assert_int_equal(r.end_line, 33);
    char *want = path_absolute("rules.c", C_DIR);
    assert_string_equal(r.file, want);
    free(want);
    assert_string_equal(r.display_name, "sum_own_line");
    cand_row_free(&r);
    /* The hash of the definition's file, for the patch writer's check. */
    char *want_hash = hash_file_hex(C_DIR "/rules.c");
    char *where = xasprintf("name='sum_own_line' AND source_hash='%s'", want_hash);
    assert_int_equal(cand_count(f->st, where), 1);
    free(where);
    free(want_hash);
    /* An external function of a header: located in the header, its line
     * switched on in rules.c (header.h). */
    cand_get(f->st, id, "header_defined", &r);
    assert_non_null(strstr(r.file, "/candidates-c/kernels.h"));
    assert_int_equal(r.insert_line, 7);
    cand_row_free(&r);
    char *hn = cand_notes_text(f->st, id, "header_defined");
    if (!strstr(hn, "header-switch:external function of header kernels.h: cloned in the TUs that define "
                    "FMVGEN_CLONE_kernels_h_header_defined (rules.c)"))
        fail_msg("header_defined's notes: %s", hn);
    free(hn);
}

static void test_simd_ifdef_notes(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_c_rules(f->st, "build");
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    char *n = cand_notes_text(f->st, id, "simd_path");
    assert_non_null(strstr(n, "simd-ifdef:'#ifdef __AVX2__' at line 85"));
    assert_null(strstr(n, "#else"));
    free(n);
    n = cand_notes_text(f->st, id, "inside_simd_block");
    assert_non_null(strstr(n, "simd-ifdef:the definition is inside '#if !defined(__AVX512F__)' (line 92)"));
    free(n);
    /* The project's own switches: derived in a header, named after an ISA,
     * derived in the main file. */
    n = cand_notes_text(f->st, id, "derived_switch");
    assert_non_null(strstr(n, "'#if KERNELS_FAST_PATH' at line 116 picks the SIMD path with the preprocessor: "
                              "KERNELS_FAST_PATH (set at kernels.h:19, from __SSE4_1__)"));
    assert_non_null(strstr(n, "'#ifdef PROJ_HAVE_AVX2' at line 121"));
    free(n);
    n = cand_notes_text(f->st, id, "local_derived");
    assert_non_null(strstr(n, "LOCAL_SIMD (set at rules.c:126, from __AVX__)"));
    free(n);
    /* A directive in a comment is no directive. */
    n = cand_notes_text(f->st, id, "clean_candidate");
    assert_string_equal(n, "");
    free(n);
}

static void test_gcc_clone_suffixes_map_to_one_row(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = cand_add_compile(f->st, C_DIR, "rules.c", "c", "gcc", GCC_ARGV);
    cand_add_loop(f->st, id, "build", "clean_candidate", "rules.c", 102);
    cand_add_loop(f->st, id, "build", "clean_candidate.constprop.0", "rules.c", 102);
    cand_add_loop(f->st, id, "probe:arch=x86-64-v4", "clean_candidate.part.0", "rules.c", 102);
    /* A plain -fopt-info log names no function: found by its line. */
    cand_add_loop(f->st, id, "build", NULL, "rules.c", 102);
    cand_add_loop(f->st, id, "build", NULL, "rules.c", 31);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    cand_expect(f->st, id, "clean_candidate", NULL);
    cand_expect(f->st, id, "sum_own_line", NULL);
    assert_int_equal(cand_count(f->st, "1"), 2);
}

static void test_probe_only_function_is_analyzed(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = cand_add_compile(f->st, C_DIR, "rules.c", "c", "gcc", GCC_ARGV);
    cand_add_loop(f->st, id, "probe:arch=x86-64-v4", "clean_candidate", "rules.c", 102);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    cand_expect(f->st, id, "clean_candidate", NULL);
}

static void test_rerun_replaces_rows(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_c_rules(f->st, "build");
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    int first = cand_count(f->st, "1");
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    assert_int_equal(cand_count(f->st, "1"), first);
    assert_int_equal(store_clear_loops(f->st, id, "build"), 0);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    assert_int_equal(cand_count(f->st, "1"), 0);
}

/* Writes a file under dir, creating directories. */
static char *write_source(const char *dir, const char *rel, const char *text)
{
    char *path = path_join(dir, rel);
    char *parent = path_dirname(path);
    assert_int_equal(mkdir_p(parent, 0755), 0);
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    free(parent);
    return path;
}

static void test_source_that_no_longer_parses(void **state)
{
    struct cand_fixture *f = *state;
    /* Compiled as it was, then edited into something that does not parse. */
    char *src = write_source(f->tmp, "proj/broken.c", "void good(int *a, int n) { for (int i = 0; i < n; i++) a[i]++; }\n");
    char *dir = path_join(f->tmp, "proj");
    const char *argv[] = {"gcc", "-O3", "-c", "broken.c", NULL};
    int64_t id = cand_add_compile(f->st, dir, "broken.c", "c", "gcc", argv);
    cand_add_loop(f->st, id, "build", "good", "broken.c", 1);
    free(write_source(f->tmp, "proj/broken.c", "void good(int *a, int n) { for (int i = 0; i < n; i++) a[i]++; }\n"
                                               "void bad(int *a) { a[0] = ; }\n"));
    /* A second TU that parses is still analyzed. */
    int64_t ok = cand_add_compile(f->st, C_DIR, "rules.c", "c", "gcc", GCC_ARGV);
    cand_add_loop(f->st, ok, "build", "clean_candidate", "rules.c", 102);
    struct analyze_stats stats;
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.unparsable_tus, 1);
    cand_expect(f->st, id, "good", "parse-error");
    struct cand_row r;
    cand_get(f->st, id, "good", &r);
    assert_non_null(strstr(r.detail, "broken.c"));
    assert_string_equal(r.file, src);
    cand_row_free(&r);
    cand_expect(f->st, ok, "clean_candidate", NULL);
    free(src);
    free(dir);
}

/* GCC built the file as it is, libclang cannot parse one function (a GCC
 * nested function): only that function is left out. */
static void test_libclang_error_in_one_function(void **state)
{
    struct cand_fixture *f = *state;
    char *src = write_source(f->tmp, "gnu/nested.c", "int outer(int *a, int n)\n"
                                                     "{\n"
                                                     "    int twice(int x) { return 2 * x; }\n"
                                                     "    for (int i = 0; i < n; i++) a[i] = twice(a[i]);\n"
                                                     "    return a[0];\n"
                                                     "}\n"
                                                     "\n"
                                                     "void fine(int *a, int n) { for (int i = 0; i < n; i++) a[i]++; }\n");
    char *dir = path_join(f->tmp, "gnu");
    const char *argv[] = {"gcc", "-O3", "-c", "nested.c", NULL};
    int64_t id = cand_add_compile(f->st, dir, "nested.c", "c", "gcc", argv);
    cand_add_loop(f->st, id, "build", "outer", "nested.c", 4);
    cand_add_loop(f->st, id, "build", "fine", "nested.c", 8);
    struct analyze_stats stats;
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.unparsable_tus, 0);
    cand_expect(f->st, id, "outer", "parse-error");
    cand_expect(f->st, id, "fine", NULL);
    cand_expect_insert(f->st, id, "fine", 8, "void fine(");
    struct cand_row r;
    cand_get(f->st, id, "outer", &r);
    assert_non_null(strstr(r.detail, "nested.c:3"));
    cand_row_free(&r);
    free(src);
    free(dir);
}

static void test_missing_source_is_not_found(void **state)
{
    struct cand_fixture *f = *state;
    const char *argv[] = {"cc", "-c", "gone.c", NULL};
    int64_t id = cand_add_compile(f->st, f->tmp, "gone.c", "c", "unknown", argv);
    cand_add_loop(f->st, id, "build", NULL, "gone.c", 3);
    struct analyze_stats stats;
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.unparsable_tus, 0);
    struct cand_row r;
    cand_get(f->st, id, "gone.c:3", &r);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.reason, "not-found");
    assert_non_null(strstr(r.detail, "does not exist"));
    cand_row_free(&r);
}

/* scan --log stores each file the log names as a compile of its own, a
 * header included: its functions are still 'header'. */
static void test_log_compile_of_a_header(void **state)
{
    struct cand_fixture *f = *state;
    const char *argv[] = {"cc", "-c", "kernels.h", NULL};
    int64_t id = cand_add_compile(f->st, C_DIR, "kernels.h", "c", "unknown", argv);
    cand_add_loop(f->st, id, "build", NULL, C_DIR "/kernels.h", 9);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    cand_expect(f->st, id, "header_defined", "header");
}

/* A log gives no flags: includes may be missing, the definitions are still
 * found in clang's recovered AST. */
static void test_log_compile_without_flags(void **state)
{
    struct cand_fixture *f = *state;
    char *src = write_source(f->tmp, "logp/m.c", "#include \"generated.h\"\n"
                                                 "static u32 helper(u32 x) { return x * 3; }\n"
                                                 "\n"
                                                 "void kern(u32 *a, int n)\n"
                                                 "{\n"
                                                 "    for (int i = 0; i < n; i++) a[i] = helper(a[i]);\n"
                                                 "}\n");
    char *dir = path_join(f->tmp, "logp");
    const char *argv[] = {"cc", "-c", src, NULL};
    int64_t id = cand_add_compile(f->st, dir, src, "c", "unknown", argv);
    cand_add_loop(f->st, id, "build", NULL, src, 6);
    struct analyze_stats stats;
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.unparsable_tus, 0);
    cand_expect(f->st, id, "kern", NULL);
    cand_expect_insert(f->st, id, "kern", 4, "void kern(");
    /* The same file from a real compile (flags known): its errors are
     * real, the function holding them is left out. */
    const char *gcc_argv[] = {"gcc", "-O3", "-c", "m.c", NULL};
    int64_t id2 = cand_add_compile(f->st, dir, "m.c", "c", "gcc", gcc_argv);
    cand_add_loop(f->st, id2, "build", "kern", "m.c", 6);
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    cand_expect(f->st, id2, "kern", "parse-error");
    free(src);
    free(dir);
}

/* An error inside a system header (a libstdc++ newer than libclang) does
 * not make the project's own code unparsable. */
static void test_error_in_system_header_is_tolerated(void **state)
{
    struct cand_fixture *f = *state;
    char *sys = write_source(f->tmp, "sys/newlib.h", "typedef int ok_t;\nint broken(void) { return ; }\n");
    char *src = write_source(f->tmp, "app/k.c", "#include <newlib.h>\n"
                                                "void k(ok_t *a, int n) { for (int i = 0; i < n; i++) a[i]++; }\n");
    char *dir = path_join(f->tmp, "app");
    const char *argv[] = {"gcc", "-O3", "-isystem", "../sys", "-c", "k.c", NULL};
    int64_t id = cand_add_compile(f->st, dir, "k.c", "c", "gcc", argv);
    cand_add_loop(f->st, id, "build", "k", "k.c", 2);
    struct analyze_stats stats;
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.unparsable_tus, 0);
    cand_expect(f->st, id, "k", NULL);
    free(sys);
    free(src);
    free(dir);
}

static void test_crlf_source(void **state)
{
    struct cand_fixture *f = *state;
    char *src = write_source(f->tmp, "crlf/win.c",
                             "/* windows line ends */\r\n"
                             "#include <stddef.h>\r\n"
                             "\r\n"
                             "static void\r\n"
                             "scale(float *a, size_t n)\r\n"
                             "{\r\n"
                             "    for (size_t i = 0; i < n; i++) a[i] *= 2.0f;\r\n"
                             "}\r\n"
                             "void call(float *a) { scale(a, 64); }\r\n");
    char *dir = path_join(f->tmp, "crlf");
    const char *argv[] = {"clang", "-O3", "-c", "win.c", "-o", "win.o", NULL};
    int64_t id = cand_add_compile(f->st, dir, "win.c", "c", "clang", argv);
    cand_add_loop(f->st, id, "build", "scale", "win.c", 7);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    cand_expect(f->st, id, "scale", NULL);
    struct cand_row r;
    cand_get(f->st, id, "scale", &r);
    assert_int_equal(r.insert_line, 4);
    /* Just after the CRLF of line 3: 25 + 21 + 2 bytes. */
    assert_int_equal(r.insert_offset, 48);
    assert_int_equal(r.end_line, 8);
    cand_row_free(&r);
    cand_expect_insert(f->st, id, "scale", 4, "static void\r\n");
    free(src);
    free(dir);
}

static void test_same_basename_in_two_dirs(void **state)
{
    struct cand_fixture *f = *state;
    /* Out-of-tree layout: sources in src/a and src/b, built from build/
     * with relative -I paths that only resolve from the build directory. */
    char *a = write_source(f->tmp, "src/a/util.c", "#include \"conf.h\"\n"
                                                   "void util(int *p, int n) { for (int i = 0; i < n; i++) p[i] += A; }\n");
    char *b = write_source(f->tmp, "src/b/util.c", "#include \"conf.h\"\n\n\n"
                                                   "void util(int *p, int n) { for (int i = 0; i < n; i++) p[i] += B; }\n");
    char *ha = write_source(f->tmp, "src/a/inc/conf.h", "#define A 1\n");
    char *hb = write_source(f->tmp, "src/b/inc/conf.h", "#define B 2\n");
    char *build = path_join(f->tmp, "build");
    assert_int_equal(mkdir_p(build, 0755), 0);
    const char *argv_a[] = {"gcc", "-O3", "-I../src/a/inc", "-c", "../src/a/util.c", "-o", "a/util.o", NULL};
    const char *argv_b[] = {"gcc", "-O3", "-I", "../src/b/inc", "-c", "../src/b/util.c", "-o", "b/util.o", NULL};
    int64_t ida = cand_add_compile(f->st, build, "../src/a/util.c", "c", "gcc", argv_a);
    int64_t idb = cand_add_compile(f->st, build, "../src/b/util.c", "c", "gcc", argv_b);
    cand_add_loop(f->st, ida, "build", "util", "../src/a/util.c", 2);
    cand_add_loop(f->st, idb, "build", "util", "../src/b/util.c", 4);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    assert_int_equal(stats.unparsable_tus, 0);
    struct cand_row r;
    cand_get(f->st, ida, "util", &r);
    assert_string_equal(r.status, "candidate");
    assert_string_equal(r.file, a);
    assert_int_equal(r.insert_line, 2);
    cand_row_free(&r);
    cand_get(f->st, idb, "util", &r);
    assert_string_equal(r.status, "candidate");
    assert_string_equal(r.file, b);
    assert_int_equal(r.insert_line, 4);
    cand_row_free(&r);
    free(a);
    free(b);
    free(ha);
    free(hb);
    free(build);
}

/* The helper notes of a candidate's notes (JSON text), a line each: kind,
 * the detail's first word (the helper), and why it is left out, cut to
 * why_max characters. Caller frees. */
static char *helper_notes_text(const char *notes_json, int why_max)
{
    json_error_t e;
    json_t *notes = json_loads(notes_json, 0, &e);
    assert_true(json_is_array(notes));
    struct strbuf got = STRBUF_INIT;
    size_t i;
    json_t *n;
    json_array_foreach(notes, i, n)
    {
        const char *kind = json_string_value(json_object_get(n, "kind"));
        const char *detail = json_string_value(json_object_get(n, "detail"));
        if (strncmp(kind, "helper", 6) && strcmp(kind, "inlined-helper")) continue;
        const char *why = strcmp(kind, "helper-left-out") ? NULL : strstr(detail, ": ");
        sb_addf(&got, "%s %.*s|%.*s\n", kind, (int)strcspn(detail, " "), detail, why_max, why ? why + 2 : "");
    }
    json_decref(notes);
    return sb_detach(&got);
}

/* candidates/helpers.h on helpers.c: top's loop records point into each
 * helper; the object (written by hand) lacks callee_loop but has
 * callee_kept, as GCC's copy callee_kept.constprop.0.isra.0 (its own code
 * all the same). Each case gets its note, or none. */
static void test_inlined_helpers(void **state)
{
    struct cand_fixture *f = *state;
    static const char *const argv[] = {"gcc", "-O3", "-c", "helpers.c", "-o", "helpers.o", NULL};
    int64_t id = cand_add_compile(f->st, C_DIR, "helpers.c", "c", "gcc", argv);
    /* good walk pong ping shared_public small_inline forced_inline */
    static const int lines[] = {9, 15, 25, 31, 37, 44, 62};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) cand_add_loop(f->st, id, "build", "top", "helpers.c", lines[i]);
    struct strvec emitted = STRVEC_INIT;
    sv_push(&emitted, "top");
    sv_push(&emitted, "shared_public");
    sv_push(&emitted, "callee_kept.constprop.0.isra.0");   /* GCC's out-of-line copy: kept all the same */
    assert_int_equal(store_set_object_functions(f->st, id, &emitted), 0);
    sv_free(&emitted);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    cand_expect(f->st, id, "top", NULL);
    struct cand_row r;
    cand_get(f->st, id, "top", &r);
    char *got = helper_notes_text(r.notes, 30);
    assert_string_equal(got,
                        "inlined-helper good|\n"
                        "helper-left-out walk|it calls itself (line 16): it \n"
                        "helper-left-out pong|it is also used at line 31, ne\n"
                        "helper-left-out ping|it is also used at line 25, ne\n"
                        "helper-left-out shared_public|it has external linkage: other\n"
                        "inlined-helper small_inline|\n"
                        "helper-left-out forced_inline|always_inline already: each cl\n"
                        "inlined-helper callee_loop|\n");
    /* declared inline: the patch gives it always_inline alone */
    free(got);
    json_error_t e;
    json_t *notes = json_loads(r.notes, 0, &e);
    size_t i;
    json_t *n;
    int declared = -1;
    json_array_foreach(notes, i, n)
    {
        json_t *h = json_object_get(n, "helper");
        if (!strcmp(json_string_value(json_object_get(h, "name")) ? json_string_value(json_object_get(h, "name")) : "",
                    "small_inline"))
            declared = json_is_true(json_object_get(h, "declared_inline"));
    }
    assert_int_equal(declared, 1);
    json_decref(notes);
    cand_row_free(&r);
}

/* candidates/helpers.h on helpers.c's top2: an attribute clang refuses
 * only beside target_clones (no_sanitize, written by a macro) leaves its
 * helper one (always_inline combines with it); noinline does not. */
static void test_inlined_helpers_attributes(void **state)
{
    struct cand_fixture *f = *state;
    static const char *const argv[] = {"gcc", "-O3", "-c", "helpers.c", "-o", "helpers.o", NULL};
    int64_t id = cand_add_compile(f->st, C_DIR, "helpers.c", "c", "gcc", argv);
    cand_add_loop(f->st, id, "build", "top2", "helpers.c", 82);
    cand_add_loop(f->st, id, "build", "top2", "helpers.c", 87);
    cand_add_loop(f->st, id, "build", "top3", "helpers.c", 102);
    struct strvec emitted = STRVEC_INIT;
    sv_push(&emitted, "top2");
    sv_push(&emitted, "top3");
    assert_int_equal(store_set_object_functions(f->st, id, &emitted), 0);
    sv_free(&emitted);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    struct cand_row r;
    cand_get(f->st, id, "top2", &r);
    assert_string_equal(r.status, "candidate");
    char *got = helper_notes_text(r.notes, 200);
    assert_string_equal(got,
                        "inlined-helper nosan_helper|\n"
                        "helper-left-out noinline_helper|carries __attribute__((noinline)), which always_inline "
                        "contradicts (attribute)\n");
    free(got);
    cand_row_free(&r);
    /* a helper under a target pragma: its own target */
    cand_get(f->st, id, "top3", &r);
    got = helper_notes_text(r.notes, 200);
    assert_non_null(strstr(got, "helper-left-out pragma_helper|stands under '#pragma GCC target(\"avx2\")'"));
    free(got);
    cand_row_free(&r);
}

static void test_paths_with_spaces_and_non_ascii(void **state)
{
    struct cand_fixture *f = *state;
    char *src = write_source(f->tmp, "dir with space/naïve.c",
                             "#include \"cfg é.h\"\n"
                             "void naive(float *a, int n) { for (int i = 0; i < n; i++) a[i] *= K; }\n");
    char *hdr = write_source(f->tmp, "inc dir/cfg é.h", "#define K 3.0f\n");
    char *dir = path_join(f->tmp, "dir with space");
    const char *argv[] = {"gcc", "-O3", "-I", "../inc dir", "-c", "naïve.c", "-o", "naïve.o", NULL};
    int64_t id = cand_add_compile(f->st, dir, "naïve.c", "c", "gcc", argv);
    cand_add_loop(f->st, id, "build", "naive", "naïve.c", 2);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    assert_int_equal(stats.unparsable_tus, 0);
    cand_expect(f->st, id, "naive", NULL);
    cand_expect_insert(f->st, id, "naive", 2, "void naive(");
    struct cand_row r;
    cand_get(f->st, id, "naive", &r);
    assert_string_equal(r.file, src);
    cand_row_free(&r);
    free(src);
    free(hdr);
    free(dir);
}

static void test_tuargs_keeps_meaning_drops_outputs(void **state)
{
    (void)state;
    const char *argv[] = {"ccache", "gcc", "-O2", "-Iinc", "-I", "/abs/inc", "-DX=1", "-D", "Y", "-isystem", "sys",
                          "-include", "pre.h", "-std=gnu11", "-mavx2", "-fopenmp", "-MD", "-MF", "x.d",
                          "-MT", "x.o", "-Wall", "-Werror", "-g", "-c", "x.c", "-o", "x.o",
                          "-fsave-optimization-record", "-dumpdir", "recs/", "-Xclang", "-opt-record-file",
                          "-Xclang", "r.yaml", "--param", "max-unroll-times=4", "-fno-tree-vectorize", NULL};
    struct strvec out = STRVEC_INIT;
    tuargs_build((char *const *)argv, "/b", "c", "/gcc/include", &out);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < out.n; i++) sb_addf(&sb, "%s%s", i ? " " : "", out.v[i]);
    assert_string_equal(sb_str(&sb), "-x c -O2 -I /b/inc -I /abs/inc -D X=1 -D Y -isystem /b/sys -include /b/pre.h "
                                     "-std=gnu11 -mavx2 -fopenmp -fno-tree-vectorize -w -ferror-limit=0 "
                                     "-idirafter /gcc/include");
    sb_free(&sb);
    sv_free(&out);
}

static void test_tuargs_spells_new_standards_for_libclang(void **state)
{
    (void)state;
    const char *argv[] = {"g++", "-std=gnu++23", "-MJ", "a.json", "-B", "tools", "-c", "a.cpp", NULL};
    struct strvec out = STRVEC_INIT;
    tuargs_build((char *const *)argv, "/b", NULL, NULL, &out);
    assert_true(sv_contains(&out, "-std=gnu++2b"));
    assert_false(sv_contains(&out, "-std=gnu++23"));
    assert_false(sv_contains(&out, "-x"));
    assert_false(sv_contains(&out, "a.json"));
    assert_true(sv_contains(&out, "/b/tools"));
    sv_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_c_rule_has_its_reason, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_details_name_what_blocks, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_insert_lines_are_exact, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_simd_ifdef_notes, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_gcc_clone_suffixes_map_to_one_row, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_probe_only_function_is_analyzed, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_rerun_replaces_rows, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_source_that_no_longer_parses, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_libclang_error_in_one_function, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_missing_source_is_not_found, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_log_compile_of_a_header, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_log_compile_without_flags, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_error_in_system_header_is_tolerated, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_crlf_source, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_same_basename_in_two_dirs, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_paths_with_spaces_and_non_ascii, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_inlined_helpers_attributes, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_inlined_helpers, cand_setup, cand_teardown),
        cmocka_unit_test(test_tuargs_keeps_meaning_drops_outputs),
        cmocka_unit_test(test_tuargs_spells_new_standards_for_libclang),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
