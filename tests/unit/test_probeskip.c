/* Unit tests of the target probe's skip of TUs whose code cannot differ
 * (lib/capture/probeskip.h, probe_request.skip_codeless), with gcc, clang
 * and clang-19 (when installed): a data table whose object defines no
 * function is not probed and gets a 'probe-skipped' note (both of
 * libtool's twins), through a quoted include and a system header; a data
 * table with code under #ifdef __AVX2__, one whose included header
 * derives a macro from __FMA__, one with code under
 * __has_builtin(__builtin_ia32_pdep_si), a source with a function, and an
 * -flto compile of the table are probed; and nothing is left out without the
 * wrapper's kept copies of the objects (a compile database's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>

#include "capture/compdb.h"
#include "capture/probe.h"
#include "capture/scaninfo.h"
#include "capture/wrapper.h"
#include "test_probe_helpers.h"

struct toolchain {
    const char *cc, *kind;
};
static const struct toolchain TOOLCHAINS[] = {{"gcc", "gcc"}, {"clang", "clang"}, {"clang-19", "clang"}};

struct tu {
    const char *file, *output;
    const char *flags[4];
};
static const struct tu TUS[] = {
    {"table.c", "obj/.libs/table.o", {"-O2", "-fPIC", "-DPIC"}},
    {"table.c", "obj/table.o", {"-O2"}},
    {"avxtable.c", "obj/avxtable.o", {"-O2"}},
    {"hdrtable.c", "obj/hdrtable.o", {"-O2", "-Iinc"}},
    {"code.c", "obj/code.o", {"-O2"}},
    {"hbtable.c", "obj/hbtable.o", {"-O2"}},
    {"table.c", "obj/table-lto.o", {"-O2", "-flto"}},
};
#define NTUS (sizeof TUS / sizeof *TUS)

static const struct {
    const char *path, *text;
} FILES[] = {
    {"table.c", "#include <stddef.h>\n#include \"values.h\"\nconst float table[4] = {VALUES};\n"
                "const size_t table_len = 4;\n"},
    {"values.h", "/* no ISA macro here */\n#define VALUES 1.0f, 2.0f, 3.0f, 4.0f\n"},
    {"avxtable.c", "const float t2[2] = {1, 2};\n#ifdef __AVX2__\nint twice(int x) { return 2 * x; }\n#endif\n"},
    {"inc/flags.h", "#if defined(__FMA__)\n#define HAVE_FMA 1\n#endif\n"},
    {"hdrtable.c", "#include <flags.h>\n#ifdef HAVE_FMA\nfloat f(float a, float b) { return a * b + 1; }\n#endif\n"
                   "const int t3[2] = {1, 2};\n"},
    {"code.c", "int add(int a, int b) { return a + b; }\n"},
    /* gcc and clang 19: no function at the baseline, one at the target */
    {"hbtable.c", "const int t4 = 1;\n#if __has_builtin(__builtin_ia32_pdep_si)\nint has_pdep(void) { return 1; }\n"
                  "#endif\n"},
};

static void write_project(const char *dir)
{
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        char *p = path_join(dir, FILES[i].path);
        char *d = path_dirname(p);
        mkdir_p(d, 0755);
        assert_int_equal(write_file_atomic(p, FILES[i].text, strlen(FILES[i].text)), 0);
        free(d);
        free(p);
    }
}

/* The build's own compiles (their objects are what the rule reads), then
 * the compile database of them, imported. */
static void build_and_import(struct store *st, const char *proj, const char *tmp, const struct toolchain *tc)
{
    json_t *db = json_array();
    for (size_t i = 0; i < NTUS; i++) {
        struct strvec argv = STRVEC_INIT;
        sv_push(&argv, tc->cc);
        for (size_t k = 0; k < 4 && TUS[i].flags[k]; k++) sv_push(&argv, TUS[i].flags[k]);
        sv_push(&argv, "-c");
        sv_push(&argv, TUS[i].file);
        sv_push(&argv, "-o");
        sv_push(&argv, TUS[i].output);
        char *out = path_join(proj, TUS[i].output);
        char *outdir = path_dirname(out);
        mkdir_p(outdir, 0755);
        struct run_opts o = {.cwd = proj};
        struct run_result r;
        assert_int_equal(run_argv(sv_argv(&argv), &o, &r), 0);
        if (!(r.exited && r.status == 0)) fail_msg("%s: the build's compile failed", TUS[i].file);
        run_result_free(&r);
        json_t *args = json_array();
        for (size_t k = 0; k < argv.n; k++) json_array_append_new(args, json_string(argv.v[k]));
        json_array_append_new(db, json_pack("{s:s, s:s, s:o}", "directory", proj, "file", TUS[i].file, "arguments", args));
        sv_free(&argv);
        free(outdir);
        free(out);
    }
    char *path = path_join(tmp, "compile_commands.json");
    assert_int_equal(json_dump_file(db, path, JSON_INDENT(2)), 0);
    json_decref(db);
    assert_int_equal(compdb_import(st, path), (int)NTUS);
    free(path);
}

/* Each build object where the wrapper keeps its copy (wrapper.h). */
static void keep_objects(struct store *st)
{
    size_t n = 0;
    struct compile_row *rows = store_list_compiles(st, &n);
    assert_int_equal(n, NTUS);
    for (size_t i = 0; i < n; i++) {
        char *kept = wrapper_kept_object_path(store_path(st), rows[i].source, rows[i].output);
        char *dir = path_dirname(kept);
        mkdir_p(dir, 0755);
        size_t len = 0;
        char *data = read_file(rows[i].output, &len);
        assert_non_null(data);
        assert_int_equal(write_file_atomic(kept, data, len), 0);
        free(data);
        free(dir);
        free(kept);
    }
    compile_rows_free(rows, n);
}

static long long skipped_of(struct store *st, const char *output)
{
    char *sql = xasprintf("SELECT COUNT(*) FROM tu_notes n JOIN compiles c ON c.id = n.compile_id "
                          "WHERE n.kind = 'probe-skipped' AND c.output LIKE '%%/%s' AND n.detail LIKE "
                          "'probe:arch=x86-64-v4: not compiled: %%'",
                          output);
    long long n = query_int(st, sql, NULL);
    free(sql);
    return n;
}

static long long records_of(struct store *st, const char *output)
{
    char *sql = xasprintf("SELECT COUNT(*) FROM record_files r JOIN compiles c ON c.id = r.compile_id "
                          "WHERE r.variant = 'probe:arch=x86-64-v4' AND c.output LIKE '%%/%s'",
                          output);
    long long n = query_int(st, sql, NULL);
    free(sql);
    return n;
}

static void codeless_with(const struct toolchain *tc)
{
    char *tmp = make_temp_dir("test-probeskip");
    char *proj = path_join(tmp, "proj");
    write_project(proj);
    char *storedir = path_join(tmp, "store");
    struct store *st = NULL;
    assert_int_equal(store_open(storedir, 1, &st), 0);
    build_and_import(st, proj, tmp, tc);

    char *v4[] = {"-march=x86-64-v4", NULL};
    struct probe_request req = {.variant = "probe:arch=x86-64-v4", .extra_flags = v4, .share_twins = 1,
                                .skip_codeless = 1};
    /* A compile database's outputs may be stale: without the wrapper's
     * kept objects nothing is left out. */
    assert_int_equal(probe_run(st, &req, 2), 0);
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM tu_notes WHERE kind = 'probe-skipped'", NULL), 0);
    assert_int_equal(records_of(st, TUS[1].output), 1);
    keep_objects(st);
    assert_int_equal(probe_run(st, &req, 2), 0);
    /* the table and its PIC twin: noted, no record file */
    for (size_t i = 0; i < 2; i++) {
        if (skipped_of(st, TUS[i].output) != 1) fail_msg("%s %s: not skipped", tc->cc, TUS[i].output);
        assert_int_equal(records_of(st, TUS[i].output), 0);
    }
    /* code under an ISA macro, in the TU or through a header; code; LTO */
    for (size_t i = 2; i < NTUS; i++) {
        if (skipped_of(st, TUS[i].output) != 0) fail_msg("%s %s: skipped", tc->cc, TUS[i].output);
        assert_int_equal(records_of(st, TUS[i].output), 1);
    }
    assert_int_equal(query_int(st, "SELECT COUNT(*) FROM tu_notes WHERE kind = 'probe-failed'", NULL), 0);
    struct scan_summary sum = {0};
    assert_int_equal(scaninfo_summarize(st, &sum), 0);
    assert_int_equal(sum.probe_skipped, 2);

    /* Without the option every compile is probed. */
    req.skip_codeless = 0;
    assert_int_equal(probe_run(st, &req, 2), 0);
    assert_int_equal(records_of(st, TUS[1].output), 1);

    store_close(st);
    remove_tree(tmp);
    free(storedir);
    free(proj);
    free(tmp);
}

static void test_codeless_tus_not_probed(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof TOOLCHAINS / sizeof *TOOLCHAINS; t++) {
        if (t >= 2 && !have_program(TOOLCHAINS[t].cc)) continue;
        codeless_with(&TOOLCHAINS[t]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codeless_tus_not_probed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
