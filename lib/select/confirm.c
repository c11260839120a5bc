/* confirm.c - the selected build, confirmed (session_phases.h): built
 * once, checked like every variant, then timed end to end against the
 * baseline (and the -march=x86-64-v3 references) on every workload,
 * interleaved (timing.h), with intervals on wall and CPU time (stats.h);
 * when nothing is selected, the references alone against the baseline. */
#include "select/session_phases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/timing.h"
#include "select/decision.h"
#include "select/dispatch.h"
#include "select/fmabisect.h"
#include "select/slowdown.h"
#include "select/stats.h"

/* A workload that runs for a fixed time cannot show a speedup in time
 * (decision_fixed_time, on the interval that decides: CPU time on a busy
 * machine, whose wall times measured waits): said, with the remedy. */
static void note_fixed_time(struct select_session *s, size_t w)
{
    struct select_report *r = &s->rep;
    const struct select_workload_result *wr = &r->workloads[w];
    double saved = 0;
    for (size_t f = 0; s->saved && f < r->n_functions; f++)
        if (r->functions[f].in_patch) saved += s->saved[w * r->n_functions + f];
    const struct stats_interval *e2e = select_deciding_e2e(wr);
    if (!decision_fixed_time(saved, e2e)) return;
    sv_pushf(&r->notes, "'%s' took the same time with the selected clones as without (%s time %.2fx [%.2f, %.2f]), though "
                        "their profiles say they save %.0f%% of its time: a benchmark that runs for a fixed time "
                        "cannot show a speedup in time; give it a fixed amount of work",
             wr->command, wr->cpu_decides ? "CPU" : "wall", e2e->speedup, e2e->speedup_lo, e2e->speedup_hi,
             100 * saved);
    session_say("%s", r->notes.v[r->notes.n - 1]);
}

/* The A/A calibration (decision.h): when the baseline's total samples
 * differed from its own A/A arm's on workload w, every end-to-end interval
 * of w is widened by that difference, and said. */
static void calibrate_e2e(struct select_session *s, size_t w)
{
    struct select_report *r = &s->rep;
    struct select_workload_result *wr = &r->workloads[w];
    double m = r->decision.aa_workload_margin && w < r->decision.n_workloads ? r->decision.aa_workload_margin[w] : 0;
    if (!(m > 0)) return;
    stats_widen(&wr->e2e, m);
    stats_widen(&wr->e2e_cpu, m);
    stats_widen(&wr->march_e2e, m);
    stats_widen(&wr->selected_vs_march, m);
    stats_widen(&wr->nofma_e2e, m);
    stats_widen(&wr->selected_vs_nofma, m);
    const struct stats_interval *aa = &r->decision.aa_workload[w];
    sv_pushf(&r->notes, "'%s': the baseline against itself (A/A) differed by %.2fx [%.2f, %.2f] in total samples: "
                        "its end-to-end intervals are widened by that much (x%.2f each way)",
             wr->command, aa->speedup, aa->speedup_lo, aa->speedup_hi, exp(m));
    session_say("%s", r->notes.v[r->notes.n - 1]);
}

/* A wide end-to-end interval is said; when the wall times measured waits
 * (decision_waits_dominate), the CPU-time interval is pointed to. */
static void note_wide_e2e(struct select_session *s, const struct select_workload_result *wr,
                          const struct timing_result *base)
{
    struct select_report *r = &s->rep;
    if (wr->cpu_decides && !select_interval_wide(&wr->e2e_cpu))
        sv_pushf(&r->notes, "'%s': the end-to-end interval is wide: the baseline's wall times were %.1fx its CPU "
                            "times (a busy machine, or a workload that waits), so they measure the waits; the "
                            "CPU-time interval, %.2fx [%.2f, %.2f], is the steadier figure here",
                 wr->command, base->median / base->cpu_median, wr->e2e_cpu.speedup, wr->e2e_cpu.speedup_lo,
                 wr->e2e_cpu.speedup_hi);
    else
        sv_pushf(&r->notes, "'%s': the end-to-end interval is wide (noisy machine or short workload)", wr->command);
}

/* A reference's runs of one workload, against the baseline's and the
 * selected build's (sel NULL: nothing selected, sel_vs stays invalid). */
static void time_reference(struct select_report *r, const struct timing_result *base, const struct timing_result *sel,
                           const struct timing_result *ref, int *timed, struct stats_interval *vs_base,
                           struct stats_interval *sel_vs, char **failure)
{
    r->n_timed_runs += (size_t)ref->runs;
    if (ref->failure) {
        *failure = xstrdup(ref->failure);
    } else if (!base->failure && !(sel && sel->failure)) {
        stats_compare_log(base->seconds, (size_t)base->runs, ref->seconds, (size_t)ref->runs, vs_base);
        if (sel) stats_compare_log(ref->seconds, (size_t)ref->runs, sel->seconds, (size_t)sel->runs, sel_vs);
        *timed = 1;
    }
}

/* The builds timed per workload, in index[]: the baseline, the selected
 * build when with_selected, then each reference that was built and is
 * comparable (its position in *at_march, *at_nofma, else -1). Returns how
 * many. */
static size_t timed_builds(const struct select_session *s, int with_selected, size_t index[4], int *at_march,
                           int *at_nofma)
{
    const struct select_report *r = &s->rep;
    size_t per = 0;
    index[per++] = 0;
    if (with_selected) index[per++] = r->n_variants;
    *at_march = *at_nofma = -1;
    if (r->march.built && !r->march.failure) *at_march = (int)per, index[per++] = SESSION_MARCH_INDEX(r);
    if (r->march_nofma.built && !r->march_nofma.failure) *at_nofma = (int)per, index[per++] = SESSION_NOFMA_INDEX(r);
    return per;
}

/* Every workload run --runs times on each build timed_builds names
 * (*per of them, the references' positions in *at_march, *at_nofma),
 * interleaved in a fresh random order each round (from the report's seed,
 * salted); the results of workload w at [per * w + i] (caller frees with
 * free_timed). what: the step's start ("timing baseline, selected"). */
static struct timing_result *time_builds(struct select_session *s, int with_selected, unsigned salt, const char *what,
                                         size_t *per, int *at_march, int *at_nofma)
{
    size_t nw = s->rep.n_workloads, index[4];
    size_t n = *per = timed_builds(s, with_selected, index, at_march, at_nofma);
    session_step(0, 0, "%s%s%s, %d runs each, interleaved in a random order", what,
                 *at_march >= 0 ? ", -march=x86-64-v3" : "", *at_nofma >= 0 ? ", -march=x86-64-v3 -mno-fma" : "",
                 s->o->runs);
    struct timing_spec *specs = xcalloc(n * nw, sizeof *specs);
    struct timing_result *res = xcalloc(n * nw, sizeof *res);
    struct strvec *argvs = xcalloc(n * nw, sizeof *argvs);
    for (size_t i = 0; i < n * nw; i++) {
        size_t v = index[i % n];
        session_variant_command(s, v, s->o->runs_cmd->v[i / n], &argvs[i]);
        specs[i] = (struct timing_spec){.argv = sv_argv(&argvs[i]), .cwd = s->builds[v].dir, .runs = s->o->runs,
                                        .timeout_s = s->o->timeout_s};
    }
    measure_time_set_shuffled(specs, n * nw, s->rep.seed ^ salt, res);
    for (size_t i = 0; i < n * nw; i++) sv_free(&argvs[i]);
    free(specs);
    free(argvs);
    return res;
}

/* Both references' runs of workload wr (row: its results, the baseline's
 * first) against the baseline and sel (NULL: nothing selected). */
static void time_references_of(struct select_report *r, struct select_workload_result *wr,
                               const struct timing_result *row, const struct timing_result *sel, int at_march,
                               int at_nofma)
{
    if (at_march >= 0)
        time_reference(r, &row[0], sel, &row[at_march], &wr->march_timed, &wr->march_e2e, &wr->selected_vs_march,
                       &wr->march_failure);
    if (at_nofma >= 0)
        time_reference(r, &row[0], sel, &row[at_nofma], &wr->nofma_timed, &wr->nofma_e2e, &wr->selected_vs_nofma,
                       &wr->nofma_failure);
}

static void free_timed(struct timing_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++) timing_result_free(&res[i]);
    free(res);
}

void session_time_references(struct select_session *s)
{
    struct select_report *r = &s->rep;
    if (!r->march.built && !r->march_nofma.built) return;
    session_measure_code(s);   /* tells whether a reference really got its flags */
    size_t index[4], per, nw = r->n_workloads;
    int at_march, at_nofma;
    if (timed_builds(s, 0, index, &at_march, &at_nofma) < 2 || session_interrupted()) return;
    struct timing_result *res =
        time_builds(s, 0, 0x27d4eb2fu, "nothing selected: timing baseline", &per, &at_march, &at_nofma);
    for (size_t w = 0; w < nw; w++) {
        struct select_workload_result *wr = &r->workloads[w];
        const struct timing_result *base = &res[per * w];
        r->n_timed_runs += (size_t)base->runs;
        if (base->failure) wr->failure = xstrdup(base->failure);
        time_references_of(r, wr, base, NULL, at_march, at_nofma);
        calibrate_e2e(s, w);
    }
    free_timed(res, per * nw);
    sv_pushf(&r->notes, "nothing selected, so the selected build is the baseline: the reference%s timed against it "
                        "on every workload, %d runs each",
             per > 2 ? "s were" : " was", s->o->runs);
}

/* The selected build failed its own check (outputs or --test): nothing is
 * selected, selected.patch stays empty, and the report says why. */
static void withdraw(struct select_session *s, struct patch_plan *plan, const char *failure)
{
    struct select_report *r = &s->rep;
    sv_pushf(&r->notes, "the selected build fails a check (%s): nothing is selected and selected.patch is empty",
             failure);
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (!fn->in_patch) continue;
        fn->in_patch = 0;
        free(fn->note);
        fn->note = xasprintf("withdrawn: the selected build fails a check (%s)", failure);
    }
    r->n_selected = 0;
    free(r->patch_targets);
    r->patch_targets = NULL;
    patch_plan_free(plan);
    s->have_final = 0;
}

/* Workloads the selected build read slower on (slowdown.h) are timed again
 * on fresh runs of the baseline and the selected build; a slowdown they
 * confirm withdraws the selection. Returns 1 when withdrawn. */
static int retest_slowdowns(struct select_session *s, struct patch_plan *plan)
{
    struct select_report *r = &s->rep;
    size_t nw = r->n_workloads, k = 0;
    size_t *ws = xcalloc(nw ? nw : 1, sizeof *ws);
    for (size_t w = 0; w < nw; w++)
        if (slowdown_flagged(&r->workloads[w])) ws[k++] = w;
    if (!k) {
        free(ws);
        return 0;
    }
    struct timing_spec *specs = xcalloc(2 * k, sizeof *specs);
    struct timing_result *res = xcalloc(2 * k, sizeof *res);
    struct strvec *argvs = xcalloc(2 * k, sizeof *argvs);
    for (size_t i = 0; i < 2 * k; i++) {
        size_t v = i % 2 ? r->n_variants : 0;
        session_variant_command(s, v, s->o->runs_cmd->v[ws[i / 2]], &argvs[i]);
        specs[i] = (struct timing_spec){.argv = sv_argv(&argvs[i]), .cwd = s->builds[v].dir, .runs = s->o->runs,
                                        .timeout_s = s->o->timeout_s};
    }
    session_step(0, 0, "the selected build read slower on %zu workload%s: timing baseline and selected again, %d fresh "
                 "runs each", k, k == 1 ? "" : "s", s->o->runs);
    measure_time_set_shuffled(specs, 2 * k, r->seed ^ 0x2545f491u, res);
    char *why = NULL;
    for (size_t i = 0; i < k; i++) {
        struct select_workload_result *wr = &r->workloads[ws[i]];
        const struct timing_result *base = &res[2 * i], *sel = &res[2 * i + 1];
        r->n_timed_runs += (size_t)(base->runs + sel->runs);
        double m = r->decision.aa_workload_margin && ws[i] < r->decision.n_workloads
                       ? r->decision.aa_workload_margin[ws[i]] : 0;
        struct stats_interval wall, cpu;
        int rc = slowdown_confirm(base, sel, m, wr->cpu_decides, &wall, &cpu);
        if (rc == 1 && !why) {
            why = slowdown_reason(wr, &wall, &cpu, s->o->runs);
        } else if (rc == 0) {
            const struct stats_interval *iv = cpu.valid ? &cpu : &wall;
            sv_pushf(&r->notes, "'%s': the selected build read slower, but not again on %d fresh runs (%s %.2fx "
                                "[%.2f, %.2f]): kept",
                     wr->command, s->o->runs, cpu.valid ? "CPU time" : "wall time", iv->speedup, iv->speedup_lo,
                     iv->speedup_hi);
        } else if (rc < 0) {
            sv_pushf(&r->notes, "'%s': the selected build read slower, and timing it again failed (%s)", wr->command,
                     base->failure ? base->failure : sel->failure ? sel->failure : "too few runs");
        }
    }
    for (size_t i = 0; i < 2 * k; i++) {
        timing_result_free(&res[i]);
        sv_free(&argvs[i]);
    }
    free(specs);
    free(res);
    free(argvs);
    free(ws);
    if (!why) return 0;
    withdraw(s, plan, why);
    session_say("%s", r->notes.v[r->notes.n - 1]);
    free(why);
    return 1;
}

/* Builds and checks the selected patch of a into *plan: 1 passed, 0 failed
 * (said, or withdrawn), -1 error. Once, when the FMA bisection's cleared
 * functions took the FMA set (fmabisect.h), a failing check is retried
 * without them. */
static int build_and_check(struct select_session *s, const struct patch_assignments *a, struct patch_plan *plan)
{
    struct select_report *r = &s->rep;
    struct patch_assignments retry = {0};
    int rc = 1;
    for (int attempt = 0;; attempt++) {
        if (patch_validate_assignments(s->st, a) != 0 ||
            patch_plan_build_assigned_dispatch(s->st, a, s->o->dispatch, plan) != 0) {
            rc = -1;
            break;
        }
        select_dispatch_record(r, plan);
        if (session_interrupted()) {
            rc = -1;
            break;
        }
        session_step(0, 0, "building the selected variant (%zu function%s, targets %s)", a->n, a->n == 1 ? "" : "s",
                     r->patch_targets);
        struct variant_build *b = &s->builds[r->n_variants];
        r->n_builds++;
        if (session_build_variant(s, r->n_variants, "selected", plan) != 0) {
            sv_pushf(&r->notes, "the selected variant did not build (%s)", b->failure ? b->failure : "?");
            rc = 0;
            break;
        }
        struct select_variant check = {0};
        session_check_variant(s, r->n_variants, &check);
        free(check.output_match);
        if (!check.failure) break;
        if (attempt == 0 && session_fma_fallback(s, check.failure, &retry) > 0) {
            /* the placement pins hold for the retry too */
            for (size_t i = 0; i < a->n_pins; i++) patch_pin_in(&retry, a->pins[i].name, a->pins[i].rel, a->pins[i].offset);
            for (size_t i = 0; i < a->n_copy_pins; i++)
                patch_copy_pin_in(&retry, a->copy_pins[i].name, a->copy_pins[i].rel, a->copy_pins[i].slug,
                                  a->copy_pins[i].offset);
            retry.text_pad = a->text_pad;
            free(check.failure);
            patch_plan_free(plan);
            a = &retry;
            continue;
        }
        /* a build that fails is never selected, the selected one neither */
        withdraw(s, plan, check.failure);
        free(check.failure);
        rc = 0;
        break;
    }
    patch_assignments_free(&retry);
    return rc;
}

/* Builds the selected patch - each function with the targets of the set it
 * chose (assign.h) - checks it, and times it against the baseline. */
int session_confirm(struct select_session *s, const struct patch_assignments *a, struct patch_plan *plan)
{
    struct select_report *r = &s->rep;
    int checked = build_and_check(s, a, plan);
    if (checked <= 0) return checked;
    if (session_interrupted()) return -1;
    session_measure_code(s);   /* tells whether the reference really got its flags */
    budget_check_measured(r);

    /* per workload: baseline, selected and the references that are comparable */
    size_t nw = r->n_workloads, per;
    int at_march, at_nofma;
    struct timing_result *res = time_builds(s, 1, 0x5bd1e995u, "timing baseline, selected", &per, &at_march, &at_nofma);
    for (size_t w = 0; w < nw; w++) {
        struct select_workload_result *wr = &r->workloads[w];
        const struct timing_result *base = &res[per * w], *sel = &res[per * w + 1];
        r->n_timed_runs += (size_t)(base->runs + sel->runs);
        time_references_of(r, wr, base, sel, at_march, at_nofma);
        if (sel->failure || base->failure) {
            wr->failure = xstrdup(sel->failure ? sel->failure : base->failure);
            continue;
        }
        stats_compare_log(base->seconds, (size_t)base->runs, sel->seconds, (size_t)sel->runs, &wr->e2e);
        if (base->cpu_seconds && sel->cpu_seconds)
            stats_compare_log(base->cpu_seconds, (size_t)base->runs, sel->cpu_seconds, (size_t)sel->runs, &wr->e2e_cpu);
        wr->timed = 1;
        calibrate_e2e(s, w);
        wr->cpu_decides = wr->e2e_cpu.valid && decision_waits_dominate(base->median, base->cpu_median);
        note_fixed_time(s, w);
        /* retest_slowdowns times these again: kept or withdrawn there */
        if (stats_slower(&wr->e2e) && !wr->cpu_decides)
            sv_pushf(&r->notes, "'%s': the selected build read significantly slower than the baseline (wall time "
                                "%.2fx [%.2f, %.2f]); timed again on fresh runs below",
                     wr->command, wr->e2e.speedup, wr->e2e.speedup_lo, wr->e2e.speedup_hi);
        else if (wr->e2e_cpu.valid && stats_slower(&wr->e2e_cpu))
            sv_pushf(&r->notes, "'%s': the selected build read as taking significantly more CPU time than the "
                                "baseline (%.2fx [%.2f, %.2f]); timed again on fresh runs below",
                     wr->command, wr->e2e_cpu.speedup, wr->e2e_cpu.speedup_lo, wr->e2e_cpu.speedup_hi);
        else if (stats_slower(&wr->e2e))
            sv_pushf(&r->notes, "'%s': the selected build took significantly more wall time (%.2fx [%.2f, %.2f]) but "
                                "not more CPU time (%.2fx [%.2f, %.2f]), while the baseline's wall times were %.1fx its "
                                "CPU times: the runs waited for a busy machine, and the CPU time decides",
                     wr->command, wr->e2e.speedup, wr->e2e.speedup_lo, wr->e2e.speedup_hi, wr->e2e_cpu.speedup,
                     wr->e2e_cpu.speedup_lo, wr->e2e_cpu.speedup_hi, base->median / base->cpu_median);
        if (wr->e2e.valid && select_interval_wide(&wr->e2e))
            note_wide_e2e(s, wr, base);
    }
    free_timed(res, per * nw);
    if (!session_interrupted()) retest_slowdowns(s, plan);
    return 0;
}
