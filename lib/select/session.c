/* session.c - see session.h. The steps of one selection, in the order
 * select_run calls them: init_report, build_all, check_all, profile_all (and
 * the decision), select_apply_decision and select_patch_assignments
 * (assign.h), confirm; select_static (static.h) instead
 * of the timed steps with --static. */
#include "select/session.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/symsource.h"
#include "measure/profile.h"
#include "measure/timing.h"
#include "run/spawn.h"
#include "select/assign.h"
#include "select/attribution.h"
#include "select/codecost.h"
#include "select/decision.h"
#include "select/reference.h"
#include "select/static.h"
#include "select/tree.h"
#include "select/stats.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/progress.h"
#include "verify/compare.h"

const struct select_target_set select_target_sets[] = {
    {"fma-levels", TARGETS_DEFAULT, 0},
    {"fma-free", TARGETS_EXACT, 1},
};
const size_t select_n_target_sets = sizeof select_target_sets / sizeof *select_target_sets;

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

/* The run's progress (util/progress.h): one updating line on a terminal,
 * plain "select: ..." lines otherwise; set for the duration of select_run.
 * step() starts a step of a phase (k of n; n == 0: uncounted), say() is a
 * message that stays. */
static struct progress *bar;

static void step(size_t k, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void step(size_t k, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (bar) progress_step(bar, k, n, "%s", msg);
    else if (n) fprintf(stderr, "select: %s (%zu/%zu)\n", msg, k, n);
    else fprintf(stderr, "select: %s\n", msg);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (bar) progress_say(bar, "%s", msg);
    else fprintf(stderr, "select: %s\n", msg);
}

/* A failing build's or workload's output, indented under the error line. */
static void show_output(const char *text)
{
    struct strbuf sb = STRBUF_INIT;
    const char *s = text ? text : "";
    while (*s) {
        size_t n = strcspn(s, "\n");
        sb_addf(&sb, "    | %.*s\n", (int)n, s);
        s += n;
        if (*s) s++;
    }
    if (bar) progress_write(bar, sb_str(&sb));
    else fputs(sb_str(&sb), stderr);
    sb_free(&sb);
}

/* ---- builds ---- */

/* builds[]/sources[]: [variant], [n_variants] the selected build,
 * [n_variants + 1] the -march=x86-64-v3 reference. */
#define MARCH_INDEX(r) ((r)->n_variants + 1)

/* Builds variant `index` (NAME) in its private tree (tree.h), patched by
 * plan when not NULL; a failing build's output is shown. */
static int build_variant(struct select_session *s, size_t index, const char *name, const struct patch_plan *plan)
{
    struct variant_build *out = &s->builds[index];
    int rc = select_tree_build(&s->tree, name, plan, s->work, out, &s->sources[index]);
    if (rc != 0 && out->log && *out->log) show_output(out->log);
    return rc;
}

/* The argv running shell command cmd for variant `index` (tree.h). */
static void variant_command(const struct select_session *s, size_t index, const char *cmd, struct strvec *argv)
{
    select_tree_command(cmd, s->sources[index] ? s->sources[index] : s->builds[index].dir, argv);
}

/* Runs cmd once in variant `index`'s build dir, its output captured. */
static int run_shell(const struct select_session *s, size_t index, const char *cmd, struct run_result *res)
{
    struct strvec argv = STRVEC_INIT;
    variant_command(s, index, cmd, &argv);
    struct run_opts opts = {.cwd = s->builds[index].dir, .capture_stdout = 1, .capture_stderr = 1,
                            .timeout_s = s->o->timeout_s};
    int rc = run_argv(sv_argv(&argv), &opts, res);
    sv_free(&argv);
    return rc;
}

/* ---- the state of one selection ---- */

static void init_report(struct select_session *s)
{
    struct select_report *r = &s->rep;
    r->static_mode = s->o->is_static;
    r->runs = s->o->runs;
    r->min_share = s->o->min_share;
    r->tolerance = s->o->tolerance;
    r->n_variants = 1 + select_n_target_sets;
    r->variants = xcalloc(r->n_variants, sizeof *r->variants);
    r->variants[0].name = xstrdup("baseline");
    r->variants[0].targets = xstrdup("");
    for (size_t v = 1; v < r->n_variants; v++) {
        r->variants[v].name = xstrdup(select_target_sets[v - 1].name);
        r->variants[v].targets = xstrdup(select_target_sets[v - 1].targets);
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
    r->n_workloads = s->o->runs_cmd->n;
    r->workloads = xcalloc(r->n_workloads ? r->n_workloads : 1, sizeof *r->workloads);
    for (size_t w = 0; w < r->n_workloads; w++) r->workloads[w].command = xstrdup(s->o->runs_cmd->v[w]);
    /* + the selected build (MARCH_INDEX - 1) + the -march=x86-64-v3 reference */
    s->builds = xcalloc(r->n_variants + 2, sizeof *s->builds);
    s->sources = xcalloc(r->n_variants + 2, sizeof *s->sources);
    s->base_outputs = xcalloc(r->n_workloads ? r->n_workloads : 1, sizeof *s->base_outputs);
}

/* The all-candidates patch of target set `set`. */
static int plan_for_set(struct select_session *s, size_t set, struct patch_plan *plan)
{
    struct strvec targets = STRVEC_INIT;
    int rc = targets_parse(select_target_sets[set].targets, &targets);
    if (rc == 0) rc = patch_validate_targets(s->st, &targets, NULL, NULL, 0);
    if (rc == 0) rc = patch_plan_build(s->st, &targets, select_target_sets[set].exact, plan);
    s->rep.variants[set + 1].fma = targets_enable_fma(&targets);
    sv_free(&targets);
    return rc;
}

/* The -march=x86-64-v3 reference (select/reference.h): the unpatched
 * project built once more with the scan's flags + -march=x86-64-v3 in
 * CFLAGS/CXXFLAGS. Only compared with, never selected; a failure is
 * reported in the code-size section, not an error of the selection. */
static void build_reference(struct select_session *s, size_t k, size_t n)
{
    struct select_report *r = &s->rep;
    struct select_march *m = &r->march;
    m->cflags = select_reference_flags(s->st, "c");
    m->cxxflags = select_reference_flags(s->st, "c++");
    step(k, n, "building the -march=x86-64-v3 reference (unpatched, whole program)");
    m->attempted = 1;
    r->n_builds++;
    struct patch_plan plan;   /* every source rewritten unchanged: compiled again */
    if (select_reference_plan(s->st, s->root, &plan) != 0) {
        m->failure = xstrdup("a source of the scan cannot be read");
        patch_plan_free(&plan);
        return;
    }
    struct select_reference_env saved;
    select_reference_env_apply(m->cflags, m->cxxflags, &saved);
    s->tree.cmake_append_flags = SELECT_MARCH_FLAG;   /* a moved CMake cache ignores CFLAGS */
    const struct variant_build *b = &s->builds[MARCH_INDEX(r)];
    if (build_variant(s, MARCH_INDEX(r), "march-x86-64-v3", &plan) == 0) m->built = 1;
    else m->failure = xasprintf("its build failed (%s)", b->failure ? b->failure : "?");
    s->tree.cmake_append_flags = NULL;
    select_reference_env_restore(&saved);
    patch_plan_free(&plan);
}

/* Measures the code of every build that exists (select/codecost.h). */
static void measure_code(struct select_session *s)
{
    struct select_report *r = &s->rep;
    const char **dirs = xcalloc(r->n_variants, sizeof *dirs);
    for (size_t v = 0; v < r->n_variants; v++) dirs[v] = r->variants[v].built ? s->builds[v].dir : NULL;
    struct select_build_dirs d = {
        .variants = dirs,
        .selected = s->builds[r->n_variants].dir && !s->builds[r->n_variants].failure ? s->builds[r->n_variants].dir : NULL,
        .march = r->march.built ? s->builds[MARCH_INDEX(r)].dir : NULL,
    };
    step(0, 0, "measuring the code of the builds");
    select_measure_code(r, &d);
    free(dirs);
}

/* The baseline's first output of workload w is out: runs it once more and
 * learns which lines are compared (workload_output.h); a benchmark printing
 * its own timings is said, with the remedy. -1 when the second run fails. */
static int learn_output(struct select_session *s, size_t w, const char *out)
{
    const char *cmd = s->o->runs_cmd->v[w];
    struct run_result res;
    if (run_shell(s, 0, cmd, &res) != 0) {
        char *why = run_describe(&res);
        fmv_error("%s: workload '%s' fails on the baseline's second run (%s); nothing selected", s->root, cmd, why);
        show_output(res.out);
        show_output(res.err);
        free(why);
        run_result_free(&res);
        return -1;
    }
    struct workload_output *wo = &s->base_outputs[w];
    workload_output_learn(wo, out, res.out ? res.out : "");
    run_result_free(&res);
    if (wo->mode == WORKLOAD_OUTPUT_MASKED) {
        sv_pushf(&s->rep.notes, "'%s': its output differs between two runs of the baseline (timings?) on %zu "
                                "line%s (the first: line %d): %s not compared, the other lines must match; to "
                                "compare everything, pipe a checksum of the real output, or use --test",
                 cmd, wo->n_masked, wo->n_masked == 1 ? "" : "s", wo->first_masked,
                 wo->n_masked == 1 ? "it is" : "they are");
    } else if (wo->mode == WORKLOAD_OUTPUT_NOT_COMPARED) {
        sv_pushf(&s->rep.notes, "'%s': its output differs between two runs of the baseline (timings?), even in its "
                                "number of lines: its output is not compared; pipe a checksum of the real output, "
                                "or use --test", cmd);
    }
    if (wo->mode != WORKLOAD_OUTPUT_ALL) say("%s", s->rep.notes.v[s->rep.notes.n - 1]);
    return 0;
}

/* Runs every workload once on variant v, compares its stdout with the
 * baseline's, and runs --test. Sets the variant's eligibility. On the
 * baseline a failure stops everything (returns -1). */
static int check_variant(struct select_session *s, size_t v, struct select_variant *var)
{
    const struct select_options *o = s->o;
    enum output_match worst = OUTPUT_IDENTICAL;
    for (size_t w = 0; w < o->runs_cmd->n && !var->failure; w++) {
        struct run_result res;
        int rc = run_shell(s, v, o->runs_cmd->v[w], &res);
        if (rc != 0) {
            char *why = run_describe(&res);
            if (v == 0) {
                fmv_error("%s: workload '%s' fails on the baseline (%s); nothing selected", s->root,
                          o->runs_cmd->v[w], why);
                show_output(res.out);
                show_output(res.err);
            } else {
                var->failure = xasprintf("workload '%s' failed (%s)", o->runs_cmd->v[w], why);
            }
            free(why);
            run_result_free(&res);
            if (v == 0) return -1;
            break;
        }
        if (v == 0) {
            rc = learn_output(s, w, res.out ? res.out : "");
            run_result_free(&res);
            if (rc != 0) return -1;
            continue;
        }
        struct output_diff d;
        workload_output_compare(&s->base_outputs[w], res.out ? res.out : "", res.out_len, o->tolerance, &d);
        if (d.match > worst) worst = d.match;
        if (d.match != OUTPUT_IDENTICAL && d.match != OUTPUT_WITHIN_TOLERANCE)
            var->failure = xasprintf("output of '%s' differs from the baseline's at line %d (%s)%s",
                                     o->runs_cmd->v[w], d.line, output_match_name(d.match),
                                     d.match == OUTPUT_FLOATS_DIFFER ? "; --tolerance accepts that" : "");
        output_diff_free(&d);
        run_result_free(&res);
    }
    var->output_match = xstrdup(var->failure && worst == OUTPUT_IDENTICAL ? "" : output_match_name(worst));
    if (!var->failure && o->test) {
        struct run_result res;
        if (run_shell(s, v, o->test, &res) != 0) {
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

static int check_one(struct select_session *s, size_t v)
{
    struct select_report *r = &s->rep;
    if (check_interrupted()) return -1;
    step(v + 1, r->n_variants, "checking outputs%s of %s", s->o->test ? " and tests" : "", r->variants[v].name);
    if (check_variant(s, v, &r->variants[v]) != 0) return -1;
    if (r->variants[v].failure) say("%s is not eligible: %s", r->variants[v].name, r->variants[v].failure);
    return 0;
}

/* The variants; the baseline was checked right after its build. */
static int check_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    for (size_t v = 1; v < r->n_variants; v++)
        if (r->variants[v].built && check_one(s, v) != 0) return -1;
    return 0;
}

/* Builds the baseline and every target set's all-candidates variant. */
static int build_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    for (size_t v = 0; v < r->n_variants; v++) {
        if (check_interrupted()) return -1;
        if (s->o->is_static && v != 1) continue;   /* static: only the default targets' clones */
        /* --static builds one variant: step 1/1 */
        step(s->o->is_static ? 1 : v + 1, s->o->is_static ? 1 : r->n_variants + 1, "building %s%s%s",
             r->variants[v].name, v ? " with every candidate cloned for " : "", r->variants[v].targets);
        struct patch_plan plan;
        int have_plan = 0;
        if (v > 0) {
            if (plan_for_set(s, v - 1, &plan) != 0) {
                patch_plan_free(&plan);
                return -1;
            }
            have_plan = 1;
        }
        r->n_builds++;
        if (build_variant(s, v, r->variants[v].name, have_plan ? &plan : NULL) == 0) {
            r->variants[v].built = 1;
            /* a workload or --test failing on the baseline stops everything:
             * found now, not after every other build */
            if (v == 0 && !s->o->is_static && check_one(s, 0) != 0) return -1;
        } else if (v == 0) {
            fmv_error("%s: the baseline does not build with '%s'; nothing selected", s->root, s->o->build);
            if (have_plan) patch_plan_free(&plan);
            return -1;
        } else {
            r->variants[v].failure = xasprintf("build failed (%s)", s->builds[v].failure ? s->builds[v].failure : "?");
        }
        if (have_plan) patch_plan_free(&plan);
    }
    if (!s->o->is_static) {
        if (check_interrupted()) return -1;
        build_reference(s, r->n_variants + 1, r->n_variants + 1);
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

/* How each candidate is found in a profile (attribution.h): a name other
 * candidates share is counted by source file, unless even files cannot tell
 * them apart (same basename, or two external functions); a name of its own
 * by file only when the profile shows namesakes from other files. */
static void attribution_plan(const struct select_session *s, struct attribution_function *fns,
                             struct strvec *sources, enum attribution_need *need)
{
    const struct select_report *r = &s->rep;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        attribution_sources(pf->rel, pf->notes, &sources[f]);
        fns[f] = (struct attribution_function){pf->name, sv_argv(&sources[f]), pf->is_static};
    }
    for (size_t f = 0; f < r->n_functions; f++) {
        if (select_name_count(r, f) == 1) need[f] = ATTRIBUTION_BY_FILE_IF_NAMESAKES;
        else need[f] = attribution_files_clash(fns, r->n_functions, f) ? ATTRIBUTION_BY_NAME : ATTRIBUTION_BY_FILE;
    }
}

/* attribution_count, folding the copies of a function that several TUs
 * compile from one included source file, each under its own symbol when a
 * macro renames it (jpeg_fdct_islow, jpeg12_fdct_islow): all are its time. */
static void count_function(const struct profile *p, const struct attribution_origin *origins,
                           const struct attribution_function *fn, const struct patch_function *pf,
                           enum attribution_need need, struct attribution_count *out)
{
    if (!pf->symbols.n) {
        attribution_count(p, origins, fn, need, out);
        return;
    }
    memset(out, 0, sizeof *out);
    long best = -1;
    for (size_t i = 0; i < pf->symbols.n; i++) {
        struct attribution_function one = *fn;
        one.name = pf->symbols.v[i];
        struct attribution_count c;
        attribution_count(p, origins, &one, need, &c);
        out->samples += c.samples;
        out->name_samples += c.name_samples;
        out->undecided |= c.undecided;
        if (c.hottest && c.samples > best) best = c.samples, out->hottest = c.hottest;
    }
}

static int profile_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    double *samples = xcalloc(nw * nv * nf * nr + 1, sizeof *samples);
    /* by name too: a shared name that one profile could not tell by file
     * is counted by name in every run, so its runs stay comparable */
    double *name_samples = xcalloc(nw * nv * nf * nr + 1, sizeof *name_samples);
    struct attribution_function *fns = xcalloc(nf + 1, sizeof *fns);
    struct strvec *sources = xcalloc(nf + 1, sizeof *sources);
    enum attribution_need *need = xcalloc(nf + 1, sizeof *need);
    int *undecided = xcalloc(nf + 1, sizeof *undecided);
    struct elf_symsource_cache *symbols = elf_symsource_cache_new();
    attribution_plan(s, fns, sources, need);
    double *totals = xcalloc(nw * nv * nr + 1, sizeof *totals);
    int *eligible = xcalloc(nv, sizeof *eligible);
    const char **names = xcalloc(nf + 1, sizeof *names);
    for (size_t f = 0; f < nf; f++) names[f] = r->functions[f].name;
    for (size_t v = 0; v < nv; v++) eligible[v] = r->variants[v].eligible;
    int rc = 0;
    for (size_t round = 0; round < nr && rc == 0; round++) {
        step(round + 1, nr, "profiled runs, interleaved");
        for (size_t v = 0; v < nv && rc == 0; v++) {
            if (!profiled(&r->variants[v], v)) continue;
            for (size_t w = 0; w < nw && rc == 0; w++) {
                if (check_interrupted()) {
                    rc = -1;
                    break;
                }
                struct strvec argv = STRVEC_INIT;
                variant_command(s, v, s->o->runs_cmd->v[w], &argv);
                struct profile p;
                char *why = NULL;
                int prc = profile_run(sv_argv(&argv), s->builds[v].dir, s->work, &p, &why);
                sv_free(&argv);
                if (prc != 0) {
                    fmv_error("%s: cannot profile '%s' on %s: %s", s->root, s->o->runs_cmd->v[w],
                              r->variants[v].name, why);
                    free(why);
                    rc = -1;
                    break;
                }
                r->n_profiled_runs++;
                totals[(w * nv + v) * nr + round] = (double)p.total_samples;
                struct attribution_origin *origins = attribution_locate(&p, symbols);
                for (size_t f = 0; f < nf; f++) {
                    struct attribution_count c;
                    count_function(&p, origins, &fns[f], &s->candidates.functions[f], need[f], &c);
                    samples[((w * nv + v) * nf + f) * nr + round] = (double)c.samples;
                    name_samples[((w * nv + v) * nf + f) * nr + round] = (double)c.name_samples;
                    undecided[f] |= c.undecided;
                    if (c.hottest && !r->functions[f].ran[v]) r->functions[f].ran[v] = xstrdup(c.hottest);
                }
                free(origins);
                profile_free(&p);
            }
        }
    }
    for (size_t f = 0; f < nf; f++) {
        if (need[f] != ATTRIBUTION_BY_FILE) continue;
        r->functions[f].by_file = !undecided[f];
        for (size_t i = 0; undecided[f] && i < nw * nv; i++)
            memcpy(&samples[(i * nf + f) * nr], &name_samples[(i * nf + f) * nr], nr * sizeof *samples);
    }
    if (rc == 0) {
        struct decision_input in = {
            .n_functions = nf, .n_workloads = nw, .n_variants = nv, .n_runs = nr,
            .functions = names, .samples = samples, .totals = totals, .variant_eligible = eligible,
            .min_share = s->o->min_share, .min_samples = SELECT_MIN_SAMPLES,
        };
        decide(&in, &r->decision);
        /* what each function's chosen clones saved, per workload: for
         * telling a fixed-time workload once the end-to-end times are in */
        s->saved = xcalloc(nw * nf + 1, sizeof *s->saved);
        for (size_t w = 0; w < nw; w++)
            for (size_t f = 0; f < nf; f++)
                if (r->decision.functions[f].chosen >= 1)
                    s->saved[w * nf + f] = decision_saved_share(&in, w, f, (size_t)r->decision.functions[f].chosen);
    }
    free(samples);
    free(name_samples);
    free(fns);
    for (size_t f = 0; f < nf; f++) sv_free(&sources[f]);
    free(sources);
    free(need);
    free(undecided);
    elf_symsource_cache_free(symbols);
    free(totals);
    free(eligible);
    free(names);
    return rc;
}

/* Functions selected as a group of small gains (decision.h) are said, with
 * the group's own interval: none of them would be selected alone. */
static void note_small_gains(struct select_session *s)
{
    struct select_report *r = &s->rep;
    const struct decision_group *g = &r->decision.group;
    size_t n = 0;
    for (size_t f = 0; f < r->n_functions && f < r->decision.n_functions; f++)
        n += r->functions[f].in_patch && r->decision.functions[f].reason == DECISION_SELECTED_TOGETHER;
    if (g->chosen < 1 || !n) return;
    const struct stats_interval *iv = &g->by_variant_chosen;
    sv_pushf(&r->notes, "%zu function%s selected together as small gains with %s: none is significantly faster "
                        "alone, but the %zu functions without a verdict (%.1f%% of a workload) are %.2fx [%.2f, %.2f] "
                        "faster together", n, n == 1 ? "" : "s", r->variants[g->chosen].name,
             g->n_pool, g->share * 100, iv->speedup, iv->speedup_lo, iv->speedup_hi);
}

/* Too few samples, or wide intervals, are said, not hidden. */
static void note_noise(struct select_session *s)
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

/* A workload that runs for a fixed time cannot show a speedup in time
 * (decision_fixed_time): said, with the remedy. */
static void note_fixed_time(struct select_session *s, size_t w)
{
    struct select_report *r = &s->rep;
    const struct select_workload_result *wr = &r->workloads[w];
    double saved = 0;
    for (size_t f = 0; s->saved && f < r->n_functions; f++)
        if (r->functions[f].in_patch) saved += s->saved[w * r->n_functions + f];
    if (!decision_fixed_time(saved, &wr->e2e)) return;
    sv_pushf(&r->notes, "'%s' took the same time with the selected clones as without (%.2fx [%.2f, %.2f]), though "
                        "their profiles say they save %.0f%% of its time: a benchmark that runs for a fixed time "
                        "cannot show a speedup in time; give it a fixed amount of work",
             wr->command, wr->e2e.speedup, wr->e2e.speedup_lo, wr->e2e.speedup_hi, 100 * saved);
    say("%s", r->notes.v[r->notes.n - 1]);
}

/* Builds the selected patch - each function with the targets of the set it
 * chose (assign.h) - checks it, and times it against the baseline. */
/* A wide end-to-end interval is said; when the wall times measured waits
 * (decision_waits_dominate), the CPU-time interval is pointed to. */
static void note_wide_e2e(struct select_session *s, const struct select_workload_result *wr,
                          const struct timing_result *base)
{
    struct select_report *r = &s->rep;
    if (decision_waits_dominate(base->median, base->cpu_median) && wr->e2e_cpu.valid &&
        !select_interval_wide(&wr->e2e_cpu))
        sv_pushf(&r->notes, "'%s': the end-to-end interval is wide: the baseline's wall times were %.1fx its CPU "
                            "times (a busy machine, or a workload that waits), so they measure the waits; the "
                            "CPU-time interval, %.2fx [%.2f, %.2f], is the steadier figure here",
                 wr->command, base->median / base->cpu_median, wr->e2e_cpu.speedup, wr->e2e_cpu.speedup_lo,
                 wr->e2e_cpu.speedup_hi);
    else
        sv_pushf(&r->notes, "'%s': the end-to-end interval is wide (noisy machine or short workload)", wr->command);
}

static int confirm(struct select_session *s, const struct patch_assignments *a, struct patch_plan *plan)
{
    struct select_report *r = &s->rep;
    if (patch_validate_assignments(s->st, a) != 0 || patch_plan_build_assigned(s->st, a, plan) != 0) return -1;
    if (check_interrupted()) return -1;
    step(0, 0, "building the selected variant (%zu function%s, targets %s)", a->n, a->n == 1 ? "" : "s",
         r->patch_targets);
    struct variant_build *b = &s->builds[r->n_variants];
    r->n_builds++;
    if (build_variant(s, r->n_variants, "selected", plan) != 0) {
        sv_pushf(&r->notes, "the selected variant did not build (%s)", b->failure ? b->failure : "?");
        return 0;
    }
    struct select_variant check = {0};
    check_variant(s, r->n_variants, &check);
    if (check.failure) sv_pushf(&r->notes, "the selected variant fails a check: %s", check.failure);
    free(check.failure);
    free(check.output_match);
    if (check_interrupted()) return -1;
    measure_code(s);   /* tells whether the reference really got its flags */

    /* per workload: baseline, selected and (when comparable) the reference */
    size_t nw = r->n_workloads, per = r->march.built && !r->march.failure ? 3 : 2;
    size_t index[3] = {0, r->n_variants, MARCH_INDEX(r)};
    struct timing_spec *specs = xcalloc(per * nw, sizeof *specs);
    struct timing_result *res = xcalloc(per * nw, sizeof *res);
    struct strvec *argvs = xcalloc(per * nw, sizeof *argvs);
    for (size_t i = 0; i < per * nw; i++) {
        size_t v = index[i % per];
        variant_command(s, v, s->o->runs_cmd->v[i / per], &argvs[i]);
        specs[i] = (struct timing_spec){.argv = sv_argv(&argvs[i]), .cwd = s->builds[v].dir, .runs = s->o->runs,
                                        .timeout_s = s->o->timeout_s};
    }
    step(0, 0, "timing baseline%s and selected, %d runs each, interleaved", per == 3 ? ", -march=x86-64-v3" : "",
         s->o->runs);
    measure_time_set(specs, per * nw, res);
    for (size_t w = 0; w < nw; w++) {
        struct select_workload_result *wr = &r->workloads[w];
        const struct timing_result *base = &res[per * w], *sel = &res[per * w + 1];
        r->n_timed_runs += (size_t)(base->runs + sel->runs);
        if (per == 3) {
            const struct timing_result *march = &res[per * w + 2];
            r->n_timed_runs += (size_t)march->runs;
            if (march->failure) {
                wr->march_failure = xstrdup(march->failure);
            } else if (!base->failure && !sel->failure) {
                stats_welch_log(base->seconds, (size_t)base->runs, march->seconds, (size_t)march->runs, &wr->march_e2e);
                stats_welch_log(march->seconds, (size_t)march->runs, sel->seconds, (size_t)sel->runs,
                                &wr->selected_vs_march);
                wr->march_timed = 1;
            }
        }
        if (sel->failure || base->failure) {
            wr->failure = xstrdup(sel->failure ? sel->failure : base->failure);
            continue;
        }
        stats_welch_log(base->seconds, (size_t)base->runs, sel->seconds, (size_t)sel->runs, &wr->e2e);
        if (base->cpu_seconds && sel->cpu_seconds)
            stats_welch_log(base->cpu_seconds, (size_t)base->runs, sel->cpu_seconds, (size_t)sel->runs, &wr->e2e_cpu);
        wr->timed = 1;
        note_fixed_time(s, w);
        if (stats_slower(&wr->e2e))
            sv_pushf(&r->notes, "the selected build is significantly slower than the baseline on '%s'", wr->command);
        else if (wr->e2e_cpu.valid && stats_slower(&wr->e2e_cpu))
            sv_pushf(&r->notes, "the selected build takes significantly more CPU time than the baseline on '%s'",
                     wr->command);
        if (wr->e2e.valid && select_interval_wide(&wr->e2e))
            note_wide_e2e(s, wr, base);
    }
    for (size_t i = 0; i < per * nw; i++) {
        timing_result_free(&res[i]);
        sv_free(&argvs[i]);
    }
    free(specs);
    free(res);
    free(argvs);
    return 0;
}


/* ---- the whole run ---- */

/* The steps after the temp dir exists; the caller removes it. */
static enum select_status run_steps(struct select_session *s)
{
    const struct select_options *o = s->o;
    if (o->is_static)
        say("%zu candidates; one build: every candidate cloned", s->candidates.nfunctions);
    else
        say("%zu candidates; builds: baseline + %zu target sets + the -march=x86-64-v3 reference + the selected one",
            s->candidates.nfunctions, select_n_target_sets);
    struct patch_assignments assigned = {0};
    int ok = build_all(s) == 0;
    if (ok && o->is_static) {
        if (!s->rep.variants[1].built) {
            fmv_error("%s: the all-candidates build failed; nothing selected", s->root);
            ok = 0;
        } else {
            select_static(s->builds[1].dir, &s->candidates, 1, &s->rep);
            ok = select_patch_assignments(&s->rep, &assigned) == 0;
            if (ok && assigned.n) {
                s->have_final = 1;
                ok = patch_validate_assignments(s->st, &assigned) == 0 &&
                     patch_plan_build_assigned(s->st, &assigned, &s->final_plan) == 0;
            }
        }
    } else if (ok) {
        ok = check_all(s) == 0 && profile_all(s) == 0;
        if (ok) {
            note_noise(s);
            select_apply_decision(&s->rep);
            note_small_gains(s);
            ok = select_patch_assignments(&s->rep, &assigned) == 0;
            if (ok && assigned.n) {
                s->have_final = 1;
                ok = confirm(s, &assigned, &s->final_plan) == 0;
            } else if (ok) {
                sv_push(&s->rep.notes, "no function gained significantly: selected.patch is empty");
            }
        }
    }
    if (ok && !interrupted && !s->rep.variants[0].code.measured && !s->rep.variants[1].code.measured) measure_code(s);
    patch_assignments_free(&assigned);
    if (interrupted) return SELECT_INTERRUPTED;
    return ok ? SELECT_DONE : SELECT_FAILED;
}

enum select_status select_run(struct select_session *s, const struct select_options *o, struct store *st)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->st = st;
    s->root = store_meta_get(st, "root");
    if (!s->root) {
        fmv_error("%s: no project root recorded; run 'fmvgen scan' first", store_path(st));
        return SELECT_FAILED;
    }
    s->builddir = path_absolute(store_builddir(st), NULL);
    s->tree = (struct select_tree){.root = s->root, .builddir = s->builddir, .configure = o->configure,
                                   .build = o->build, .timeout_s = o->timeout_s};
    if (select_tree_check(&s->tree) != 0) return SELECT_FAILED;
    if (patch_plan_build(st, &(struct strvec)STRVEC_INIT, 0, &s->candidates) != 0) return SELECT_FAILED;
    if (s->candidates.nfunctions == 0) return SELECT_NO_CANDIDATES;
    init_report(s);
    s->work = make_temp_dir("fmvgen-select");
    if (!s->work) {
        fmv_error("cannot create a temp directory");
        return SELECT_FAILED;
    }
    interrupted = 0;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bar = progress_start(stderr, "select", PROGRESS_AUTO);
    enum select_status status = run_steps(s);
    if (o->keep && status != SELECT_INTERRUPTED) say("kept the temp directory %s", s->work);
    else remove_tree(s->work);
    progress_finish(bar);
    bar = NULL;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return status;
}

/* ---- outputs ---- */

int select_write_outputs(const struct select_session *s, struct select_outputs *out)
{
    memset(out, 0, sizeof *out);
    const char *dir = store_path(s->st);
    out->patch = path_join(dir, "selected.patch");
    out->markdown = path_join(dir, "report.md");
    out->json = path_join(dir, "report.json");
    out->html = path_join(dir, "report.html");
    const char *text = s->have_final && s->final_plan.text ? s->final_plan.text : "";
    char *md = select_report_markdown(&s->rep);
    char *html = select_report_html(&s->rep);
    json_t *j = select_report_json(&s->rep);
    out->json_text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(j);
    int rc = 0;
    if (write_file_atomic(out->patch, text, strlen(text)) != 0) rc = fmv_error("%s: cannot write", out->patch);
    if (write_file_atomic(out->markdown, md, strlen(md)) != 0) rc = fmv_error("%s: cannot write", out->markdown);
    if (write_file_atomic(out->json, out->json_text, strlen(out->json_text)) != 0)
        rc = fmv_error("%s: cannot write", out->json);
    if (write_file_atomic(out->html, html, strlen(html)) != 0) rc = fmv_error("%s: cannot write", out->html);
    free(md);
    free(html);
    return rc;
}

void select_outputs_free(struct select_outputs *out)
{
    free(out->patch);
    free(out->markdown);
    free(out->json);
    free(out->html);
    free(out->json_text);
    memset(out, 0, sizeof *out);
}

void select_session_free(struct select_session *s)
{
    for (size_t v = 0; s->builds && v <= MARCH_INDEX(&s->rep); v++) {
        variant_build_free(&s->builds[v]);
        free(s->sources[v]);
    }
    free(s->builds);
    free(s->sources);
    free(s->builddir);
    for (size_t w = 0; s->base_outputs && w < s->rep.n_workloads; w++) workload_output_free(&s->base_outputs[w]);
    free(s->base_outputs);
    free(s->saved);
    patch_plan_free(&s->candidates);
    if (s->have_final) patch_plan_free(&s->final_plan);
    select_report_free(&s->rep);
    free(s->root);
    free(s->work);
    memset(s, 0, sizeof *s);
}
