/* Unit tests of lib/util and lib/run/spawn: paths, strings, process running. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* write_output_file keeps what is at the path: a symbolic link stays a
 * link (its file gets the text, also a dangling link's); write_file_atomic
 * replaces a link, and keeps a FIFO, writing through it (a rename would
 * leave a regular file there, and fmvgen patch -o /dev/null as root would
 * replace /dev/null). */
static void test_write_file_atomic_keeps_links_and_fifos(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-util-write");
    char *file = path_join(dir, "real.txt"), *link = path_join(dir, "link.txt"), *fifo = path_join(dir, "fifo");
    assert_int_equal(write_file_atomic(file, "old\n", 4), 0);
    assert_int_equal(symlink("real.txt", link), 0);
    assert_int_equal(write_output_file(link, "new\n", 4), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *text = read_file(file, NULL);
    assert_string_equal(text, "new\n");
    free(text);
    /* a dangling link: the file it names is created */
    char *dangling = path_join(dir, "dangling.txt"), *made = path_join(dir, "sub/made.txt");
    assert_int_equal(mkdir_p(text = path_join(dir, "sub"), 0755), 0);
    free(text);
    assert_int_equal(symlink("sub/made.txt", dangling), 0);
    assert_int_equal(write_output_file(dangling, "made\n", 5), 0);
    assert_int_equal(lstat(dangling, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    text = read_file(made, NULL);
    assert_non_null(text);
    assert_string_equal(text, "made\n");
    free(text);
    free(dangling);
    free(made);
    /* write_file_atomic: the link itself becomes the file */
    assert_int_equal(write_file_atomic(link, "own\n", 4), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    text = read_file(file, NULL);
    assert_string_equal(text, "new\n");
    free(text);

    assert_int_equal(mkfifo(fifo, 0600), 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);   /* a reader, so the writer's open does not block */
    assert_true(rd >= 0);
    assert_int_equal(write_file_atomic(fifo, "piped\n", 6), 0);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    char buf[16] = {0};
    assert_int_equal(read(rd, buf, sizeof buf - 1), 6);
    assert_string_equal(buf, "piped\n");
    close(rd);

    remove_tree(dir);
    free(file);
    free(link);
    free(fifo);
    free(dir);
}

/* Inside a say-once scope a warning or note said before is not said again;
 * another text, or the same text as the other kind, is; outside the scope
 * every one is. stderr goes to a file meanwhile. */
static void test_messages_said_once(void **state)
{
    (void)state;
    char path[] = "/tmp/fmvgen-test-said.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    assert_true(dup2(fd, 2) == 2);
    fmv_say_once_begin();
    fmv_warn("%s:%d: f not patched: %s", "a.c", 3, "why");
    fmv_warn("%s:%d: f not patched: %s", "a.c", 3, "why");
    fmv_warn("%s:%d: g not patched: %s", "a.c", 9, "why");
    fmv_note("%s:%d: f not patched: %s", "a.c", 3, "why");
    fmv_note("a.c:3: f not patched: why");
    fmv_say_once_end();
    fmv_warn("outside: said");
    fmv_warn("outside: said");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    size_t n = 0;
    char *text = read_file(path, &n);
    unlink(path);
    close(fd);
    assert_non_null(text);
    assert_string_equal(text, "fmvgen: warning: a.c:3: f not patched: why\n"
                              "fmvgen: warning: a.c:9: g not patched: why\n"
                              "fmvgen: note: a.c:3: f not patched: why\n"
                              "fmvgen: warning: outside: said\n"
                              "fmvgen: warning: outside: said\n");
    free(text);
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
        cmocka_unit_test(test_write_file_atomic_keeps_links_and_fifos),
        cmocka_unit_test(test_messages_said_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
