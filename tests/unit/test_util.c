/* Unit tests of lib/util and lib/run/spawn: paths, strings, process running. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "run/spawn.h"
#include "util/cmake_cache.h"
#include "util/util.h"

static void test_path_absolute_normalizes(void **state)
{
    (void)state;
    char *p = path_absolute("a/./b/../c", "/x/y");
    assert_string_equal(p, "/x/y/a/c");
    free(p);
    p = path_absolute("/../..", NULL);
    assert_string_equal(p, "/");
    free(p);
}

static void test_path_relative_to(void **state)
{
    (void)state;
    char *r = path_relative_to("/src/proj/lib/a.c", "/src/proj/");
    assert_string_equal(r, "lib/a.c");
    free(r);
    assert_null(path_relative_to("/src/project2/a.c", "/src/proj"));
}

static void test_path_is_header(void **state)
{
    (void)state;
    assert_true(path_is_header("x/y.h"));
    assert_true(path_is_header("y.HPP"));
    assert_false(path_is_header("y.c"));
    assert_false(path_is_header("Makefile"));
}

static void test_strvec_and_strbuf(void **state)
{
    (void)state;
    struct strvec sv = STRVEC_INIT;
    sv_push(&sv, "a b");
    sv_pushf(&sv, "-O%d", 3);
    assert_int_equal(sv.n, 2);
    assert_null(sv.v[2]);
    assert_true(sv_contains(&sv, "-O3"));
    sv_free(&sv);
    struct strbuf sb = STRBUF_INIT;
    assert_string_equal(sb_str(&sb), "");
    sb_addf(&sb, "%s=%d", "x", 1);
    char *s = sb_detach(&sb);
    assert_string_equal(s, "x=1");
    free(s);
}

static void test_run_captures_and_reports_status(void **state)
{
    (void)state;
    /* A file name with a space and a quote reaches the child unchanged. */
    char *argv[] = {"printf", "%s", "it's a file.c", NULL};
    struct run_opts o = {.capture_stdout = 1};
    struct run_result r;
    assert_int_equal(run_argv(argv, &o, &r), 0);
    assert_string_equal(r.out, "it's a file.c");
    run_result_free(&r);

    char *fail[] = {"sh", "-c", "exit 3", NULL};
    assert_int_equal(run_argv(fail, NULL, &r), -1);
    assert_int_equal(run_exit_code(&r), 3);
    run_result_free(&r);

    char *missing[] = {"/nonexistent/fmvgen-no-such-tool", NULL};
    assert_int_equal(run_argv(missing, NULL, &r), -1);
    assert_false(r.spawned);
    run_result_free(&r);
}

static void test_run_timeout_kills(void **state)
{
    (void)state;
    char *argv[] = {"sleep", "30", NULL};
    struct run_opts o = {.timeout_s = 0.2};
    struct run_result r;
    assert_int_equal(run_argv(argv, &o, &r), -1);
    assert_true(r.timed_out);
    run_result_free(&r);
}

static void test_run_pool_runs_all(void **state)
{
    (void)state;
    char *ok[] = {"true", NULL};
    char *bad[] = {"false", NULL};
    struct run_job jobs[5] = {{ok, {0}}, {bad, {0}}, {ok, {0}}, {ok, {0}}, {bad, {0}}};
    struct run_result res[5];
    assert_int_equal(run_pool(jobs, 5, 2, res), 2);
    assert_int_equal(res[1].status, 1);
    assert_int_equal(res[3].status, 0);
    for (int i = 0; i < 5; i++) run_result_free(&res[i]);
}

static void test_cmake_cache_value(void **state)
{
    (void)state;
    const char *text = "# comment\r\nCMAKE_C_COMPILER_AR:FILEPATH=/usr/bin/gcc-ar-12\r\n"
                       "CMAKE_C_COMPILER:FILEPATH=/usr/bin/cc\r\nCMAKE_CACHEFILE_DIR:INTERNAL=/b\nEMPTY:STRING=\n";
    char *v = cmake_cache_value(text, "CMAKE_C_COMPILER");   /* not the longer key before it; no \r */
    assert_string_equal(v, "/usr/bin/cc");
    free(v);
    v = cmake_cache_value(text, "CMAKE_CACHEFILE_DIR");
    assert_string_equal(v, "/b");
    free(v);
    v = cmake_cache_value(text, "EMPTY");
    assert_string_equal(v, "");
    free(v);
    assert_null(cmake_cache_value(text, "CMAKE_CXX_COMPILER"));
    assert_null(cmake_cache_value("", "X"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_absolute_normalizes),
        cmocka_unit_test(test_path_relative_to),
        cmocka_unit_test(test_path_is_header),
        cmocka_unit_test(test_strvec_and_strbuf),
        cmocka_unit_test(test_run_captures_and_reports_status),
        cmocka_unit_test(test_run_timeout_kills),
        cmocka_unit_test(test_run_pool_runs_all),
        cmocka_unit_test(test_cmake_cache_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
