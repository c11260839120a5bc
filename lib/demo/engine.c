/* engine.c - see demo.h: the examples and builds as data, and the
 * pipeline of one example (copy, fmvgen scan/list/patch through the given
 * binary, builds, interleaved timing, output comparison, clones and their
 * samples, runs on emulated CPUs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo/demo_internal.h"
#include "run/spawn.h"
#include "verify/cpus.h"

#define RUN_TIMEOUT_S 300
#define BUILD_TIMEOUT_S 600

/* In the article's order. The builds only array_addition gets are the
 * article's own rows (its "None" is gcc without flags, i.e. -O0). */
const struct demo_build_def demo_builds[] = {
    {"none", "None (-O0)", "-O0", 0, "array_addition", 1},
    {"baseline", "-O3", "-O3", 0, NULL, 1},
    {"avx", "-O3 -mavx", "-O3 -mavx", 0, "array_addition", 0},
    {"avx2", "-O3 -mavx2", "-O3 -mavx2", 0, NULL, 0},
    {"fmv", "-O3 + fmvgen patch", "-O3", 1, NULL, 1},
};

const struct demo_example_def demo_examples[] = {
    {"array_addition", "array_addition", "200000", 0, "20000"},
    {"kernels", "kernels_demo", "3000", 1, NULL},
};
_Static_assert(sizeof demo_builds / sizeof *demo_builds == DEMO_N_BUILDS, "DEMO_N_BUILDS: one per row");
_Static_assert(sizeof demo_examples / sizeof *demo_examples == DEMO_N_EXAMPLES, "DEMO_N_EXAMPLES: one per row");

/* ---- where the examples are ---- */

/* The source tree's examples/ when this binary is the one in a build tree,
 * the installed copy (FMVGEN_DATADIR) when it runs from the install prefix. */
char *demo_examples_dir(const char *self)
{
    char *share = path_dirname(FMVGEN_DATADIR);        /* PREFIX/share */
    char *prefix = path_dirname(share);
    char *bin = path_join(prefix, "bin");
    char *self_dir = self ? path_dirname(self) : xstrdup("");
    int installed = !strcmp(self_dir, bin);
    free(share);
    free(prefix);
    free(bin);
    free(self_dir);
    char *dir = path_join(installed ? FMVGEN_DATADIR : FMVGEN_SOURCE_DIR, "examples");
    if (!is_directory(dir)) {
        /* A build tree whose sources moved, or an install run from elsewhere. */
        char *other = path_join(installed ? FMVGEN_SOURCE_DIR : FMVGEN_DATADIR, "examples");
        if (is_directory(other)) {
            free(dir);
            return other;
        }
        free(other);
    }
    return dir;
}

/* ---- the pipeline through this fmvgen binary ---- */

void demo_print_indented(const char *text, const char *indent)
{
    const char *s = text;
    while (*s) {
        size_t n = strcspn(s, "\n");
        printf("%s%.*s\n", indent, (int)n, s);
        s += n;
        if (*s) s++;
    }
}

/* Runs `fmvgen ARGS...` in the project; returns its stdout, or NULL after
 * recording the failure (and showing the command's output). In the human
 * report its stdout and then its stderr (warnings, summaries) are shown. */
static char *run_self(struct demo_example *ex, const struct demo_options *o, char *const *args, const char *step)
{
    fflush(stdout);     /* keep our lines and the child's errors in order */
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, o->self);
    sv_push_all(&argv, args);
    struct run_opts ropts = {.cwd = ex->project, .capture_stdout = 1, .capture_stderr = 1,
                             .timeout_s = BUILD_TIMEOUT_S};
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &ropts, &res);
    char *out = NULL;
    if (rc == 0) {
        out = xstrdup(res.out ? res.out : "");
        if (!o->json) {
            demo_print_indented(out, "  ");
            if (res.err) demo_print_indented(res.err, "  ");
        }
    } else {
        char *why = run_describe(&res);
        ex->step_failure = xasprintf("'fmvgen %s' failed (%s)", step, why);
        fmv_error("%s: %s", ex->project, ex->step_failure);
        if (res.out && *res.out) demo_print_indented(res.out, "    | ");
        if (res.err && *res.err) {
            /* its own error lines are already "fmvgen: ..." lines: pass them on */
            fputs(res.err, stderr);
        }
        free(why);
    }
    run_result_free(&res);
    sv_free(&argv);
    return out;
}

static int run_pipeline(struct demo_example *ex, const struct demo_options *o)
{
    if (!o->json) printf("\n$ fmvgen scan -- make -j2 CFLAGS=-O3\n");
    char *scan = run_self(ex, o, (char *const[]){"scan", "--", "make", "-j2", "CFLAGS=-O3", NULL}, "scan");
    if (!scan) return -1;
    free(scan);

    if (o->json) {
        char *text = run_self(ex, o, (char *const[]){"list", "--json", NULL}, "list --json");
        if (!text) return -1;
        json_error_t err;
        ex->list_json = json_loads(text, 0, &err);
        if (!ex->list_json) ex->list_json = json_string(text);  /* keep it, even if not JSON */
        free(text);
    } else {
        printf("\n$ fmvgen list\n");
        ex->list_text = run_self(ex, o, (char *const[]){"list", NULL}, "list");
        if (!ex->list_text) return -1;
    }

    if (!o->json) printf("\n$ fmvgen patch --apply\n");
    ex->patch_text = run_self(ex, o, (char *const[]){"patch", "--apply", NULL}, "patch --apply");
    return ex->patch_text ? 0 : -1;
}

/* ---- builds and runs ---- */

int demo_build_applies(const struct demo_build_def *d, const struct demo_example *ex)
{
    return !d->only || !strcmp(d->only, ex->def->name);
}

static void build_all(struct demo_example *ex, const struct demo_options *o, const char *pristine, const char *work)
{
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_def *d = &demo_builds[b];
        struct demo_build_result *r = &ex->builds[b];
        if (!demo_build_applies(d, ex)) continue;
        if (d->patched && ex->step_failure) continue;   /* nothing patched to build */
        if (!o->json) printf("building %-20s CC=%s CFLAGS=\"%s\"%s\n", d->label, o->cc, d->cflags,
                             d->patched ? " (patched sources)" : "");
        fflush(stdout);
        struct variant_spec spec = {
            .name = d->key,
            .source_dir = d->patched ? ex->project : pristine,
            .work_dir = work,
            /* -B: the patched copy holds the scan's objects; rebuild all */
            .build_argv = (char *const[]){"make", "-B", NULL},
            .cc = o->cc,
            .cflags = d->cflags,
            .make_vars = 1,
            .timeout_s = BUILD_TIMEOUT_S,
        };
        r->built = measure_build_variant(&spec, &r->build) == 0;
        if (!r->built && r->build.log && *r->build.log) demo_print_indented(r->build.log, "    | ");
    }
}

/* Times the builds that built, their runs interleaved (measure_time_set), so
 * that the load of a shared machine weighs on all of them alike. */
static void time_all(struct demo_example *ex, const struct demo_options *o)
{
    struct timing_spec specs[DEMO_N_BUILDS];
    struct timing_result results[DEMO_N_BUILDS];
    char *programs[DEMO_N_BUILDS];
    char *argvs[DEMO_N_BUILDS][3];
    size_t which[DEMO_N_BUILDS], n = 0;
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        if (!ex->builds[b].built) continue;
        programs[n] = path_join(ex->builds[b].build.dir, ex->def->program);
        argvs[n][0] = programs[n];
        argvs[n][1] = o->quick ? (char *)ex->def->quick_arg : NULL;
        argvs[n][2] = NULL;
        specs[n] = (struct timing_spec){.argv = argvs[n], .cwd = ex->builds[b].build.dir, .runs = o->runs,
                                        .timeout_s = RUN_TIMEOUT_S};
        which[n++] = b;
    }
    if (!n) return;
    if (!o->json) printf("timing %zu build%s, %d run%s each, interleaved\n", n, n == 1 ? "" : "s", o->runs,
                         o->runs == 1 ? "" : "s");
    fflush(stdout);
    measure_time_set(specs, n, results);
    for (size_t i = 0; i < n; i++) {
        ex->builds[which[i]].timing = results[i];
        ex->builds[which[i]].timed = 1;
        free(programs[i]);
    }
}

/* All builds that ran must print the same checksums as the first that did. */
static void compare_outputs(struct demo_example *ex)
{
    const char *ref = NULL;
    ex->outputs_equal = 1;
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_result *r = &ex->builds[b];
        if (!r->timed || r->timing.failure) continue;
        if (r->timing.output_varies) ex->outputs_equal = 0;
        if (!ref) ref = r->timing.output;
        else if (strcmp(ref, r->timing.output)) ex->outputs_equal = 0;
        ex->outputs_compared++;
    }
}

/* The clones in the FMV binary, and which of them perf saw running. */
static void find_clones(struct demo_example *ex, const struct demo_options *o, const char *work)
{
    size_t fmv = DEMO_FMV_BUILD;
    if (!ex->builds[fmv].built) return;
    char *program = path_join(ex->builds[fmv].build.dir, ex->def->program);
    ex->have_clones = elf_mv_read(program, &ex->clones) == 0;
    if (ex->have_clones && ex->clones.n_functions) {
        char *const argv[] = {program, o->quick ? (char *)ex->def->quick_arg : NULL, NULL};
        if (profile_run(argv, ex->builds[fmv].build.dir, work, &ex->profile, &ex->profile_failure) == 0) {
            ex->samples = xcalloc(ex->clones.n_functions, sizeof *ex->samples);
            for (size_t i = 0; i < ex->clones.n_functions; i++) {
                const struct elf_mv_function *f = &ex->clones.functions[i];
                struct demo_clone_samples *s = &ex->samples[i];
                s->fn = f;
                s->samples = xcalloc(f->n_clones ? f->n_clones : 1, sizeof *s->samples);
                for (size_t c = 0; c < f->n_clones; c++) {
                    s->samples[c] = profile_samples(&ex->profile, f->clones[c].symbol);
                    s->total += s->samples[c];
                    if (s->samples[c] && (!s->hottest || s->samples[c] > profile_samples(&ex->profile, s->hottest->symbol)))
                        s->hottest = &f->clones[c];
                }
            }
        }
    }
    free(program);
}

/* Runs every build of an example that has emulated CPUs on them, through
 * verify_program (a native reference run, then one qemu run per CPU, and
 * the FMV build's dispatch map), with the example's small emulated work
 * size: only whether each run ends well matters here. No qemu: the table
 * says which package to install, the demo goes on. */
static void run_on_cpus(struct demo_example *ex, const struct demo_options *o)
{
    if (!ex->def->emulated_arg) return;
    char *qemu = cpus_find_qemu();
    if (!qemu) {
        const char *env = getenv("FMVGEN_QEMU");
        ex->emulation_missing = xasprintf("%s not found; install the Debian package %s (apt-get install %s)",
                                          env && *env ? env : "qemu-x86_64", VERIFY_QEMU_PACKAGE,
                                          VERIFY_QEMU_PACKAGE);
        return;
    }
    if (!o->json) {
        printf("running the builds under %s -cpu %s, %s passes\n", qemu, VERIFY_DEFAULT_CPUS,
               ex->def->emulated_arg);
        fflush(stdout);
    }
    free(qemu);
    cpus_parse(VERIFY_DEFAULT_CPUS, &ex->cpu_models);
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        struct demo_build_result *r = &ex->builds[b];
        if (!r->built) continue;
        char *program = path_join(r->build.dir, ex->def->program);
        char *const argv[] = {program, (char *)ex->def->emulated_arg, NULL};
        struct verify_options vo = {.argv = argv, .cpus = &ex->cpu_models, .timeout_s = RUN_TIMEOUT_S,
                                    .float_tolerance = -1};
        r->verified = verify_program(&vo, &r->cpus) == 0;
        free(program);
    }
}

/* A build that must run everywhere and did not: the demo fails. */
static int portable_build_failed(const struct demo_example *ex)
{
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_result *r = &ex->builds[b];
        if (!demo_builds[b].portable || !r->built || !ex->cpu_models.n) continue;
        if (!r->verified || !r->cpus.ok) return 1;
    }
    return 0;
}

/* ---- what the tables and the JSON share ---- */

int demo_timed_ok(const struct demo_build_result *r)
{
    return r->timed && !r->timing.failure;
}

/* The -O3 build's time, which the ratios divide; 0 when it has none. */
double demo_reference_seconds(const struct demo_example *ex)
{
    return demo_timed_ok(&ex->builds[DEMO_REF_BUILD]) ? ex->builds[DEMO_REF_BUILD].timing.median : 0;
}

/* A build's run on the emulated CPU cpu_models.v[i]; NULL when there is none. */
const struct verify_run *demo_emulated_run(const struct demo_build_result *r, size_t i)
{
    return r->verified && i + 1 < r->cpus.n_runs ? &r->cpus.runs[i + 1] : NULL;
}

/* The table's cell for one run on an emulated CPU: OK, or how it ended
 * ("SIGILL", "exit 1", "timeout", "wrong output" when it exited 0 but
 * printed something else than natively). */
char *demo_cpu_cell(const struct verify_run *run)
{
    if (!run) return xstrdup("-");
    if (run->ok) return xstrdup("OK");
    if (run->outcome == VERIFY_EXITED && run->exit_status == 0) return xstrdup("wrong output");
    return verify_run_result(run);
}

static void example_free(struct demo_example *ex)
{
    free(ex->project);
    free(ex->step_failure);
    free(ex->list_text);
    json_decref(ex->list_json);
    free(ex->patch_text);
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        variant_build_free(&ex->builds[b].build);
        timing_result_free(&ex->builds[b].timing);
        verify_report_free(&ex->builds[b].cpus);   /* also after a failed verify_program */
    }
    sv_free(&ex->cpu_models);
    free(ex->emulation_missing);
    if (ex->samples)
        for (size_t i = 0; i < ex->clones.n_functions; i++) free(ex->samples[i].samples);
    free(ex->samples);
    if (ex->have_clones) elf_mv_list_free(&ex->clones);
    profile_free(&ex->profile);
    free(ex->profile_failure);
}

/* ---- the demo ---- */

/* Runs one example in TMP/NAME; returns 0 when every step worked and the
 * outputs agree. */
static int run_example(struct demo_example *ex, const struct demo_options *o, const char *examples, const char *tmp)
{
    char *pristine = path_join(examples, ex->def->name);
    char *work = path_join(tmp, ex->def->name);
    int rc = 0;
    if (!o->json) printf("\n==== %s ====\n", ex->def->name);
    ex->project = path_join(work, "project");
    if (mkdir_p(work, 0755) != 0 || measure_copy_tree(pristine, ex->project) != 0) {
        ex->step_failure = xstrdup("could not copy the example");
        rc = -1;
        goto out;
    }
    if (run_pipeline(ex, o) != 0) rc = -1;
    if (!o->json) putchar('\n');
    build_all(ex, o, pristine, work);
    time_all(ex, o);
    compare_outputs(ex);
    find_clones(ex, o, work);
    for (size_t b = 0; b < DEMO_N_BUILDS; b++)
        if (demo_build_applies(&demo_builds[b], ex) && (!ex->builds[b].built || ex->builds[b].timing.failure)) rc = -1;
    /* While the builds' copies still exist: the article's CPU columns. */
    run_on_cpus(ex, o);
    if (portable_build_failed(ex)) rc = -1;
    if (ex->outputs_compared >= 2 && !ex->outputs_equal) rc = -1;
    if (!o->json) demo_print_example(ex, o);
out:
    free(pristine);
    free(work);
    return rc;
}

int demo_run(const struct demo_options *o, struct demo *d)
{
    memset(d, 0, sizeof *d);
    d->examples_dir = demo_examples_dir(o->self);
    if (!is_directory(d->examples_dir))
        return fmv_error("%s: the bundled examples are missing (reinstall fmvgen or run it from its build tree)",
                         d->examples_dir);
    d->workdir = make_temp_dir("demo");
    if (!d->workdir) return fmv_error("demo: cannot create a temp directory under $TMPDIR");
    if (!o->json) {
        printf("fmvgen demo: examples from %s\n", d->examples_dir);
        printf("work directory: %s\n", d->workdir);
    }
    for (size_t e = 0; e < DEMO_N_EXAMPLES; e++) {
        d->examples[e].def = &demo_examples[e];
        if (run_example(&d->examples[e], o, d->examples_dir, d->workdir) != 0) d->failed = 1;
        fflush(stdout);
    }
    return 0;
}

void demo_free(struct demo *d)
{
    for (size_t e = 0; e < DEMO_N_EXAMPLES; e++) example_free(&d->examples[e]);
    free(d->examples_dir);
    free(d->workdir);
    memset(d, 0, sizeof *d);
}
