/* Unit tests of lib/patch: patch assembly from a store filled by hand
 * (preamble text, placement outside #if blocks, return type on its own
 * line, sorted files, stale offsets refused, shared lines, static
 * detection, already patched files). The diff writer and apply:
 * test_patch_diff.c; per-function target sets: test_patch_sets.c.
 * Compilers and patch(1) are exercised further by tests/cli/test_patch.sh. */
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

static const char *const FIXTURE_FILES[] = {"kernels.c", "kernels.h", "crlf.c", "tail.c", "with space é.c", "main.c"};

static void project_open(struct project *p)
{
    project_open_fixture(p, "patch-basic", FIXTURE_FILES, sizeof FIXTURE_FILES / sizeof *FIXTURE_FILES);
}

static void add_loop(struct project *p, const char *function, const char *variant, int bytes)
{
    struct loop_record rec;
    memset(&rec, 0, sizeof rec);
    rec.function = (char *)function;
    rec.file = (char *)"kernels.c";
    rec.line = 1;
    rec.kind = LOOP_VECTORIZED;
    rec.vector_bytes = bytes;
    assert_int_equal(store_add_loop(p->st, p->compile_id, variant, &rec), 0);
}

/* The preamble for the default targets, byte for byte (golden). */
static const char PREAMBLE_DEFAULT[] =
    "/* fmvgen: FMVGEN_CLONES(symbol) - FMVGEN_CLONES_STATIC for static functions -\n"
    " * makes the function after it multi-versioned: one clone per target\n"
    " * (target_clones), the best for the CPU chosen at load time. Clones need IFUNC:\n"
    " * glibc has it, recognized by __GLIBC__ (not uClibc); where no C library\n"
    " * header came before, <limits.h> is included to tell. Other C libraries (musl),\n"
    " * compilers without target_clones, non-x86-64 or non-ELF builds, and\n"
    " * -DFMVGEN_NO_CLONES get plain functions. */\n"
    "#ifndef FMVGEN_NO_IPA_RA_\n"
    "# if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)\n"
    "   /* a vzeroupper before calls into this file's functions (GCC's IPA-RA drops it) */\n"
    "#  define FMVGEN_NO_IPA_RA_ , optimize(\"no-ipa-ra\")\n"
    "# else\n"
    "#  define FMVGEN_NO_IPA_RA_\n"
    "# endif\n"
    "#endif\n"
    "#ifndef FMVGEN_CLONES_STATIC\n"
    "# if !defined(FMVGEN_NO_CLONES) && defined(__has_attribute) && defined(__x86_64__) && defined(__ELF__)\n"
    "#  if !defined(__GLIBC__) && !defined(_FEATURES_H)\n"
    "#   include <limits.h>\n"
    "#  endif\n"
    "#  if defined(__GLIBC__) && !defined(__UCLIBC__) && __has_attribute(target_clones)\n"
    "    /* clang < 19 mis-dispatches arch=x86-64-vN, gcc < 11 lacks it: feature names */\n"
    "#   if (defined(__clang__) && __clang_major__ < 19) || (!defined(__clang__) && __GNUC__ < 11)\n"
    "#    define FMVGEN_CLONES_STATIC __attribute__((target_clones(\"avx2\", \"avx512f\", \"default\") FMVGEN_NO_IPA_RA_))\n"
    "#   else\n"
    "#    define FMVGEN_CLONES_STATIC __attribute__((target_clones(\"arch=x86-64-v3\", \"arch=x86-64-v4\", \"default\") FMVGEN_NO_IPA_RA_))\n"
    "#   endif\n"
    "#   if defined(__clang__) && __clang_major__ < 18\n"
    "     /* clang < 18 names the dispatcher SYMBOL.ifunc, not SYMBOL: an alias\n"
    "      * SYMBOL is added, or calls from other files would not link. */\n"
    "#    ifndef FMVGEN_IFUNC_ALIAS_\n"
    "#     define FMVGEN_IFUNC_ALIAS_(sym) __asm__(\".globl \" #sym \"\\n\\t.set \" #sym \", \" #sym \".ifunc\");\n"
    "#    endif\n"
    "#    define FMVGEN_CLONES(sym) FMVGEN_IFUNC_ALIAS_(sym) "
    "__attribute__((target_clones(\"avx2\", \"avx512f\", \"default\")))\n"
    "     /* It also makes the resolver of a static function a global symbol: two\n"
    "      * files' static functions of one name would not link. No clones. */\n"
    "#    undef FMVGEN_CLONES_STATIC\n"
    "#    define FMVGEN_CLONES_STATIC\n"
    "#   else\n"
    "#    define FMVGEN_CLONES(sym) FMVGEN_CLONES_STATIC\n"
    "#   endif\n"
    "#  endif\n"
    "# endif\n"
    "# ifndef FMVGEN_CLONES_STATIC\n"
    "#  define FMVGEN_CLONES_STATIC\n"
    "#  define FMVGEN_CLONES(sym)\n"
    "# endif\n"
    "#endif\n"
    "\n";

static void test_preamble_golden(void **state)
{
    (void)state;
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &t), 0);
    char *pre = patch_preamble(&t, "\n");
    assert_string_equal(pre, PREAMBLE_DEFAULT);
    free(pre);
    sv_free(&t);
    /* --exact: one spelling for every compiler, no #if on the version. */
    assert_int_equal(targets_parse(TARGETS_EXACT, &t), 0);
    pre = patch_preamble(&t, "\r\n");
    assert_non_null(strstr(pre, "#   define FMVGEN_CLONES_STATIC __attribute__((target_clones(\"avx2\", \"default\") FMVGEN_NO_IPA_RA_))\r\n"));
    assert_null(strstr(pre, "__clang_major__ < 19"));   /* one spelling: no version switch */
    for (const char *nl = pre; (nl = strchr(nl, '\n')); nl++) assert_true(nl > pre && nl[-1] == '\r');
    free(pre);
    sv_free(&t);
}

static void test_plan_places_attributes_and_preamble(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    add_candidate(&p, "with space é.c", "shift_left", "void shift_left(");
    size_t scale_at = add_candidate(&p, "kernels.c", "scale", "void scale(");
    add_candidate(&p, "kernels.c", "mul_add", "static void\nmul_add(");
    add_candidate(&p, "tail.c", "add_tail", "void add_tail(");
    add_candidate(&p, "crlf.c", "add_crlf", "void add_crlf(");
    add_loop(&p, "mul_add", "build", 16);
    add_loop(&p, "mul_add", "probe:arch=x86-64-v4", 64);
    add_loop(&p, "mul_add", "probe:arch=x86-64-v4", 64);

    struct strvec t = STRVEC_INIT;
    assert_int_equal(patch_resolve_targets(p.st, NULL, 0, &t), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 5);
    assert_int_equal(plan.nfiles, 4);
    assert_true(plan.fma);
    /* Files sorted by path. */
    assert_string_equal(plan.files[0].rel, "crlf.c");
    assert_string_equal(plan.files[1].rel, "kernels.c");
    assert_string_equal(plan.files[2].rel, "tail.c");
    assert_string_equal(plan.files[3].rel, "with space é.c");

    /* kernels.c: the preamble goes before the #ifndef that holds scale(),
     * the attribute before scale() and before "static void" of mul_add. */
    const char *k = plan.files[1].new_data;
    const char *pre = strstr(k, PREAMBLE_DEFAULT);
    assert_non_null(pre);
    assert_true(pre + strlen(PREAMBLE_DEFAULT) == strstr(k, "#ifndef FIXTURE_NO_SCALE\nFMVGEN_CLONES(scale)\nvoid scale("));
    assert_true((size_t)(pre - k) < scale_at);
    assert_non_null(strstr(k, "}\n\nFMVGEN_CLONES_STATIC\nstatic void\nmul_add("));
    assert_null(strstr(k, "FMVGEN_CLONES(saxpy)\nvoid saxpy("));   /* not a candidate */

    /* CRLF file: every inserted line ends in CRLF. */
    const char *c = plan.files[0].new_data;
    assert_non_null(strstr(c, "\r\nFMVGEN_CLONES(add_crlf)\r\nvoid add_crlf("));
    for (const char *s = c; (s = strchr(s, '\n')); s++) assert_true(s > c && s[-1] == '\r');

    /* tail.c, whole diff (golden): no newline at the end. */
    struct strbuf expect = STRBUF_INIT;
    sb_adds(&expect, "--- a/tail.c\n+++ b/tail.c\n@@ -1,3 +1,53 @@\n"
                     " /* tail.c - fixture: this file ends without a newline. */\n");
    for (const char *s = PREAMBLE_DEFAULT; *s;) {
        const char *nl = strchr(s, '\n');
        sb_addc(&expect, '+');
        sb_add(&expect, s, (size_t)(nl - s) + 1);
        s = nl + 1;
    }
    sb_adds(&expect, "+FMVGEN_CLONES(add_tail)\n void add_tail(int *a, const int *b, int n)\n"
                     " { int i; for (i = 0; i < n; i++) a[i] += b[i]; }\n\\ No newline at end of file\n");
    const char *tail_diff = strstr(plan.text, "--- a/tail.c\n");
    const char *next = strstr(plan.text, "--- a/with space é.c\t\n");
    assert_non_null(tail_diff);
    assert_non_null(next);
    assert_int_equal((size_t)(next - tail_diff), expect.len);
    assert_memory_equal(tail_diff, expect.buf, expect.len);
    sb_free(&expect);

    /* The header: before the first ---, names functions, why, targets, FMA. */
    const char *first_diff = strstr(plan.text, "\n--- a/");
    if (getenv("TEST_PATCH_SHOW")) fputs(plan.text, stderr);
    assert_non_null(first_diff);
    char *header = xstrndup(plan.text, (size_t)(first_diff - plan.text));
    assert_non_null(strstr(header, "fmvgen " FMVGEN_VERSION));
    assert_non_null(strstr(header, "Targets: arch=x86-64-v3, arch=x86-64-v4, default"));
    assert_non_null(strstr(header, "kernels.c:22 mul_add: 1 loop vectorized in the build (16-byte vectors); "
                                   "2 at arch=x86-64-v4 (64-byte vectors)"));
    assert_non_null(strstr(header, "tail.c:2 add_tail"));
    assert_non_null(strstr(header, "FMA WARNING: with GCC and clang >= 19 these targets enable FMA: "
                                   "arch=x86-64-v3, arch=x86-64-v4.\n"
                                   "The clang < 19 and gcc < 11 spelling (avx2, avx512f) enables FMA only in "
                                   "avx512f.\n"));
    assert_non_null(strstr(header, "Only functions doing floating-point arithmetic\nare affected"));
    assert_non_null(strstr(header, "--exact"));
    for (const char *l = header; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        /* no header line may look like a diff line to patch(1) or git */
        assert_false(!strncmp(l, "--- ", 4) || !strncmp(l, "+++ ", 4) || !strncmp(l, "@@", 2) ||
                     !strncmp(l, "diff ", 5) || !strncmp(l, "Index:", 6));
    }
    free(header);

    json_t *j = patch_plan_to_json(&plan);
    assert_true(json_is_true(json_object_get(j, "fma")));
    assert_int_equal(json_array_size(json_object_get(j, "functions")), 5);
    assert_int_equal(json_array_size(json_object_get(j, "files")), 4);
    json_decref(j);
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* The FMA warning names the compilers it applies to: the clang < 19 / gcc < 11
 * spelling of arch=x86-64-v3 is avx2, which does not enable FMA; a feature
 * name is spelled alike everywhere. */
static void test_plan_fma_warning_per_spelling(void **state)
{
    (void)state;
    static const struct {
        const char *targets, *says, *not_says;
    } cases[] = {
        {"arch=x86-64-v3",
         "FMA WARNING: with GCC and clang >= 19 these targets enable FMA: arch=x86-64-v3.\n"
         "The clang < 19 and gcc < 11 spelling (avx2) does not enable FMA.\n",
         "enables FMA only"},
        {"avx2,avx512f", "FMA WARNING: these targets enable FMA: avx512f.\nTheir clones", "clang < 19 and gcc"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct project p;
        project_open(&p);
        add_candidate(&p, "kernels.c", "saxpy", "void saxpy(");
        struct strvec t = STRVEC_INIT;
        assert_int_equal(targets_parse(cases[c].targets, &t), 0);
        struct patch_plan plan;
        assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
        assert_true(plan.fma);
        if (!strstr(plan.text, cases[c].says)) fail_msg("%s: lacks\n%s\nin:\n%s", cases[c].targets, cases[c].says, plan.text);
        assert_null(strstr(plan.text, cases[c].not_says));
        patch_plan_free(&plan);
        sv_free(&t);
        project_close(&p);
    }
}

static void test_plan_exact_has_no_fma_warning(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    add_candidate(&p, "kernels.c", "saxpy", "void saxpy(");
    struct strvec t = STRVEC_INIT;
    assert_int_equal(patch_resolve_targets(p.st, NULL, 1, &t), 0);
    assert_int_equal(t.n, 1);
    assert_string_equal(t.v[0], "avx2");
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 1, &plan), 0);
    assert_false(plan.fma);
    assert_null(strstr(plan.text, "FMA WARNING"));
    assert_non_null(strstr(plan.text, "bit-identical"));
    patch_plan_free(&plan);
    sv_free(&t);
    /* --exact with an FMA target is refused. */
    fmv_set_quiet(1);
    assert_int_equal(patch_resolve_targets(p.st, "avx2,avx512f", 1, &t), -1);
    fmv_set_quiet(0);
    sv_free(&t);
    /* meta 'targets' is used when --targets is not given. */
    assert_int_equal(store_meta_set(p.st, "targets", "arch=x86-64-v2,default"), 0);
    assert_int_equal(patch_resolve_targets(p.st, NULL, 0, &t), 0);
    assert_int_equal(t.n, 1);
    assert_string_equal(t.v[0], "arch=x86-64-v2");
    sv_free(&t);
    project_close(&p);
}

static void test_plan_refuses_stale_sources(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    add_candidate(&p, "kernels.c", "saxpy", "void saxpy(");
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    struct patch_plan plan;
    /* Edited after the scan: refused, by name. */
    char *path = path_join(p.dir, "kernels.c");
    char *text = read_file(path, NULL);
    char *edited = xasprintf("/* edited */\n%s", text);
    assert_int_equal(write_file_atomic(path, edited, strlen(edited)), 0);
    fmv_set_quiet(1);
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), -1);
    patch_plan_free(&plan);
    /* Same bytes but an offset that is not a line start: refused too. */
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    assert_int_equal(sqlite3_exec(store_db(p.st), "UPDATE functions SET insert_offset = insert_offset + 1",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), -1);
    patch_plan_free(&plan);
    fmv_set_quiet(0);
    free(edited);
    free(text);
    free(path);
    sv_free(&t);
    project_close(&p);
}

/* A definition sharing its first line with other code ("int x; void f()")
 * is left out and said so: an attribute line above would cover that code. */
static void test_plan_skips_shared_line(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    add_candidate(&p, "kernels.c", "scale", "void scale(");
    add_candidate(&p, "kernels.c", "saxpy", "void saxpy(");
    assert_int_equal(sqlite3_exec(store_db(p.st),
                                  "UPDATE functions SET notes = '[{\"kind\":\"shared-line\",\"detail\":"
                                  "\"line 16 also holds int x;\"}]' WHERE name = 'saxpy'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    struct patch_plan plan;
    fmv_set_quiet(1);
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    fmv_set_quiet(0);
    assert_int_equal(plan.nfunctions, 1);
    assert_string_equal(plan.functions[0].name, "scale");
    assert_int_equal(plan.skipped.n, 1);
    assert_non_null(strstr(plan.text, "Not patched (1):\n  kernels.c:16 saxpy: line 16 also holds int x;\n"));
    assert_null(strstr(plan.files[0].new_data, "FMVGEN_CLONES(saxpy)\nvoid saxpy("));
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* A libtool build compiles kernels.c twice (.libs/kernels.o and
 * kernels.o): the left-out function is said once, in the warning and in
 * the header, as the patched one is patched once (LAME's decode_i386.c,
 * "} int\nsynth_1to1_mono_unclipped(": said twice before). */
static void test_plan_skips_shared_line_once(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            char *src = path_join(p.dir, "kernels.c");
            char *hash = hash_file_hex(src);
            char *argv[] = {"gcc", "-O2", "-fPIC", "-DPIC", "-c", "kernels.c", "-o", ".libs/kernels.o", NULL};
            struct compile_info ci = {.directory = p.dir, .argv = argv, .compiler = "gcc", .compiler_kind = "gcc",
                                      .compiler_version = "12.2.0", .source = src, .output = ".libs/kernels.o",
                                      .language = "c", .source_hash = hash};
            p.compile_id = store_add_compile(p.st, &ci);
            assert_true(p.compile_id > 0);
            free(hash);
            free(src);
        }
        add_candidate(&p, "kernels.c", "scale", "void scale(");
        add_candidate(&p, "kernels.c", "saxpy", "void saxpy(");
    }
    assert_int_equal(sqlite3_exec(store_db(p.st),
                                  "UPDATE functions SET notes = '[{\"kind\":\"shared-line\",\"detail\":"
                                  "\"line 16 also holds } \"}]' WHERE name = 'saxpy'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    struct patch_plan plan;
    fmv_set_quiet(1);
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    fmv_set_quiet(0);
    assert_int_equal(plan.nfunctions, 1);
    assert_string_equal(plan.functions[0].name, "scale");
    assert_int_equal(plan.skipped.n, 1);
    assert_non_null(strstr(plan.text, "Not patched (1):\n  kernels.c:16 saxpy: line 16 also holds } \n"));
    assert_null(strstr(plan.text, "also holds } \n  kernels.c:16 saxpy"));
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* FMVGEN_CLONES_STATIC for internal linkage, found past attributes and
 * comments; a "static" inside a comment does not count. */
static void test_plan_static_detection(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    static const char extra[] = "/* extra.c */\n"
                                "__attribute__((unused)) static int\n"
                                "helper(int *a, int n)\n{ return a[n]; }\n"
                                "/* not static */ int exported(int *a) { return a[0]; }\n"
                                "  static/* tight */unsigned long tight(int *a) { return (unsigned long)a[1]; }\n"
                                "int anon(int *a) { return a[2]; }\n";
    char *extra_path = path_join(p.dir, "extra.c");
    assert_int_equal(write_file_atomic(extra_path, extra, strlen(extra)), 0);
    free(extra_path);
    add_candidate(&p, "extra.c", "helper", "__attribute__((unused)) static int");
    add_candidate(&p, "extra.c", "exported", "/* not static */");
    add_candidate(&p, "extra.c", "tight", "  static/*");
    /* a C++ anonymous-namespace function: internal although no "static" */
    add_candidate(&p, "extra.c", "_ZN12_GLOBAL__N_14anonEPi", "int anon(");
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfiles, 1);
    const char *n = plan.files[0].new_data;
    assert_non_null(strstr(n, "\nFMVGEN_CLONES_STATIC\n__attribute__((unused)) static int\n"));
    assert_non_null(strstr(n, "\nFMVGEN_CLONES(exported)\n/* not static */ int exported"));
    assert_non_null(strstr(n, "\n  FMVGEN_CLONES_STATIC\n  static/* tight */"));
    assert_non_null(strstr(n, "\nFMVGEN_CLONES_STATIC\nint anon("));
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* Patched, then rescanned: the candidates come back (the records still say
 * they vectorize) but already carry the attribute line - not again, and
 * the preamble is not repeated for a new candidate below it. */
static void test_plan_already_patched(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    char *path = path_join(p.dir, "kernels.c");
    char *text = read_file(path, NULL);
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    char *pre = patch_preamble(&t, "\n");
    const char *at = strstr(text, "void saxpy(");
    char *patched = xasprintf("%.*s%sFMVGEN_CLONES(saxpy)\n%s", (int)(at - text), text, pre, at);
    assert_int_equal(write_file_atomic(path, patched, strlen(patched)), 0);
    add_candidate(&p, "kernels.c", "saxpy", "void saxpy(");
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 0);
    assert_int_equal(plan.already, 1);
    patch_plan_free(&plan);
    /* the scan may also put the definition's start on the attribute line */
    assert_int_equal(sqlite3_exec(store_db(p.st),
                                  "UPDATE functions SET insert_offset = insert_offset - 21, insert_line = insert_line - 1",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 0);
    assert_int_equal(plan.already, 1);
    patch_plan_free(&plan);
    /* a new candidate further down: attribute only, no second preamble */
    add_candidate(&p, "kernels.c", "sum_products", "long sum_products(");
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 1);
    assert_int_equal(plan.already, 1);
    assert_non_null(strstr(plan.files[0].new_data, "FMVGEN_CLONES(sum_products)\nlong sum_products("));
    const char *first = strstr(plan.files[0].new_data, "#ifndef FMVGEN_CLONES_STATIC");
    assert_non_null(first);
    assert_null(strstr(first + 1, "#ifndef FMVGEN_CLONES_STATIC"));
    assert_non_null(strstr(plan.text, "Already patched, left alone: 1 function."));
    patch_plan_free(&plan);
    free(pre);
    free(patched);
    free(text);
    free(path);
    sv_free(&t);
    project_close(&p);
}

static void test_plan_nothing_to_do(void **state)
{
    (void)state;
    struct project p;
    project_open(&p);
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &t), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 0);
    assert_string_equal(plan.text, "");
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

/* ---- per-function target sets ---- */


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preamble_golden),
        cmocka_unit_test(test_plan_places_attributes_and_preamble),
        cmocka_unit_test(test_plan_fma_warning_per_spelling),
        cmocka_unit_test(test_plan_exact_has_no_fma_warning),
        cmocka_unit_test(test_plan_refuses_stale_sources),
        cmocka_unit_test(test_plan_skips_shared_line),
        cmocka_unit_test(test_plan_skips_shared_line_once),
        cmocka_unit_test(test_plan_static_detection),
        cmocka_unit_test(test_plan_already_patched),
        cmocka_unit_test(test_plan_nothing_to_do),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
