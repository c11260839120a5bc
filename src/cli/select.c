/* select.c - `fmvgen select`: keep only the clones that pay, measured on the
 * user's own workloads (issue 4).
 *
 *   1. the candidates of the last scan (lib/patch/plan.h);
 *   2. builds, in private copies under a temp dir (lib/measure/build.h): the
 *      baseline, and one variant per target set with *all* candidates cloned
 *      - a constant number of builds, whatever the candidate count;
 *   3. correctness: every variant runs every workload once (stdout compared
 *      with the baseline's, lib/verify/compare.h) and passes --test; a
 *      variant that fails is reported and never selected;
 *   4. runs interleaved (A B C A B C ...) under perf (lib/measure/profile.h),
 *      samples folded onto functions (lib/select/attribution.h), the rule of
 *      lib/select/decision.h;
 *   5. the selected patch (patch_plan_build_only), built once more and timed
 *      against the baseline end to end, interleaved (lib/measure/timing.h),
 *      with an interval (lib/select/stats.h);
 *   6. .fmvgen/selected.patch, report.md, report.json (lib/select/report.h).
 * With --static nothing is timed: the all-candidates build is inspected
 * (lib/elf/inspect.h) and clones needing nothing beyond the default dropped.
 *
 * The temp dir is removed at the end, and on Ctrl-C at the next step. */
#include <dirent.h>
#include <stdarg.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "elf/inspect.h"
#include "measure/build.h"
#include "measure/profile.h"
#include "measure/timing.h"
#include "patch/plan.h"
#include "run/spawn.h"
#include "select/attribution.h"
#include "select/decision.h"
#include "select/report.h"
#include "select/stats.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"
#include "verify/compare.h"

static const char USAGE[] =
    "usage: fmvgen select --build CMD --run CMD [--run CMD...] [--test CMD] [--runs N]\n"
    "                     [--timeout S] [--tolerance X] [--min-share PCT] [--keep] [--json]\n"
    "       fmvgen select --static --build CMD\n"
    "\n"
    "Chooses, by measurement, which candidates of the last scan get clones, and\n"
    "which target set each gets. Builds the baseline and one variant per target\n"
    "set (FMA psABI levels " TARGETS_DEFAULT "; FMA-free " TARGETS_EXACT ") with every\n"
    "candidate cloned, in private copies; checks each variant's outputs and tests\n"
    "against the baseline; profiles the workloads, runs interleaved; keeps the\n"
    "functions whose own time drops significantly and that matter; builds that\n"
    "selection and times it end to end against the baseline. Writes\n"
    ".fmvgen/selected.patch, report.md, report.json and report.html.\n"
    "\n"
    "  --build CMD       the build command, run by /bin/sh in a copy of the project\n"
    "  --run CMD         a workload (repeatable), run in the copy after the build\n"
    "  --test CMD        the project's tests; a variant failing them is not eligible\n"
    "  --runs N          profiled runs per variant and workload (default 5, at least 2)\n"
    "  --timeout S       kill a build, workload or test running longer (default 600)\n"
    "  --tolerance X     accept floating-point outputs within relative error X\n"
    "                    (lets FMA variants be chosen when they differ in last bits)\n"
    "  --min-share PCT   a function must hold PCT%% of the run's samples (default 2)\n"
    "  --static          select without timing: from the clones' ISA needs and loop records\n"
    "  --keep            keep the temp directory and say where it is\n"
    "  --json            print report.json on stdout\n";

#define DEFAULT_RUNS 5
#define DEFAULT_TIMEOUT_S 600
#define DEFAULT_MIN_SHARE 0.02
/* Fewer baseline samples per run than this make no verdict. */
#define MIN_SAMPLES 20

/* The target sets of the variants; index = variant - 1. */
static const struct {
    const char *name, *targets;
    int exact;
} target_sets[] = {
    {"fma-levels", TARGETS_DEFAULT, 0},
    {"fma-free", TARGETS_EXACT, 1},
};
#define N_SETS (sizeof target_sets / sizeof *target_sets)

struct select_opts {
    const char *build, *test;
    struct strvec runs_cmd;
    int runs, is_static, keep, json;
    double timeout_s, tolerance, min_share;
};

/* ---- Ctrl-C: remove the temp dir at the next step ---- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int check_interrupted(void)
{
    if (interrupted) fmv_error("interrupted; removing the temp directory");
    return interrupted;
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("select: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void show_output(const char *text)
{
    const char *s = text ? text : "";
    while (*s) {
        size_t n = strcspn(s, "\n");
        fprintf(stderr, "    | %.*s\n", (int)n, s);
        s += n;
        if (*s) s++;
    }
}

/* ---- builds ---- */

/* A copy of root with the plan's new file contents, at dst. */
static int patched_tree(const char *root, const struct patch_plan *plan, const char *dst)
{
    if (measure_copy_tree(root, dst) != 0) return -1;
    for (size_t i = 0; i < plan->nfiles; i++) {
        char *path = path_join(dst, plan->files[i].rel);
        int rc = write_file_atomic(path, plan->files[i].new_data, plan->files[i].new_len);
        if (rc != 0) fmv_error("%s: cannot write the patched file", path);
        free(path);
        if (rc != 0) return -1;
    }
    return 0;
}

/* Builds variant NAME from root, patched by plan when not NULL. */
static int build_variant(const char *name, const char *root, const struct patch_plan *plan, const char *work,
                         const struct select_opts *o, struct variant_build *out)
{
    char *src = NULL;
    const char *from = root;
    memset(out, 0, sizeof *out);
    if (plan) {
        src = xasprintf("%s/src-%s", work, name);
        if (patched_tree(root, plan, src) != 0) {
            out->failure = xstrdup("could not make the patched copy");
            free(src);
            return -1;
        }
        from = src;
    }
    char *const argv[] = {"/bin/sh", "-c", (char *)o->build, NULL};
    struct variant_spec spec = {.name = name, .source_dir = from, .work_dir = work, .build_argv = argv,
                                .timeout_s = o->timeout_s};
    int rc = measure_build_variant(&spec, out);
    if (rc != 0 && out->log && *out->log) show_output(out->log);
    if (src) {
        remove_tree(src);
        free(src);
    }
    return rc;
}

static int run_shell(const char *cmd, const char *cwd, double timeout_s, struct run_result *res)
{
    char *const argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    struct run_opts opts = {.cwd = cwd, .capture_stdout = 1, .capture_stderr = 1, .timeout_s = timeout_s};
    return run_argv(argv, &opts, res);
}

/* ---- the state of one selection ---- */

struct selection {
    struct select_opts *o;
    struct store *st;
    char *root, *work;
    struct patch_plan candidates;         /* all candidates, default targets */
    struct variant_build *builds;         /* [variant] */
    char **base_outputs;                  /* [workload] stdout of the baseline */
    struct select_report rep;
};

static void init_report(struct selection *s)
{
    struct select_report *r = &s->rep;
    r->static_mode = s->o->is_static;
    r->runs = s->o->runs;
    r->min_share = s->o->min_share;
    r->tolerance = s->o->tolerance;
    r->n_variants = 1 + N_SETS;
    r->variants = xcalloc(r->n_variants, sizeof *r->variants);
    r->variants[0].name = xstrdup("baseline");
    r->variants[0].targets = xstrdup("");
    for (size_t v = 1; v < r->n_variants; v++) {
        r->variants[v].name = xstrdup(target_sets[v - 1].name);
        r->variants[v].targets = xstrdup(target_sets[v - 1].targets);
    }
    r->n_functions = s->candidates.nfunctions;
    r->functions = xcalloc(r->n_functions ? r->n_functions : 1, sizeof *r->functions);
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        r->functions[f].name = xstrdup(pf->name);
        r->functions[f].display_name = xstrdup(pf->display_name ? pf->display_name : pf->name);
        r->functions[f].file = xstrdup(pf->rel);
        r->functions[f].line = pf->line;
        r->functions[f].ran = xcalloc(r->n_variants + 1, sizeof *r->functions[f].ran);
    }
    r->n_workloads = s->o->runs_cmd.n;
    r->workloads = xcalloc(r->n_workloads ? r->n_workloads : 1, sizeof *r->workloads);
    for (size_t w = 0; w < r->n_workloads; w++) r->workloads[w].command = xstrdup(s->o->runs_cmd.v[w]);
    s->builds = xcalloc(r->n_variants + 1, sizeof *s->builds);   /* + the selected build */
    s->base_outputs = xcalloc(r->n_workloads ? r->n_workloads : 1, sizeof *s->base_outputs);
}

static int plan_for_set(struct selection *s, size_t set, const struct strvec *only, struct patch_plan *plan)
{
    struct strvec targets = STRVEC_INIT;
    int rc = targets_parse(target_sets[set].targets, &targets);
    if (rc == 0) rc = patch_validate_targets(s->st, &targets, NULL, NULL, 0);
    if (rc == 0) rc = patch_plan_build_only(s->st, &targets, target_sets[set].exact, only, plan);
    s->rep.variants[set + 1].fma = targets_enable_fma(&targets);
    sv_free(&targets);
    return rc;
}

/* Builds the baseline and every target set's all-candidates variant. */
static int build_all(struct selection *s)
{
    struct select_report *r = &s->rep;
    for (size_t v = 0; v < r->n_variants; v++) {
        if (check_interrupted()) return -1;
        if (s->o->is_static && v != 1) continue;   /* static: only the default targets' clones */
        progress("building %s%s%s (%zu/%zu)", r->variants[v].name, v ? " with every candidate cloned for " : "",
                 r->variants[v].targets, v + 1, r->n_variants);
        struct patch_plan plan;
        int have_plan = 0;
        if (v > 0) {
            if (plan_for_set(s, v - 1, NULL, &plan) != 0) {
                patch_plan_free(&plan);
                return -1;
            }
            have_plan = 1;
        }
        r->n_builds++;
        if (build_variant(r->variants[v].name, s->root, have_plan ? &plan : NULL, s->work, s->o, &s->builds[v]) == 0) {
            r->variants[v].built = 1;
        } else if (v == 0) {
            fmv_error("%s: the baseline does not build with '%s'; nothing selected", s->root, s->o->build);
            if (have_plan) patch_plan_free(&plan);
            return -1;
        } else {
            r->variants[v].failure = xasprintf("build failed (%s)", s->builds[v].failure ? s->builds[v].failure : "?");
        }
        if (have_plan) patch_plan_free(&plan);
    }
    return 0;
}

/* Runs every workload once on variant v, compares its stdout with the
 * baseline's, and runs --test. Sets the variant's eligibility. On the
 * baseline a failure stops everything (returns -1). */
static int check_variant(struct selection *s, size_t v, const struct variant_build *b, struct select_variant *var)
{
    const struct select_opts *o = s->o;
    enum output_match worst = OUTPUT_IDENTICAL;
    for (size_t w = 0; w < o->runs_cmd.n && !var->failure; w++) {
        struct run_result res;
        int rc = run_shell(o->runs_cmd.v[w], b->dir, o->timeout_s, &res);
        if (rc != 0) {
            char *why = run_describe(&res);
            if (v == 0) {
                fmv_error("%s: workload '%s' fails on the baseline (%s); nothing selected", s->root,
                          o->runs_cmd.v[w], why);
                show_output(res.out);
                show_output(res.err);
            } else {
                var->failure = xasprintf("workload '%s' failed (%s)", o->runs_cmd.v[w], why);
            }
            free(why);
            run_result_free(&res);
            if (v == 0) return -1;
            break;
        }
        if (v == 0) {
            s->base_outputs[w] = xstrdup(res.out ? res.out : "");
        } else {
            struct output_diff d;
            const char *ref = s->base_outputs[w];
            output_compare(ref, strlen(ref), res.out ? res.out : "", res.out_len, o->tolerance, &d);
            if (d.match > worst) worst = d.match;
            if (d.match != OUTPUT_IDENTICAL && d.match != OUTPUT_WITHIN_TOLERANCE)
                var->failure = xasprintf("output of '%s' differs from the baseline's at line %d (%s)%s",
                                         o->runs_cmd.v[w], d.line, output_match_name(d.match),
                                         d.match == OUTPUT_FLOATS_DIFFER ? "; --tolerance accepts that" : "");
            output_diff_free(&d);
        }
        run_result_free(&res);
    }
    var->output_match = xstrdup(var->failure && worst == OUTPUT_IDENTICAL ? "" : output_match_name(worst));
    if (!var->failure && o->test) {
        struct run_result res;
        if (run_shell(o->test, b->dir, o->timeout_s, &res) != 0) {
            char *why = run_describe(&res);
            if (v == 0) {
                fmv_error("%s: --test '%s' fails on the baseline (%s); nothing selected", s->root, o->test, why);
                show_output(res.out);
                show_output(res.err);
            } else {
                var->failure = xasprintf("--test failed (%s)", why);
            }
            free(why);
            run_result_free(&res);
            if (v == 0) return -1;
        } else {
            run_result_free(&res);
        }
    }
    var->eligible = v == 0 ? 0 : !var->failure;
    return 0;
}

static int check_all(struct selection *s)
{
    struct select_report *r = &s->rep;
    for (size_t v = 0; v < r->n_variants; v++) {
        if (check_interrupted()) return -1;
        if (!r->variants[v].built) continue;
        progress("checking outputs%s of %s", s->o->test ? " and tests" : "", r->variants[v].name);
        if (check_variant(s, v, &s->builds[v], &r->variants[v]) != 0) return -1;
        if (r->variants[v].failure) progress("%s is not eligible: %s", r->variants[v].name, r->variants[v].failure);
    }
    return 0;
}

/* ---- profiled runs and the decision ---- */

/* A variant is profiled when it built and its workloads ran (even if its
 * outputs differ: the report then says what FMA would have bought). */
static int profiled(const struct select_variant *v, size_t index)
{
    return v->built && (index == 0 || !v->failure || !strncmp(v->failure, "output", 6));
}

static int profile_all(struct selection *s)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    double *samples = xcalloc(nw * nv * nf * nr + 1, sizeof *samples);
    double *totals = xcalloc(nw * nv * nr + 1, sizeof *totals);
    int *eligible = xcalloc(nv, sizeof *eligible);
    const char **names = xcalloc(nf + 1, sizeof *names);
    for (size_t f = 0; f < nf; f++) names[f] = r->functions[f].name;
    for (size_t v = 0; v < nv; v++) eligible[v] = r->variants[v].eligible;
    int rc = 0;
    for (size_t round = 0; round < nr && rc == 0; round++) {
        progress("profiled runs, round %zu/%zu", round + 1, nr);
        for (size_t v = 0; v < nv && rc == 0; v++) {
            if (!profiled(&r->variants[v], v)) continue;
            for (size_t w = 0; w < nw && rc == 0; w++) {
                if (check_interrupted()) {
                    rc = -1;
                    break;
                }
                char *const argv[] = {"/bin/sh", "-c", s->o->runs_cmd.v[w], NULL};
                struct profile p;
                char *why = NULL;
                if (profile_run(argv, s->builds[v].dir, s->work, &p, &why) != 0) {
                    fmv_error("%s: cannot profile '%s' on %s: %s", s->root, s->o->runs_cmd.v[w],
                              r->variants[v].name, why);
                    free(why);
                    rc = -1;
                    break;
                }
                r->n_profiled_runs++;
                totals[(w * nv + v) * nr + round] = (double)p.total_samples;
                for (size_t f = 0; f < nf; f++) {
                    samples[((w * nv + v) * nf + f) * nr + round] = (double)attribution_samples(&p, names[f]);
                    const char *hot = attribution_hottest_symbol(&p, names[f]);
                    if (hot && !r->functions[f].ran[v]) r->functions[f].ran[v] = xstrdup(hot);
                }
                profile_free(&p);
            }
        }
    }
    if (rc == 0) {
        struct decision_input in = {
            .n_functions = nf, .n_workloads = nw, .n_variants = nv, .n_runs = nr,
            .functions = names, .samples = samples, .totals = totals, .variant_eligible = eligible,
            .min_share = s->o->min_share, .min_samples = MIN_SAMPLES,
        };
        decide(&in, &r->decision);
    }
    free(samples);
    free(totals);
    free(eligible);
    free(names);
    return rc;
}

/* One target set per patch (the preamble defines one FMVGEN_CLONES): the set
 * whose chosen functions gain the most samples wins; functions that chose
 * another set are noted. Returns the winning variant, or -1. */
static int pick_patch_set(struct selection *s, struct strvec *names)
{
    struct select_report *r = &s->rep;
    const struct decision *d = &r->decision;
    int best = -1;
    double best_gain = 0;
    for (size_t v = 1; v < r->n_variants; v++) {
        double gain = 0;
        for (size_t f = 0; f < d->n_functions; f++)
            if (d->functions[f].chosen == (int)v) gain += d->functions[f].by_variant[v].diff;
        if (gain > best_gain) {
            best_gain = gain;
            best = (int)v;
        }
    }
    for (size_t f = 0; f < d->n_functions; f++) {
        const struct decision_function *df = &d->functions[f];
        if (df->chosen < 0) {
            if (df->reason == DECISION_INELIGIBLE)
                sv_pushf(&r->notes, "%s was held back: it gained with %s, whose outputs or tests differ from the "
                                    "baseline's (pass --tolerance to accept last-bit floating-point differences)",
                         r->functions[f].display_name, r->variants[df->best_ineligible].name);
            continue;
        }
        if (df->chosen == best) {
            sv_push(names, r->functions[f].name);
            r->functions[f].in_patch = 1;
            r->functions[f].set = best;
        } else if (best > 0 && df->qualifies[best]) {
            /* also a significant gain with the winning set: patched with it */
            sv_push(names, r->functions[f].name);
            r->functions[f].in_patch = 1;
            r->functions[f].set = best;
            r->functions[f].note = xasprintf("selected with %s (%.2fx); %s was faster still (%.2fx), but this "
                                             "version writes one target set per patch",
                                             r->variants[best].name, df->by_variant[best].speedup,
                                             r->variants[df->chosen].name, df->by_variant[df->chosen].speedup);
        } else {
            r->functions[f].note = xasprintf("gains most with %s, but this version writes one target set per "
                                             "patch and %s won overall", r->variants[df->chosen].name,
                                             r->variants[best].name);
        }
    }
    r->n_selected = names->n;
    return best;
}

/* Too few samples, or wide intervals, are said, not hidden. */
static void note_noise(struct selection *s)
{
    struct select_report *r = &s->rep;
    size_t few = 0;
    for (size_t f = 0; f < r->decision.n_functions; f++)
        if (r->decision.functions[f].reason == DECISION_FEW_SAMPLES) few++;
    if (few)
        sv_pushf(&r->notes, "%zu function%s had too few samples for a verdict: raise --runs (now %d) or make the "
                            "workload longer", few, few == 1 ? "" : "s", s->o->runs);
    if (s->o->runs < 3)
        sv_pushf(&r->notes, "only %d runs per variant: intervals are wide; --runs 5 or more is advised", s->o->runs);
}

/* Builds the selected patch, checks it, and times it against the baseline. */
static int confirm(struct selection *s, int set_variant, const struct strvec *names, struct patch_plan *plan)
{
    struct select_report *r = &s->rep;
    if (plan_for_set(s, (size_t)set_variant - 1, names, plan) != 0) return -1;
    r->patch_targets = xstrdup(target_sets[set_variant - 1].targets);
    if (check_interrupted()) return -1;
    progress("building the selected variant (%zu function%s, %s)", names->n, names->n == 1 ? "" : "s",
             r->patch_targets);
    struct variant_build *b = &s->builds[r->n_variants];
    r->n_builds++;
    if (build_variant("selected", s->root, plan, s->work, s->o, b) != 0) {
        sv_pushf(&r->notes, "the selected variant did not build (%s)", b->failure ? b->failure : "?");
        return 0;
    }
    struct select_variant check = {0};
    check_variant(s, r->n_variants, b, &check);
    if (check.failure) sv_pushf(&r->notes, "the selected variant fails a check: %s", check.failure);
    free(check.failure);
    free(check.output_match);
    if (check_interrupted()) return -1;

    size_t nw = r->n_workloads;
    struct timing_spec *specs = xcalloc(2 * nw, sizeof *specs);
    struct timing_result *res = xcalloc(2 * nw, sizeof *res);
    char *(*argvs)[4] = xcalloc(2 * nw, sizeof *argvs);
    for (size_t i = 0; i < 2 * nw; i++) {
        argvs[i][0] = "/bin/sh";
        argvs[i][1] = "-c";
        argvs[i][2] = s->o->runs_cmd.v[i / 2];
        specs[i] = (struct timing_spec){.argv = argvs[i], .cwd = i % 2 ? b->dir : s->builds[0].dir,
                                        .runs = s->o->runs, .timeout_s = s->o->timeout_s};
    }
    progress("timing baseline and selected, %d runs each, interleaved", s->o->runs);
    measure_time_set(specs, 2 * nw, res);
    for (size_t w = 0; w < nw; w++) {
        struct select_workload_result *wr = &r->workloads[w];
        const struct timing_result *base = &res[2 * w], *sel = &res[2 * w + 1];
        r->n_timed_runs += (size_t)(base->runs + sel->runs);
        if (sel->failure || base->failure) {
            wr->failure = xstrdup(sel->failure ? sel->failure : base->failure);
            continue;
        }
        stats_welch_log(base->seconds, (size_t)base->runs, sel->seconds, (size_t)sel->runs, &wr->e2e);
        wr->timed = 1;
        if (stats_slower(&wr->e2e))
            sv_pushf(&r->notes, "the selected build is significantly slower than the baseline on '%s'", wr->command);
        if (wr->e2e.valid && wr->e2e.speedup_hi - wr->e2e.speedup_lo > 0.2 * wr->e2e.speedup)
            sv_pushf(&r->notes, "'%s': the end-to-end interval is wide (noisy machine or short workload)",
                     wr->command);
    }
    for (size_t i = 0; i < 2 * nw; i++) timing_result_free(&res[i]);
    free(specs);
    free(res);
    free(argvs);
    return 0;
}

/* ---- --static ---- */

/* 1 when path is an x86-64 ELF executable or shared library. */
static int is_linked_elf(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char h[20];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    return n == sizeof h && !memcmp(h, "\177ELF", 4) && h[4] == 2 && (h[16] == 2 || h[16] == 3) && h[17] == 0;
}

static void find_elves(const char *dir, struct strvec *out)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".fmvgen")) continue;
        char *p = path_join(dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) find_elves(p, out);
            else if (S_ISREG(sb.st_mode) && is_linked_elf(p)) sv_push(out, p);
        }
        free(p);
    }
    closedir(d);
}

/* Per candidate: useful (1) when some non-default clone needs more than the
 * default clone, useless (0) when its clones need nothing more, unknown (-1)
 * when no linked file of the build holds its clones. */
static int static_verdict(const struct strvec *elves, const char *name)
{
    int verdict = -1;
    for (size_t i = 0; i < elves->n; i++) {
        struct inspect_report ir;
        if (inspect_file(elves->v[i], &ir) != 0) continue;
        for (size_t k = 0; k < ir.list.n_functions; k++) {
            char *base = attribution_base_name(ir.list.functions[k].name);
            int match = !strcmp(base, name);
            free(base);
            if (!match) continue;
            if (verdict < 0) verdict = 0;
            for (size_t c = 0; c < ir.list.functions[k].n_clones; c++)
                if (ir.functions[k].clones[c].verdict == VERDICT_USEFUL) verdict = 1;
        }
        inspect_free(&ir);
    }
    return verdict;
}

static int select_static(struct selection *s, struct strvec *names)
{
    struct select_report *r = &s->rep;
    struct strvec elves = STRVEC_INIT;
    find_elves(s->builds[1].dir, &elves);
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        struct select_function *fn = &r->functions[f];
        int v = static_verdict(&elves, pf->name);
        if (v == 1) {
            fn->in_patch = 1;
            fn->set = 1;
            fn->note = xstrdup("its clones use instructions the default clone does not (inspect)");
        } else if (v == 0) {
            fn->note = xstrdup("dropped: its clones need nothing beyond the default clone (inspect)");
        } else if (pf->probe_bytes > pf->build_bytes) {
            fn->in_patch = 1;
            fn->set = 1;
            fn->note = xasprintf("no clones found in the build's programs; loop records: %d-byte vectors at the "
                                 "target vs %d in the build", pf->probe_bytes, pf->build_bytes);
        } else {
            fn->note = xstrdup("dropped: no clones found in the build's programs and no wider vectors at the target");
        }
        if (fn->in_patch) sv_push(names, pf->name);
    }
    if (!elves.n) sv_push(&r->notes, "the build produced no linked x86-64 program or library to inspect");
    r->n_selected = names->n;
    sv_free(&elves);
    return 0;
}

/* ---- outputs ---- */

static int write_outputs(struct selection *s, const struct patch_plan *plan)
{
    const char *dir = store_path(s->st);
    char *patch = path_join(dir, "selected.patch");
    char *md_path = path_join(dir, "report.md");
    char *json_path = path_join(dir, "report.json");
    char *html_path = path_join(dir, "report.html");
    char *html = select_report_html(&s->rep);
    const char *text = plan && plan->text ? plan->text : "";
    char *md = select_report_markdown(&s->rep);
    json_t *j = select_report_json(&s->rep);
    char *js = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    int rc = 0;
    if (write_file_atomic(patch, text, strlen(text)) != 0) rc = fmv_error("%s: cannot write", patch);
    if (write_file_atomic(md_path, md, strlen(md)) != 0) rc = fmv_error("%s: cannot write", md_path);
    if (write_file_atomic(json_path, js, strlen(js)) != 0) rc = fmv_error("%s: cannot write", json_path);
    if (write_file_atomic(html_path, html, strlen(html)) != 0) rc = fmv_error("%s: cannot write", html_path);
    if (s->o->json) {
        fputs(js, stdout);
        fputc('\n', stdout);
    } else {
        char *sum = select_report_summary(&s->rep);
        fputs(sum, stdout);
        free(sum);
        printf("wrote %s, %s, %s, %s\n", patch, md_path, json_path, html_path);
    }
    free(md);
    free(js);
    json_decref(j);
    free(patch);
    free(md_path);
    free(json_path);
    free(html_path);
    free(html);
    return rc;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, struct select_opts *o)
{
    enum { O_BUILD = 256, O_RUN, O_TEST, O_RUNS, O_TIMEOUT, O_TOL, O_SHARE, O_STATIC, O_KEEP, O_JSON, O_HELP };
    static const struct option longopts[] = {
        {"build", required_argument, NULL, O_BUILD}, {"run", required_argument, NULL, O_RUN},
        {"test", required_argument, NULL, O_TEST},   {"runs", required_argument, NULL, O_RUNS},
        {"timeout", required_argument, NULL, O_TIMEOUT}, {"tolerance", required_argument, NULL, O_TOL},
        {"min-share", required_argument, NULL, O_SHARE}, {"static", no_argument, NULL, O_STATIC},
        {"keep", no_argument, NULL, O_KEEP},         {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, O_HELP},         {NULL, 0, NULL, 0},
    };
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_BUILD: o->build = optarg; break;
        case O_RUN: sv_push(&o->runs_cmd, optarg); break;
        case O_TEST: o->test = optarg; break;
        case O_RUNS:
            o->runs = (int)strtol(optarg, &end, 10);
            if (*end || o->runs < 1 || o->runs > 1000) {
                fmv_error("--runs: '%s' is not a number of runs (1..1000)", optarg);
                return 2;
            }
            break;
        case O_TIMEOUT:
            o->timeout_s = strtod(optarg, &end);
            if (*end || !(o->timeout_s > 0)) {
                fmv_error("--timeout: '%s' is not a positive number of seconds", optarg);
                return 2;
            }
            break;
        case O_TOL:
            o->tolerance = strtod(optarg, &end);
            if (*end || !(o->tolerance >= 0) || o->tolerance >= 1) {
                fmv_error("--tolerance: '%s' is not a relative error in [0, 1)", optarg);
                return 2;
            }
            break;
        case O_SHARE:
            o->min_share = strtod(optarg, &end) / 100;
            if (*end || !(o->min_share >= 0) || o->min_share > 1) {
                fmv_error("--min-share: '%s' is not a percentage", optarg);
                return 2;
            }
            break;
        case O_STATIC: o->is_static = 1; break;
        case O_KEEP: o->keep = 1; break;
        case O_JSON: o->json = 1; break;
        case O_HELP: return -1;
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("select: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (!o->build) {
        fmv_error("select: --build CMD is required (the command that builds the project)");
        return 2;
    }
    if (!o->is_static && !o->runs_cmd.n) {
        fmv_error("select: give at least one --run CMD (a workload to measure), or --static");
        return 2;
    }
    if (!o->is_static && o->runs < 2) {
        fmv_error("select: --runs %d gives too few samples for an interval; use --runs 3 or more", o->runs);
        return 2;
    }
    return 0;
}

static void selection_free(struct selection *s)
{
    for (size_t v = 0; s->builds && v <= s->rep.n_variants; v++) variant_build_free(&s->builds[v]);
    free(s->builds);
    for (size_t w = 0; s->base_outputs && w < s->rep.n_workloads; w++) free(s->base_outputs[w]);
    free(s->base_outputs);
    patch_plan_free(&s->candidates);
    select_report_free(&s->rep);
    free(s->root);
    free(s->work);
}

int cmd_select(int argc, char **argv)
{
    struct select_opts o = {.runs = DEFAULT_RUNS, .timeout_s = DEFAULT_TIMEOUT_S, .tolerance = -1,
                            .min_share = DEFAULT_MIN_SHARE};
    int prc = parse_options(argc, argv, &o);
    if (prc != 0) {
        sv_free(&o.runs_cmd);
        return prc < 0 ? cli_usage(USAGE, 0) : prc;
    }
    struct selection s = {.o = &o};
    int rc = 1;
    struct patch_plan final_plan = {0};
    int have_final = 0;
    s.st = cli_open_store();
    if (!s.st) goto out;
    s.root = store_meta_get(s.st, "root");
    if (!s.root) {
        fmv_error("%s: no project root recorded; run 'fmvgen scan' first", store_path(s.st));
        goto out;
    }
    {
        char *bd = path_absolute(store_builddir(s.st), NULL);
        int same = !strcmp(bd, s.root);
        free(bd);
        if (!same) {
            fmv_error("%s: out-of-tree build directories are not supported by select yet: scan an in-tree build "
                      "(build directory = project root %s)", store_builddir(s.st), s.root);
            goto out;
        }
    }
    if (patch_plan_build(s.st, &(struct strvec)STRVEC_INIT, 0, &s.candidates) != 0) goto out;
    if (s.candidates.nfunctions == 0) {
        printf("nothing to do: the scan found no candidate to clone\n");
        rc = 0;
        goto out;
    }
    init_report(&s);
    s.work = make_temp_dir("fmvgen-select");
    if (!s.work) {
        fmv_error("cannot create a temp directory");
        goto out;
    }
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    progress("%zu candidates; builds: baseline + %zu target sets + the selected one", s.candidates.nfunctions,
             o.is_static ? (size_t)0 : N_SETS);
    struct strvec names = STRVEC_INIT;
    int ok = build_all(&s) == 0;
    if (ok && o.is_static) {
        if (!s.rep.variants[1].built) {
            fmv_error("%s: the all-candidates build failed; nothing selected", s.root);
            ok = 0;
        } else {
            select_static(&s, &names);
            if (names.n) {
                ok = plan_for_set(&s, 0, &names, &final_plan) == 0;
                have_final = 1;
                s.rep.patch_targets = xstrdup(target_sets[0].targets);
            }
        }
    } else if (ok) {
        ok = check_all(&s) == 0 && profile_all(&s) == 0;
        if (ok) {
            note_noise(&s);
            int set = pick_patch_set(&s, &names);
            if (set > 0) {
                have_final = 1;
                ok = confirm(&s, set, &names, &final_plan) == 0;
            } else {
                sv_push(&s.rep.notes, "no function gained significantly: selected.patch is empty");
            }
        }
    }
    if (ok && !interrupted) rc = write_outputs(&s, have_final ? &final_plan : NULL) == 0 ? 0 : 1;
    else if (interrupted) rc = 130;
    sv_free(&names);
    if (o.keep && !interrupted) {
        progress("kept the temp directory %s", s.work);
    } else {
        remove_tree(s.work);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
out:
    if (have_final) patch_plan_free(&final_plan);
    if (s.st) store_close(s.st);
    selection_free(&s);
    sv_free(&o.runs_cmd);
    return rc;
}
