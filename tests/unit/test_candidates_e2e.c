/* End-to-end tests of lib/candidates: the fixtures under
 * tests/fixtures/candidates-{c,cxx} are compiled at test time by gcc, clang
 * (and clang-19 when installed) with their optimization records (objects
 * and records in a temp dir, never in the source tree), the records are
 * ingested (lib/records), and the analysis must map the names the
 * compilers really wrote to the right definitions: C++ overloads and
 * namespaces, an inlined static helper to its caller, templates. */
#include "test_candidates_helpers.h"

#include <dirent.h>

#include "scan/ingest.h"
#include "run/spawn.h"
#include "test_run_helpers.h"

#define C_DIR FIXTURES_DIR "/candidates-c"
#define CXX_DIR FIXTURES_DIR "/candidates-cxx"

/* The one file of recdir ending in suffix (GCC names it after the output). */
static char *find_record(const char *recdir, const char *suffix)
{
    DIR *d = opendir(recdir);
    assert_non_null(d);
    char *found = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), m = strlen(suffix);
        if (n > m && !strcmp(e->d_name + n - m, suffix)) found = path_join(recdir, e->d_name);
    }
    closedir(d);
    return found;
}

/* Compiles dir/source with compiler and records; stores the compile, its
 * record file, ingests. Returns the compile id. */
static int64_t compile_with_records(struct cand_fixture *f, const char *compiler, const char *kind, const char *dir,
                                    const char *source, const char *language, const char *std)
{
    static int seq;
    char *recdir = xasprintf("%s/rec%d", f->tmp, ++seq);
    assert_int_equal(mkdir_p(recdir, 0755), 0);
    char *obj = xasprintf("%s/out.o", recdir);
    const char *user_argv[] = {compiler, "-O3", std ? std : "-O3", "-c", source, "-o", obj, NULL};
    struct strvec argv = STRVEC_INIT;
    sv_push_all(&argv, (char *const *)user_argv);
    char *yaml = xasprintf("%s/out.opt.yaml", recdir);
    if (!strcmp(kind, "gcc")) {
        sv_push(&argv, "-fsave-optimization-record");
        sv_push(&argv, "-dumpdir");
        sv_pushf(&argv, "%s/", recdir);
    } else {
        sv_push(&argv, "-Xclang");
        sv_push(&argv, "-opt-record-file");
        sv_push(&argv, "-Xclang");
        sv_push(&argv, yaml);
    }
    struct run_opts o = {.cwd = dir, .capture_stderr = 1};
    struct run_result res;
    int rc = run_argv(argv.v, &o, &res);
    if (rc != 0) fail_msg("%s %s failed: %s", compiler, source, res.err ? res.err : "");
    run_result_free(&res);
    sv_free(&argv);

    int64_t id = cand_add_compile(f->st, dir, source, language, kind, user_argv);
    char *rec = !strcmp(kind, "gcc") ? find_record(recdir, ".opt-record.json.gz") : xstrdup(yaml);
    assert_non_null(rec);
    assert_true(store_add_record_file(f->st, id, "build", !strcmp(kind, "gcc") ? "gcc-json" : "clang-yaml", rec) > 0);
    struct ingest_stats is = {0};
    assert_int_equal(records_ingest_pending(f->st, &is), 0);
    free(rec);
    free(yaml);
    free(obj);
    free(recdir);
    return id;
}

static void expect_c_fixture(struct store *st, int64_t id, const char *compiler)
{
    /* The helper's loop is reported in uses_helper, which is the candidate;
     * the static inline helper itself is no row at all. */
    cand_expect(st, id, "uses_helper", NULL);
    cand_expect_insert(st, id, "uses_helper", 20, "void uses_helper(");
    cand_expect(st, id, "uses_header_helper", NULL);
    cand_expect(st, id, "call_sum", NULL);
    cand_expect(st, id, "clean_candidate", NULL);
    struct cand_row r;
    static const char *const NEVER[] = {"scale_helper", "header_helper", "sum_own_line", NULL};
    for (const char *const *n = NEVER; *n; n++) {
        cand_get(st, id, *n, &r);
        if (r.count != 0) fail_msg("%s: %s has a row (inlined into its caller)", compiler, *n);
        cand_row_free(&r);
    }
    cand_expect(st, id, "header_defined", NULL);   /* external, switched per TU (header.h) */
    cand_expect(st, id, "macro_add", "macro");
    cand_expect(st, id, "has_target", "attribute");
    assert_int_equal(cand_count(st, "reason='not-found' OR reason='parse-error'"), 0);
}

static void run_c(void **state, const char *compiler, const char *kind)
{
    struct cand_fixture *f = *state;
    if (!have(compiler)) skip();
    int64_t id = compile_with_records(f, compiler, kind, C_DIR, "rules.c", "c", NULL);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    assert_int_equal(stats.unparsable_tus, 0);
    expect_c_fixture(f->st, id, compiler);
}

static void test_c_gcc(void **state) { run_c(state, "gcc", "gcc"); }
static void test_c_clang(void **state) { run_c(state, "clang", "clang"); }
static void test_c_clang19(void **state) { run_c(state, "clang-19", "clang"); }

/* A plain `gcc -fopt-info-vec` log names no function: each loop maps to
 * the function around its line (an inlined helper's loop to the helper). */
static void test_c_gcc_log(void **state)
{
    struct cand_fixture *f = *state;
    if (!have("gcc")) skip();
    char *obj = xasprintf("%s/rules.o", f->tmp);
    char *log = xasprintf("%s/build.log", f->tmp);
    char *argv[] = {"gcc", "-O3", "-fopt-info-vec", "-c", "rules.c", "-o", obj, NULL};
    struct run_opts o = {.cwd = C_DIR, .capture_stderr = 1};
    struct run_result res;
    assert_int_equal(run_argv(argv, &o, &res), 0);
    assert_int_equal(write_file_atomic(log, res.err ? res.err : "", res.err_len), 0);
    run_result_free(&res);
    struct ingest_stats is = {0};
    assert_int_equal(records_import_log(f->st, log, C_DIR, &is), 0);
    struct analyze_stats stats;
    fmv_set_quiet(1);
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    fmv_set_quiet(0);
    assert_int_equal(stats.unparsable_tus, 0);
    cand_expect(f->st, 0, "clean_candidate", NULL);
    cand_expect_insert(f->st, 0, "clean_candidate", 100, "void clean_candidate(");
    cand_expect(f->st, 0, "sum_own_line", NULL);
    cand_expect(f->st, 0, "scale_helper", "inline");
    cand_expect(f->st, 0, "header_defined", "header");   /* the log compiles kernels.h as its own TU */
    cand_expect(f->st, 0, "macro_add", "macro");
    assert_int_equal(cand_count(f->st, "reason='not-found' OR reason='parse-error'"), 0);
    free(obj);
    free(log);
}

static void expect_cxx_fixture(struct store *st, int64_t id, const char *compiler)
{
    /* Overloads: each symbol maps to its own definition. */
    struct cand_row r;
    cand_get(st, id, "_ZN2ns3addEPfPKfi", &r);
    if (r.count != 1) fail_msg("%s: ns::add(float*) not found", compiler);
    assert_string_equal(r.status, "candidate");
    assert_string_equal(r.display_name, "ns::add(float *, const float *, int)");
    assert_int_equal(r.insert_line, 6);
    cand_row_free(&r);
    cand_get(st, id, "_ZN2ns3addEPdPKdi", &r);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.display_name, "ns::add(double *, const double *, int)");
    assert_int_equal(r.insert_line, 11);
    cand_row_free(&r);
    cand_expect(st, id, "_ZNK2ns6Scaler12out_of_classEPfi", NULL);
    cand_expect_insert(st, id, "_ZNK2ns6Scaler12out_of_classEPfi", 25, "void Scaler::out_of_class(");
    cand_expect_insert(st, id, "_ZN2ns6Scaler13static_memberEPKii", 30, "int\n");
    cand_expect(st, id, "_Z4taddIiEvPT_i", "template");
    cand_expect(st, id, "_Z4taddIfEvPT_i", "template");
    cand_expect(st, id, "_ZNK3VecIiE3sumEv", "template");
    cand_expect(st, id, "_Z15cxx_attr_targetPii", "attribute");
    cand_expect_insert(st, id, "_Z12cxx_attr_hotPii", 91, "[[gnu::hot]]");
    cand_expect(st, id, "c_linkage", NULL);
    /* Inlined into its caller: the caller is the candidate. */
    cand_expect(st, id, "_Z11call_staticPsi", NULL);
    cand_get(st, id, "_ZL16static_prev_linePsi", &r);
    assert_int_equal(r.count, 0);
    cand_row_free(&r);
    assert_int_equal(cand_count(st, "reason='not-found' OR reason='parse-error'"), 0);
}

static void run_cxx(void **state, const char *compiler, const char *kind)
{
    struct cand_fixture *f = *state;
    if (!have(compiler)) skip();
    int64_t id = compile_with_records(f, compiler, kind, CXX_DIR, "rules.cpp", "c++", "-std=c++17");
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    assert_int_equal(stats.unparsable_tus, 0);
    expect_cxx_fixture(f->st, id, compiler);
}

static void test_cxx_gcc(void **state) { run_cxx(state, "g++", "gcc"); }
static void test_cxx_clang(void **state) { run_cxx(state, "clang++", "clang"); }
static void test_cxx_clang19(void **state) { run_cxx(state, "clang++-19", "clang"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_c_gcc, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_c_clang, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_c_clang19, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_c_gcc_log, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_cxx_gcc, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_cxx_clang, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_cxx_clang19, cand_setup, cand_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
