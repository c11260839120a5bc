/* Unit tests of lib/scan/ingest.c with a real store in a temp dir:
 * pending record files become loop rows (one per location, widest width,
 * absolute file names), a corrupt file is marked and loses nobody's rows,
 * rereading never duplicates; `scan --log` imports a build log as one
 * compile per named file with function-less loops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "scan/ingest.h"
#include "store/store.h"
#include "test_records_util.h"

struct fixture {
    char *tmp;
    struct store *st;
};

static int setup(void **state)
{
    struct fixture *f = xcalloc(1, sizeof *f);
    f->tmp = make_temp_dir("test-ingest");
    if (store_open(f->tmp, 1, &f->st) != 0) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    store_close(f->st);
    remove_tree(f->tmp);
    free(f->tmp);
    free(f);
    return 0;
}

static int64_t add_compile(struct store *st, const char *src, const char *output, const char *kind)
{
    char *source = fixture_path(src);
    char *argv[] = {(char *)kind, "-c", source, NULL};
    struct compile_info ci = {.directory = RECORDS_FIXTURES, .argv = argv, .compiler = kind, .compiler_kind = kind,
                              .source = source, .output = output, .language = "c"};
    int64_t id = store_add_compile(st, &ci);
    assert_true(id > 0);
    free(source);
    return id;
}

/* One integer from a query with up to two integer parameters. */
static int64_t query_int(struct store *st, const char *sql, int64_t a, int64_t b)
{
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL), SQLITE_OK);
    if (sqlite3_bind_parameter_count(q) >= 1) sqlite3_bind_int64(q, 1, a);
    if (sqlite3_bind_parameter_count(q) >= 2) sqlite3_bind_int64(q, 2, b);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

static char *query_text(struct store *st, const char *sql, int64_t a)
{
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL), SQLITE_OK);
    sqlite3_bind_int64(q, 1, a);
    char *v = NULL;
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) v = xstrdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    return v;
}

static int64_t loops_of(struct store *st, int64_t compile_id)
{
    return query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=?", compile_id, 0);
}

/* Clang run in the fixture directory on a RELATIVE source name: its
 * records then name "kernels.c", relative to the compile's directory. */
static char *clang_records_relative(const char *tmp, const char *yaml_name)
{
    char *yaml = path_join(tmp, yaml_name);
    char *obj = path_join(tmp, "rel.o");
    char *argv[] = {"clang", "-O3", "-c", "kernels.c", "-o", obj, "-Xclang", "-opt-record-file", "-Xclang", yaml, NULL};
    struct run_opts opts = {.cwd = RECORDS_FIXTURES};
    assert_int_equal(run_argv(argv, &opts, NULL), 0);
    free(obj);
    return yaml;
}

static void test_ingest_good_and_corrupt_files(void **state)
{
    struct fixture *f = *state;
    struct store *st = f->st;
    char *gcc_file = gcc_records(f->tmp, "a", "kernels.c", NULL);
    char *clang_file = clang_records_relative(f->tmp, "c.yaml");
    char *bad_file = path_join(f->tmp, "b.yaml");
    assert_int_equal(write_file_atomic(bad_file, "--- !Passed\nPass: [oops\n", 24), 0);

    int64_t a = add_compile(st, "kernels.c", "/out/a.o", "gcc");
    int64_t b = add_compile(st, "methods.cpp", "/out/b.o", "clang");
    int64_t c = add_compile(st, "kernels.c", "/out/c.o", "clang");
    int64_t rf_a = store_add_record_file(st, a, "build", "gcc-json", gcc_file);
    int64_t rf_b = store_add_record_file(st, b, "build", "clang-yaml", bad_file);
    int64_t rf_c = store_add_record_file(st, c, "build", "clang-yaml", clang_file);
    assert_true(rf_a > 0 && rf_b > 0 && rf_c > 0);

    struct ingest_stats stats = {0};
    fmv_set_quiet(1);
    assert_int_equal(records_ingest_pending(st, &stats), 1);   /* some corrupt */
    fmv_set_quiet(0);
    assert_int_equal(stats.files_read, 2);
    assert_int_equal(stats.files_corrupt, 1);
    assert_int_equal(stats.loops, loops_of(st, a) + loops_of(st, c));

    char *status = query_text(st, "SELECT status FROM record_files WHERE id=?", rf_a);
    assert_string_equal(status, "read");
    free(status);
    status = query_text(st, "SELECT status FROM record_files WHERE id=?", rf_b);
    assert_string_equal(status, "corrupt");
    free(status);
    char *error = query_text(st, "SELECT error FROM record_files WHERE id=?", rf_b);
    assert_non_null(error);
    assert_non_null(strstr(error, bad_file));
    assert_non_null(strstr(error, "invalid YAML"));
    free(error);
    assert_int_equal(loops_of(st, b), 0);

    /* GCC: foo's loop and its epilogue are one row with the widest width;
     * the scale clone and slp4's SLP are there; one row per location. */
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND function='foo'", a, 0), 1);
    assert_int_equal(query_int(st, "SELECT vector_bytes FROM loops WHERE compile_id=? AND function='foo'", a, 0), 16);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND function='scale'", a, 0), 1);
    assert_int_equal(
        query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND function='slp4' AND kind='slp'", a, 0), 1);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM (SELECT DISTINCT function, file, line, col, kind "
                                   "FROM loops WHERE compile_id=?)", a, 0),
                     loops_of(st, a));
    /* Clang: relative "kernels.c" was resolved against the compile dir. */
    char *file = query_text(st, "SELECT file FROM loops WHERE compile_id=? AND function='foo'", c);
    char *expected = fixture_path("kernels.c");
    assert_string_equal(file, expected);
    free(file);
    assert_int_equal(query_int(st, "SELECT vector_lanes FROM loops WHERE compile_id=? AND function='foo'", c, 0), 4);

    /* Rerun: nothing pending, nothing changes; a re-read file replaces its
     * rows instead of adding to them. */
    int64_t total = query_int(st, "SELECT COUNT(*) FROM loops", 0, 0);
    assert_int_equal(records_ingest_pending(st, NULL), 0);
    assert_int_equal(store_add_record_file(st, a, "build", "gcc-json", gcc_file), rf_a);
    assert_int_equal(records_ingest_pending(st, NULL), 0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops", 0, 0), total);

    /* The corrupt file repaired: read now, the others' rows untouched. */
    char *good_b = clang_records("clang", f->tmp, "b-good", "methods.cpp", NULL);
    size_t len;
    char *text = read_file(good_b, &len);
    assert_int_equal(write_file_atomic(bad_file, text, len), 0);
    free(text);
    store_add_record_file(st, b, "build", "clang-yaml", bad_file);
    assert_int_equal(records_ingest_pending(st, NULL), 0);
    assert_int_equal(loops_of(st, b), 5);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops", 0, 0), total + 5);

    /* A file that turns corrupt on a re-read keeps the rows it gave. */
    int64_t before = loops_of(st, c);
    assert_int_equal(write_file_atomic(clang_file, "--- !Passed\nPass: loop-vectorize\n", 33), 0);
    store_add_record_file(st, c, "build", "clang-yaml", clang_file);
    fmv_set_quiet(1);
    assert_int_equal(records_ingest_pending(st, NULL), 1);
    fmv_set_quiet(0);
    assert_int_equal(loops_of(st, c), before);
    status = query_text(st, "SELECT status FROM record_files WHERE id=?", rf_c);
    assert_string_equal(status, "corrupt");
    free(status);

    /* A probe variant of the same compile is kept apart from its build rows. */
    char *avx2_file = gcc_records(f->tmp, "a-avx2", "kernels.c", (const char *const[]){"-mavx2", NULL});
    store_add_record_file(st, a, "probe:avx2", "gcc-json", avx2_file);
    assert_int_equal(records_ingest_pending(st, NULL), 0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND variant='probe:avx2' "
                                   "AND function='dot64'", a, 0), 1);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND variant='build' "
                                   "AND function='dot64'", a, 0), 0);

    free(avx2_file);
    free(expected);
    free(good_b);
    free(gcc_file);
    free(clang_file);
    free(bad_file);
}

/* A build log as a user has it: relative names, two compilers, noise. */
static char *write_build_log(const char *tmp)
{
    struct strbuf log = STRBUF_INIT;
    char *gcc[] = {"gcc", "-O3", "-fopt-info-vec", "-c", "kernels.c", "-o", "/dev/null", NULL};
    char *clang[] = {"clang++", "-O3", "-Rpass=loop-vectorize|slp-vectorizer", "-c", "methods.cpp", "-o", "/dev/null",
                     NULL};
    char *const *cmds[] = {gcc, clang};
    for (int i = 0; i < 2; i++) {
        struct run_opts opts = {.cwd = RECORDS_FIXTURES, .capture_stderr = 1};
        struct run_result res;
        assert_int_equal(run_argv(cmds[i], &opts, &res), 0);
        sb_addf(&log, "%s -c ...\n%s", cmds[i][0], res.err ? res.err : "");
        run_result_free(&res);
    }
    sb_adds(&log, "sub/gone.c:3:5: optimized: loop vectorized using 16 byte vectors\nmake: Leaving directory\n");
    char *path = path_join(tmp, "build.log");
    assert_int_equal(write_file_atomic(path, log.buf, log.len), 0);
    sb_free(&log);
    return path;
}

static void test_import_log(void **state)
{
    struct fixture *f = *state;
    struct store *st = f->st;
    char *log = write_build_log(f->tmp);
    int64_t compiles_before = query_int(st, "SELECT COUNT(*) FROM compiles", 0, 0);

    struct ingest_stats stats = {0};
    fmv_set_quiet(1);   /* sub/gone.c does not exist: a warning */
    assert_int_equal(records_import_log(st, log, RECORDS_FIXTURES, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.files_read, 3);
    int64_t n_compiles = query_int(st, "SELECT COUNT(*) FROM compiles", 0, 0);
    int64_t n_loops = query_int(st, "SELECT COUNT(*) FROM loops", 0, 0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM compiles WHERE compiler_kind='unknown'", 0, 0), 3);

    size_t n;
    struct compile_row *rows = store_list_compiles(st, &n);
    int seen = 0;
    char *kernels = fixture_path("kernels.c"), *methods = fixture_path("methods.cpp");
    char *gone = path_join(RECORDS_FIXTURES, "sub/gone.c");
    for (size_t i = 0; i < n; i++) {
        struct compile_row *r = &rows[i];
        if (strcmp(r->compiler_kind, "unknown")) continue;
        assert_string_equal(r->directory, RECORDS_FIXTURES);
        assert_string_equal(r->argv[1], "-c");
        assert_string_equal(r->argv[2], r->source);
        assert_null(r->argv[3]);
        if (!strcmp(r->source, kernels)) {
            seen |= 1;
            assert_string_equal(r->argv[0], "cc");
            assert_string_equal(r->language, "c");
            assert_non_null(r->source_hash);
        } else if (!strcmp(r->source, methods)) {
            seen |= 2;
            assert_string_equal(r->argv[0], "c++");
            assert_string_equal(r->language, "c++");
        } else if (!strcmp(r->source, gone)) {
            seen |= 4;
        }
        /* Every loop is a build loop without function, in its own file. */
        assert_true(loops_of(st, r->id) > 0);
        assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND (function IS NOT NULL "
                                       "OR variant<>'build')", r->id, 0), 0);
        char *file = query_text(st, "SELECT DISTINCT file FROM loops WHERE compile_id=?", r->id);
        assert_string_equal(file, r->source);
        free(file);
    }
    assert_int_equal(seen, 7);
    compile_rows_free(rows, n);
    /* kernels.c: the helper loop (epilogue folded), scale, slp4. */
    int64_t k = query_int(st, "SELECT id FROM compiles WHERE compiler_kind='unknown' AND argv LIKE '%kernels.c%'", 0, 0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND line=? AND vector_bytes=16", k,
                               marked_line("kernels.c", "helper-loop")), 1);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops WHERE compile_id=? AND kind='slp'", k, 0), 1);

    /* Importing again replaces, never duplicates. */
    fmv_set_quiet(1);
    assert_int_equal(records_import_log(st, log, RECORDS_FIXTURES, NULL), 0);
    fmv_set_quiet(0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM compiles", 0, 0), n_compiles);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM loops", 0, 0), n_loops);

    /* An unreadable log stores nothing. */
    char *missing = path_join(f->tmp, "no.log");
    fmv_set_quiet(1);
    assert_int_equal(records_import_log(st, missing, RECORDS_FIXTURES, NULL), -1);
    fmv_set_quiet(0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM compiles", 0, 0), n_compiles);
    assert_true(n_compiles == compiles_before + 3);
    free(missing);
    free(kernels);
    free(methods);
    free(gone);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ingest_good_and_corrupt_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_log, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
