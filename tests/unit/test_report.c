/* Unit tests of lib/report: the data behind `fmvgen list`, from a store
 * filled by hand the way scan and the analysis fill it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "store/store.h"
#include "util/util.h"

struct fixture {
    char *dir;
    struct store *st;
    int64_t tu;
};

static int setup(void **state)
{
    struct fixture *f = xcalloc(1, sizeof *f);
    f->dir = make_temp_dir("test-report");
    assert_non_null(f->dir);
    assert_int_equal(store_open(f->dir, 1, &f->st), 0);
    store_meta_set(f->st, "root", "/proj");
    char *argv[] = {"gcc", "-O2", "-c", "k.c", "-o", "k.o", NULL};
    struct compile_info ci = {.directory = "/proj", .argv = argv, .compiler = "/usr/bin/gcc",
                              .compiler_kind = "gcc", .compiler_version = "12.2.0",
                              .source = "/proj/src/k.c", .output = "/proj/k.o", .language = "c"};
    f->tu = store_add_compile(f->st, &ci);
    assert_true(f->tu > 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    store_close(f->st);
    remove_tree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static void add_loop(struct fixture *f, const char *variant, const char *fn, int line, int bytes)
{
    struct loop_record rec = {.function = (char *)fn, .file = "/proj/src/k.c", .line = line, .column = 5,
                              .kind = LOOP_VECTORIZED, .vector_bytes = bytes, .message = "loop vectorized"};
    assert_int_equal(store_add_loop(f->st, f->tu, variant, &rec), 0);
}

static void add_function(struct fixture *f, const char *name, int line, const char *status, const char *reason)
{
    char *sql = sqlite3_mprintf(
        "INSERT INTO functions(compile_id,name,display_name,file,line,end_line,status,reason,notes)"
        " VALUES(%lld,%Q,%Q,'/proj/src/k.c',%d,%d,%Q,%Q,'[{\"kind\":\"simd-ifdef\",\"detail\":\"__AVX2__\"}]')",
        (long long)f->tu, name, name, line, line + 10, status, reason);
    assert_int_equal(sqlite3_exec(store_db(f->st), sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
}

static void test_widths_build_vs_probe(void **state)
{
    struct fixture *f = *state;
    add_loop(f, "build", "saxpy", 3, 16);
    add_loop(f, "probe:arch=x86-64-v4", "saxpy", 3, 64);
    add_loop(f, "probe:arch=x86-64-v4", "dot", 20, 64);   /* only at the target */
    add_loop(f, "build", "other", 40, 16);                /* another function */
    add_function(f, "saxpy", 1, "candidate", NULL);
    add_function(f, "dot", 18, "candidate", NULL);

    struct report r;
    assert_int_equal(report_load(f->st, &r), 0);
    assert_string_equal(r.probe_variant, "probe:arch=x86-64-v4");
    assert_int_equal(r.ncandidates, 2);
    struct report_function *saxpy = NULL, *dot = NULL;
    for (size_t i = 0; i < r.nfunctions; i++) {
        if (!strcmp(r.functions[i].name, "saxpy")) saxpy = &r.functions[i];
        if (!strcmp(r.functions[i].name, "dot")) dot = &r.functions[i];
    }
    assert_non_null(saxpy);
    assert_non_null(dot);
    assert_string_equal(saxpy->file, "src/k.c");            /* relative to the root */
    assert_int_equal(saxpy->nloops, 1);
    assert_int_equal(saxpy->loops[0].build_bytes, 16);
    assert_int_equal(saxpy->loops[0].target_bytes, 64);
    assert_false(saxpy->only_at_target);
    assert_int_equal(dot->nloops, 1);
    assert_int_equal(dot->loops[0].build_bytes, -1);
    assert_true(dot->only_at_target);
    assert_int_equal(json_array_size(saxpy->notes), 1);
    report_free(&r);
}

static void test_exclusions_and_o3_count(void **state)
{
    struct fixture *f = *state;
    add_loop(f, "build", "main", 3, 16);
    add_function(f, "main", 1, "excluded", "main");
    /* The -O3 probe vectorizes two more positions than the -O2 build. */
    add_loop(f, "probe:O3", "main", 3, 16);
    add_loop(f, "probe:O3", "main", 7, 16);
    add_loop(f, "probe:O3", "main", 9, 32);
    int64_t rf = store_add_record_file(f->st, f->tu, "probe:O3", "gcc-json", "/x");
    store_set_record_file_status(f->st, rf, "read", NULL);
    store_add_tu_note(f->st, f->tu, TU_NOTE_NO_VECTORIZE_FLAG, "-fno-tree-vectorize");

    struct report r;
    assert_int_equal(report_load(f->st, &r), 0);
    assert_int_equal(r.ncandidates, 0);
    assert_int_equal(r.nexcluded, 1);
    assert_string_equal(r.functions[0].reason, "main");
    assert_int_equal(r.ntus, 1);
    assert_int_equal(r.tus[0].o3_extra_loops, 2);
    assert_int_equal(json_array_size(r.tus[0].notes), 1);
    /* the -O3 clause names the TU's own compiler's reason */
    assert_string_equal(r.tus[0].compiler_kind, "gcc");
    assert_int_equal(r.tus[0].compiler_major, 12);
    assert_string_equal(report_o3_reason(&r.tus[0]), "GCC 12's -O2 uses the very-cheap cost model");
    struct report_tu other = {.compiler_kind = "clang", .compiler_major = 19};
    assert_non_null(strstr(report_o3_reason(&other), "clang vectorizes at -O2 too"));
    other = (struct report_tu){.compiler_kind = "gcc", .compiler_major = 10};
    assert_string_equal(report_o3_reason(&other), "GCC before 12 does not vectorize at -O2");

    json_t *j = report_to_json(&r);
    assert_int_equal(json_integer_value(json_object_get(j, "excluded")), 1);
    json_t *fn = json_array_get(json_object_get(j, "functions"), 0);
    assert_string_equal(json_string_value(json_object_get(fn, "reason")), "main");
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "tus"), 0), "compiler")),
                        "gcc");
    json_decref(j);
    report_free(&r);
}

/* One source compiled twice (static and PIC objects): one function in the
 * report with both compiles, loops merged at their widest; a function of
 * another definition stays apart. */
static void test_source_built_twice_is_one_function(void **state)
{
    struct fixture *f = *state;
    add_loop(f, "build", "saxpy", 3, 16);
    add_function(f, "saxpy", 1, "candidate", NULL);
    char *argv[] = {"gcc", "-O2", "-fPIC", "-c", "k.c", "-o", "k.pic.o", NULL};
    struct compile_info ci = {.directory = "/proj", .argv = argv, .compiler = "/usr/bin/gcc",
                              .compiler_kind = "gcc", .compiler_version = "12.2.0",
                              .source = "/proj/src/k.c", .output = "/proj/k.pic.o", .language = "c"};
    int64_t first = f->tu;
    f->tu = store_add_compile(f->st, &ci);
    assert_true(f->tu > 0 && f->tu != first);
    add_loop(f, "build", "saxpy", 3, 32);
    add_loop(f, "build", "saxpy", 5, 16);   /* a position only this compile vectorized */
    add_function(f, "saxpy", 1, "candidate", NULL);
    add_function(f, "saxpy_other", 30, "candidate", NULL);

    struct report r;
    assert_int_equal(report_load(f->st, &r), 0);
    assert_int_equal(r.nfunctions, 2);
    assert_int_equal(r.ncandidates, 2);
    struct report_function *saxpy = !strcmp(r.functions[0].name, "saxpy") ? &r.functions[0] : &r.functions[1];
    assert_string_equal(saxpy->name, "saxpy");
    assert_int_equal(saxpy->ncompiles, 2);
    assert_string_equal(saxpy->outputs[0], "k.o");
    assert_string_equal(saxpy->outputs[1], "k.pic.o");
    assert_int_equal(saxpy->nloops, 2);
    assert_int_equal(saxpy->loops[0].line, 3);
    assert_int_equal(saxpy->loops[0].build_bytes, 32);
    assert_int_equal(saxpy->loops[1].line, 5);
    json_t *j = report_to_json(&r);
    assert_int_equal(json_integer_value(json_object_get(j, "candidates")), 2);
    json_t *fns = json_object_get(j, "functions");
    json_t *fn = json_array_get(fns, saxpy == &r.functions[0] ? 0 : 1);
    assert_int_equal(json_array_size(json_object_get(fn, "outputs")), 2);
    json_decref(j);
    report_free(&r);
}

static void test_empty_store(void **state)
{
    struct fixture *f = *state;
    struct report r;
    assert_int_equal(report_load(f->st, &r), 0);
    assert_int_equal(r.nfunctions, 0);
    assert_null(r.probe_variant);
    assert_int_equal(r.compiles, 1);
    report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_widths_build_vs_probe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exclusions_and_o3_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_built_twice_is_one_function, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_store, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
