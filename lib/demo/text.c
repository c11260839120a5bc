/* text.c - the human report of one example (demo_print_example in
 * demo_internal.h): the builds' times and ratios (for array_addition the
 * FMV article's table, with a column per emulated CPU: OK or how it died,
 * never an emulated time), which builds fail where, FMV against -mavx2,
 * the kernels' own times, the outputs and the clones that run here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo/demo_internal.h"
#include "verify/cpus.h"

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
static void print_time_table(const struct demo_example *ex, const struct demo_options *o)
{
    double ref_s = demo_reference_seconds(ex);
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
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_result *r = &ex->builds[b];
        if (!demo_build_applies(&demo_builds[b], ex)) continue;
        printf("  %-22s ", demo_builds[b].label);
        if (!r->built)
            printf("%-23s", ex->step_failure && demo_builds[b].patched ? "not built (pipeline failed)" : "build failed");
        else if (r->timing.failure)
            printf("%-23s", r->timing.failure);
        else
            printf("%8.3f s  %9.2fx", r->timing.median, measure_speedup(ref_s, r->timing.median));
        for (size_t i = 0; i < cpus->n; i++) {
            char *cell = demo_cpu_cell(demo_emulated_run(r, i));
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
static void print_fmv_vs_avx2(const struct demo_example *ex, const struct demo_options *o)
{
    const struct demo_build_result *f = &ex->builds[DEMO_FMV_BUILD], *avx2 = &ex->builds[DEMO_AVX2_BUILD];
    if (!demo_timed_ok(f) || !demo_timed_ok(avx2) || f->timing.median <= 0) return;
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
static void print_cpu_summary(const struct demo_example *ex)
{
    if (!ex->cpu_models.n) return;
    struct strbuf everywhere = STRBUF_INIT;
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_result *r = &ex->builds[b];
        if (!r->built || !demo_build_applies(&demo_builds[b], ex)) continue;
        if (!r->verified) {
            printf("  %s: could not be run on the emulated CPUs (see the error above)\n", demo_builds[b].label);
            continue;
        }
        struct strbuf where = STRBUF_INIT;
        for (size_t i = 0; i < ex->cpu_models.n; i++) {
            const struct verify_run *run = demo_emulated_run(r, i);
            if (!run || run->ok) continue;
            char *cell = demo_cpu_cell(run);
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

    const struct demo_build_result *f = &ex->builds[DEMO_FMV_BUILD];
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

static void print_kernel_table(const struct demo_example *ex)
{
    if (!ex->def->kernel_times || !demo_timed_ok(&ex->builds[DEMO_REF_BUILD])) return;
    const char *errors = ex->builds[DEMO_REF_BUILD].timing.errors;
    printf("\n%s: time in each kernel, ms (first run; ratio to -O3)\n", ex->def->name);
    printf("  %-18s", "kernel");
    for (size_t b = 0; b < DEMO_N_BUILDS; b++)
        if (demo_build_applies(&demo_builds[b], ex)) printf(" %20s", demo_builds[b].label);
    putchar('\n');
    for (const char *s = errors; *s;) {
        size_t n = strcspn(s, "\n");
        char name[64];
        if (sscanf(s, "time %63s", name) == 1) {
            double base = kernel_ms(errors, name);
            printf("  %-18s", name);
            for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
                const struct demo_build_result *r = &ex->builds[b];
                if (!demo_build_applies(&demo_builds[b], ex)) continue;
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

static void print_outputs(const struct demo_example *ex)
{
    if (ex->outputs_compared < 2)
        printf("\n%s: outputs: fewer than two builds ran, nothing to compare\n", ex->def->name);
    else if (ex->outputs_equal)
        printf("\n%s: outputs: identical checksums across the %d builds\n", ex->def->name, ex->outputs_compared);
    else
        printf("\n%s: outputs: DIFFER between builds (see below)\n", ex->def->name);
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_result *r = &ex->builds[b];
        if (!r->timed || r->timing.failure) continue;
        if (!ex->outputs_equal)
            printf("  %s:%s\n", demo_builds[b].label, r->timing.output_varies ? " (varies from run to run)" : "");
        demo_print_indented(r->timing.output, "    ");
        if (ex->outputs_equal) break;      /* one copy is enough */
    }
}

static void print_clone_table(const struct demo_example *ex)
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
        const struct demo_clone_samples *s = &ex->samples[i];
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

void demo_print_example(const struct demo_example *ex, const struct demo_options *o)
{
    print_time_table(ex, o);
    print_cpu_summary(ex);
    print_fmv_vs_avx2(ex, o);
    print_kernel_table(ex);
    print_outputs(ex);
    print_clone_table(ex);
}
