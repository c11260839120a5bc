/* Unit tests of the build-log reader (lib/records/optinfo_log.c): real
 * gcc -fopt-info-vec and clang -Rpass output mixed with other build lines,
 * and the odd lines real logs hold (colour codes, CRLF, GCC 8's "note:",
 * file names with spaces and colons). A log names no function. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "test_records_util.h"

/* The stderr of one compile, as a build log would hold it. */
static void append_compile_output(struct strbuf *log, char *const *argv)
{
    struct run_opts opts = {.capture_stderr = 1, .null_stdout = 1};
    struct run_result res;
    assert_int_equal(run_argv(argv, &opts, &res), 0);
    sb_addf(log, "%s -c ...\n", argv[0]);
    sb_adds(log, res.err ? res.err : "");
    run_result_free(&res);
}

static const struct loop_record *find_at(const struct record_list *l, const char *file_suffix, int line,
                                         enum loop_kind kind)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct loop_record *r = &l->v[i];
        size_t n = strlen(r->file), m = strlen(file_suffix);
        if (r->line == line && r->kind == kind && n >= m && !strcmp(r->file + n - m, file_suffix)) return r;
    }
    return NULL;
}

static void test_real_gcc_and_clang_output_in_a_build_log(void **state)
{
    char *src = fixture_path("kernels.c");
    struct strbuf log = STRBUF_INIT;
    /* The compilers run here: make would say so. */
    char *cwd = get_cwd();
    sb_addf(&log, "make[1]: Entering directory '%s'\n[ 50%%] Building C object CMakeFiles/k.dir/kernels.c.o\n", cwd);
    free(cwd);
    char *gcc[] = {"gcc", "-O3", "-mavx2", "-fopt-info-vec-all", "-c", src, "-o", "/dev/null", NULL};
    append_compile_output(&log, gcc);
    char *clang[] = {"clang", "-O3", "-Rpass=loop-vectorize|slp-vectorizer", "-Rpass-missed=loop-vectorize",
                     "-c", src, "-o", "/dev/null", NULL};
    append_compile_output(&log, clang);
    sb_adds(&log, "make: *** [Makefile:12: all] Error 1\n");
    char *path = path_join(*state, "build.log");
    assert_int_equal(write_file_atomic(path, log.buf, log.len), 0);

    struct record_list l = RECORD_LIST_INIT;
    assert_int_equal(records_read_optinfo_log(path, record_list_add, &l), 0);
    record_list_dedup(&l);
    for (size_t i = 0; i < l.n; i++) {
        assert_null(l.v[i].function);   /* a log cannot tell */
        /* Clang prints a source under its cwd relative to it, even when
         * given an absolute path; make's "Entering directory" resolves it. */
        assert_string_equal(l.v[i].file, src);
    }
    int helper = marked_line("kernels.c", "helper-loop"), dot = marked_line("kernels.c", "dot64-loop");
    int slp = marked_line("kernels.c", "slp");
    /* GCC's lines (col 23) and Clang's (col 5) are distinct locations. */
    const struct loop_record *r = find_at(&l, "kernels.c", helper, LOOP_VECTORIZED);
    assert_non_null(r);
    int gcc_loops = 0, clang_loops = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i].line == helper && l.v[i].vector_bytes == 32) gcc_loops++;   /* epilogue folded */
        if (l.v[i].line == helper && l.v[i].vector_lanes == 4) clang_loops++;
    }
    assert_int_equal(gcc_loops, 1);
    assert_int_equal(clang_loops, 1);
    r = find_at(&l, "kernels.c", dot, LOOP_VECTORIZED);
    assert_non_null(r);
    assert_int_equal(r->vector_bytes, 32);   /* only GCC with -mavx2; clang at baseline: a missed remark */
    int dot_rows = 0;
    for (size_t i = 0; i < l.n; i++) dot_rows += l.v[i].line == dot;
    assert_int_equal(dot_rows, 1);
    assert_non_null(find_at(&l, "kernels.c", slp, LOOP_SLP));
    /* -fopt-info-vec-all adds "missed:" and "note:" lines; none is a record. */
    for (size_t i = 0; i < l.n; i++) {
        assert_null(strstr(l.v[i].message, "not vectorized"));
        assert_null(strstr(l.v[i].message, "loops in function"));
    }
    record_list_free(&l);
    sb_free(&log);
    free(path);
    free(src);
}

static void test_odd_lines_of_real_logs(void **state)
{
    static const char text[] =
        "\033[01m\033[Kcolor.c:7:3:\033[m\033[K \033[01;36m\033[Koptimized: \033[m\033[Kloop vectorized using 64 "
        "byte vectors\n"
        "dir with space/my:file.c:12:5: optimized: basic block part vectorized using 16 byte vectors\r\n"
        "old.c:3:5: note: loop vectorized\n"
        "nobr.c:9:9: remark: vectorized loop (vectorization width: 2, interleaved count: 1)\n"
        "red.c:4:38: remark: Vectorized horizontal reduction with cost -9 and with tree size 1 "
        "[-Rpass=slp-vectorizer]\n"
        "noise.c:1:1: note: vectorized 1 loops in function.\n"
        "noise.c:2:2: missed: couldn't vectorize loop\n"
        "noise.c:3:3: note: Basic block will be vectorized using SLP\n"
        "noise.c:4:4: remark: interleaved loop (interleaved count: 2) [-Rpass=loop-vectorize]\n"
        "noise.c:5:5: remark: loop not vectorized [-Rpass-missed=loop-vectorize]\n"
        "noise.c:6:6: warning: unused variable 'loop' [-Wunused-variable]\n"
        "    noise.c:7:7: optimized: indented, so not a compiler line: loop vectorized\n"
        "ld: noise.o: in function `main':\n"
        "make[1]: Entering directory '/home/u/p/src'\n"
        "lib/sub.c:5:3: optimized: loop vectorized using 32 byte vectors\n"
        "make[2]: Entering directory `/home/u/p/src/deep'\n"
        "/abs/x.c:6:3: optimized: loop vectorized using 32 byte vectors\n"
        "make[2]: Leaving directory `/home/u/p/src/deep'\n"
        "../src/./in.c:7:3: optimized: loop vectorized using 32 byte vectors\n"
        "make[1]: Leaving directory '/home/u/p/src'\n"
        "top.c:8:3: optimized: loop vectorized using 32 byte vectors\n"
        "make: *** [Makefile:12: all] Error 1\n";
    char *path = path_join(*state, "odd.log");
    assert_int_equal(write_file_atomic(path, text, sizeof text - 1), 0);
    struct record_list l = RECORD_LIST_INIT;
    assert_int_equal(records_read_optinfo_log(path, record_list_add, &l), 0);
    assert_int_equal(l.n, 9);
    /* Relative names are taken from the directory make entered. */
    assert_non_null(find_at(&l, "/home/u/p/src/lib/sub.c", 5, LOOP_VECTORIZED));
    assert_non_null(find_at(&l, "/abs/x.c", 6, LOOP_VECTORIZED));
    assert_string_equal(find_at(&l, "/abs/x.c", 6, LOOP_VECTORIZED)->file, "/abs/x.c");
    assert_string_equal(find_at(&l, "in.c", 7, LOOP_VECTORIZED)->file, "/home/u/p/src/in.c");
    assert_string_equal(find_at(&l, "top.c", 8, LOOP_VECTORIZED)->file, "top.c");
    const struct loop_record *r = find_at(&l, "color.c", 7, LOOP_VECTORIZED);
    assert_non_null(r);
    assert_string_equal(r->file, "color.c");
    assert_int_equal(r->column, 3);
    assert_int_equal(r->vector_bytes, 64);
    r = find_at(&l, "dir with space/my:file.c", 12, LOOP_SLP);
    assert_non_null(r);
    assert_string_equal(r->file, "dir with space/my:file.c");
    assert_string_equal(r->message, "basic block part vectorized using 16 byte vectors");
    r = find_at(&l, "old.c", 3, LOOP_VECTORIZED);
    assert_non_null(r);
    assert_int_equal(r->vector_bytes, 0);
    r = find_at(&l, "nobr.c", 9, LOOP_VECTORIZED);
    assert_non_null(r);
    assert_int_equal(r->vector_lanes, 2);
    assert_non_null(find_at(&l, "red.c", 4, LOOP_SLP));
    record_list_free(&l);
    free(path);
}

/* Widths that are not plain positive counts are unknown (0), never taken
 * as read: found by fuzz_gcc_dump ("using-8<---- 16 byte" gave -8). */
static void test_widths_that_are_no_count(void **state)
{
    static const char text[] =
        "neg.c:1:1: optimized: loop vectorized using -8 byte vectors\n"
        "glued.c:2:2: optimized: loop vectorized using-8 16 byte vectors\n"
        "huge.c:3:3: optimized: loop vectorized using 99999999999999999999 byte vectors\n"
        "words.c:4:4: optimized: loop vectorized using 32 bits\n"
        "more.c:5:5: optimized: loop vectorized using 64 byte vectors and unroll factor 2\n"
        "lanes.c:6:6: remark: vectorized loop (vectorization width: -4, interleaved count: 1)\n"
        "vscale.c:7:7: remark: vectorized loop (vectorization width: vscale x 4, interleaved count: 1)\n";
    struct record_list l = RECORD_LIST_INIT;
    struct records_buf in = {"widths.log", text, sizeof text - 1};
    assert_int_equal(records_read_optinfo_log_buf(&in, record_list_add, &l), 0);
    assert_int_equal(l.n, 7);
    static const char *const unknown[] = {"neg.c", "glued.c", "huge.c", "words.c"};
    for (size_t i = 0; i < 4; i++) assert_int_equal(find_at(&l, unknown[i], (int)i + 1, LOOP_VECTORIZED)->vector_bytes, 0);
    assert_int_equal(find_at(&l, "more.c", 5, LOOP_VECTORIZED)->vector_bytes, 64);
    assert_int_equal(find_at(&l, "lanes.c", 6, LOOP_VECTORIZED)->vector_lanes, 0);
    assert_int_equal(find_at(&l, "vscale.c", 7, LOOP_VECTORIZED)->vector_lanes, 0);
    record_list_free(&l);
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_gcc_and_clang_output_in_a_build_log),
        cmocka_unit_test(test_odd_lines_of_real_logs),
        cmocka_unit_test(test_widths_that_are_no_count),
    };
    return cmocka_run_group_tests(tests, records_tmp_setup, records_tmp_teardown);
}
