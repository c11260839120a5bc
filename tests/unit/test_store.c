/* Unit tests of lib/store: rescans replace rows, parallel writers (as under
 * make -j) lose nothing, a record file is claimed once, a newer schema is refused with a clear error, an
 * older one is migrated keeping its rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/dropped.h"
#include "store/store.h"
#include "util/util.h"

static int64_t add(struct store *st, const char *source, int status)
{
    char *argv[] = {"cc", "-c", (char *)source, NULL};
    struct compile_info ci = {.directory = "/p", .argv = argv, .compiler = "/usr/bin/gcc", .compiler_kind = "gcc",
                              .source = source, .output = "/p/x.o", .language = "c", .exit_status = status};
    return store_add_compile(st, &ci);
}

static void test_rescan_replaces_compile_and_its_loops(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-store");
    struct store *st;
    assert_int_equal(store_open(dir, 1, &st), 0);
    int64_t a = add(st, "/p/a b.c", 0);
    struct loop_record rec = {.function = "f", .file = "/p/a b.c", .line = 3, .kind = LOOP_SLP, .vector_bytes = 32};
    assert_int_equal(store_add_loop(st, a, "build", &rec), 0);
    int64_t b = add(st, "/p/a b.c", 0);
    assert_true(b != a);
    size_t n;
    struct compile_row *rows = store_list_compiles(st, &n);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].argv[2], "/p/a b.c");
    assert_null(rows[0].argv[3]);
    compile_rows_free(rows, n);
    sqlite3_stmt *q;
    sqlite3_prepare_v2(store_db(st), "SELECT COUNT(*) FROM loops", -1, &q, NULL);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 0);   /* old loops went with the old compile */
    sqlite3_finalize(q);
    /* Failed compiles are stored but not listed for analysis. */
    add(st, "/p/broken.c", 1);
    rows = store_list_compiles(st, &n);
    assert_int_equal(n, 1);
    compile_rows_free(rows, n);
    store_close(st);
    remove_tree(dir);
    free(dir);
}

/* A pending record file is claimed once, by its path: a second claim, or
 * one naming another path (a rescan replaced it), changes nothing; the
 * pending list shows only what is still pending, with its compile's
 * directory. */
static void test_record_files_claimed_once(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-store");
    struct store *st;
    assert_int_equal(store_open(dir, 1, &st), 0);
    int64_t a = add(st, "/p/a.c", 0), b = add(st, "/p/b.c", 0);
    int64_t ra = store_add_record_file(st, a, "build", "gcc-dump", "/r/a.vect");
    int64_t rb = store_add_record_file(st, b, "probe:arch=x86-64-v4", "gcc-dump", "/r/b.vect");
    assert_true(ra > 0 && rb > 0);
    size_t n;
    int failed;
    struct pending_record_file *p = store_pending_record_files(st, &n, &failed);
    assert_int_equal(failed, 0);
    assert_int_equal(n, 2);
    assert_int_equal(p[0].id, ra);
    assert_int_equal(p[0].compile_id, a);
    assert_string_equal(p[0].path, "/r/a.vect");
    assert_string_equal(p[0].format, "gcc-dump");
    assert_string_equal(p[1].variant, "probe:arch=x86-64-v4");
    assert_string_equal(p[1].directory, "/p");
    for (size_t i = 0; i < n; i++) {
        free(p[i].variant);
        free(p[i].format);
        free(p[i].path);
        free(p[i].directory);
    }
    free(p);
    assert_int_equal(store_claim_record_file(st, ra, "/r/other.vect", "read", NULL), 0);
    assert_int_equal(store_claim_record_file(st, ra, "/r/a.vect", "read", NULL), 1);
    assert_int_equal(store_claim_record_file(st, ra, "/r/a.vect", "corrupt", "late"), 0);
    p = store_pending_record_files(st, &n, &failed);
    assert_int_equal(failed, 0);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].id, rb);
    free(p[0].variant);
    free(p[0].format);
    free(p[0].path);
    free(p[0].directory);
    free(p);
    sqlite3_stmt *q;
    sqlite3_prepare_v2(store_db(st), "SELECT status, error FROM record_files WHERE id=?", -1, &q, NULL);
    sqlite3_bind_int64(q, 1, ra);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), "read");
    assert_int_equal(sqlite3_column_type(q, 1), SQLITE_NULL);
    sqlite3_finalize(q);
    store_close(st);
    remove_tree(dir);
    free(dir);
}

static void test_parallel_writers_lose_nothing(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-store");
    struct store *st;
    assert_int_equal(store_open(dir, 1, &st), 0);
    store_close(st);
    enum { WRITERS = 8, EACH = 25 };
    for (int w = 0; w < WRITERS; w++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct store *mine;
            if (store_open(dir, 0, &mine) != 0) _exit(1);
            for (int i = 0; i < EACH; i++) {
                char src[64];
                snprintf(src, sizeof src, "/p/w%d_%d.c", w, i);
                if (add(mine, src, 0) < 0) _exit(2);
            }
            store_close(mine);
            _exit(0);
        }
    }
    for (int w = 0; w < WRITERS; w++) {
        int status;
        wait(&status);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(store_open(dir, 0, &st), 0);
    size_t n;
    struct compile_row *rows = store_list_compiles(st, &n);
    assert_int_equal(n, WRITERS * EACH);
    compile_rows_free(rows, n);
    store_close(st);
    remove_tree(dir);
    free(dir);
}

static void test_missing_and_newer_store_refused(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-store");
    struct store *st;
    fmv_set_quiet(1);
    assert_int_equal(store_open(dir, 0, &st), -1);   /* nothing scanned yet */
    assert_null(st);
    assert_int_equal(store_open(dir, 1, &st), 0);
    sqlite3_exec(store_db(st), "PRAGMA user_version=99", NULL, NULL, NULL);
    store_close(st);
    assert_int_equal(store_open(dir, 0, &st), -1);
    fmv_set_quiet(0);
    char *found = store_find_builddir(dir);
    assert_non_null(found);
    free(found);
    remove_tree(dir);
    free(dir);
}

/* A schema-2 store (before function_profiles and functions.kind/score/
 * evidence) is migrated on open: the table and columns are added, its
 * rows kept; profiles are stored per (compile, variant) and read back. */
static void test_schema_2_migrated_and_profiles(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-store");
    struct store *st;
    assert_int_equal(store_open(dir, 1, &st), 0);
    int64_t a = add(st, "/p/a.c", 0);
    sqlite3 *db = store_db(st);
    assert_int_equal(sqlite3_exec(db,
                                  "DROP TABLE function_profiles; ALTER TABLE functions DROP COLUMN kind;"
                                  " ALTER TABLE functions DROP COLUMN score; ALTER TABLE functions DROP COLUMN evidence;"
                                  " ALTER TABLE functions DROP COLUMN fma_score;"
                                  " ALTER TABLE functions DROP COLUMN dropped_calls;"
                                  " PRAGMA user_version=2",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    char *sql = xasprintf("INSERT INTO functions(compile_id,name,status) VALUES(%lld,'f','candidate')", (long long)a);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    free(sql);
    store_close(st);
    assert_int_equal(store_open(dir, 0, &st), 0);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(st), "SELECT name, kind, score, evidence, dropped_calls FROM functions", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), "f");   /* kept */
    assert_int_equal(sqlite3_column_type(q, 1), SQLITE_NULL);
    assert_int_equal(sqlite3_column_int(q, 2), 0);
    /* schema 4's dropped calls: not known for an older row (NULL), not none */
    assert_int_equal(sqlite3_column_type(q, 4), SQLITE_NULL);
    sqlite3_finalize(q);
    struct strvec names = STRVEC_INIT, profiles = STRVEC_INIT;
    sv_push(&names, "f");
    sv_push(&profiles, "{\"insns\":3}");
    assert_int_equal(store_set_function_profiles(st, a, "probe:arch=x86-64-v4", &names, &profiles), 0);
    sv_free(&names);
    sv_free(&profiles);
    assert_int_equal(store_function_profiles(st, a, "build", &names, &profiles), 0);
    assert_int_equal(store_function_profiles(st, a, "probe:arch=x86-64-v4", &names, &profiles), 1);
    assert_int_equal(names.n, 1);
    assert_string_equal(profiles.v[0], "{\"insns\":3}");
    sv_free(&names);
    sv_free(&profiles);
    store_close(st);
    remove_tree(dir);
    free(dir);
}

/* functions.dropped_calls (store/dropped.h): encoded and decoded back;
 * NULL is "not known" (1), a malformed text an error (-1) that adds
 * nothing. */
static void test_dropped_calls_text(void **state)
{
    (void)state;
    struct strvec calls = STRVEC_INIT, back = STRVEC_INIT;
    char *text = dropped_calls_encode(&calls);
    assert_string_equal(text, "[]");
    free(text);
    sv_push(&calls, "floorf");
    sv_push(&calls, "__popcountdi2");
    text = dropped_calls_encode(&calls);
    assert_string_equal(text, "[\"floorf\",\"__popcountdi2\"]");
    assert_int_equal(dropped_calls_decode(text, &back), 0);
    assert_int_equal(back.n, 2);
    assert_string_equal(back.v[0], "floorf");
    assert_string_equal(back.v[1], "__popcountdi2");
    free(text);
    assert_int_equal(dropped_calls_decode(NULL, &back), 1);
    assert_int_equal(dropped_calls_decode("floorf, ceilf", &back), -1);
    assert_int_equal(dropped_calls_decode("[\"ceilf\", 3]", &back), -1);
    assert_int_equal(back.n, 2);
    sv_free(&calls);
    sv_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rescan_replaces_compile_and_its_loops),
        cmocka_unit_test(test_record_files_claimed_once),
        cmocka_unit_test(test_parallel_writers_lose_nothing),
        cmocka_unit_test(test_missing_and_newer_store_refused),
        cmocka_unit_test(test_schema_2_migrated_and_profiles),
        cmocka_unit_test(test_dropped_calls_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
