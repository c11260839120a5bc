/* test_candidates_helpers.h - shared by the test_candidates*.c programs: a
 * store in a temp dir, compiles and loop rows added by hand (with the
 * function names the compilers really write), and the functions rows read
 * back. Static functions: each test program includes it once. */
#ifndef TEST_CANDIDATES_HELPERS_H
#define TEST_CANDIDATES_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/analyze.h"
#include "store/notes.h"
#include "store/store.h"
#include "util/util.h"

/* Not every test program uses every helper. */
#define CAND_HELPER static __attribute__((unused))

struct cand_fixture {
    char *tmp;
    struct store *st;
};

CAND_HELPER int cand_setup(void **state)
{
    struct cand_fixture *f = xcalloc(1, sizeof *f);
    f->tmp = make_temp_dir("fmvgen-cand");
    if (!f->tmp || store_open(f->tmp, 1, &f->st) != 0) return -1;
    *state = f;
    return 0;
}

CAND_HELPER int cand_teardown(void **state)
{
    struct cand_fixture *f = *state;
    store_close(f->st);
    remove_tree(f->tmp);
    free(f->tmp);
    free(f);
    return 0;
}

/* A compile of dir/source with argv (argv[0] the compiler), with the
 * source's hash as the wrapper records it at compile time. */
CAND_HELPER int64_t cand_add_compile(struct store *st, const char *dir, const char *source, const char *language,
                                const char *kind, const char *const *argv)
{
    char *src = path_absolute(source, dir);
    char *out = xasprintf("%s.o", src);
    char *hash = hash_file_hex(src);
    struct compile_info ci = {
        .directory = dir,
        .argv = (char *const *)argv,
        .compiler = !strcmp(kind, "gcc") ? "/usr/bin/gcc" : "/usr/bin/clang",
        .compiler_kind = kind,
        .compiler_version = !strcmp(kind, "gcc") ? "12.2.0" : "14.0.6",
        .source = src,
        .output = out,
        .language = language,
        .exit_status = 0,
        .source_hash = hash,
    };
    int64_t id = store_add_compile(st, &ci);
    free(hash);
    free(src);
    free(out);
    assert_true(id > 0);
    return id;
}

CAND_HELPER void cand_add_loop(struct store *st, int64_t compile_id, const char *variant, const char *function,
                          const char *file, int line)
{
    struct loop_record rec = {.function = (char *)function,
                              .file = (char *)file,
                              .line = line,
                              .column = 1,
                              .kind = LOOP_VECTORIZED,
                              .vector_bytes = 16,
                              .message = (char *)"loop vectorized"};
    assert_int_equal(store_add_loop(st, compile_id, variant, &rec), 0);
}

struct cand_row {
    char *name, *display_name, *file, *status, *reason, *detail, *notes;
    int line, end_line, insert_line, count;
    long long insert_offset;   /* -1 when NULL */
};

CAND_HELPER void cand_row_free(struct cand_row *r)
{
    free(r->name);
    free(r->display_name);
    free(r->file);
    free(r->status);
    free(r->reason);
    free(r->detail);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

CAND_HELPER char *cand_col(sqlite3_stmt *q, int i)
{
    const unsigned char *s = sqlite3_column_text(q, i);
    return s ? xstrdup((const char *)s) : NULL;
}

/* The row of a function by name within one compile (compile_id <= 0: any);
 * r->count says how many rows matched. */
CAND_HELPER void cand_get(struct store *st, int64_t compile_id, const char *name, struct cand_row *r)
{
    memset(r, 0, sizeof *r);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(st),
                                        "SELECT name, display_name, file, status, reason, detail, notes, line,"
                                        " end_line, insert_line, insert_offset FROM functions"
                                        " WHERE name=?1 AND (?2<=0 OR compile_id=?2) ORDER BY id",
                                        -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(q, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(q, 2, compile_id);
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (r->count++ == 0) {
            r->name = cand_col(q, 0);
            r->display_name = cand_col(q, 1);
            r->file = cand_col(q, 2);
            r->status = cand_col(q, 3);
            r->reason = cand_col(q, 4);
            r->detail = cand_col(q, 5);
            r->notes = cand_col(q, 6);
            r->line = sqlite3_column_int(q, 7);
            r->end_line = sqlite3_column_int(q, 8);
            r->insert_line = sqlite3_column_int(q, 9);
            r->insert_offset = sqlite3_column_type(q, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 10);
        }
    }
    sqlite3_finalize(q);
}

CAND_HELPER int cand_count(struct store *st, const char *where)
{
    char *sql = xasprintf("SELECT COUNT(*) FROM functions WHERE %s", where);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL), SQLITE_OK);
    int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    free(sql);
    return n;
}

/* Asserts the function is stored once, with this reason (NULL: candidate). */
CAND_HELPER void cand_expect(struct store *st, int64_t compile_id, const char *name, const char *reason)
{
    struct cand_row r;
    cand_get(st, compile_id, name, &r);
    if (r.count != 1) fail_msg("%s: %d rows, expected 1", name, r.count);
    if (reason) {
        if (!r.reason || strcmp(r.reason, reason) != 0)
            fail_msg("%s: reason %s (%s), expected %s", name, r.reason ? r.reason : "(none)",
                     r.detail ? r.detail : "", reason);
        assert_string_equal(r.status, "excluded");
        assert_non_null(r.detail);
    } else {
        if (strcmp(r.status, "candidate") != 0)
            fail_msg("%s: %s %s (%s), expected a candidate", name, r.status, r.reason ? r.reason : "",
                     r.detail ? r.detail : "");
        assert_null(r.reason);
    }
    cand_row_free(&r);
}

/* Byte offset of the start of 1-based line in a file. */
CAND_HELPER long long cand_line_offset(const char *path, int line)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    assert_non_null(text);
    long long off = 0;
    for (int l = 1; l < line && (size_t)off < len; off++)
        if (text[off] == '\n') l++;
    free(text);
    return off;
}

/* Asserts the insert point of a function: its line, the exact line-start
 * offset, and the text the line begins with. */
CAND_HELPER void cand_expect_insert(struct store *st, int64_t compile_id, const char *name, int line, const char *prefix)
{
    struct cand_row r;
    cand_get(st, compile_id, name, &r);
    assert_int_equal(r.count, 1);
    if (r.insert_line != line) fail_msg("%s: insert_line %d, expected %d", name, r.insert_line, line);
    assert_int_equal(r.insert_offset, cand_line_offset(r.file, line));
    size_t len = 0;
    char *text = read_file(r.file, &len);
    assert_non_null(text);
    if (strncmp(text + r.insert_offset, prefix, strlen(prefix)) != 0)
        fail_msg("%s: line %d starts with '%.30s', expected '%s'", name, line, text + r.insert_offset, prefix);
    free(text);
    cand_row_free(&r);
}

/* The notes of a function but its "params" note, as one string
 * "kind:detail|kind:detail". */
CAND_HELPER char *cand_notes_text(struct store *st, int64_t compile_id, const char *name)
{
    struct cand_row r;
    cand_get(st, compile_id, name, &r);
    assert_int_equal(r.count, 1);
    json_error_t e;
    json_t *a = json_loads(r.notes ? r.notes : "[]", 0, &e);
    assert_true(json_is_array(a));
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    json_t *n;
    json_array_foreach(a, i, n)
    {
        if (note_kind_of(n) == NOTE_PARAMS) continue;   /* on every C function: test_params_note */
        if (sb.len) sb_addc(&sb, '|');
        sb_addf(&sb, "%s:%s", json_string_value(json_object_get(n, "kind")),
                json_string_value(json_object_get(n, "detail")));
    }
    json_decref(a);
    cand_row_free(&r);
    return sb_detach(&sb);
}

/* The note of a kind on a function's row (it must have exactly one row):
 * a new reference, NULL when the row has no such note. file, when not
 * NULL, gets the row's file (caller frees). */
CAND_HELPER json_t *cand_note(struct store *st, int64_t compile_id, const char *name, enum note_kind kind, char **file)
{
    struct cand_row r;
    cand_get(st, compile_id, name, &r);
    if (r.count != 1) fail_msg("%s: %d rows", name, r.count);
    json_error_t e;
    json_t *notes = json_loads(r.notes ? r.notes : "[]", 0, &e);
    json_t *n = notes_find(notes, kind);
    if (n) json_incref(n);
    json_decref(notes);
    if (file) *file = xstrdup(r.file);
    cand_row_free(&r);
    return n;
}

#endif
