/* Unit tests of capture/codeprofile: the ISA profiles of a probe object's
 * functions stored for each compile that shares it (libtool's twins: one
 * object, on_object once per compile) - read once through the cache, the
 * same rows for each compile; without a cache, read each time; an object
 * that cannot be read gives each compile its note, and is tried once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "capture/codeprofile.h"
#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"

static const char SRC[] = "int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; "
                          "return s; }\nint twice(int x) { return 2 * x; }\n";

/* Two compiles of one source (libtool's PIC and non-PIC ones). */
static struct compile_row *twin_rows(struct store *st, const char *dir, const char *src, size_t *n)
{
    char *pic = path_join(dir, ".libs/k.o"), *plain = path_join(dir, "k.o");
    char *const argv_pic[] = {"gcc", "-O2", "-fPIC", "-DPIC", "-c", (char *)src, "-o", pic, NULL};
    char *const argv_plain[] = {"gcc", "-O2", "-c", (char *)src, "-o", plain, NULL};
    struct compile_info ci = {.directory = dir, .argv = argv_pic, .compiler = "/usr/bin/gcc", .compiler_kind = "gcc",
                              .compiler_version = "12.2.0", .source = src, .output = pic, .language = "c"};
    assert_true(store_add_compile(st, &ci) > 0);
    ci.argv = argv_plain;
    ci.output = plain;
    assert_true(store_add_compile(st, &ci) > 0);
    free(pic);
    free(plain);
    struct compile_row *rows = store_list_compiles(st, n);
    assert_int_equal(*n, 2);
    return rows;
}

static char *profiles_text(struct store *st, int64_t id)
{
    struct strvec names = STRVEC_INIT, profiles = STRVEC_INIT;
    assert_int_equal(store_function_profiles(st, id, "probe:x", &names, &profiles), 1);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < names.n; i++) sb_addf(&sb, "%s=%s\n", names.v[i], profiles.v[i]);
    sv_free(&names);
    sv_free(&profiles);
    return sb_detach(&sb);
}

static void test_twins_read_once(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-codeprofile");
    char *src = path_join(dir, "k.c"), *obj = path_join(dir, "probe.o");
    assert_int_equal(write_file_atomic(src, SRC, strlen(SRC)), 0);
    char *const cc[] = {"gcc", "-O2", "-c", src, "-o", obj, NULL};
    assert_int_equal(run_argv(cc, &(struct run_opts){.null_stderr = 1}, NULL), 0);
    struct store *st;
    assert_int_equal(store_open(dir, 1, &st), 0);
    size_t n;
    struct compile_row *rows = twin_rows(st, dir, src, &n);

    struct codeprofile_cache cache = {0};
    assert_int_equal(codeprofile_store(st, &rows[0], "probe:x", obj, &cache), 0);
    assert_int_equal(codeprofile_store(st, &rows[1], "probe:x", obj, &cache), 0);
    assert_int_equal(cache.reads, 1);
    char *a = profiles_text(st, rows[0].id), *b = profiles_text(st, rows[1].id);
    assert_non_null(strstr(a, "sum="));
    assert_non_null(strstr(a, "twice="));
    assert_string_equal(a, b);
    /* without a cache: read for each, the same rows */
    assert_int_equal(codeprofile_store(st, &rows[1], "probe:x", obj, NULL), 0);
    char *c = profiles_text(st, rows[1].id);
    assert_string_equal(a, c);
    free(a);
    free(b);
    free(c);

    /* an unreadable object: a note for each compile, tried once */
    char *bad = path_join(dir, "bad.o");
    assert_int_equal(write_file_atomic(bad, "not an object\n", 14), 0);
    assert_int_equal(codeprofile_store(st, &rows[0], "probe:y", bad, &cache), 0);
    assert_int_equal(codeprofile_store(st, &rows[1], "probe:y", bad, &cache), 0);
    assert_int_equal(cache.reads, 2);
    for (size_t i = 0; i < 2; i++) {
        sqlite3_stmt *q;
        assert_int_equal(sqlite3_prepare_v2(store_db(st),
                                            "SELECT COUNT(*) FROM tu_notes WHERE compile_id = ? AND "
                                            "kind = 'isa-unmatched' AND detail LIKE 'probe:y: %'",
                                            -1, &q, NULL),
                         SQLITE_OK);
        sqlite3_bind_int64(q, 1, rows[i].id);
        assert_int_equal(sqlite3_step(q), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int(q, 0), 1);
        sqlite3_finalize(q);
    }
    /* more objects than it keeps: the oldest goes, each read once */
    for (int i = 0; i < CODEPROFILE_CACHE + 2; i++) {
        char *name = xasprintf("o%d.o", i), *copy = path_join(dir, name);
        char *const cp[] = {"cp", obj, copy, NULL};
        assert_int_equal(run_argv(cp, &(struct run_opts){0}, NULL), 0);
        assert_int_equal(codeprofile_store(st, &rows[0], "probe:z", copy, &cache), 0);
        assert_int_equal(codeprofile_store(st, &rows[1], "probe:z", copy, &cache), 0);
        free(name);
        free(copy);
    }
    assert_int_equal(cache.reads, 2 + CODEPROFILE_CACHE + 2);
    assert_int_equal(cache.n, CODEPROFILE_CACHE);
    codeprofile_cache_free(&cache);
    assert_int_equal(cache.n, 0);

    compile_rows_free(rows, n);
    store_close(st);
    remove_tree(dir);
    free(dir);
    free(src);
    free(obj);
    free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twins_read_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
