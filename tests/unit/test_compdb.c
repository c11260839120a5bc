/* Unit tests of lib/capture/compdb: the "command" splitter's quoting rules,
 * import of hand-written databases (arguments and command forms, relative
 * paths, spaces, non-C entries), a database CMake generates for the
 * probe-proj fixture, and the one-line errors (bad JSON, wrong shape, a
 * compiler that is not GCC or Clang) that store nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "capture/compdb.h"
#include "test_probe_helpers.h"

/* ---- splitter ---- */

static void expect_split(const char *cmd, const char *const *want)
{
    struct strvec sv = STRVEC_INIT;
    assert_int_equal(compdb_split_command(cmd, &sv), 0);
    size_t n = 0;
    while (want[n]) n++;
    if (sv.n != n) {
        for (size_t i = 0; i < sv.n; i++) fprintf(stderr, "  got [%s]\n", sv.v[i]);
    }
    assert_int_equal(sv.n, n);
    for (size_t i = 0; i < n; i++) assert_string_equal(sv.v[i], want[i]);
    sv_free(&sv);
}

static void test_split_whitespace_and_quotes(void **state)
{
    (void)state;
    expect_split("  gcc\t-O2 \n -c  a.c  ", (const char *[]){"gcc", "-O2", "-c", "a.c", NULL});
    expect_split("gcc -c \"sub dir/scale kernel.c\" -o 'out dir/k.o'",
                 (const char *[]){"gcc", "-c", "sub dir/scale kernel.c", "-o", "out dir/k.o", NULL});
    /* Quoted and bare pieces glue into one word, as in a shell. */
    expect_split("cc -DNAME=\"a b\" -DV='x y'z", (const char *[]){"cc", "-DNAME=a b", "-DV=x yz", NULL});
    /* CMake writes -DSTR=\"text\" for a string macro: the quotes survive. */
    expect_split("cc -DSTR=\\\"hi\\\" -c a.c", (const char *[]){"cc", "-DSTR=\"hi\"", "-c", "a.c", NULL});
    expect_split("cc \"-DQ=\\\"x y\\\"\"", (const char *[]){"cc", "-DQ=\"x y\"", NULL});
    /* Backslash escapes a space outside quotes; single quotes are literal. */
    expect_split("cc my\\ file.c 'a\\b'", (const char *[]){"cc", "my file.c", "a\\b", NULL});
    /* An empty quoted word is still an argument. */
    expect_split("cc \"\" ''", (const char *[]){"cc", "", "", NULL});
    expect_split("", (const char *[]){NULL});
}

static void test_split_rejects_unterminated(void **state)
{
    (void)state;
    const char *bad[] = {"cc \"abc", "cc 'abc", "cc abc\\", "cc \"abc\\\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct strvec sv = STRVEC_INIT;
        assert_int_equal(compdb_split_command(bad[i], &sv), -1);
        sv_free(&sv);
    }
}

/* ---- import ---- */

struct env {
    char *tmp, *proj, *storedir;
    struct store *st;
};

static int setup(void **state)
{
    struct env *e = xcalloc(1, sizeof *e);
    e->tmp = make_temp_dir("test-compdb");
    e->proj = copy_fixture_to("probe-proj", e->tmp);
    e->storedir = path_join(e->tmp, "store");
    if (store_open(e->storedir, 1, &e->st) != 0) return -1;
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct env *e = *state;
    store_close(e->st);
    remove_tree(e->tmp);
    free(e->tmp);
    free(e->proj);
    free(e->storedir);
    free(e);
    return 0;
}

static char *write_compdb(struct env *e, const char *name, const char *text)
{
    char *path = path_join(e->tmp, name);
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    return path;
}

static long long compiles(struct env *e)
{
    return query_int(e->st, "SELECT COUNT(*) FROM compiles", NULL);
}

static void test_import_arguments_form(void **state)
{
    struct env *e = *state;
    /* A relative directory is taken from the database's folder; relative
     * file and output from the directory; the .s and link entries are not
     * C/C++ compiles and are skipped. */
    const char *fmt =
        "[{\"directory\": \"probe-proj\", \"file\": \"sum.c\", \"output\": \"obj/sum.o\","
        "  \"arguments\": [\"gcc\", \"-O3\", \"-c\", \"sum.c\", \"-o\", \"obj/sum.o\"]},"
        " {\"directory\": \"%s\", \"file\": \"dot.c\","
        "  \"arguments\": [\"gcc\", \"-O2\", \"-c\", \"dot.c\"]},"
        " {\"directory\": \"%s\", \"file\": \"mix.cpp\","
        "  \"arguments\": [\"g++\", \"-O2\", \"-c\", \"mix.cpp\", \"-o\", \"mix.o\"]},"
        " {\"directory\": \"%s\", \"file\": \"start.s\","
        "  \"arguments\": [\"gcc\", \"-c\", \"start.s\", \"-o\", \"start.o\"]}]";
    char *text = xasprintf(fmt, e->proj, e->proj, e->proj);
    char *path = write_compdb(e, "compile_commands.json", text);
    assert_int_equal(compdb_import(e->st, path), 3);

    size_t n;
    struct compile_row *rows = store_list_compiles(e->st, &n);
    assert_int_equal(n, 3);
    char *sum = path_join(e->proj, "sum.c");
    char *sum_o = path_join(e->proj, "obj/sum.o");
    assert_string_equal(rows[0].directory, e->proj);
    assert_string_equal(rows[0].source, sum);
    assert_string_equal(rows[0].output, sum_o);
    assert_string_equal(rows[0].argv[0], "gcc");   /* argv as in the database */
    assert_string_equal(rows[0].argv[5], "obj/sum.o");
    assert_null(rows[0].argv[6]);
    assert_string_equal(rows[0].compiler_kind, "gcc");
    assert_true(rows[0].compiler[0] == '/');       /* the real compiler, found in PATH */
    assert_string_equal(rows[0].language, "c");
    char *hash = hash_file_hex(sum);
    assert_string_equal(rows[0].source_hash, hash);
    /* No -o: the object lands in the directory, named after the source. */
    char *dot_o = path_join(e->proj, "dot.o");
    assert_string_equal(rows[1].output, dot_o);
    assert_string_equal(rows[2].language, "c++");
    compile_rows_free(rows, n);
    free(hash);
    free(sum);
    free(sum_o);
    free(dot_o);
    free(text);
    free(path);
}

static void test_import_command_form_with_spaces(void **state)
{
    struct env *e = *state;
    const char *fmt =
        "[{\"directory\": \"%s\", \"file\": \"%s/sub dir/scale kernel.c\","
        "  \"command\": \"clang -O3 -DLABEL=\\\\\\\"a\\\\ b\\\\\\\" -c \\\"sub dir/scale kernel.c\\\" "
        "-o 'out dir/scale kernel.o'\"}]";
    char *text = xasprintf(fmt, e->proj, e->proj);
    char *path = write_compdb(e, "cmd.json", text);
    assert_int_equal(compdb_import(e->st, path), 1);
    size_t n;
    struct compile_row *rows = store_list_compiles(e->st, &n);
    assert_int_equal(n, 1);
    const char *want[] = {"clang", "-O3", "-DLABEL=\"a b\"", "-c", "sub dir/scale kernel.c", "-o",
                          "out dir/scale kernel.o", NULL};
    for (size_t i = 0; want[i]; i++) assert_string_equal(rows[0].argv[i], want[i]);
    assert_null(rows[0].argv[7]);
    char *src = path_join(e->proj, "sub dir/scale kernel.c");
    char *out = path_join(e->proj, "out dir/scale kernel.o");
    assert_string_equal(rows[0].source, src);
    assert_string_equal(rows[0].output, out);
    assert_string_equal(rows[0].compiler_kind, "clang");
    compile_rows_free(rows, n);
    free(src);
    free(out);
    free(text);
    free(path);
}

static void test_import_drops_launcher(void **state)
{
    struct env *e = *state;
    char *text = xasprintf("[{\"directory\": \"%s\", \"file\": \"sum.c\","
                           " \"command\": \"/usr/bin/ccache gcc -O2 -c sum.c -o sum.o\"}]", e->proj);
    char *path = write_compdb(e, "ccache.json", text);
    assert_int_equal(compdb_import(e->st, path), 1);
    size_t n;
    struct compile_row *rows = store_list_compiles(e->st, &n);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].argv[0], "gcc");
    assert_string_equal(rows[0].compiler_kind, "gcc");
    compile_rows_free(rows, n);
    free(text);
    free(path);
}

/* @FILE response files are read from the entry's directory (nested ones
 * too, quotes honoured), so the stored argv is complete: its -o, -O level
 * and macros are seen. The same expander serves the wrapper. */
static void test_import_expands_response_files(void **state)
{
    struct env *e = *state;
    char *rsp = path_join(e->proj, "flags.rsp");
    char *inner = path_join(e->proj, "more.rsp");
    const char *rsp_text = "-O3 \"-DLABEL=a b\"\n@more.rsp\n";
    const char *inner_text = "-o 'obj dir/sum.o'\n";
    assert_int_equal(write_file_atomic(rsp, rsp_text, strlen(rsp_text)), 0);
    assert_int_equal(write_file_atomic(inner, inner_text, strlen(inner_text)), 0);
    char *text = xasprintf("[{\"directory\": \"%s\", \"file\": \"sum.c\","
                           " \"command\": \"gcc @flags.rsp -c sum.c\"}]", e->proj);
    char *path = write_compdb(e, "rsp.json", text);
    assert_int_equal(compdb_import(e->st, path), 1);
    size_t n;
    struct compile_row *rows = store_list_compiles(e->st, &n);
    assert_int_equal(n, 1);
    const char *want[] = {"gcc", "-O3", "-DLABEL=a b", "-o", "obj dir/sum.o", "-c", "sum.c", NULL};
    for (size_t i = 0; want[i]; i++) assert_string_equal(rows[0].argv[i], want[i]);
    assert_null(rows[0].argv[7]);
    char *out = path_join(e->proj, "obj dir/sum.o");
    assert_string_equal(rows[0].output, out);
    compile_rows_free(rows, n);
    free(out);
    free(text);
    free(path);

    /* An unreadable one stays as written (the compiler will complain). */
    struct strvec got = STRVEC_INIT;
    char *argv[] = {"gcc", "@missing.rsp", "@flags.rsp", "-c", "a.c", NULL};
    assert_int_equal(compdb_expand_response_files(argv, e->proj, &got), 1);
    const char *want2[] = {"gcc", "@missing.rsp", "-O3", "-DLABEL=a b", "-o", "obj dir/sum.o", "-c", "a.c", NULL};
    assert_int_equal(got.n, 8);
    for (size_t i = 0; want2[i]; i++) assert_string_equal(got.v[i], want2[i]);
    sv_free(&got);
    /* argv[0] is never a response file. */
    char *argv0[] = {"@flags.rsp", NULL};
    assert_int_equal(compdb_expand_response_files(argv0, e->proj, &got), 0);
    assert_int_equal(got.n, 1);
    assert_string_equal(got.v[0], "@flags.rsp");
    sv_free(&got);
    free(rsp);
    free(inner);
}

/* The database CMake itself writes for the fixture project. */
static void test_import_cmake_generated(void **state)
{
    struct env *e = *state;
    if (!have_program("cmake")) {
        skip();
    }
    char *build = path_join(e->tmp, "cmake build");
    char *argv[] = {"cmake", "-S", e->proj, "-B", build, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                    "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_COMPILER=gcc", "-DCMAKE_CXX_COMPILER=g++", NULL};
    struct run_opts o = {.capture_stdout = 1, .capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(argv, &o, &r);
    if (rc != 0) fprintf(stderr, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
    run_result_free(&r);
    assert_int_equal(rc, 0);
    char *db = path_join(build, "compile_commands.json");
    assert_int_equal(compdb_import(e->st, db), 4);
    size_t n;
    struct compile_row *rows = store_list_compiles(e->st, &n);
    assert_int_equal(n, 4);
    int c = 0, cxx = 0, spaced = 0;
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rows[i].directory, build);
        assert_string_equal(rows[i].compiler_kind, "gcc");
        assert_non_null(rows[i].source_hash);   /* the source was found and read */
        char *rel = path_relative_to(rows[i].output, build);   /* CMake's objects live in the build dir */
        assert_non_null(rel);
        free(rel);
        c += !strcmp(rows[i].language, "c");
        cxx += !strcmp(rows[i].language, "c++");
        spaced += !strcmp(path_basename(rows[i].source), "scale kernel.c");
    }
    assert_int_equal(c, 3);
    assert_int_equal(cxx, 1);
    assert_int_equal(spaced, 1);
    compile_rows_free(rows, n);
    free(db);
    free(build);
}

/* Runs compdb_import on text expecting one error line that names the file
 * and contains `needle`, and nothing stored. */
static void expect_import_error(struct env *e, const char *text, const char *needle)
{
    char *path = write_compdb(e, "bad.json", text);
    struct stderr_capture cap;
    stderr_capture_begin(&cap);
    int rc = compdb_import(e->st, path);
    char *err = stderr_capture_end(&cap);
    assert_int_equal(rc, -1);
    char *prefix = xasprintf("fmvgen: %s: ", path);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || count_lines(err) != 1 || !strstr(err, needle))
        fail_msg("error [%s] is not one line starting [%s] and containing [%s]", err, prefix, needle);
    assert_int_equal(compiles(e), 0);
    free(prefix);
    free(err);
    free(path);
}

static void test_bad_json_and_wrong_shape(void **state)
{
    struct env *e = *state;
    expect_import_error(e, "[{\"directory\": \"/x\", ", "not valid JSON");
    expect_import_error(e, "{\"directory\": \"/x\"}", "JSON array");
    expect_import_error(e, "[42]", "entry 1");
    char *ok = xasprintf("{\"directory\": \"%s\", \"file\": \"sum.c\", \"arguments\": [\"gcc\", \"-c\", \"sum.c\"]}",
                         e->proj);
    /* A good entry before a bad one is not stored either. */
    char *t = xasprintf("[%s, {\"directory\": \"/x\", \"arguments\": [\"gcc\", \"-c\", \"a.c\"]}]", ok);
    expect_import_error(e, t, "entry 2: missing string \"file\"");
    free(t);
    t = xasprintf("[%s, {\"directory\": \"/x\", \"file\": \"a.c\", \"arguments\": [\"gcc\", 3]}]", ok);
    expect_import_error(e, t, "entry 2: \"arguments\" is not an array of strings");
    free(t);
    t = xasprintf("[{\"directory\": \"/x\", \"file\": \"a.c\", \"command\": \"gcc -c 'a.c\"}]");
    expect_import_error(e, t, "unterminated quote");
    free(t);
    t = xasprintf("[{\"directory\": \"/x\", \"file\": \"a.c\"}]");
    expect_import_error(e, t, "\"arguments\" or \"command\"");
    free(t);
    free(ok);
    char *missing = path_join(e->tmp, "no such.json");
    struct stderr_capture cap;
    stderr_capture_begin(&cap);
    assert_int_equal(compdb_import(e->st, missing), -1);
    char *err = stderr_capture_end(&cap);
    assert_non_null(strstr(err, missing));
    assert_int_equal(count_lines(err), 1);
    free(err);
    free(missing);
}

static void test_compiler_not_gcc_or_clang(void **state)
{
    struct env *e = *state;
    /* A compiler that answers --version like neither GCC nor Clang. */
    char *fake = path_join(e->tmp, "fakecc");
    const char *script = "#!/bin/sh\necho 'FakeCC version 1.0'\nexit 0\n";
    assert_int_equal(write_file_atomic(fake, script, strlen(script)), 0);
    chmod(fake, 0755);
    char *t = xasprintf("[{\"directory\": \"%s\", \"file\": \"sum.c\", \"arguments\": [\"gcc\", \"-c\", \"sum.c\"]},"
                        " {\"directory\": \"%s\", \"file\": \"dot.c\", \"arguments\": [\"%s\", \"-c\", \"dot.c\"]}]",
                        e->proj, e->proj, fake);
    char *needle = xasprintf("compiler %s is not usable: %s: not GCC or Clang", fake, fake);
    expect_import_error(e, t, needle);
    free(needle);
    free(t);
    /* A compiler that does not exist at all. */
    t = xasprintf("[{\"directory\": \"%s\", \"file\": \"sum.c\", \"arguments\": [\"no-such-cc\", \"-c\", \"sum.c\"]}]",
                  e->proj);
    expect_import_error(e, t, "compiler no-such-cc is not usable: no-such-cc: compiler not found");
    free(t);
    free(fake);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_whitespace_and_quotes),
        cmocka_unit_test(test_split_rejects_unterminated),
        cmocka_unit_test_setup_teardown(test_import_arguments_form, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_command_form_with_spaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_drops_launcher, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_expands_response_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_cmake_generated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_json_and_wrong_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compiler_not_gcc_or_clang, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
