/* Unit tests of lib/scan: scan_run used as a library, without the CLI - a
 * compile database of one vectorizing TU scanned into a store (meta, the
 * target probe or not, the candidate), the inputs it refuses with one line
 * naming the file, a build that cannot get the wrapper (fmvgen-cc is not
 * next to this test program), and scan_exit_status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture/wrapper.h"
#include "scan/scan.h"
#include "targets/targets.h"
#include "test_probe_helpers.h"

static const char KERNEL[] =
    "void scale(float *restrict a, const float *restrict b, int n)\n"
    "{\n"
    "    for (int i = 0; i < n; i++) a[i] = b[i] * 2.0f + 1.0f;\n"
    "}\n";

/* dir/kernel.c and dir/compile_commands.json compiling it with gcc -O3;
 * returns the database's path. */
static char *write_project(const char *dir)
{
    char *src = path_join(dir, "kernel.c");
    assert_int_equal(write_file_atomic(src, KERNEL, strlen(KERNEL)), 0);
    char *db = path_join(dir, "compile_commands.json");
    char *text = xasprintf("[{\"directory\": \"%s\", \"arguments\": [\"gcc\", \"-O3\", \"-c\", \"kernel.c\", "
                           "\"-o\", \"kernel.o\"], \"file\": \"kernel.c\"}]\n",
                           dir);
    assert_int_equal(write_file_atomic(db, text, strlen(text)), 0);
    free(text);
    free(src);
    return db;
}

static char *meta(const char *builddir, const char *key)
{
    struct store *st = NULL;
    assert_int_equal(store_open(builddir, 0, &st), 0);
    char *v = store_meta_get(st, key);
    store_close(st);
    return v;
}

static long long count(const char *builddir, const char *sql)
{
    struct store *st = NULL;
    assert_int_equal(store_open(builddir, 0, &st), 0);
    long long n = query_int(st, sql, NULL);
    store_close(st);
    return n;
}

static void scan_compdb(int no_probe)
{
    char *tmp = make_temp_dir("test-scan-run");
    assert_non_null(tmp);
    char *db = write_project(tmp);
    struct strvec targets = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &targets), 0);
    struct scan_request req = {.compdb = db, .root = tmp, .targets = &targets, .no_probe = no_probe, .jobs = 1,
                               .quiet = 1};
    struct scan_result res;
    int rc = scan_run(&req, &res);
    assert_int_equal(rc, 0);
    assert_int_equal(res.errors, 0);
    assert_int_equal(res.build_status, 0);
    assert_int_equal(scan_exit_status(rc, &res), 0);
    char *store_dir = path_join(tmp, ".fmvgen");
    assert_string_equal(res.store_path, store_dir);
    assert_string_equal(res.widest, targets_widest(&targets));
    assert_int_equal(res.probed, !no_probe);
    assert_int_equal(res.sum.compiles, 1);
    assert_int_equal(res.sum.failed_compiles, 0);
    assert_int_equal(res.sum.corrupt_files, 0);
    assert_true(res.sum.build_loops >= 1);
    assert_int_equal(res.sum.candidates, 1);
    assert_int_equal(res.no_records.n, 0);

    char *root = meta(tmp, "root");
    assert_string_equal(root, tmp);
    char *tlist = meta(tmp, "targets");
    assert_string_equal(tlist, TARGETS_DEFAULT);
    assert_int_equal(count(tmp, "SELECT count(*) FROM functions WHERE name='scale' AND status='candidate'"), 1);
    /* the probe's loops are there exactly when it ran */
    long long probe = count(tmp, "SELECT count(*) FROM record_files WHERE variant LIKE 'probe:%'");
    if (no_probe) assert_int_equal(probe, 0);
    else assert_int_equal(probe, 1);

    free(root);
    free(tlist);
    free(store_dir);
    scan_result_free(&res);
    sv_free(&targets);
    free(db);
    remove_tree(tmp);
    free(tmp);
}

static void test_compdb_with_probe(void **state)
{
    (void)state;
    scan_compdb(0);
}

static void test_compdb_no_probe(void **state)
{
    (void)state;
    scan_compdb(1);
}

/* A missing input: one line naming it, no store, exit status 1. */
static void test_missing_inputs(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-scan-run");
    char *missing = path_join(tmp, "nope.json");
    struct strvec targets = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &targets), 0);
    struct scan_request reqs[2] = {{.compdb = missing, .targets = &targets},
                                   {.log = missing, .builddir = tmp, .targets = &targets}};
    for (int i = 0; i < 2; i++) {
        struct stderr_capture cap;
        struct scan_result res;
        stderr_capture_begin(&cap);
        int rc = scan_run(&reqs[i], &res);
        char *err = stderr_capture_end(&cap);
        assert_int_equal(rc, -1);
        assert_int_equal(scan_exit_status(rc, &res), 1);
        char *want = xasprintf("fmvgen: %s: no such file\n", missing);
        assert_string_equal(err, want);
        free(want);
        free(err);
        assert_null(res.store_path);
        scan_result_free(&res);
    }
    char *store = path_join(tmp, ".fmvgen");
    assert_false(file_exists(store));
    free(store);
    sv_free(&targets);
    free(missing);
    remove_tree(tmp);
    free(tmp);
}

/* No fmvgen-cc next to the running program: the build does not run (no
 * links to anything else), the error names the missing wrapper, and the
 * exit status is the build's 127. */
static void test_build_without_wrapper_exe(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-scan-run");
    char *marker = path_join(tmp, "ran");
    struct strvec targets = STRVEC_INIT;
    assert_int_equal(targets_parse(TARGETS_DEFAULT, &targets), 0);
    char *build[] = {"touch", marker, NULL};
    struct scan_request req = {.build = build, .builddir = tmp, .root = tmp, .targets = &targets, .quiet = 1};
    struct scan_result res;
    struct stderr_capture cap;
    stderr_capture_begin(&cap);
    int rc = scan_run(&req, &res);
    char *err = stderr_capture_end(&cap);
    assert_int_equal(rc, 0);
    assert_int_equal(res.build_status, 127);
    assert_int_equal(scan_exit_status(rc, &res), 127);
    assert_int_equal(res.sum.compiles, 0);
    assert_false(file_exists(marker));
    assert_non_null(strstr(err, "/" WRAPPER_EXE_NAME ": the compiler wrapper is missing"));
    free(err);
    scan_result_free(&res);
    sv_free(&targets);
    free(marker);
    remove_tree(tmp);
    free(tmp);
}

static void test_exit_status(void **state)
{
    (void)state;
    struct scan_result res = {0};
    assert_int_equal(scan_exit_status(0, &res), 0);
    assert_int_equal(scan_exit_status(-1, &res), 1);
    res.errors = 1;
    assert_int_equal(scan_exit_status(0, &res), 1);
    res.build_status = 2;   /* the build's own status wins */
    assert_int_equal(scan_exit_status(0, &res), 2);
    assert_int_equal(scan_exit_status(-1, &res), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compdb_with_probe),
        cmocka_unit_test(test_compdb_no_probe),
        cmocka_unit_test(test_missing_inputs),
        cmocka_unit_test(test_build_without_wrapper_exe),
        cmocka_unit_test(test_exit_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
