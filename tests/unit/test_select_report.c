/* Unit tests of what select's report says about code size and the
 * -march=x86-64-v3 reference: select_measure_code on builds of the
 * select-code fixture compiled here by gcc (baseline, all candidates, the
 * selected one, -march=x86-64-v3, and a "reference" that ignored its flags),
 * the reference build's flags from the scan's compiles, and the writers'
 * new fields (report.md, report.json, report.html, the summary). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "patch/plan.h"
#include "store/store.h"
#include "run/spawn.h"
#include "select/codecost.h"
#include "select/reference.h"
#include "select/report.h"
#include "util/util.h"

/* dir/NAME/prog built from the fixture with gcc -O3 and the given flags. */
static char *build(const char *dir, const char *name, const char *f1, const char *f2)
{
    char *sub = path_join(dir, name);
    mkdir_p(sub, 0755);
    char *prog = path_join(sub, "prog");
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, "gcc");
    sv_push(&argv, "-O3");
    if (f1) sv_push(&argv, f1);
    if (f2) sv_push(&argv, f2);
    sv_push(&argv, FIXTURES_DIR "/select-code/k.c");
    sv_push(&argv, "-o");
    sv_push(&argv, prog);
    struct run_opts o = {.capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(sv_argv(&argv), &o, &r);
    if (rc) fprintf(stderr, "gcc failed: %s\n", r.err ? r.err : "");
    assert_int_equal(rc, 0);
    run_result_free(&r);
    sv_free(&argv);
    free(prog);
    return sub;
}

/* A report shaped as select fills it: baseline + two target sets, dot
 * selected with the first, scale not. */
static void make_report(struct select_report *r)
{
    memset(r, 0, sizeof *r);
    r->runs = 3;
    r->tolerance = -1;
    r->min_share = 0.02;
    r->n_builds = 5;
    r->n_variants = 3;
    r->variants = xcalloc(3, sizeof *r->variants);
    const char *names[] = {"baseline", "fma-levels", "fma-free"}, *targets[] = {"", "arch=x86-64-v3", "avx2"};
    for (int v = 0; v < 3; v++) {
        r->variants[v].name = xstrdup(names[v]);
        r->variants[v].targets = xstrdup(targets[v]);
        r->variants[v].built = 1;
        r->variants[v].eligible = v > 0;
        r->variants[v].output_match = xstrdup("identical");
    }
    r->n_functions = 2;
    r->functions = xcalloc(2, sizeof *r->functions);
    const char *fns[] = {"dot", "scale"};
    for (int f = 0; f < 2; f++) {
        r->functions[f].name = xstrdup(fns[f]);
        r->functions[f].display_name = xstrdup(fns[f]);
        r->functions[f].file = xstrdup("k.c");
        r->functions[f].line = 10 + f;
        r->functions[f].ran = xcalloc(4, sizeof(char *));
    }
    r->functions[0].in_patch = 1;
    r->functions[0].set = 1;
    r->decision.n_functions = 2;
    r->decision.n_variants = 3;
    r->decision.functions = xcalloc(2, sizeof *r->decision.functions);
    double base[] = {100, 104, 96}, fast[] = {50, 52, 48}, same[] = {101, 103, 97};
    for (int f = 0; f < 2; f++) {
        struct decision_function *d = &r->decision.functions[f];
        d->chosen = f == 0 ? 1 : -1;
        d->share = f == 0 ? 0.9 : 0.01;
        d->base_samples = 100;
        d->by_variant = xcalloc(3, sizeof *d->by_variant);
        for (int v = 1; v < 3; v++) stats_welch(base, 3, f == 0 && v == 1 ? fast : same, 3, &d->by_variant[v]);
    }
    r->n_selected = 1;
    r->patch_targets = xstrdup("arch=x86-64-v3");
    r->n_workloads = 1;
    r->workloads = xcalloc(1, sizeof *r->workloads);
    r->workloads[0].command = xstrdup("./prog 100000");
    double tb[] = {1.0, 1.02, 0.98}, ts[] = {0.6, 0.61, 0.59}, tm[] = {0.50, 0.505, 0.495};
    stats_welch_log(tb, 3, ts, 3, &r->workloads[0].e2e);
    r->workloads[0].timed = 1;
    stats_welch_log(tb, 3, tm, 3, &r->workloads[0].march_e2e);
    stats_welch_log(tm, 3, ts, 3, &r->workloads[0].selected_vs_march);
    r->workloads[0].march_timed = 1;
}

struct builds {
    char *dir, *base, *all, *all2, *sel, *march, *same;
};

static void make_builds(struct builds *b)
{
    b->dir = make_temp_dir("test-select-report");
    b->base = build(b->dir, "baseline", NULL, NULL);
    b->all = build(b->dir, "fma-levels", "-DCLONE_DOT", "-DCLONE_SCALE");
    b->all2 = build(b->dir, "fma-free", "-DCLONE_DOT", "-DCLONE_SCALE");
    b->sel = build(b->dir, "selected", "-DCLONE_DOT", NULL);
    b->march = build(b->dir, "march", "-march=x86-64-v3", NULL);
    b->same = build(b->dir, "ignored", NULL, NULL);   /* a reference that ignored its flags */
}

static void builds_free(struct builds *b)
{
    remove_tree(b->dir);
    free(b->dir);
    free(b->base);
    free(b->all);
    free(b->all2);
    free(b->sel);
    free(b->march);
    free(b->same);
}

static void test_measure_code(void **state)
{
    (void)state;
    struct builds b;
    make_builds(&b);
    struct select_report r;
    make_report(&r);
    const char *variants[] = {b.base, b.all, b.all2};
    struct select_build_dirs dirs = {.variants = variants, .selected = b.sel, .march = b.march};
    r.march.attempted = r.march.built = 1;
    select_measure_code(&r, &dirs);

    /* every build measured, one file each */
    for (int v = 0; v < 3; v++) {
        assert_true(r.variants[v].code.measured);
        assert_int_equal(r.variants[v].code.n_files, 1);
    }
    assert_true(r.selected_code.measured);
    assert_true(r.march.code.measured);
    assert_null(r.march.failure);
    assert_int_equal(r.variants[0].code.clone_bytes, 0);

    /* bytes added per function: dot in the all-candidates and the selected
     * builds (the same clones), scale only in the all-candidates ones */
    const struct select_function *dot = &r.functions[0], *scale = &r.functions[1];
    assert_non_null(dot->bytes_added);
    assert_int_equal(dot->bytes_added[0], -1);
    assert_true(dot->bytes_added[1] > 0);
    assert_int_equal(dot->bytes_added[3], dot->bytes_added[1]);
    assert_true(scale->bytes_added[1] > 0);
    assert_int_equal(scale->bytes_added[3], -1);
    /* the same numbers elf/codesize gives for the file */
    struct code_size cs;
    assert_int_equal(code_size_of_dir(b.all, &cs), 0);
    assert_int_equal(dot->bytes_added[1], (int64_t)code_size_added(code_size_find(&cs, "dot")));
    assert_int_equal(r.variants[1].code.code_bytes, cs.code_bytes);
    code_size_free(&cs);

    /* growth: selected < all candidates; clones account for it */
    int64_t g_sel = select_code_growth(&r, &r.selected_code), g_all = select_code_growth(&r, &r.variants[1].code);
    assert_true(g_sel > 0);
    assert_true(g_sel < g_all);
    assert_true(select_code_growth_percent(&r, &r.selected_code) > 0);
    assert_int_equal(select_code_growth(&r, &r.variants[0].code), 0);

    /* report.json */
    json_t *j = select_report_json(&r);
    json_t *fj = json_array_get(json_object_get(j, "functions"), 0);
    assert_int_equal(json_integer_value(json_object_get(fj, "bytes_added_all_candidates")), dot->bytes_added[1]);
    assert_string_equal(json_string_value(json_object_get(fj, "bytes_added_all_candidates_set")), "fma-levels");
    assert_int_equal(json_integer_value(json_object_get(fj, "bytes_added_selected")), dot->bytes_added[3]);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(fj, "bytes_added"), "fma-free")),
                     dot->bytes_added[2]);
    json_t *sj = json_array_get(json_object_get(j, "functions"), 1);
    assert_true(json_is_null(json_object_get(sj, "bytes_added_selected")));
    json_t *code = json_object_get(j, "code_size");
    assert_non_null(strstr(json_string_value(json_object_get(code, "counted")), ".text"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(code, "selected"), "growth_bytes")), g_sel);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(code, "all_candidates"), "fma-levels"), "growth_bytes")),
                     g_all);
    double ratio = json_real_value(json_object_get(json_object_get(code, "selected_growth_vs_all_candidates"),
                                                   "fma-levels"));
    assert_true(fabs(ratio - (double)g_sel / (double)g_all) < 1e-9);
    json_t *mj = json_object_get(code, "march_x86_64_v3");
    assert_int_equal(json_integer_value(json_object_get(mj, "hwcaps_extra_bytes")), r.march.code.code_bytes);
    assert_true(json_is_null(json_object_get(mj, "failure")));
    json_t *wj = json_array_get(json_object_get(j, "workloads"), 0);
    assert_true(json_real_value(json_object_get(json_object_get(wj, "march_x86_64_v3"), "speedup")) > 1.5);
    assert_true(json_real_value(json_object_get(json_object_get(wj, "selected_vs_march_x86_64_v3"), "speedup")) < 1);
    json_t *vj = json_array_get(json_object_get(j, "variants"), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(vj, "code"), "code_bytes")),
                     r.variants[1].code.code_bytes);
    json_decref(j);

    /* report.md: the per-function column, the code table and the sentences */
    char *md = select_report_markdown(&r);
    char *expect = xasprintf(" in fma-levels, ");
    assert_non_null(strstr(md, "| bytes added |"));
    assert_non_null(strstr(md, expect));
    assert_non_null(strstr(md, " selected |"));
    assert_non_null(strstr(md, "## Code size"));
    assert_non_null(strstr(md, "non-default clones + its resolver"));
    assert_non_null(strstr(md, "| selected | 1 | "));
    assert_non_null(strstr(md, "| -march=x86-64-v3 (whole program, unpatched) | 1 | "));
    assert_non_null(strstr(md, "the selection keeps"));
    assert_non_null(strstr(md, "glibc-hwcaps packaging would ship"));
    assert_non_null(strstr(md, "| -march=x86-64-v3 vs baseline | selected vs -march=x86-64-v3 |"));
    /* the reference ran 0.50 s against the selected 0.60 s, tightly */
    assert_non_null(strstr(md, "On `./prog 100000` the -march=x86-64-v3 build is significantly faster: the "
                               "selection reaches 83% of its speed"));
    free(expect);
    free(md);

    /* report.html: the code-growth chart, the bytes on dot's bar */
    char *html = select_report_html(&r);
    assert_non_null(strstr(html, "<h2>Code growth</h2>"));
    assert_non_null(strstr(html, ">selected</text><rect"));
    assert_non_null(strstr(html, "x selected, +"));
    free(html);

    /* the summary */
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "code growth: selected +"));
    assert_non_null(strstr(sum, "all candidates fma-levels +"));
    assert_non_null(strstr(sum, "-march=x86-64-v3 build beside the baseline (hwcaps) +"));
    assert_non_null(strstr(sum, "selected vs it"));
    assert_non_null(strstr(sum, "; bytes added: "));
    free(sum);
    select_report_free(&r);

    /* a reference whose code equals the baseline's ignored its flags: no
     * comparison, and the writers say why */
    make_report(&r);
    struct select_build_dirs dirs2 = {.variants = variants, .selected = b.sel, .march = b.same};
    r.march.attempted = r.march.built = 1;
    r.march.cflags = xstrdup("-O3 -march=x86-64-v3");
    select_measure_code(&r, &dirs2);
    assert_non_null(r.march.failure);
    assert_non_null(strstr(r.march.failure, "identical to the baseline's"));
    md = select_report_markdown(&r);
    assert_null(strstr(md, "glibc-hwcaps packaging would ship"));
    assert_non_null(strstr(md, "CFLAGS='-O3 -march=x86-64-v3'"));
    assert_non_null(strstr(md, "no comparison: its code is identical"));
    free(md);
    j = select_report_json(&r);
    mj = json_object_get(json_object_get(j, "code_size"), "march_x86_64_v3");
    assert_true(json_is_null(json_object_get(mj, "hwcaps_extra_bytes")));
    assert_non_null(json_string_value(json_object_get(mj, "failure")));
    json_decref(j);
    select_report_free(&r);
    builds_free(&b);
}

static void test_unmeasured(void **state)
{
    (void)state;
    /* nothing measured (a build failed early): the writers leave the code
     * out instead of printing zeros */
    struct select_report r;
    make_report(&r);
    r.workloads[0].march_timed = 0;
    char *md = select_report_markdown(&r);
    json_t *j;
    assert_non_null(strstr(md, "could not be measured"));
    assert_null(strstr(md, "-march=x86-64-v3 vs baseline"));
    free(md);
    j = select_report_json(&r);
    json_t *fj = json_array_get(json_object_get(j, "functions"), 0);
    assert_true(json_is_null(json_object_get(fj, "bytes_added_all_candidates")));
    assert_true(json_is_null(json_object_get(json_object_get(j, "code_size"), "selected")));
    json_decref(j);
    char *sum = select_report_summary(&r);
    assert_null(strstr(sum, "code growth"));
    free(sum);
    char *html = select_report_html(&r);
    assert_null(strstr(html, "Code growth"));
    free(html);
    /* a directory without linked files: measured, zero files, and a
     * reference build without files is no comparison */
    char *empty = make_temp_dir("test-select-report");
    const char *variants[] = {empty, NULL, NULL};
    struct select_build_dirs dirs = {.variants = variants, .march = empty};
    select_measure_code(&r, &dirs);
    assert_true(r.variants[0].code.measured);
    assert_int_equal(r.variants[0].code.n_files, 0);
    assert_false(r.variants[1].code.measured);
    assert_non_null(r.march.failure);
    assert_non_null(strstr(r.march.failure, "no linked"));
    assert_int_equal(r.functions[0].bytes_added[0], -1);
    select_report_free(&r);

    /* --static: only the all-candidates build; no growth without a baseline,
     * the selected functions' bytes summed */
    struct builds b;
    make_builds(&b);
    make_report(&r);
    r.static_mode = 1;
    r.variants[0].built = 0;
    const char *only_all[] = {NULL, b.all, NULL};
    struct select_build_dirs sd = {.variants = only_all};
    select_measure_code(&r, &sd);
    assert_false(r.variants[0].code.measured);
    assert_true(r.variants[1].code.measured);
    assert_true(r.functions[0].bytes_added[1] > 0);
    md = select_report_markdown(&r);
    long long n = r.functions[0].bytes_added[1];   /* written with a thousands comma */
    char *expect = n >= 1000 ? xasprintf("share of them: %lld,%03lld bytes", n / 1000, n % 1000)
                             : xasprintf("share of them: %lld bytes", n);
    assert_non_null(strstr(md, "Only the all-candidates build was made (--static)"));
    assert_non_null(strstr(md, expect));
    free(expect);
    free(md);
    j = select_report_json(&r);
    json_t *all = json_object_get(json_object_get(json_object_get(j, "code_size"), "all_candidates"), "fma-levels");
    assert_non_null(json_object_get(all, "code_bytes"));
    assert_null(json_object_get(all, "growth_bytes"));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "functions"), 0),
                                                        "bytes_added_all_candidates")),
                     r.functions[0].bytes_added[1]);
    json_decref(j);
    select_report_free(&r);
    builds_free(&b);
    remove_tree(empty);
    free(empty);
}

static void test_reference_flags(void **state)
{
    (void)state;
    char *a1[] = {"gcc", "-O3", "-g", "-Wall", "-Iinclude", "-DNDEBUG", "-DNAME=\"x y\"", "-march=native",
                  "-fno-strict-aliasing", "-c", "a.c", "-o", "a.o", "-MD", "-MF", "a.d", NULL};
    char *a2[] = {"gcc", "-c", "-O3", "-fno-strict-aliasing", "-Iinclude", "-g", "-DNDEBUG", "-DNAME=\"x y\"",
                  "-march=native", "b.c", "-o", "b.o", NULL};
    char *a3[] = {"gcc", "-O3", "-Iinclude", "-fno-strict-aliasing", "-DNDEBUG", "-g", "-std=c11", "c.c", NULL};
    char **const argvs[] = {a1, a2, a3};
    char *flags = select_reference_flags_of(argvs, 3);
    /* shared by all three, in the first's order; no -Wall (not in every
     * compile... nor a code flag), no quoted define, no -march of its own */
    assert_string_equal(flags, "-O3 -g -Iinclude -DNDEBUG -fno-strict-aliasing -march=x86-64-v3");
    free(flags);
    flags = select_reference_flags_of(argvs, 1);
    assert_string_equal(flags, "-O3 -g -Iinclude -DNDEBUG -fno-strict-aliasing -march=x86-64-v3");
    free(flags);
    flags = select_reference_flags_of(NULL, 0);
    assert_string_equal(flags, "-march=x86-64-v3");
    free(flags);
}

static void add_compile(struct store *st, const char *dir, const char *source, const char *lang, char *const *argv)
{
    struct compile_info ci = {.directory = dir, .argv = argv, .compiler = "/usr/bin/gcc", .compiler_kind = "gcc",
                              .compiler_version = "12.2.0", .source = source, .language = lang};
    char *out = xasprintf("%s.o", source);
    ci.output = out;
    assert_true(store_add_compile(st, &ci) > 0);
    free(out);
}

/* The reference's flags and its "rewrite every source" plan, from a store
 * filled the way scan fills it. */
static void test_reference_store(void **state)
{
    (void)state;
    char *root = make_temp_dir("test-select-report");
    struct store *st = NULL;
    assert_int_equal(store_open(root, 1, &st), 0);
    char *sub = path_join(root, "sub");
    mkdir_p(sub, 0755);
    char *a = path_join(root, "a.c"), *b = path_join(root, "sub/b.cc"), *gone = path_join(root, "gone.c");
    assert_int_equal(write_file_atomic(a, "int a;\n", 7), 0);
    assert_int_equal(write_file_atomic(b, "int b;\n", 7), 0);
    char *c1[] = {"gcc", "-O2", "-g", "-c", "a.c", NULL};
    char *c2[] = {"g++", "-O3", "-std=c++17", "-c", "sub/b.cc", NULL};
    char *c3[] = {"gcc", "-O2", "-c", "/usr/share/x.c", NULL};
    add_compile(st, root, a, "c", c1);
    add_compile(st, root, b, "c++", c2);
    add_compile(st, "/usr/share", "/usr/share/x.c", "c", c3);   /* outside the root */

    char *cf = select_reference_flags(st, "c"), *cxf = select_reference_flags(st, "c++");
    assert_string_equal(cf, "-O2 -march=x86-64-v3");
    assert_string_equal(cxf, "-O3 -std=c++17 -march=x86-64-v3");
    free(cf);
    free(cxf);

    struct patch_plan plan;
    assert_int_equal(select_reference_plan(st, root, &plan), 0);
    assert_int_equal(plan.nfiles, 2);
    assert_string_equal(plan.files[0].rel, "a.c");
    assert_string_equal(plan.files[1].rel, "sub/b.cc");
    assert_int_equal(plan.files[1].new_len, 7);
    assert_memory_equal(plan.files[1].new_data, "int b;\n", 7);
    assert_int_equal(plan.nfunctions, 0);
    patch_plan_free(&plan);

    /* a source gone since the scan: one error, no plan */
    char *c4[] = {"gcc", "-O2", "-c", "gone.c", NULL};
    add_compile(st, root, gone, "c", c4);
    fmv_set_quiet(1);
    assert_int_equal(select_reference_plan(st, root, &plan), -1);
    fmv_set_quiet(0);
    patch_plan_free(&plan);

    store_close(st);
    remove_tree(root);
    free(root);
    free(sub);
    free(a);
    free(b);
    free(gone);
}

static void test_reference_env(void **state)
{
    (void)state;
    setenv("CFLAGS", "-O1", 1);
    unsetenv("CXXFLAGS");
    struct select_reference_env saved;
    select_reference_env_apply("-O3 -march=x86-64-v3", "-O2 -march=x86-64-v3", &saved);
    assert_string_equal(getenv("CFLAGS"), "-O3 -march=x86-64-v3");
    assert_string_equal(getenv("CXXFLAGS"), "-O2 -march=x86-64-v3");
    /* a child sees them */
    char *const argv[] = {"/bin/sh", "-c", "printf '%s|%s' \"$CFLAGS\" \"$CXXFLAGS\"", NULL};
    struct run_opts o = {.capture_stdout = 1};
    struct run_result r;
    assert_int_equal(run_argv(argv, &o, &r), 0);
    assert_string_equal(r.out, "-O3 -march=x86-64-v3|-O2 -march=x86-64-v3");
    run_result_free(&r);
    select_reference_env_restore(&saved);
    assert_string_equal(getenv("CFLAGS"), "-O1");
    assert_null(getenv("CXXFLAGS"));
    /* NULL leaves a variable alone */
    select_reference_env_apply(NULL, "-march=x86-64-v3", &saved);
    assert_string_equal(getenv("CFLAGS"), "-O1");
    select_reference_env_restore(&saved);
    assert_null(getenv("CXXFLAGS"));
    unsetenv("CFLAGS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measure_code),
        cmocka_unit_test(test_unmeasured),
        cmocka_unit_test(test_reference_flags),
        cmocka_unit_test(test_reference_env),
        cmocka_unit_test(test_reference_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
