/* Unit tests of the readers on bad input: corrupt gzip, truncated gzip,
 * truncated JSON, JSON of the wrong shape, invalid and truncated YAML, empty,
 * missing and directory paths. Each gives -1, one line
 * "fmvgen: PATH: what is wrong" on stderr, the same text in records_error(),
 * and NO records - not even those read before the damage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <zlib.h>

#include "test_records_util.h"

static char *write_plain(const char *dir, const char *name, const char *data, size_t len)
{
    char *path = path_join(dir, name);
    assert_int_equal(write_file_atomic(path, data, len), 0);
    return path;
}

static char *write_gzip(const char *dir, const char *name, const char *data, size_t len)
{
    char *path = path_join(dir, name);
    gzFile gz = gzopen(path, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, data, (unsigned)len), (int)len);
    assert_int_equal(gzclose(gz), Z_OK);
    return path;
}

/* The whole inflated text of a gzip file. */
static char *gunzip(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    struct strbuf sb = STRBUF_INIT;
    char buf[65536];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) sb_add(&sb, buf, (size_t)n);
    assert_int_equal(n, 0);
    gzclose(gz);
    *len = sb.len;
    return sb_detach(&sb);
}

/* The reader fails on path, prints exactly one line naming it, and
 * delivers nothing; the line contains `what`. */
static void expect_failure(reader_fn read, const char *path, const char *what)
{
    struct record_list l = RECORD_LIST_INIT;
    char *err = NULL;
    int rc = read_capturing_stderr(read, path, &l, &err);
    char *prefix = xasprintf("fmvgen: %s: ", path);
    if (rc != -1 || strncmp(err, prefix, strlen(prefix)) || !strstr(err, what))
        print_error("reading %s gave %d, stderr: %s(expected: %s)\n", path, rc, err, what);
    assert_int_equal(rc, -1);
    assert_int_equal(l.n, 0);
    assert_true(!strncmp(err, prefix, strlen(prefix)));
    assert_non_null(strstr(err, what));
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);   /* one line */
    err[strlen(err) - 1] = '\0';
    assert_string_equal(records_error(), err + strlen("fmvgen: "));
    free(prefix);
    free(err);
    record_list_free(&l);
}

static void test_gcc_bad_files(void **state)
{
    const char *tmp = *state;
    char *good = gcc_records(tmp, "good", "kernels.c", NULL);
    size_t len;
    char *json = gunzip(good, &len);
    assert_true(len > 4096);
    /* The real file is fine, and holds successes early on. */
    struct record_list l = RECORD_LIST_INIT;
    assert_int_equal(records_read_gcc_json(good, record_list_add, &l), 0);
    assert_true(l.n >= 3);
    record_list_free(&l);

    char *p;
    /* Cut just before the end: every success record was parsed already,
     * yet none is delivered. */
    expect_failure(records_read_gcc_json, p = write_gzip(tmp, "cut.json.gz", json, len - 40), "truncated JSON");
    free(p);
    expect_failure(records_read_gcc_json, p = write_gzip(tmp, "half.json.gz", json, len / 2), "truncated JSON");
    free(p);
    char *gz = read_file(good, &len);
    expect_failure(records_read_gcc_json, p = write_plain(tmp, "cut.gz", gz, len - 200), "truncated gzip");
    free(p);
    /* A gzip header followed by garbage. */
    static const char garbage[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage, not deflate data at all";
    expect_failure(records_read_gcc_json, p = write_plain(tmp, "bad.gz", garbage, sizeof garbage - 1),
                   "corrupt gzip");
    free(p);
    /* Flip bytes in the middle of the real deflate stream. */
    for (size_t i = len / 2; i < len / 2 + 64; i++) gz[i] ^= 0x5a;
    expect_failure(records_read_gcc_json, p = write_plain(tmp, "flipped.gz", gz, len), "gzip");
    free(p);
    free(gz);

    static const struct {
        const char *json, *what;
    } shapes[] = {
        {"{\"format\": \"1\"}", "not a GCC optimization record"},
        {"[1, 2, 3]", "not a GCC optimization record"},
        {"[{\"format\": \"1\"}, {}, []]", "not a GCC optimization record"},
        {"[{\"format\": \"1\"}, [], [{\"kind\": \"success\"}]]", "not a GCC optimization record"},
        {"[{\"format\": \"1\"}, [], [7]]", "not a GCC optimization record"},
        {"[{\"format\": \"1\"}, [], []] []", "not a GCC optimization record"},
        {"[{\"format\": \"1\"}, [], [{\"kind\": \"success\", \"message\": [\"x\"]} {}]]",
         "not a GCC optimization record"},
        {"[{\"format\": \"1\"}, [], [{\"kind\": \"success\", \"message\": [\"x\"], }]]", "invalid JSON"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        char name[32];
        snprintf(name, sizeof name, "shape%zu.json.gz", i);
        p = write_gzip(tmp, name, shapes[i].json, strlen(shapes[i].json));
        expect_failure(records_read_gcc_json, p, shapes[i].what);
        free(p);
    }
    expect_failure(records_read_gcc_json, p = write_plain(tmp, "empty.json.gz", "", 0), "empty file");
    free(p);
    expect_failure(records_read_gcc_json, p = path_join(tmp, "missing.json.gz"), "No such file");
    free(p);
    expect_failure(records_read_gcc_json, tmp, "is a directory");
    free(json);
    free(good);
}

static void test_clang_bad_files(void **state)
{
    const char *tmp = *state;
    char *good = clang_records("clang", tmp, "good", "kernels.c", NULL);
    size_t len;
    char *yaml = read_file(good, &len);
    assert_non_null(yaml);
    char *p;
    /* Cut inside the last remark: every !Passed one was read, none is
     * delivered. */
    expect_failure(records_read_clang_yaml, p = write_plain(tmp, "cut.yaml", yaml, len - 20), "truncated");
    free(p);
    static const struct {
        const char *yaml, *what;
    } bad[] = {
        {"--- !Passed\nPass: [loop-vectorize\n", "invalid YAML at line"},
        {"--- !Passed\nPass: a\n  Name: b\n...\n", "invalid YAML"},
        {"--- !Passed\nPass: loop-vectorize\nName: Vectorized\nFunction: f\n...\n\tx: \"\n", "invalid YAML"},
        {"a: 1\n...\n", "not a Clang optimization record"},
        {"--- !Passed\n- 1\n- 2\n...\n", "not a Clang optimization record"},
        {"--- !Passed\nPass: loop-vectorize\nName: Vectorized\n...\n", "not a Clang optimization record"},
        {"--- !Passed\nPass: loop-vectorize\nName: Vectorized\nFunction: f\n", "truncated"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.yaml", i);
        p = write_plain(tmp, name, bad[i].yaml, strlen(bad[i].yaml));
        expect_failure(records_read_clang_yaml, p, bad[i].what);
        free(p);
    }
    expect_failure(records_read_clang_yaml, p = path_join(tmp, "missing.yaml"), "No such file");
    free(p);
    expect_failure(records_read_clang_yaml, tmp, "is a directory");
    free(yaml);
    free(good);
}

static void test_log_bad_files(void **state)
{
    const char *tmp = *state;
    char *p;
    expect_failure(records_read_optinfo_log, p = write_plain(tmp, "empty.log", "", 0), "empty file");
    free(p);
    expect_failure(records_read_optinfo_log, p = path_join(tmp, "missing.log"), "No such file");
    free(p);
    expect_failure(records_read_optinfo_log, tmp, "is a directory");
}

static int read_as_unknown(const char *path, record_fn fn, void *ctx)
{
    return records_read_file("msvc-xml", path, fn, ctx);
}

static void test_unknown_format(void **state)
{
    char *p = write_plain(*state, "x.xml", "<x/>", 4);
    expect_failure(read_as_unknown, p, "unknown record format 'msvc-xml'");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc_bad_files),
        cmocka_unit_test(test_clang_bad_files),
        cmocka_unit_test(test_log_bad_files),
        cmocka_unit_test(test_unknown_format),
    };
    return cmocka_run_group_tests(tests, records_tmp_setup, records_tmp_teardown);
}
