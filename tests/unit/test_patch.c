/* Unit tests of lib/patch: the unified diff writer (golden texts: context,
 * merged hunks, counts, CRLF, missing final newline), the atomic apply (all
 * or none, refusal of a changed file, restore after a failed rename), and
 * patch assembly from a store filled by hand (preamble text, placement
 * outside #if blocks, return type on its own line, sorted files, stale
 * offsets refused). Compilers and patch(1) are exercised by
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
#include <unistd.h>

#include "patch/apply.h"
#include "patch/diff.h"
#include "patch/plan.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

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

struct project {
    char *dir;
    struct store *st;
    int64_t compile_id;
};

static void project_open(struct project *p)
{
    p->dir = make_temp_dir("test-patch");
    assert_non_null(p->dir);
    for (size_t i = 0; i < sizeof FIXTURE_FILES / sizeof *FIXTURE_FILES; i++) {
        char *src = xasprintf("%s/patch-basic/%s", FIXTURES_DIR, FIXTURE_FILES[i]);
        size_t len;
        char *text = read_file(src, &len);
        assert_non_null(text);
        char *dst = path_join(p->dir, FIXTURE_FILES[i]);
        assert_int_equal(write_file_atomic(dst, text, len), 0);
        free(dst);
        free(text);
        free(src);
    }
    char *build = path_join(p->dir, "build");
    assert_int_equal(mkdir_p(build, 0755), 0);
    assert_int_equal(store_open(build, 1, &p->st), 0);
    free(build);
    assert_int_equal(store_meta_set(p->st, "root", p->dir), 0);
    char *src = path_join(p->dir, "kernels.c");
    char *hash = hash_file_hex(src);
    char *argv[] = {"gcc", "-O3", "-c", "kernels.c", NULL};
    struct compile_info ci = {.directory = p->dir, .argv = argv, .compiler = "gcc", .compiler_kind = "gcc",
                              .compiler_version = "12.2.0", .source = src, .output = "kernels.o",
                              .language = "c", .source_hash = hash};
    p->compile_id = store_add_compile(p->st, &ci);
    assert_true(p->compile_id > 0);
    free(src);
    free(hash);
}

static void project_close(struct project *p)
{
    store_close(p->st);
    remove_tree(p->dir);
    free(p->dir);
}

/* Adds a candidate whose definition starts on the line beginning with
 * first_line in file. Returns the line's offset. */
static size_t add_candidate(struct project *p, const char *file, const char *name, const char *first_line)
{
    char *path = path_join(p->dir, file);
    size_t len;
    char *text = read_file(path, &len);
    assert_non_null(text);
    const char *at = strstr(text, first_line);
    assert_non_null(at);
    size_t offset = (size_t)(at - text);
    int line = 1;
    for (size_t i = 0; i < offset; i++) line += text[i] == '\n';
    char *hash = hash_bytes_hex(text, len);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(p->st),
                                        "INSERT INTO functions(compile_id, name, display_name, file, line, "
                                        "insert_offset, insert_line, status, notes, source_hash) "
                                        "VALUES(?, ?, ?, ?, ?, ?, ?, 'candidate', '[]', ?)",
                                        -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(q, 1, p->compile_id);
    sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 4, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(q, 5, line);
    sqlite3_bind_int64(q, 6, (sqlite3_int64)offset);
    sqlite3_bind_int(q, 7, line);
    sqlite3_bind_text(q, 8, hash, -1, SQLITE_TRANSIENT);
    assert_int_equal(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
    free(hash);
    free(text);
    free(path);
    return offset;
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
    " * (target_clones), the best for the CPU chosen at load time. Compilers without\n"
    " * target_clones, non-x86-64 or non-ELF builds, and -DFMVGEN_NO_CLONES get plain\n"
    " * functions. */\n"
    "#ifndef FMVGEN_CLONES_STATIC\n"
    "# if !defined(FMVGEN_NO_CLONES) && defined(__has_attribute) && defined(__x86_64__) && defined(__ELF__)\n"
    "#  if __has_attribute(target_clones)\n"
    "    /* clang < 19 mis-dispatches arch=x86-64-vN, gcc < 11 lacks it: feature names */\n"
    "#   if (defined(__clang__) && __clang_major__ < 19) || (!defined(__clang__) && __GNUC__ < 11)\n"
    "#    define FMVGEN_CLONES_STATIC __attribute__((target_clones(\"avx2\", \"avx512f\", \"default\")))\n"
    "#   else\n"
    "#    define FMVGEN_CLONES_STATIC __attribute__((target_clones(\"arch=x86-64-v3\", \"arch=x86-64-v4\", \"default\")))\n"
    "#   endif\n"
    "#   if defined(__clang__) && __clang_major__ < 18\n"
    "     /* clang < 18 names the dispatcher SYMBOL.ifunc, not SYMBOL: an alias\n"
    "      * SYMBOL is added, or calls from other files would not link. */\n"
    "#    define FMVGEN_CLONES(sym) __asm__(\".globl \" #sym \"\\n\\t.set \" #sym \", \" #sym \".ifunc\"); FMVGEN_CLONES_STATIC\n"
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
    assert_non_null(strstr(pre, "#   define FMVGEN_CLONES_STATIC __attribute__((target_clones(\"avx2\", \"default\")))\r\n"));
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
    sb_adds(&expect, "--- a/tail.c\n+++ b/tail.c\n@@ -1,3 +1,33 @@\n"
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
    assert_non_null(strstr(header, "FMA WARNING"));
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
        cmocka_unit_test(test_apply_restores_after_failed_rename),
        cmocka_unit_test(test_preamble_golden),
        cmocka_unit_test(test_plan_places_attributes_and_preamble),
        cmocka_unit_test(test_plan_exact_has_no_fma_warning),
        cmocka_unit_test(test_plan_refuses_stale_sources),
        cmocka_unit_test(test_plan_skips_shared_line),
        cmocka_unit_test(test_plan_static_detection),
        cmocka_unit_test(test_plan_already_patched),
        cmocka_unit_test(test_plan_nothing_to_do),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
