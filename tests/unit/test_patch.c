/* Unit tests of lib/patch: the unified diff writer (golden texts: context,
 * merged hunks, counts, CRLF, missing final newline), the atomic apply (all
 * or none, refusal of a changed file, restore after a failed rename), and
 * patch assembly from a store filled by hand (preamble text, placement
 * outside #if blocks, return type on its own line, sorted files, stale
 * offsets refused; per-function target sets: their macros, preamble blocks,
 * header, builds with gcc/clang/clang-19/tcc/C89 and re-patching). Compilers
 * and patch(1) are exercised further by
 * tests/cli/test_patch.sh. */
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

/* ---- diff ---- */

static char *diff_of(const char *old, const struct insertion *ins, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    diff_write_insertions(&sb, "f.c", old, strlen(old), ins, n, 3);
    return sb_detach(&sb);
}

static void test_diff_one_hunk_with_context(void **state)
{
    (void)state;
    const char *old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    struct insertion ins[] = {{8, "X\n"}};
    char *d = diff_of(old, ins, 1);
    assert_string_equal(d, "--- a/f.c\n+++ b/f.c\n@@ -2,6 +2,7 @@\n b\n c\n d\n+X\n e\n f\n g\n");
    free(d);
    size_t n;
    char *new_text = diff_apply_insertions(old, strlen(old), ins, 1, &n);
    assert_string_equal(new_text, "a\nb\nc\nd\nX\ne\nf\ng\nh\n");
    assert_int_equal(n, strlen(new_text));
    free(new_text);
}

static void test_diff_merges_close_hunks(void **state)
{
    (void)state;
    const char *old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    struct insertion ins[] = {{2, "X\n"}, {14, "Y\n"}};   /* before b and before h: 6 lines apart */
    char *d = diff_of(old, ins, 2);
    assert_string_equal(d, "--- a/f.c\n+++ b/f.c\n@@ -1,8 +1,10 @@\n a\n+X\n b\n c\n d\n e\n f\n g\n+Y\n h\n");
    free(d);
}

static void test_diff_separate_hunks_count_earlier_insertions(void **state)
{
    (void)state;
    const char *old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
    struct insertion ins[] = {{2, "X\n"}, {16, "Y1\nY2\n"}};   /* before b, before i: 7 apart */
    char *d = diff_of(old, ins, 2);
    assert_string_equal(d, "--- a/f.c\n+++ b/f.c\n"
                           "@@ -1,4 +1,5 @@\n a\n+X\n b\n c\n d\n"
                           "@@ -6,5 +7,7 @@\n f\n g\n h\n+Y1\n+Y2\n i\n j\n");
    free(d);
}

static void test_diff_no_newline_at_end(void **state)
{
    (void)state;
    const char *old = "a\nb\nc";
    struct insertion ins[] = {{2, "X\n"}};
    char *d = diff_of(old, ins, 1);
    assert_string_equal(d, "--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,4 @@\n a\n+X\n b\n c\n\\ No newline at end of file\n");
    free(d);
    assert_true(diff_is_line_start(old, 5, 4));
    assert_false(diff_is_line_start(old, 5, 3));
    assert_false(diff_is_line_start(old, 5, 6));
}

static void test_diff_keeps_crlf_and_quotes_spaces(void **state)
{
    (void)state;
    const char *old = "a\r\nb\r\n";
    struct insertion ins[] = {{3, "X\r\n"}};
    struct strbuf sb = STRBUF_INIT;
    diff_write_insertions(&sb, "my dir/f.c", old, strlen(old), ins, 1, 3);
    assert_string_equal(sb_str(&sb), "--- a/my dir/f.c\t\n+++ b/my dir/f.c\t\n@@ -1,2 +1,3 @@\n a\r\n+X\r\n b\r\n");
    sb_free(&sb);
}

static void test_diff_insertion_at_start_and_empty_file(void **state)
{
    (void)state;
    struct insertion ins[] = {{0, "X\n"}};
    char *d = diff_of("a\nb\n", ins, 1);
    assert_string_equal(d, "--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,3 @@\n+X\n a\n b\n");
    free(d);
    d = diff_of("", ins, 1);
    assert_string_equal(d, "--- a/f.c\n+++ b/f.c\n@@ -0,0 +1,1 @@\n+X\n");
    free(d);
}

/* ---- apply ---- */

static char *tmpdir_with(const char *name, const char *content)
{
    char *dir = make_temp_dir("test-patch");
    assert_non_null(dir);
    if (name) {
        char *p = path_join(dir, name);
        assert_int_equal(write_file_atomic(p, content, strlen(content)), 0);
        free(p);
    }
    return dir;
}

static void write_text(const char *dir, const char *name, const char *content)
{
    char *p = path_join(dir, name);
    assert_int_equal(write_file_atomic(p, content, strlen(content)), 0);
    free(p);
}

static char *read_text(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    char *t = read_file(p, NULL);
    free(p);
    assert_non_null(t);
    return t;
}

/* Entries of dir besides . and .. (temp files must not be left behind). */
static int count_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void test_apply_all_files(void **state)
{
    (void)state;
    char *dir = tmpdir_with("a.c", "one\n");
    write_text(dir, "b.c", "two\n");
    char *pa = path_join(dir, "a.c"), *pb = path_join(dir, "b.c");
    char *ha = hash_file_hex(pa), *hb = hash_file_hex(pb);
    struct file_update u[] = {{pa, ha, "ONE\n", 4}, {pb, hb, "TWO\n", 4}};
    assert_int_equal(apply_updates(u, 2), 0);
    char *a = read_text(dir, "a.c"), *b = read_text(dir, "b.c");
    assert_string_equal(a, "ONE\n");
    assert_string_equal(b, "TWO\n");
    assert_int_equal(count_entries(dir), 2);   /* no temp files left */
    free(a);
    free(b);
    free(pa);
    free(pb);
    free(ha);
    free(hb);
    remove_tree(dir);
    free(dir);
}

static void test_apply_refuses_changed_file(void **state)
{
    (void)state;
    char *dir = tmpdir_with("a.c", "one\n");
    write_text(dir, "b.c", "two\n");
    char *pa = path_join(dir, "a.c"), *pb = path_join(dir, "b.c");
    char *ha = hash_file_hex(pa), *hb = hash_file_hex(pb);
    write_text(dir, "b.c", "two, edited after the scan\n");
    struct file_update u[] = {{pa, ha, "ONE\n", 4}, {pb, hb, "TWO\n", 4}};
    fmv_set_quiet(1);
    assert_int_equal(apply_updates(u, 2), -1);
    assert_int_equal(apply_check_unchanged(pb, hb), -1);
    fmv_set_quiet(0);
    char *a = read_text(dir, "a.c");
    assert_string_equal(a, "one\n");   /* the unchanged file was not touched either */
    assert_int_equal(count_entries(dir), 2);
    free(a);
    free(pa);
    free(pb);
    free(ha);
    free(hb);
    remove_tree(dir);
    free(dir);
}

/* As GNU patch: a source that is a symbolic link is not patched (a rename
 * would replace the link by a regular file), and nothing else is. */
static void test_apply_refuses_symlink(void **state)
{
    (void)state;
    char *dir = tmpdir_with("a.c", "one\n");
    write_text(dir, "real.c", "two\n");
    char *pa = path_join(dir, "a.c"), *pb = path_join(dir, "b.c");
    assert_int_equal(symlink("real.c", pb), 0);
    char *ha = hash_file_hex(pa), *hb = hash_file_hex(pb);
    struct file_update u[] = {{pa, ha, "ONE\n", 4}, {pb, hb, "TWO\n", 4}};
    fmv_set_quiet(1);
    assert_int_equal(apply_updates(u, 2), -1);
    fmv_set_quiet(0);
    char *a = read_text(dir, "a.c"), *r = read_text(dir, "real.c");
    assert_string_equal(a, "one\n");
    assert_string_equal(r, "two\n");
    struct stat st;
    assert_int_equal(lstat(pb, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(count_entries(dir), 3);
    free(a);
    free(r);
    free(pa);
    free(pb);
    free(ha);
    free(hb);
    remove_tree(dir);
    free(dir);
}

static int renames;
static int rename_fails_second(const char *from, const char *to)
{
    if (++renames == 2) {
        errno = EIO;
        return -1;
    }
    return rename(from, to);
}

static void test_apply_restores_after_failed_rename(void **state)
{
    (void)state;
    char *dir = tmpdir_with("a.c", "one\n");
    write_text(dir, "b.c", "two\n");
    write_text(dir, "c.c", "three\n");
    char *pa = path_join(dir, "a.c"), *pb = path_join(dir, "b.c"), *pc = path_join(dir, "c.c");
    struct file_update u[] = {{pa, NULL, "ONE\n", 4}, {pb, NULL, "TWO\n", 4}, {pc, NULL, "THREE\n", 6}};
    renames = 0;
    fmv_set_quiet(1);
    assert_int_equal(apply_updates_with(u, 3, rename_fails_second), -1);
    fmv_set_quiet(0);
    assert_int_equal(renames, 2);
    char *a = read_text(dir, "a.c"), *b = read_text(dir, "b.c"), *c = read_text(dir, "c.c");
    assert_string_equal(a, "one\n");   /* replaced, then restored */
    assert_string_equal(b, "two\n");
    assert_string_equal(c, "three\n");
    assert_int_equal(count_entries(dir), 3);
    free(a);
    free(b);
    free(c);
    free(pa);
    free(pb);
    free(pc);
    remove_tree(dir);
    free(dir);
}

/* ---- patch assembly from a store ---- */

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
    write_text(p.dir, "extra.c", extra);
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
        cmocka_unit_test(test_diff_one_hunk_with_context),
        cmocka_unit_test(test_diff_merges_close_hunks),
        cmocka_unit_test(test_diff_separate_hunks_count_earlier_insertions),
        cmocka_unit_test(test_diff_no_newline_at_end),
        cmocka_unit_test(test_diff_keeps_crlf_and_quotes_spaces),
        cmocka_unit_test(test_diff_insertion_at_start_and_empty_file),
        cmocka_unit_test(test_apply_all_files),
        cmocka_unit_test(test_apply_refuses_changed_file),
        cmocka_unit_test(test_apply_refuses_symlink),
        cmocka_unit_test(test_apply_restores_after_failed_rename),
        cmocka_unit_test(test_preamble_golden),
        cmocka_unit_test(test_plan_places_attributes_and_preamble),
        cmocka_unit_test(test_plan_fma_warning_per_spelling),
        cmocka_unit_test(test_plan_cxx_attribute_lists),
        cmocka_unit_test(test_plan_static_twice_links),
        cmocka_unit_test(test_plan_exact_has_no_fma_warning),
        cmocka_unit_test(test_plan_refuses_stale_sources),
        cmocka_unit_test(test_plan_skips_shared_line),
        cmocka_unit_test(test_plan_skips_shared_line_once),
        cmocka_unit_test(test_plan_static_detection),
        cmocka_unit_test(test_plan_already_patched),
        cmocka_unit_test(test_plan_nothing_to_do),
        cmocka_unit_test(test_macro_names),
        cmocka_unit_test(test_plan_mixed_sets_text),
        cmocka_unit_test(test_plan_mixed_sets_compile),
        cmocka_unit_test(test_plan_mixed_sets_already_patched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
