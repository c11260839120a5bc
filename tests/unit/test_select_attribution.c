/* Unit tests of attribution by source file (select/attribution.h) and of
 * what follows from it: static functions of one name in different files
 * (libjpeg-turbo's start_pass) counted each by its own file, selected on
 * their own samples, and named by file in the patch's assignments; the
 * cases that stay by name (a stripped file: unknown origin; one basename
 * twice; two external namesakes); a name of its own counted exactly as
 * before. The last test profiles a program with two static `work` under
 * perf (skipped when perf cannot record here): the profile gives each its
 * file and address, and each is found in its own file; built with -flto,
 * nothing tells the files apart and both stay by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/symsource.h"
#include "measure/profile.h"
#include "run/spawn.h"
#include "select/assign.h"
#include "select/attribution.h"
#include "select/report.h"
#include "test_select_helpers.h"
#include "util/util.h"

/* ---- hand-made profiles ---- */

static void add_entry(struct profile *p, struct attribution_origin **o, const char *symbol, long samples,
                      struct attribution_origin origin)
{
    p->entries = xrealloc(p->entries, (p->n + 1) * sizeof *p->entries);
    p->entries[p->n] = (struct profile_entry){.symbol = xstrdup(symbol), .samples = samples};
    *o = xrealloc(*o, (p->n + 1) * sizeof **o);
    (*o)[p->n++] = origin;
    p->total_samples += samples;
}

/* an attribution_function's sources: one file */
#define SRC(file) ((char *const[]){file, NULL})
#define LOCAL(file) ((struct attribution_origin){1, 1, file, 0})
#define GLOBAL ((struct attribution_origin){1, 0, NULL, 0})
#define UNKNOWN ((struct attribution_origin){0, 0, NULL, 0})

/* libjpeg-turbo's shape: start_pass in jcmaster.c (hot, its clones too) and
 * jdmaster.c (cold), both candidates. */
static void test_shared_name_by_file(void **state)
{
    (void)state;
    struct profile p = {0};
    struct attribution_origin *o = NULL;
    add_entry(&p, &o, "start_pass.avx2", 70, LOCAL("jcmaster.c"));
    add_entry(&p, &o, "start_pass.resolver", 1, LOCAL("jcmaster.c"));
    add_entry(&p, &o, "start_pass", 5, LOCAL("jcmaster.c"));
    add_entry(&p, &o, "start_pass", 9, LOCAL("jdmaster.c"));
    add_entry(&p, &o, "start_pass", 4, LOCAL("jdhuff.c"));   /* a non-candidate namesake */
    add_entry(&p, &o, "main", 11, GLOBAL);
    struct attribution_function fs[] = {
        {"start_pass", SRC("src/jcmaster.c"), 1, 0},
        {"start_pass", SRC("src/jdmaster.c"), 1, 0},
    };
    assert_int_equal(attribution_files_clash(fs, 2, 0), 0);
    struct attribution_count c;
    attribution_count(&p, o, &fs[0], ATTRIBUTION_BY_FILE, &c);
    assert_true(c.by_file);
    assert_false(c.undecided);
    assert_int_equal(c.samples, 76);
    assert_int_equal(c.name_samples, 89);
    assert_string_equal(c.hottest, "start_pass.avx2");
    attribution_count(&p, o, &fs[1], ATTRIBUTION_BY_FILE, &c);
    assert_true(c.by_file);
    assert_int_equal(c.samples, 9);
    assert_string_equal(c.hottest, "start_pass");
    /* by name: as before, the sum of all */
    attribution_count(&p, o, &fs[1], ATTRIBUTION_BY_NAME, &c);
    assert_false(c.by_file);
    assert_int_equal(c.samples, 89);
    /* without origins (no profile addresses): by name */
    attribution_count(&p, NULL, &fs[1], ATTRIBUTION_BY_FILE, &c);
    assert_false(c.by_file);
    assert_int_equal(c.samples, 89);

    /* one entry of the name with no known origin (a stripped file):
     * undecided, counted by name */
    add_entry(&p, &o, "start_pass", 3, UNKNOWN);
    attribution_count(&p, o, &fs[0], ATTRIBUTION_BY_FILE, &c);
    assert_true(c.undecided);
    assert_false(c.by_file);
    assert_int_equal(c.samples, 92);
    free(o);
    profile_free(&p);
}

/* A name of its own counts exactly as before, unless the profile shows
 * local namesakes from other files (which it then leaves out). */
static void test_own_name(void **state)
{
    (void)state;
    struct profile p = {0};
    struct attribution_origin *o = NULL;
    add_entry(&p, &o, "scale.arch_x86_64_v3", 40, LOCAL("k.c"));
    add_entry(&p, &o, "scale", 2, UNKNOWN);
    add_entry(&p, &o, "scalex", 50, GLOBAL);
    struct attribution_function f = {"scale", SRC("k.c"), 0, 0};
    struct attribution_count c;
    attribution_count(&p, o, &f, ATTRIBUTION_BY_FILE_IF_NAMESAKES, &c);
    assert_false(c.by_file);
    assert_false(c.undecided);
    assert_int_equal(c.samples, attribution_samples(&p, "scale"));
    assert_int_equal(c.samples, 42);
    assert_string_equal(c.hottest, attribution_hottest_symbol(&p, "scale"));

    /* a static `process` of another file the candidates do not know */
    add_entry(&p, &o, "process", 30, LOCAL("k.c"));
    add_entry(&p, &o, "process", 500, LOCAL("parser.c"));
    struct attribution_function g = {"process", SRC("sub/k.c"), 1, 0};
    attribution_count(&p, o, &g, ATTRIBUTION_BY_FILE_IF_NAMESAKES, &c);
    assert_true(c.by_file);
    assert_int_equal(c.samples, 30);
    assert_int_equal(c.name_samples, 530);
    free(o);
    profile_free(&p);
}

/* An external candidate and a static one of one name: the external one
 * has the global symbol (and its local clones), the static one its own
 * file's locals only. */
static void test_external_and_static(void **state)
{
    (void)state;
    struct profile p = {0};
    struct attribution_origin *o = NULL;
    add_entry(&p, &o, "init", 20, GLOBAL);
    add_entry(&p, &o, "init.avx2", 30, LOCAL("a.c"));
    add_entry(&p, &o, "init", 7, LOCAL("b.c"));
    struct attribution_function fs[] = {{"init", SRC("a.c"), 0, 0}, {"init", SRC("b.c"), 1, 0}};
    assert_int_equal(attribution_files_clash(fs, 2, 0), 0);
    assert_int_equal(attribution_files_clash(fs, 2, 1), 0);
    struct attribution_count c;
    attribution_count(&p, o, &fs[0], ATTRIBUTION_BY_FILE, &c);
    assert_int_equal(c.samples, 50);
    assert_string_equal(c.hottest, "init.avx2");
    attribution_count(&p, o, &fs[1], ATTRIBUTION_BY_FILE, &c);
    assert_int_equal(c.samples, 7);
    free(o);
    profile_free(&p);
}

/* What files cannot tell apart, whatever the profile holds. */
static void test_files_clash(void **state)
{
    (void)state;
    /* one basename in two directories: STT_FILE often holds the basename only */
    struct attribution_function same_base[] = {
        {"work", SRC("a/util.c"), 1, 0}, {"work", SRC("b/util.c"), 1, 0}, {"work", SRC("c.c"), 1, 0}};
    assert_int_equal(attribution_files_clash(same_base, 3, 0), 1);
    assert_int_equal(attribution_files_clash(same_base, 3, 1), 1);
    assert_int_equal(attribution_files_clash(same_base, 3, 2), 0);   /* c.c's is told from both */
    /* two external functions of one name (two programs): global symbols carry no file */
    struct attribution_function two_external[] = {{"run", SRC("x.c"), 0, 0}, {"run", SRC("y.c"), 0, 0}};
    assert_int_equal(attribution_files_clash(two_external, 2, 0), 1);
    /* other names never clash */
    struct attribution_function other[] = {{"run", SRC("x.c"), 0, 0}, {"walk", SRC("x.c"), 0, 0}};
    assert_int_equal(attribution_files_clash(other, 2, 0), 0);
}

/* SciMark2's shape: kernel_measure, external, in sor/kernel.c and
 * fft/kernel.c, each in its own program; told apart by linked file
 * (linked ids 1 and 2; select/linkedfile.h sets each entry's owner): the
 * global symbols and the clones' locals (both STT_FILE "kernel.c") of each
 * program are its candidate's; an entry whose file is not known leaves
 * the count undecided. */
static void test_linked_files(void **state)
{
    (void)state;
    struct attribution_function fs[] = {{"kernel_measure", SRC("src/sor/kernel.c"), 0, 1},
                                        {"kernel_measure", SRC("src/fft/kernel.c"), 0, 2}};
    assert_int_equal(attribution_files_clash(fs, 2, 0), 0);
    assert_int_equal(attribution_files_clash(fs, 2, 1), 0);
    struct profile p = {0};
    struct attribution_origin *o = NULL;
    add_entry(&p, &o, "kernel_measure", 40, ((struct attribution_origin){1, 0, NULL, 1}));
    add_entry(&p, &o, "fmvgen_cp_kernel_measure_x86_64_v3", 300, ((struct attribution_origin){1, 1, "kernel.c", 1}));
    add_entry(&p, &o, "kernel_measure", 9, ((struct attribution_origin){1, 0, NULL, 2}));
    add_entry(&p, &o, "kernel_measure", 5, ((struct attribution_origin){1, 0, NULL, -1}));   /* no candidate's file */
    add_entry(&p, &o, "kernel_measure", 3, ((struct attribution_origin){1, 1, "other.c", 1}));   /* a static namesake */
    struct attribution_count c;
    attribution_count(&p, o, &fs[0], ATTRIBUTION_BY_FILE, &c);
    assert_int_equal(c.undecided, 0);
    assert_int_equal(c.samples, 340);
    assert_int_equal(c.name_samples, 357);
    assert_string_equal(c.hottest, "fmvgen_cp_kernel_measure_x86_64_v3");
    attribution_count(&p, o, &fs[1], ATTRIBUTION_BY_FILE, &c);
    assert_int_equal(c.samples, 9);
    /* a file nobody could tell: undecided, counted by name by the caller */
    add_entry(&p, &o, "kernel_measure", 2, ((struct attribution_origin){1, 0, NULL, 0}));
    attribution_count(&p, o, &fs[1], ATTRIBUTION_BY_FILE, &c);
    assert_int_equal(c.undecided, 1);
    /* without linked ids, two external functions clash as before */
    fs[0].linked = 0;
    assert_int_equal(attribution_files_clash(fs, 2, 1), 1);
    free(o);
    profile_free(&p);
}

/* libjpeg-turbo 3: jclossls.c is compiled only through the wrapper TUs
 * jclossls-8.c, -12.c and -16.c, and the STT_FILE of its static functions
 * names those (measured); the "included-source" note lists them. */
static void test_included_source(void **state)
{
    (void)state;
    json_error_t e;
    json_t *notes = json_loads("[{\"kind\": \"simd-ifdef\"}, {\"kind\": \"included-source\", \"tus\": ["
                               "{\"source\": \"/p/src/wrapper/jclossls-8.c\", \"symbol\": \"start_pass_lossless\"},"
                               "{\"source\": \"/p/src/wrapper/jclossls-12.c\"},"
                               "{\"source\": \"/p/src/wrapper/jclossls-16.c\"}]}]", 0, &e);
    assert_non_null(notes);
    struct strvec src = STRVEC_INIT;
    attribution_sources("src/jclossls.c", notes, &src);
    assert_int_equal(src.n, 4);
    assert_string_equal(src.v[0], "src/jclossls.c");
    assert_string_equal(src.v[3], "/p/src/wrapper/jclossls-16.c");
    json_decref(notes);
    struct strvec plain = STRVEC_INIT;
    attribution_sources("src/jdmaster.c", NULL, &plain);
    assert_int_equal(plain.n, 1);

    struct profile p = {0};
    struct attribution_origin *o = NULL;
    add_entry(&p, &o, "start_pass_lossless", 10, LOCAL("jclossls-8.c"));
    add_entry(&p, &o, "start_pass_lossless", 20, LOCAL("jclossls-12.c"));
    add_entry(&p, &o, "start_pass_lossless", 30, LOCAL("jclossls-16.c"));
    struct attribution_function f = {"start_pass_lossless", sv_argv(&src), 1, 0};
    struct attribution_count c;
    /* its own TUs only: no namesake, by name as before */
    attribution_count(&p, o, &f, ATTRIBUTION_BY_FILE_IF_NAMESAKES, &c);
    assert_false(c.by_file);
    assert_int_equal(c.samples, 60);
    /* a namesake in jdlossls.c (another candidate): each gets its own */
    add_entry(&p, &o, "start_pass_lossless", 5, LOCAL("jdlossls-8.c"));
    attribution_count(&p, o, &f, ATTRIBUTION_BY_FILE_IF_NAMESAKES, &c);
    assert_true(c.by_file);
    assert_int_equal(c.samples, 60);
    struct attribution_function fs[] = {f, {"start_pass_lossless", SRC("src/jdlossls-8.c"), 1, 0}};
    assert_int_equal(attribution_files_clash(fs, 2, 0), 0);
    attribution_count(&p, o, &fs[1], ATTRIBUTION_BY_FILE, &c);
    assert_true(c.by_file);
    assert_int_equal(c.samples, 5);
    sv_free(&src);
    sv_free(&plain);
    free(o);
    profile_free(&p);
}

/* A header's static function switched on in cr32.c only
 * (candidates/header.h): cr32s.c's copy of the same name is a namesake,
 * not its time. */
static void test_header_switch(void **state)
{
    (void)state;
    json_error_t e;
    json_t *notes = json_loads("[{\"kind\": \"header-switch\", \"tag\": \"FMVGEN_CLONE_poly_fir_h_vpoly3\", "
                               "\"tus\": [{\"source\": \"/p/src/cr32.c\", \"symbol\": \"vpoly3\"}], "
                               "\"off\": [{\"source\": \"/p/src/cr32s.c\", \"reason\": \"intrinsics\"}]}]",
                               0, &e);
    assert_non_null(notes);
    struct strvec src = STRVEC_INIT;
    attribution_sources("src/poly-fir.h", notes, &src);
    assert_int_equal(src.n, 2);
    assert_string_equal(src.v[1], "/p/src/cr32.c");
    json_decref(notes);
    struct profile p = {0};
    struct attribution_origin *o = NULL;
    add_entry(&p, &o, "vpoly3.arch_x86_64_v3", 40, LOCAL("cr32.c"));
    add_entry(&p, &o, "vpoly3", 25, LOCAL("cr32s.c"));
    struct attribution_function f = {"vpoly3", sv_argv(&src), 1, 0};
    struct attribution_count c;
    attribution_count(&p, o, &f, ATTRIBUTION_BY_FILE_IF_NAMESAKES, &c);
    assert_true(c.by_file);
    assert_int_equal(c.samples, 40);
    assert_int_equal(c.name_samples, 65);
    sv_free(&src);
    free(o);
    profile_free(&p);
}

/* ---- from counts to the selection ---- */

static void make_report(struct select_report *r, int by_file)
{
    sel_report_init(r);
    /* kernel in hot.c (chosen: fma-levels) and in cold.c (cold), and dot */
    const char *fn[] = {"kernel", "kernel", "dot"}, *file[] = {"hot.c", "cold.c", "dot.c"};
    double base[] = {300, 310, 290}, fast[] = {150, 155, 145}, cold[] = {1, 0, 1};
    for (int f = 0; f < 3; f++) {
        sel_add_function(r, fn[f], file[f], 5);
        r->functions[f].by_file = f < 2 && by_file;
        struct decision_function *d = &r->decision.functions[f];
        d->chosen = f == 1 ? -1 : 1;
        d->reason = f == 1 ? DECISION_COLD : DECISION_SELECTED;
        d->share = f == 1 ? 0.001 : 0.4;
        d->base_samples = f == 1 ? 0.67 : 300;
        for (int v = 1; v < 3; v++)
            stats_welch(f == 1 ? cold : base, 3, f == 1 ? cold : fast, 3, &d->by_variant[v]);
    }
}

/* Told apart by file: the hot one is selected, named by file in the
 * patch's assignments; nothing says "ambiguous". */
static void test_told_apart_selected(void **state)
{
    (void)state;
    struct select_report r;
    make_report(&r, 1);
    select_apply_decision(&r);
    assert_true(r.functions[0].in_patch);
    assert_false(r.functions[1].in_patch);
    assert_null(r.functions[0].note);
    assert_int_equal(select_name_count(&r, 0), 2);
    assert_false(select_name_ambiguous(&r, 0));
    struct patch_assignments a = {0};
    assert_int_equal(select_patch_assignments(&r, &a), 0);
    assert_int_equal(a.n, 2);
    assert_string_equal(a.v[0].name, "kernel");
    assert_string_equal(a.v[0].rel, "hot.c");
    assert_string_equal(a.v[1].name, "dot");
    assert_null(a.v[1].rel);   /* a name of its own: by name, as before */
    patch_assignments_free(&a);

    json_t *j = select_report_json(&r);
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, 0), "reason")), "selected");
    assert_true(json_is_true(json_object_get(sel_function_json(j, 0), "samples_by_file")));
    assert_true(json_is_false(json_object_get(sel_function_json(j, 2), "samples_by_file")));
    assert_string_equal(json_string_value(json_object_get(sel_function_json(j, 1), "reason")), "cold");
    json_decref(j);
    char *md = select_report_markdown(&r);
    assert_null(strstr(md, "ambiguous"));
    assert_null(strstr(md, "[name not unique"));
    assert_non_null(strstr(md, "**Names shared, told apart by file:** 2 candidates"));
    assert_non_null(strstr(md, "`kernel` (hot.c:5, cold.c:5)"));
    free(md);
    char *sum = select_report_summary(&r);
    assert_null(strstr(sum, "ambiguous"));
    assert_null(strstr(sum, "not unique"));
    free(sum);
    char *html = select_report_html(&r);
    assert_null(strstr(html, ">kernel [name not unique]</text>"));
    assert_non_null(strstr(html, ">kernel</text>"));
    free(html);
    select_report_free(&r);
}

/* Not told apart (by_file unset): as before, never selected, flagged. */
static void test_not_told_apart_stays_ambiguous(void **state)
{
    (void)state;
    struct select_report r;
    make_report(&r, 0);
    select_apply_decision(&r);
    assert_false(r.functions[0].in_patch);
    assert_true(select_name_ambiguous(&r, 0));
    assert_non_null(strstr(r.functions[0].note, "not selected, ambiguous name"));
    struct patch_assignments a = {0};
    assert_int_equal(select_patch_assignments(&r, &a), 0);
    assert_int_equal(a.n, 1);   /* dot only */
    patch_assignments_free(&a);
    char *md = select_report_markdown(&r);
    assert_null(strstr(md, "told apart by file"));
    assert_non_null(strstr(md, "**Names not unique:** 2 candidates"));
    free(md);
    select_report_free(&r);
}

/* ---- a real profile ---- */

static const char WORK_C[] = "static __attribute__((noinline)) long work(long n)\n"
                             "{\n"
                             "    long s = 0;\n"
                             "    for (long i = 0; i < n; i++) s += i * i %% %d;\n"
                             "    return s;\n"
                             "}\n"
                             "long %s(long n) { return work(n); }\n";
static const char MAIN_C[] = "#include <stdio.h>\n"
                             "long a_run(long n);\n"
                             "long b_run(long n);\n"
                             "int main(void)\n"
                             "{\n"
                             "    printf(\"%ld\\n\", a_run(60000000) + b_run(20000000));\n"
                             "    return 0;\n"
                             "}\n";

static int write_source(const char *dir, const char *name, const char *text)
{
    char *p = path_join(dir, name);
    int rc = write_file_atomic(p, text, strlen(text));
    free(p);
    return rc;
}

/* Builds a.c, b.c, main.c in dir with gcc and flags (NULL-terminated) and
 * profiles the program; 0, or -1 when perf cannot record here. */
static int build_and_profile(const char *dir, char *const *flags, struct profile *p)
{
    struct strvec cc = STRVEC_INIT;
    sv_push_all(&cc, (char *const[]){"gcc", "-O2", "-o", "prog", NULL});
    sv_push_all(&cc, flags);
    sv_push_all(&cc, (char *const[]){"a.c", "b.c", "main.c", NULL});
    struct run_opts o = {.cwd = dir, .null_stdout = 1, .null_stderr = 1};
    assert_int_equal(run_argv(sv_argv(&cc), &o, NULL), 0);
    sv_free(&cc);
    char *prog = path_join(dir, "prog");
    char *const argv[] = {prog, NULL};
    char *why = NULL;
    int rc = profile_run(argv, dir, dir, p, &why);
    if (rc != 0) fprintf(stderr, "perf cannot record here (%s): skipped\n", why);
    free(why);
    free(prog);
    return rc;
}

/* a.c's work does 3 times b.c's work: both show up under the name "work",
 * each found in its own file; together they are all of the name's samples.
 * The same program built with -flto: GCC leaves the merged TU's STT_FILE
 * empty, so no entry of "work" has a known file - undecided, by name. */
static void test_profile_two_static_work(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-attribution");
    char *a = xasprintf(WORK_C, 7, "a_run"), *b = xasprintf(WORK_C, 11, "b_run");
    assert_int_equal(write_source(dir, "a.c", a), 0);
    assert_int_equal(write_source(dir, "b.c", b), 0);
    assert_int_equal(write_source(dir, "main.c", MAIN_C), 0);
    free(a);
    free(b);
    struct profile p;
    if (build_and_profile(dir, (char *const[]){NULL}, &p) != 0) {
        remove_tree(dir);
        free(dir);
        skip();
    }
    char *prog = path_join(dir, "prog");
    size_t n_work = 0;
    for (size_t i = 0; i < p.n; i++) {
        if (strcmp(p.entries[i].symbol, "work") != 0) continue;
        n_work++;
        assert_string_equal(p.entries[i].dso, prog);
        assert_true(p.entries[i].addr != 0);
    }
    assert_int_equal(n_work, 2);   /* one line per symbol, not per name */
    struct elf_symsource_cache *cache = elf_symsource_cache_new();
    struct attribution_origin *origins = attribution_locate(&p, cache);
    struct attribution_function fs[] = {{"work", SRC("a.c"), 1, 0}, {"work", SRC("b.c"), 1, 0}};
    struct attribution_count ca, cb;
    attribution_count(&p, origins, &fs[0], ATTRIBUTION_BY_FILE, &ca);
    attribution_count(&p, origins, &fs[1], ATTRIBUTION_BY_FILE, &cb);
    assert_true(ca.by_file && cb.by_file);
    assert_true(ca.samples > 0 && cb.samples > 0);
    assert_int_equal(ca.samples + cb.samples, attribution_samples(&p, "work"));
    /* three times the work: more of the samples, whatever the machine's load */
    assert_true(ca.samples > cb.samples);
    free(origins);
    elf_symsource_cache_free(cache);
    profile_free(&p);

    /* LTO: a new cache, since the program is rebuilt under the same path */
    assert_int_equal(build_and_profile(dir, (char *const[]){"-flto", NULL}, &p), 0);
    cache = elf_symsource_cache_new();
    origins = attribution_locate(&p, cache);
    assert_true(attribution_samples(&p, "work") > 0);
    attribution_count(&p, origins, &fs[0], ATTRIBUTION_BY_FILE, &ca);
    assert_true(ca.undecided);
    assert_false(ca.by_file);
    assert_int_equal(ca.samples, attribution_samples(&p, "work"));
    free(origins);
    elf_symsource_cache_free(cache);
    profile_free(&p);
    free(prog);
    remove_tree(dir);
    free(dir);
}

/* A lambda-dispatched virtual's lambdas (patch/lambda.h) are its own
 * samples: g++'s and clang's names for them, a static local of the host
 * and another function's lambda are not. */
static void test_lambda_host(void **state)
{
    (void)state;
    static const char *const syms[] = {"_ZZNK5Floor3runEPKfiENKUlvE_clEv", "_ZZNK5Floor3runEPKfiENKUlvE0_clEv",
                                       "_ZZNK5Floor3runEPKfiENK3$_1clEv", "_ZNK5Floor3runEPKfi",
                                       "_ZZNK5Floor3runEPKfiE10fmvgen_sel", "_ZZN5Floor5callsEvENKUlvE_clEv"};
    struct profile_entry e[6];
    memset(e, 0, sizeof e);
    for (int i = 0; i < 6; i++) {
        e[i].symbol = (char *)syms[i];
        e[i].samples = 1L << i;
        e[i].dso = (char *)"/p/prog";
    }
    struct profile p = {.entries = e, .n = 6, .total_samples = 63};
    assert_int_equal(attribution_samples(&p, "_ZNK5Floor3runEPKfi"), 1 + 2 + 4 + 8);
    char *b = attribution_base_name("_ZZNK5Floor3runEPKfiENKUlvE_clEv");
    assert_string_equal(b, "_ZNK5Floor3runEPKfi");
    free(b);
    b = attribution_base_name("_ZZNK5Floor3runEPKfiE10fmvgen_sel");
    assert_string_equal(b, "_ZZNK5Floor3runEPKfiE10fmvgen_sel");
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_name_by_file),
        cmocka_unit_test(test_own_name),
        cmocka_unit_test(test_external_and_static),
        cmocka_unit_test(test_files_clash),
        cmocka_unit_test(test_linked_files),
        cmocka_unit_test(test_included_source),
        cmocka_unit_test(test_header_switch),
        cmocka_unit_test(test_told_apart_selected),
        cmocka_unit_test(test_not_told_apart_stays_ambiguous),
        cmocka_unit_test(test_profile_two_static_work),
        cmocka_unit_test(test_lambda_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
