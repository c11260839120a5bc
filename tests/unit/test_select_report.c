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
#include <unistd.h>

#include "elf/codesize.h"
#include "patch/plan.h"
#include "store/store.h"
#include "run/spawn.h"
#include "select/assign.h"
#include "select/codecost.h"
#include "select/reference.h"
#include "select/report.h"
#include "test_select_helpers.h"
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
    sel_make_report(&r);
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
    json_t *wj = sel_workload_json(j, 0);
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
    sel_make_report(&r);
    struct select_build_dirs dirs2 = {.variants = variants, .selected = b.sel, .march = b.same};
    r.march.attempted = r.march.built = 1;
    r.march.name = "v3";
    r.march.title = "-march=x86-64-v3";
    r.march.flags = xstrdup("-march=x86-64-v3");
    r.march.via = xstrdup("PATH and CC/CXX");
    r.march.n_sources = r.march.n_flagged = 2;
    select_measure_code(&r, &dirs2);
    assert_non_null(r.march.failure);
    assert_non_null(strstr(r.march.failure, "identical to the baseline's"));
    md = select_report_markdown(&r);
    assert_null(strstr(md, "glibc-hwcaps packaging would ship"));
    assert_non_null(strstr(md, "`-march=x86-64-v3` appended to every compile by fmvgen's compiler wrapper, reached "
                               "through PATH and CC/CXX; 2 of the scan's 2 sources were compiled with them"));
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

/* The end-to-end CPU-time interval is written next to the wall-time one
 * (md column, json end_to_end_cpu, summary), and left out when the runs gave
 * no CPU time (too short to count: invalid). */
static void test_cpu_time_interval(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    double cb[] = {0.80, 0.81, 0.79}, cs[] = {0.40, 0.41, 0.39};
    stats_welch_log(cb, 3, cs, 3, &r.workloads[0].e2e_cpu);
    assert_true(r.workloads[0].e2e_cpu.valid);
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "| workload | speedup [95%] | CPU time speedup [95%] |"));
    assert_non_null(strstr(md, "| `./prog 100000` | 1.67x"));
    assert_non_null(strstr(md, " | 2.00x ["));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *w = sel_workload_json(j, 0);
    assert_true(json_is_object(json_object_get(w, "end_to_end_cpu")));
    assert_string_equal(json_string_value(json_object_get(w, "decided_on")), "wall");
    json_decref(j);
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "(CPU time 2.00x ["));
    assert_null(strstr(sum, "which decides"));
    free(sum);

    /* a busy machine: the CPU time decides, said in every output */
    r.workloads[0].cpu_decides = 1;
    md = select_report_markdown(&r);
    assert_non_null(strstr(md, "] *decides* |"));
    free(md);
    j = select_report_json(&r);
    w = sel_workload_json(j, 0);
    assert_string_equal(json_string_value(json_object_get(w, "decided_on")), "cpu");
    json_decref(j);
    sum = select_report_summary(&r);
    assert_non_null(strstr(sum, ", which decides: a busy machine)"));
    free(sum);
    r.workloads[0].cpu_decides = 0;

    double zero[] = {0, 0, 0};
    stats_welch_log(zero, 3, cs, 3, &r.workloads[0].e2e_cpu);
    assert_false(r.workloads[0].e2e_cpu.valid);
    j = select_report_json(&r);
    w = sel_workload_json(j, 0);
    assert_true(json_is_null(json_object_get(w, "end_to_end_cpu")));
    json_decref(j);
    sum = select_report_summary(&r);
    assert_null(strstr(sum, "CPU time"));
    free(sum);
    select_report_free(&r);
}

/* The cells of a Markdown table row: its '|' not escaped as "\|". */
static size_t md_cells(const char *line, size_t len)
{
    size_t bars = 0;
    for (size_t i = 0; i < len; i++) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    return bars ? bars - 1 : 0;
}

/* A workload command holding a '|' (a shell pipeline) stays in its cell
 * of report.md's end-to-end table: escaped, the row as wide as the
 * header; JSON and HTML keep the command as it is. */
static void test_pipe_in_command(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    free(r.workloads[0].command);
    r.workloads[0].command = xstrdup("./prog 100000 | tee out");
    char *md = select_report_markdown(&r);
    const char *head = strstr(md, "| workload |");
    assert_non_null(head);
    const char *row = strstr(md, "| `./prog 100000 \\| tee out` | ");
    assert_non_null(row);
    assert_int_equal(md_cells(row, strcspn(row, "\n")), md_cells(head, strcspn(head, "\n")));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *w = sel_workload_json(j, 0);
    assert_string_equal(json_string_value(json_object_get(w, "command")), "./prog 100000 | tee out");
    json_decref(j);
    char *html = select_report_html(&r);
    assert_non_null(strstr(html, "./prog 100000 | tee out"));
    free(html);
    select_report_free(&r);
}

/* report.json carries each all-candidates build's interval that
 * report.html charts, by variant name: null for a variant not profiled,
 * null for the whole when nothing was. */
static void test_all_candidates_json(void **state)
{
    (void)state;
    struct select_report r;
    sel_make_report(&r);
    json_t *j = select_report_json(&r);
    json_t *w = sel_workload_json(j, 0);
    assert_non_null(json_object_get(w, "all_candidates"));
    assert_true(json_is_null(json_object_get(w, "all_candidates")));
    json_decref(j);

    double base[] = {1000, 1010, 990}, fast[] = {600, 606, 594};
    r.workloads[0].all_candidates = xcalloc(3, sizeof *r.workloads[0].all_candidates);
    stats_welch_log(base, 3, fast, 3, &r.workloads[0].all_candidates[1]);   /* fma-free not profiled */
    j = select_report_json(&r);
    w = sel_workload_json(j, 0);
    json_t *all = json_object_get(w, "all_candidates");
    assert_int_equal(json_object_size(all), 2);
    json_t *levels = json_object_get(all, "fma-levels");
    assert_true(json_is_true(json_object_get(levels, "valid")));
    double sp = json_real_value(json_object_get(levels, "speedup"));
    assert_true(sp > 1.6 && sp < 1.7);
    assert_true(json_real_value(json_object_get(levels, "speedup_low")) <= sp);
    assert_true(json_real_value(json_object_get(levels, "speedup_high")) >= sp);
    assert_non_null(json_object_get(all, "fma-free"));
    assert_true(json_is_null(json_object_get(all, "fma-free")));
    json_decref(j);
    select_report_free(&r);
}

static void test_unmeasured(void **state)
{
    (void)state;
    /* nothing measured (a build failed early): the writers leave the code
     * out instead of printing zeros */
    struct select_report r;
    sel_make_report(&r);
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
    sel_make_report(&r);
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

    struct patch_plan plan;
    assert_int_equal(select_reference_plan(st, root, &plan), 0);
    assert_int_equal(plan.nfiles, 2);
    assert_string_equal(plan.files[0].rel, "a.c");
    assert_string_equal(plan.files[1].rel, "sub/b.cc");
    assert_int_equal(plan.files[1].new_len, 7);
    assert_memory_equal(plan.files[1].new_data, "int b;\n", 7);
    assert_int_equal(plan.nfunctions, 0);
    patch_plan_free(&plan);

    /* a source gone since the scan (the build deleted it): left out, named */
    char *c4[] = {"gcc", "-O2", "-c", "gone.c", NULL};
    add_compile(st, root, gone, "c", c4);
    assert_int_equal(select_reference_plan(st, root, &plan), 0);
    assert_int_equal(plan.nfiles, 2);
    assert_int_equal(plan.skipped.n, 1);
    assert_string_equal(plan.skipped.v[0], "gone.c: gone since the scan, not rewritten");
    patch_plan_free(&plan);

    /* a source that exists but cannot be read (a directory now): one error */
    mkdir_p(gone, 0755);
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

/* Which of the scan's sources the wrapper's log names: all, some (the
 * first missed named), none, or no log at all. Paths through a link count
 * as the file they name. */
static void test_reference_check(void **state)
{
    (void)state;
    char *root = make_temp_dir("test-select-refcheck");
    char *sub = path_join(root, "sub"), *link = path_join(root, "via-link");
    mkdir_p(sub, 0755);
    assert_int_equal(symlink(sub, link), 0);
    struct patch_plan plan = {0};
    static const char *const rels[] = {"a.c", "sub/b.c", "sub/c.c"};
    plan.files = xcalloc(3, sizeof *plan.files);
    for (size_t i = 0; i < 3; i++) {
        char *p = path_join(root, rels[i]);
        assert_int_equal(write_file_atomic(p, "int x;\n", 7), 0);
        plan.files[plan.nfiles++].rel = xstrdup(rels[i]);
        free(p);
    }
    char *log = path_join(root, "compiles.log");
    char *text = xasprintf("%s/a.c\n%s/b.c\n%s/a.c\n", root, link, root);
    assert_int_equal(write_file_atomic(log, text, strlen(text)), 0);
    struct select_reference_check c;
    select_reference_check(log, root, NULL, &plan, &c);
    assert_int_equal(c.n_sources, 3);
    assert_int_equal(c.n_flagged, 2);   /* a.c once, sub/b.c through the link */
    assert_int_equal(c.missed.n, 1);
    assert_string_equal(c.missed.v[0], "sub/c.c");
    sv_free(&c.missed);
    /* Built in a mount namespace with the copy at the project's root: the
     * log names the root's paths, which count only when given as seen_root
     * (without namespaces they would be the user's tree, not the copy). */
    char *seen = path_join(root, "project");
    free(text);
    text = xasprintf("%s/a.c\n%s/sub/c.c\n", seen, seen);
    assert_int_equal(write_file_atomic(log, text, strlen(text)), 0);
    select_reference_check(log, root, NULL, &plan, &c);
    assert_int_equal(c.n_flagged, 0);
    sv_free(&c.missed);
    select_reference_check(log, root, seen, &plan, &c);
    assert_int_equal(c.n_flagged, 2);
    assert_int_equal(c.missed.n, 1);
    assert_string_equal(c.missed.v[0], "sub/b.c");
    sv_free(&c.missed);
    free(seen);
    unlink(log);
    select_reference_check(log, root, NULL, &plan, &c);   /* no compile reached the wrapper */
    assert_int_equal(c.n_sources, 3);
    assert_int_equal(c.n_flagged, 0);
    assert_int_equal(c.missed.n, 3);
    sv_free(&c.missed);
    for (size_t i = 0; i < plan.nfiles; i++) free(plan.files[i].rel);
    free(plan.files);
    remove_tree(root);
    free(text);
    free(log);
    free(link);
    free(sub);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measure_code),
        cmocka_unit_test(test_unmeasured),
        cmocka_unit_test(test_cpu_time_interval),
        cmocka_unit_test(test_pipe_in_command),
        cmocka_unit_test(test_all_candidates_json),
        cmocka_unit_test(test_reference_check),
        cmocka_unit_test(test_reference_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
