/* Unit tests of lib/patch's output: the unified diff writer (golden texts:
 * context, merged hunks, counts, CRLF, missing final newline) and the
 * atomic apply (all or none, refusal of a changed file or a symlink,
 * restore after a failed rename). Patch assembly: test_patch.c. */
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
