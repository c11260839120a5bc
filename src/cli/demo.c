/* demo.c - `fmvgen demo`: the whole pipeline on the bundled examples
 * (examples/array_addition, the FMV article's program, and examples/kernels,
 * a small multi-file project), in a temp dir, through this very fmvgen binary:
 *
 *   fmvgen scan -- make, fmvgen list, fmvgen patch --apply   (on a copy)
 *   build each variant of demo_builds[] in its own copy (lib/measure/build.h)
 *   time them (medians of --runs, runs interleaved: lib/measure/timing.h),
 *   check that their outputs agree
 *   find the clones in the FMV binary (lib/elf/clones.h) and which of them ran
 *   here, from a perf profile of the FMV build (lib/measure/profile.h)
 *   for array_addition, run every build on emulated CPUs (qemu-x86_64 -cpu
 *   MODEL, through lib/verify's verify_program: the same runs as `fmvgen
 *   verify`) with a small pass count
 *
 * and prints, per example, a table of the builds' times and ratios and a
 * table of the clones that run on this machine. For array_addition the time
 * table is the FMV article's table: its five builds (None, -O3, -O3 -mavx,
 * -O3 -mavx2, -O3 with FMV), each with its native time and, per emulated
 * CPU, OK or how it died (SIGILL) - never an emulated time, which would
 * measure qemu, not the CPU.
 *
 * The builds are data (demo_builds[]) and every result of one build lives in
 * struct build_result, so a build or a column is added without touching the
 * pipeline. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "elf/clones.h"
#include "measure/build.h"
#include "measure/profile.h"
#include "measure/timing.h"
#include "run/spawn.h"
#include "util/util.h"
#include "verify/cpus.h"
#include "verify/verify.h"

static const char USAGE[] =
    "usage: fmvgen demo [--runs N] [--quick] [--keep] [--json]\n"
    "\n"
    "Runs the whole pipeline on the bundled examples (the FMV article's\n"
    "array_addition.c, and a small multi-file project of kernels) in a temp\n"
    "directory: scan their build, list the candidates, apply the patch, build\n"
    "them at -O3, -O3 -mavx2 and -O3 with the FMV patch, time each build, check\n"
    "that all builds print the same checksums, and show which clone of each\n"
    "multiversioned function runs on this machine (measured with perf).\n"
    "For array_addition it reproduces the article's table: also built with no\n"
    "flags (-O0) and -O3 -mavx, each build timed natively and run on emulated\n"
    "CPUs (qemu-x86_64 -cpu " VERIFY_DEFAULT_CPUS ", from the Debian\n"
    "package " VERIFY_QEMU_PACKAGE "), where it is OK or dies (SIGILL).\n"
    "\n"
    "  --runs N   time each build N times and report the median (default 5)\n"
    "  --quick    shrink the examples' work (for tests; times become noise)\n"
    "  --keep     keep the temp directory and say where it is\n"
    "  --json     machine-readable results\n";

#define DEFAULT_RUNS 5
#define RUN_TIMEOUT_S 300
#define BUILD_TIMEOUT_S 600

/* One build of an example, as a row of the tables. */
struct build_def {
    const char *key;      /* names its private copy and its JSON entry */
    const char *label;    /* the row's name */
    const char *cflags;
    int patched;          /* built from the tree `fmvgen patch --apply` patched */
    const char *only;     /* the one example it is built for; NULL: every example */
    int portable;         /* must run on every CPU: a failure there fails the demo */
};

/* In the article's order. The builds only array_addition gets are the
 * article's own rows (its "None" is gcc without flags, i.e. -O0): the
 * kernels example would only take longer with them. */
static const struct build_def demo_builds[] = {
    {"none", "None (-O0)", "-O0", 0, "array_addition", 1},
    {"baseline", "-O3", "-O3", 0, NULL, 1},
    {"avx", "-O3 -mavx", "-O3 -mavx", 0, "array_addition", 0},
    {"avx2", "-O3 -mavx2", "-O3 -mavx2", 0, NULL, 0},
    {"fmv", "-O3 + fmvgen patch", "-O3", 1, NULL, 1},
};
#define N_BUILDS (sizeof demo_builds / sizeof *demo_builds)
/* The reference of the ratios (-O3): it must apply to every example. */
#define REF_BUILD 1
/* The build FMV is measured against natively, and the FMV build. */
#define AVX2_BUILD 3
#define FMV_BUILD 4

/* A bundled example: a directory of examples/ whose Makefile honours CC and
 * CFLAGS and builds one program that prints checksums on stdout. */
struct example_def {
    const char *name;
    const char *program;      /* built by `make`, relative to the project */
    const char *quick_arg;    /* the program's work-size argument for --quick */
    int kernel_times;         /* prints "time KERNEL MS" lines on stderr */
    /* The work-size argument under qemu, which only has to show whether a
     * build runs there (the dearest emulated instructions are in the first
     * pass); NULL: no emulated CPUs for this example. */
    const char *emulated_arg;
};

static const struct example_def demo_examples[] = {
    {"array_addition", "array_addition", "200000", 0, "20000"},
    {"kernels", "kernels_demo", "3000", 1, NULL},
};
#define N_EXAMPLES (sizeof demo_examples / sizeof *demo_examples)

struct build_result {
    struct variant_build build;
    int built;
    struct timing_result timing;
    int timed;                /* timing ran (it may still have failed) */
    struct verify_report cpus;   /* its runs on the emulated CPUs (runs[0] native) */
    int verified;             /* cpus holds a report */
};

/* One clone of a multiversioned function and the samples perf gave it. */
struct clone_samples {
    const struct elf_mv_function *fn;
    long *samples;            /* per clone of fn */
    long total;
    const struct elf_clone *hottest;   /* NULL when never sampled */
};

struct example_run {
    const struct example_def *def;
    char *project;            /* the copy that is scanned and patched */
    char *step_failure;       /* the first pipeline step that failed */
    char *list_text;          /* `fmvgen list` (human) */
    json_t *list_json;        /* `fmvgen list --json` (with --json) */
    char *patch_text;
    struct build_result builds[N_BUILDS];
    int outputs_compared, outputs_equal;
    struct elf_mv_list clones;
    int have_clones;
    struct clone_samples *samples;   /* one per clones.functions[] */
    struct profile profile;
    char *profile_failure;
    struct strvec cpu_models;  /* the emulated CPUs of the table; empty: none */
    char *emulation_missing;   /* why there are no emulated runs (qemu not installed) */
};

struct demo_opts {
    int runs, quick, keep, json;
    char *self;               /* this fmvgen binary */
    const char *cc;
};

/* ---- where the examples are ---- */

/* The source tree's examples/ when this binary is the one in a build tree,
 * the installed copy (FMVGEN_DATADIR) when it runs from the install prefix. */
static char *examples_dir(const char *self)
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

static void print_indented(const char *text, const char *indent)
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
static char *run_self(struct example_run *ex, const struct demo_opts *o, char *const *args, const char *step)
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
            print_indented(out, "  ");
            if (res.err) print_indented(res.err, "  ");
        }
    } else {
        char *why = run_describe(&res);
        ex->step_failure = xasprintf("'fmvgen %s' failed (%s)", step, why);
        fmv_error("%s: %s", ex->project, ex->step_failure);
        if (res.out && *res.out) print_indented(res.out, "    | ");
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

static int run_pipeline(struct example_run *ex, const struct demo_opts *o)
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

static int build_applies(const struct build_def *d, const struct example_run *ex)
{
    return !d->only || !strcmp(d->only, ex->def->name);
}

static void build_all(struct example_run *ex, const struct demo_opts *o, const char *pristine, const char *work)
{
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_def *d = &demo_builds[b];
        struct build_result *r = &ex->builds[b];
        if (!build_applies(d, ex)) continue;
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
        if (!r->built && r->build.log && *r->build.log) print_indented(r->build.log, "    | ");
    }
}

/* Times the builds that built, their runs interleaved (measure_time_set), so
 * that the load of a shared machine weighs on all of them alike. */
static void time_all(struct example_run *ex, const struct demo_opts *o)
{
    struct timing_spec specs[N_BUILDS];
    struct timing_result results[N_BUILDS];
    char *programs[N_BUILDS];
    char *argvs[N_BUILDS][3];
    size_t which[N_BUILDS], n = 0;
    for (size_t b = 0; b < N_BUILDS; b++) {
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
static void compare_outputs(struct example_run *ex)
{
    const char *ref = NULL;
    ex->outputs_equal = 1;
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_result *r = &ex->builds[b];
        if (!r->timed || r->timing.failure) continue;
        if (r->timing.output_varies) ex->outputs_equal = 0;
        if (!ref) ref = r->timing.output;
        else if (strcmp(ref, r->timing.output)) ex->outputs_equal = 0;
        ex->outputs_compared++;
    }
}

/* The clones in the FMV binary, and which of them perf saw running. */
static void find_clones(struct example_run *ex, const struct demo_opts *o, const char *work)
{
    size_t fmv = FMV_BUILD;
    if (!ex->builds[fmv].built) return;
    char *program = path_join(ex->builds[fmv].build.dir, ex->def->program);
    ex->have_clones = elf_mv_read(program, &ex->clones) == 0;
    if (ex->have_clones && ex->clones.n_functions) {
        char *const argv[] = {program, o->quick ? (char *)ex->def->quick_arg : NULL, NULL};
        if (profile_run(argv, ex->builds[fmv].build.dir, work, &ex->profile, &ex->profile_failure) == 0) {
            ex->samples = xcalloc(ex->clones.n_functions, sizeof *ex->samples);
            for (size_t i = 0; i < ex->clones.n_functions; i++) {
                const struct elf_mv_function *f = &ex->clones.functions[i];
                struct clone_samples *s = &ex->samples[i];
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
static void run_on_cpus(struct example_run *ex, const struct demo_opts *o)
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
    for (size_t b = 0; b < N_BUILDS; b++) {
        struct build_result *r = &ex->builds[b];
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
static int portable_build_failed(const struct example_run *ex)
{
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_result *r = &ex->builds[b];
        if (!demo_builds[b].portable || !r->built || !ex->cpu_models.n) continue;
        if (!r->verified || !r->cpus.ok) return 1;
    }
    return 0;
}

/* ---- output ---- */

static int timed_ok(const struct build_result *r)
{
    return r->timed && !r->timing.failure;
}

/* The -O3 build's time, which the ratios divide; 0 when it has none. */
static double reference_seconds(const struct example_run *ex)
{
    return timed_ok(&ex->builds[REF_BUILD]) ? ex->builds[REF_BUILD].timing.median : 0;
}

/* A build's run on the emulated CPU cpu_models.v[i]; NULL when there is none. */
static const struct verify_run *emulated_run(const struct build_result *r, size_t i)
{
    return r->verified && i + 1 < r->cpus.n_runs ? &r->cpus.runs[i + 1] : NULL;
}

/* The table's cell for one run on an emulated CPU: OK, or how it ended
 * ("SIGILL", "exit 1", "timeout", "wrong output" when it exited 0 but
 * printed something else than natively). */
static char *cpu_cell(const struct verify_run *run)
{
    if (!run) return xstrdup("-");
    if (run->ok) return xstrdup("OK");
    if (run->outcome == VERIFY_EXITED && run->exit_status == 0) return xstrdup("wrong output");
    return verify_run_result(run);
}

/* "time KERNEL MS" lines of a kernels run; ms < 0 when the kernel is absent. */
static double kernel_ms(const char *errors, const char *kernel)
{
    size_t klen = strlen(kernel);
    for (const char *s = errors; s && *s;) {
        if (!strncmp(s, "time ", 5) && !strncmp(s + 5, kernel, klen) && s[5 + klen] == ' ')
            return strtod(s + 6 + klen, NULL);
        s = strchr(s, '\n');
        if (s) s++;
    }
    return -1;
}

/* The builds' native times; with emulated CPUs, the article's table: one
 * more column per CPU, OK or the signal, never a time. */
static void print_time_table(const struct example_run *ex, const struct demo_opts *o)
{
    double ref_s = reference_seconds(ex);
    const struct strvec *cpus = &ex->cpu_models;
    printf("\n%s: time of the whole program, median of %d run%s%s\n", ex->def->name, o->runs,
           o->runs == 1 ? "" : "s", o->quick ? " (--quick: reduced work, times are noise)" : "");
    if (cpus->n)
        printf("  (the FMV article's table: native times; on emulated CPUs - qemu-x86_64 -cpu MODEL, %s passes -\n"
               "   only whether the build runs: OK, or the signal it dies of; an emulated time measures qemu)\n",
               ex->def->emulated_arg);
    printf("  %-22s %10s  %10s", "build", "time", "vs -O3");
    for (size_t i = 0; i < cpus->n; i++) printf("  %11s", cpus->v[i]);
    putchar('\n');
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_result *r = &ex->builds[b];
        if (!build_applies(&demo_builds[b], ex)) continue;
        printf("  %-22s ", demo_builds[b].label);
        if (!r->built)
            printf("%-23s", ex->step_failure && demo_builds[b].patched ? "not built (pipeline failed)" : "build failed");
        else if (r->timing.failure)
            printf("%-23s", r->timing.failure);
        else
            printf("%8.3f s  %9.2fx", r->timing.median, measure_speedup(ref_s, r->timing.median));
        for (size_t i = 0; i < cpus->n; i++) {
            char *cell = cpu_cell(emulated_run(r, i));
            printf("  %11s", cell);
            free(cell);
        }
        putchar('\n');
    }
    if (ex->emulation_missing) printf("  emulated CPUs: none, %s\n", ex->emulation_missing);
}

/* Natively, FMV against -mavx2. On a CPU beyond AVX2 the FMV build's
 * x86-64-v4 clone (AVX-512) can beat -mavx2, which stops at AVX2: said,
 * not hidden. */
static void print_fmv_vs_avx2(const struct example_run *ex, const struct demo_opts *o)
{
    const struct build_result *f = &ex->builds[FMV_BUILD], *avx2 = &ex->builds[AVX2_BUILD];
    if (!timed_ok(f) || !timed_ok(avx2) || f->timing.median <= 0) return;
    double ratio = avx2->timing.median / f->timing.median;
    const char *verdict = ratio > 1.05 ? "faster than" : ratio < 0.95 ? "SLOWER than" : "as fast as";
    printf("  natively the FMV build is %s -O3 -mavx2 (%.3f s vs %.3f s, %.2fx)%s\n", verdict, f->timing.median,
           avx2->timing.median, ratio, o->quick ? " - but --quick times are noise" : "");
    const char *level = f->verified && f->cpus.runs[0].level ? f->cpus.runs[0].level : cpus_native_level();
    if (ratio > 1.05 && strcmp(level, "x86-64-v3") > 0)
        printf("  (this CPU is %s: the FMV build runs a clone beyond AVX2 here, which no -mavx2 build can use)\n",
               level);
}

/* Under the article's table: which builds die where, and which clone the
 * FMV build's resolvers pick on each CPU (the reason it runs everywhere). */
static void print_cpu_summary(const struct example_run *ex)
{
    if (!ex->cpu_models.n) return;
    struct strbuf everywhere = STRBUF_INIT;
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_result *r = &ex->builds[b];
        if (!r->built || !build_applies(&demo_builds[b], ex)) continue;
        if (!r->verified) {
            printf("  %s: could not be run on the emulated CPUs (see the error above)\n", demo_builds[b].label);
            continue;
        }
        struct strbuf where = STRBUF_INIT;
        for (size_t i = 0; i < ex->cpu_models.n; i++) {
            const struct verify_run *run = emulated_run(r, i);
            if (!run || run->ok) continue;
            char *cell = cpu_cell(run);
            sb_addf(&where, "%s%s (%s)", where.len ? ", " : "", run->cpu, cell);
            free(cell);
        }
        if (where.len)
            printf("  %s fails on %s%s\n", demo_builds[b].label, sb_str(&where),
                   demo_builds[b].portable ? "  <- it should run everywhere" : "");
        else
            sb_addf(&everywhere, "%s%s", everywhere.len ? ", " : "", demo_builds[b].label);
        sb_free(&where);
    }
    if (everywhere.len) printf("  runs on every CPU: %s\n", sb_str(&everywhere));
    sb_free(&everywhere);

    const struct build_result *f = &ex->builds[FMV_BUILD];
    if (f->verified) {
        const struct verify_report *rep = &f->cpus;
        for (size_t e = 0; e < rep->plan.n_entries; e++) {
            printf("  FMV: %s's resolver picks", rep->plan.entries[e].fn->name);
            for (size_t i = 0; i < rep->n_runs; i++) {
                const struct verify_run *run = &rep->runs[i];
                const struct elf_clone *c = run->dispatch.picks ? run->dispatch.picks[e] : NULL;
                printf("%s %s on %s", i ? "," : "", c ? c->symbol : "?",
                       run->emulated ? run->cpu : run->level ? run->level : "native");
                if (!run->emulated) printf(" (native)");
            }
            putchar('\n');
        }
        if (rep->plan.unavailable) printf("  FMV: no dispatch map: %s\n", rep->plan.unavailable);
    }
}

static void print_kernel_table(const struct example_run *ex)
{
    if (!ex->def->kernel_times || !timed_ok(&ex->builds[REF_BUILD])) return;
    const char *errors = ex->builds[REF_BUILD].timing.errors;
    printf("\n%s: time in each kernel, ms (first run; ratio to -O3)\n", ex->def->name);
    printf("  %-18s", "kernel");
    for (size_t b = 0; b < N_BUILDS; b++)
        if (build_applies(&demo_builds[b], ex)) printf(" %20s", demo_builds[b].label);
    putchar('\n');
    for (const char *s = errors; *s;) {
        size_t n = strcspn(s, "\n");
        char name[64];
        if (sscanf(s, "time %63s", name) == 1) {
            double base = kernel_ms(errors, name);
            printf("  %-18s", name);
            for (size_t b = 0; b < N_BUILDS; b++) {
                const struct build_result *r = &ex->builds[b];
                if (!build_applies(&demo_builds[b], ex)) continue;
                double ms = r->timed && !r->timing.failure ? kernel_ms(r->timing.errors, name) : -1;
                if (ms < 0) printf(" %20s", "-");
                else printf(" %11.1f (%5.2fx)", ms, measure_speedup(base, ms));
            }
            putchar('\n');
        }
        s += n;
        if (*s) s++;
    }
}

static void print_outputs(const struct example_run *ex)
{
    if (ex->outputs_compared < 2)
        printf("\n%s: outputs: fewer than two builds ran, nothing to compare\n", ex->def->name);
    else if (ex->outputs_equal)
        printf("\n%s: outputs: identical checksums across the %d builds\n", ex->def->name, ex->outputs_compared);
    else
        printf("\n%s: outputs: DIFFER between builds (see below)\n", ex->def->name);
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_result *r = &ex->builds[b];
        if (!r->timed || r->timing.failure) continue;
        if (!ex->outputs_equal)
            printf("  %s:%s\n", demo_builds[b].label, r->timing.output_varies ? " (varies from run to run)" : "");
        print_indented(r->timing.output, "    ");
        if (ex->outputs_equal) break;      /* one copy is enough */
    }
}

static void print_clone_table(const struct example_run *ex)
{
    printf("\n%s: which clone runs here", ex->def->name);
    if (!ex->have_clones) {
        printf(": no FMV binary to inspect\n");
        return;
    }
    if (ex->clones.n_functions == 0) {
        printf(": the FMV binary has no multiversioned function\n");
        return;
    }
    if (ex->profile_failure) {
        printf(" (cannot measure: %s)\n", ex->profile_failure);
        for (size_t i = 0; i < ex->clones.n_functions; i++) {
            const struct elf_mv_function *f = &ex->clones.functions[i];
            printf("  %-18s clones:", f->name);
            for (size_t c = 0; c < f->n_clones; c++) printf(" %s", f->clones[c].symbol);
            putchar('\n');
        }
        return;
    }
    printf(" (perf record -e cpu-clock of the FMV build, %ld samples)\n", ex->profile.total_samples);
    for (size_t i = 0; i < ex->clones.n_functions; i++) {
        const struct clone_samples *s = &ex->samples[i];
        printf("  %-18s ", s->fn->name);
        if (s->hottest)
            printf("runs %-32s (%ld of its %ld samples)\n", s->hottest->symbol,
                   profile_samples(&ex->profile, s->hottest->symbol), s->total);
        else
            printf("not sampled: too little time in it to see which clone runs\n");
        printf("  %-18s clones:", "");
        for (size_t c = 0; c < s->fn->n_clones; c++) printf(" %s", s->fn->clones[c].symbol);
        putchar('\n');
    }
}

/* {"qemu64": {"result": "OK", "ok": true, "picks": {"foo": "foo.default"}}, ...}:
 * a build on each emulated CPU, as in the table (no times), and which clone
 * each resolver picked there (FMV build only); null when it could not be run. */
static json_t *build_cpus_json(const struct build_result *r, const struct strvec *models)
{
    if (!r->verified) return json_null();
    json_t *j = json_object();
    for (size_t i = 0; i < models->n; i++) {
        const struct verify_run *run = emulated_run(r, i);
        char *cell = cpu_cell(run);
        json_t *c = json_pack("{s:s, s:b}", "result", cell, "ok", run && run->ok);
        free(cell);
        if (run && r->cpus.plan.n_entries) {
            json_t *picks = json_object();
            for (size_t e = 0; e < r->cpus.plan.n_entries; e++) {
                const struct elf_clone *pick = run->dispatch.picks ? run->dispatch.picks[e] : NULL;
                json_object_set_new(picks, r->cpus.plan.entries[e].fn->name,
                                    pick ? json_string(pick->symbol) : json_null());
            }
            json_object_set_new(c, "picks", picks);
        }
        json_object_set_new(j, models->v[i], c);
    }
    return j;
}

static json_t *example_to_json(const struct example_run *ex, const struct demo_opts *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(ex->def->name));
    json_object_set_new(j, "runs", json_integer(o->runs));
    json_object_set_new(j, "pipeline_failure", ex->step_failure ? json_string(ex->step_failure) : json_null());
    json_object_set_new(j, "list", ex->list_json ? json_incref(ex->list_json) : json_null());
    json_object_set_new(j, "patch", ex->patch_text ? json_string(ex->patch_text) : json_null());
    json_t *builds = json_array();
    double ref = reference_seconds(ex);
    for (size_t b = 0; b < N_BUILDS; b++) {
        const struct build_result *r = &ex->builds[b];
        if (!build_applies(&demo_builds[b], ex)) continue;
        json_t *jb = json_object();
        json_object_set_new(jb, "key", json_string(demo_builds[b].key));
        json_object_set_new(jb, "label", json_string(demo_builds[b].label));
        json_object_set_new(jb, "cflags", json_string(demo_builds[b].cflags));
        json_object_set_new(jb, "patched", json_boolean(demo_builds[b].patched));
        json_object_set_new(jb, "built", json_boolean(r->built));
        json_object_set_new(jb, "build_failure", r->build.failure ? json_string(r->build.failure) : json_null());
        if (r->timed) {
            json_t *secs = json_array();
            for (int i = 0; i < r->timing.runs; i++) json_array_append_new(secs, json_real(r->timing.seconds[i]));
            json_object_set_new(jb, "seconds", secs);
            json_object_set_new(jb, "run_failure", r->timing.failure ? json_string(r->timing.failure) : json_null());
            if (!r->timing.failure) {
                json_object_set_new(jb, "median_s", json_real(r->timing.median));
                json_object_set_new(jb, "speedup_vs_baseline", json_real(measure_speedup(ref, r->timing.median)));
            }
            json_object_set_new(jb, "output", json_string(r->timing.output));
            json_object_set_new(jb, "output_varies", json_boolean(r->timing.output_varies));
        }
        json_object_set_new(jb, "portable", json_boolean(demo_builds[b].portable));
        if (ex->cpu_models.n && r->built) json_object_set_new(jb, "cpus", build_cpus_json(r, &ex->cpu_models));
        json_array_append_new(builds, jb);
    }
    json_object_set_new(j, "builds", builds);
    json_t *cpus = json_array();
    for (size_t i = 0; i < ex->cpu_models.n; i++) json_array_append_new(cpus, json_string(ex->cpu_models.v[i]));
    json_object_set_new(j, "emulated_cpus", cpus);
    json_object_set_new(j, "emulated_arg", ex->def->emulated_arg ? json_string(ex->def->emulated_arg) : json_null());
    json_object_set_new(j, "emulation_missing",
                        ex->emulation_missing ? json_string(ex->emulation_missing) : json_null());
    json_object_set_new(j, "outputs_compared", json_integer(ex->outputs_compared));
    json_object_set_new(j, "outputs_equal", json_boolean(ex->outputs_compared >= 2 && ex->outputs_equal));
    json_t *clones = json_array();
    for (size_t i = 0; ex->have_clones && i < ex->clones.n_functions; i++) {
        const struct elf_mv_function *f = &ex->clones.functions[i];
        json_t *jf = json_object(), *jc = json_array();
        json_object_set_new(jf, "function", json_string(f->name));
        for (size_t c = 0; c < f->n_clones; c++) {
            json_t *one = json_object();
            json_object_set_new(one, "symbol", json_string(f->clones[c].symbol));
            json_object_set_new(one, "target", json_string(f->clones[c].target));
            if (ex->samples) json_object_set_new(one, "samples", json_integer(ex->samples[i].samples[c]));
            json_array_append_new(jc, one);
        }
        json_object_set_new(jf, "clones", jc);
        const struct elf_clone *hot = ex->samples ? ex->samples[i].hottest : NULL;
        json_object_set_new(jf, "runs_here", hot ? json_string(hot->symbol) : json_null());
        json_array_append_new(clones, jf);
    }
    json_object_set_new(j, "clones", clones);
    json_object_set_new(j, "profile_samples", json_integer(ex->profile.total_samples));
    json_object_set_new(j, "profile_failure", ex->profile_failure ? json_string(ex->profile_failure) : json_null());
    return j;
}

static void example_run_free(struct example_run *ex)
{
    free(ex->project);
    free(ex->step_failure);
    free(ex->list_text);
    json_decref(ex->list_json);
    free(ex->patch_text);
    for (size_t b = 0; b < N_BUILDS; b++) {
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

/* ---- the command ---- */

/* Runs one example in TMP/NAME; returns 0 when every step worked and the
 * outputs agree. */
static int run_example(struct example_run *ex, const struct demo_opts *o, const char *examples, const char *tmp)
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
    for (size_t b = 0; b < N_BUILDS; b++)
        if (build_applies(&demo_builds[b], ex) && (!ex->builds[b].built || ex->builds[b].timing.failure)) rc = -1;
    /* While the builds' copies still exist: the article's CPU columns. */
    run_on_cpus(ex, o);
    if (portable_build_failed(ex)) rc = -1;
    if (ex->outputs_compared >= 2 && !ex->outputs_equal) rc = -1;
    if (!o->json) {
        print_time_table(ex, o);
        print_cpu_summary(ex);
        print_fmv_vs_avx2(ex, o);
        print_kernel_table(ex);
        print_outputs(ex);
        print_clone_table(ex);
    }
out:
    free(pristine);
    free(work);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"runs", required_argument, NULL, 'r'},
        {"quick", no_argument, NULL, 'q'},
        {"keep", no_argument, NULL, 'k'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct demo_opts o = {.runs = DEFAULT_RUNS};
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > 1000) {
                fmv_error("demo: --runs wants a number from 1 to 1000, not '%s'", optarg);
                return 2;
            }
            o.runs = (int)n;
            break;
        }
        case 'q': o.quick = 1; break;
        case 'k': o.keep = 1; break;
        case 'j': o.json = 1; break;
        case 'h': return cli_usage(USAGE, 0);
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("demo: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    o.self = self_exe_path();
    if (!o.self) return fmv_error("demo: cannot find the fmvgen binary itself (/proc/self/exe)"), 1;
    const char *cc_env = getenv("CC");
    o.cc = cc_env && *cc_env ? cc_env : "cc";

    char *examples = examples_dir(o.self);
    if (!is_directory(examples)) {
        fmv_error("%s: the bundled examples are missing (reinstall fmvgen or run it from its build tree)", examples);
        free(examples);
        free(o.self);
        return 1;
    }
    char *tmp = make_temp_dir("demo");
    if (!tmp) {
        fmv_error("demo: cannot create a temp directory under $TMPDIR");
        free(examples);
        free(o.self);
        return 1;
    }
    if (!o.json) {
        printf("fmvgen demo: examples from %s\n", examples);
        printf("work directory: %s\n", tmp);
    }

    struct example_run runs[N_EXAMPLES];
    memset(runs, 0, sizeof runs);
    int failed = 0;
    for (size_t e = 0; e < N_EXAMPLES; e++) {
        runs[e].def = &demo_examples[e];
        if (run_example(&runs[e], &o, examples, tmp) != 0) failed = 1;
        fflush(stdout);
    }

    if (o.json) {
        json_t *j = json_object(), *arr = json_array();
        for (size_t e = 0; e < N_EXAMPLES; e++) json_array_append_new(arr, example_to_json(&runs[e], &o));
        json_object_set_new(j, "examples", arr);
        json_object_set_new(j, "workdir", json_string(tmp));
        json_object_set_new(j, "kept", json_boolean(o.keep));
        json_object_set_new(j, "ok", json_boolean(!failed));
        json_dumpf(j, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(j);
    }
    for (size_t e = 0; e < N_EXAMPLES; e++) example_run_free(&runs[e]);

    if (o.keep) {
        if (!o.json) printf("\nkept the work directory: %s\n", tmp);
    } else if (remove_tree(tmp) != 0) {
        fmv_warn("%s: could not remove the work directory", tmp);
    } else if (!o.json) {
        printf("\nremoved the work directory %s (--keep keeps it)\n", tmp);
    }
    if (failed && !o.json) printf("demo: some steps failed (see above)\n");
    free(tmp);
    free(examples);
    free(o.self);
    return failed ? 1 : 0;
}
