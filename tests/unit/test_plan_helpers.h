/* test_plan_helpers.h - shared by the unit tests that build patch plans
 * (test_patch*.c, test_select*.c): a fixture project copied into a temp dir with a
 * store filled by hand (its root, one compile, candidate rows located by the
 * text of their first line), so patch plans can be built without a scan.
 * Also run_in/have_command, to build and run what a plan wrote.
 * Static functions: each test program includes it once. */
#ifndef TEST_PLAN_HELPERS_H
#define TEST_PLAN_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"
#include "test_run_helpers.h"

struct project {
    char *dir;
    struct store *st;
    int64_t compile_id;
};

/* 1 when name is a command on PATH. */
static inline int have_command(const char *name)
{
    char *argv[] = {"sh", "-c", "command -v \"$0\" >/dev/null", (char *)name, NULL};
    return run_in(NULL, argv, NULL) == 0;
}

/* A temp copy of FIXTURES_DIR/fixture's files, with a store whose root it
 * is and one compile (of its first .c file, by gcc 12). */
static void project_open_fixture(struct project *p, const char *fixture, const char *const *files, size_t nfiles)
{
    p->dir = make_temp_dir("test-patch");
    assert_non_null(p->dir);
    for (size_t i = 0; i < nfiles; i++) {
        char *src = xasprintf("%s/%s/%s", FIXTURES_DIR, fixture, files[i]);
        size_t len;
        char *text = read_file(src, &len);
        assert_non_null(text);
        char *dst = path_join(p->dir, files[i]);
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
    const char *first_c = files[0];
    for (size_t i = nfiles; i-- > 0;)
        if (strstr(files[i], ".c")) first_c = files[i];
    char *src = path_join(p->dir, first_c);
    char *hash = hash_file_hex(src);
    char *argv[] = {"gcc", "-O3", "-c", (char *)first_c, NULL};
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

#endif
