/* report_json.c - report.json (report.h): every fact of the report for
 * tools; a real that is not finite is null, never 0, with a field saying
 * why where a reader needs one. */
#include "select/report_write.h"
#include "select/dispatch.h"
#include "select/decision_confirm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number, or null when it is not finite: JSON has no inf or nan, and
 * json_real() refuses them (the field would silently vanish). Every real
 * the report writes goes through here; where null needs a why, the caller
 * adds a field saying it. */
static json_t *real_json(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* "speedup" is null, never 0 (0 reads as "infinitely slower"), when there
 * is no finite one; "speedup_unknown" then says why. */
json_t *select_interval_json(const struct stats_interval *iv)
{
    json_t *o = json_object();
    const char *unknown = select_speedup_unknown(iv);
    json_object_set_new(o, "speedup", unknown ? json_null() : real_json(iv->speedup));
    json_object_set_new(o, "speedup_unknown", unknown ? json_string(unknown) : json_null());
    json_object_set_new(o, "valid", json_boolean(iv->valid));
    json_object_set_new(o, "wide", json_boolean(select_interval_wide(iv)));
    if (iv->valid) {
        json_object_set_new(o, "speedup_low", unknown ? json_null() : real_json(iv->speedup_lo));
        json_object_set_new(o, "speedup_high", unknown ? json_null() : real_json(iv->speedup_hi));
        json_object_set_new(o, "mean_baseline", real_json(iv->mean_a));
        json_object_set_new(o, "mean_variant", real_json(iv->mean_b));
        json_object_set_new(o, "p", real_json(iv->p));
        json_object_set_new(o, "test", json_string(iv->rank ? "mann-whitney" : "welch"));
        json_object_set_new(o, "widened_by_aa", real_json(iv->widened));
    }
    return o;
}

/* Each all-candidates build against the baseline in the profiled runs (the
 * intervals report.html charts), by variant name: an interval, or null for
 * a variant not profiled; null when none was. */
/* A workload's sampling period and why (sampling.h); null when it was never profiled. */
static json_t *sampling_json(const struct sampling_period *p)
{
    if (p->period_ns <= 0) return json_null();
    json_t *j = json_object();
    json_object_set_new(j, "period_us", json_real((double)p->period_ns / 1000));
    json_object_set_new(j, "source", json_string(sampling_source_name(p->source)));
    json_object_set_new(j, "cpu_seconds", p->cpu_s > 0 ? json_real(p->cpu_s) : json_null());
    json_object_set_new(j, "target_samples", p->source == SAMPLING_BY_RULE ? json_real(p->target) : json_null());
    json_object_set_new(j, "counts_as", json_real(sampling_scale(p->period_ns)));
    char *how = sampling_describe(p);
    json_object_set_new(j, "why", json_string(how));
    free(how);
    return j;
}

static json_t *all_candidates_json(const struct select_report *r, const struct select_workload_result *wr)
{
    if (!wr->all_candidates) return json_null();
    json_t *o = json_object();
    for (size_t v = 1; v < r->n_variants; v++)
        json_object_set_new(o, r->variants[v].name,
                            wr->all_candidates[v].valid ? select_interval_json(&wr->all_candidates[v]) : json_null());
    return o;
}

/* A short, stable code for why a function is (not) in the patch. */
static const char *reason_code(const struct select_report *r, size_t f)
{
    const struct select_function *fn = &r->functions[f];
    if (fn->in_patch) return "selected";
    if (r->static_mode || !r->decision.functions) return "not-selected";
    const struct decision_function *d = &r->decision.functions[f];
    if (d->chosen >= 1 && select_name_ambiguous(r, f)) return "ambiguous-name";
    if (d->reason == DECISION_SELECTED || d->reason == DECISION_SELECTED_TOGETHER || d->reason == DECISION_CONFIRMED)
        return "held-back";
    if (d->reason == DECISION_INELIGIBLE && fn->fma_verdict == FMA_VERDICT_CHANGES_OUTPUT &&
        d->best_ineligible == r->fma_bisect.variant)
        return "fma-changes-output";
    return decision_reason_code(d->reason);
}

static json_t *bytes_json(int64_t n)
{
    return n < 0 ? json_null() : json_integer((json_int_t)n);
}

static json_t *code_json(const struct select_report *r, const struct select_code *c, int growth)
{
    if (!c->measured) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "files", json_integer((json_int_t)c->n_files));
    json_object_set_new(o, "code_bytes", json_integer((json_int_t)c->code_bytes));
    json_object_set_new(o, "clone_bytes", json_integer((json_int_t)c->clone_bytes));
    json_object_set_new(o, "resolver_bytes", json_integer((json_int_t)c->resolver_bytes));
    /* CPU detection: libgcc's and fmvgen's fmvgen_cpu_levels; null: a stripped file */
    json_object_set_new(o, "cpu_detection_bytes", bytes_json(c->cpu_detect_bytes));
    json_object_set_new(o, "cpu_detection_fmvgen_bytes", bytes_json(c->cpu_levels_bytes));
    if (growth && r->n_variants && r->variants[0].code.measured) {   /* no baseline (--static): no growth */
        json_object_set_new(o, "growth_bytes", json_integer((json_int_t)select_code_growth(r, c)));
        json_object_set_new(o, "growth_percent", real_json(select_code_growth_percent(r, c)));
    }
    return o;
}

/* The code-growth budget (select/budget.h): null when none was applied. */
static json_t *budget_json(const struct select_report *r)
{
    const struct select_budget *b = &r->budget;
    if (!b->applied) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "max_growth_percent", real_json(b->max_growth));
    json_object_set_new(o, "second_whole_build", json_string(b->whole_what));
    json_object_set_new(o, "second_whole_build_bytes", json_integer((json_int_t)b->whole_bytes));
    json_object_set_new(o, "limit_bytes", json_integer((json_int_t)b->limit));
    /* what the fit and the pins may use: the limit less the share kept for
     * code the prediction cannot see (BUDGET_UNPREDICTED_SHARE) */
    json_object_set_new(o, "fit_limit_bytes", json_integer((json_int_t)b->fit_limit));
    json_object_set_new(o, "fixed_bytes", json_integer((json_int_t)b->overhead));
    json_object_set_new(o, "predicted_bytes_before", json_integer((json_int_t)b->before));
    /* the fit's prediction and the placement pins' padding at its worst case */
    json_object_set_new(o, "predicted_bytes", json_integer((json_int_t)budget_predicted(b)));
    json_object_set_new(o, "pin_padding_bytes", json_integer((json_int_t)b->pin_bytes));
    json_object_set_new(o, "pins", json_integer((json_int_t)b->n_pins));
    json_object_set_new(o, "pin_linked_compiles", json_integer((json_int_t)b->n_pin_copies));
    /* the pad before .text's functions (select/textpad.h), all its files' */
    json_object_set_new(o, "text_pad_bytes", json_integer((json_int_t)b->pad_bytes));
    json_object_set_new(o, "dropped", json_integer((json_int_t)b->n_dropped));
    json_object_set_new(o, "kept_with_cheaper_set", json_integer((json_int_t)b->n_cheaper));
    /* kept with their own set because others took cheaper ones */
    json_object_set_new(o, "kept_by_cheaper_sets", json_integer((json_int_t)b->n_room));
    /* step 1 of the fit: workloads whose best function is kept, of those
     * some selected function saves on */
    json_object_set_new(o, "workloads_best_kept", json_integer((json_int_t)b->n_served));
    json_object_set_new(o, "workloads_with_a_best", json_integer((json_int_t)b->n_to_serve));
    int measured = r->selected_code.measured && r->n_variants && r->variants[0].code.measured;
    int64_t real = select_code_growth(r, &r->selected_code);
    json_object_set_new(o, "selected_growth_bytes", measured ? json_integer((json_int_t)real) : json_null());
    json_object_set_new(o, "within", measured ? json_boolean((double)real <= b->limit) : json_null());
    json_object_set_new(o, "fixed_files", json_integer((json_int_t)b->n_fixed_files));
    json_object_set_new(o, "fixed_units", json_integer((json_int_t)b->n_fixed_units));
    json_object_set_new(o, "fixed_levels_files", json_integer((json_int_t)b->n_fixed_levels));
    json_object_set_new(o, "fixed_from_residue", json_boolean(b->fixed_residue));
    int64_t clones, cpu, rest;
    if (budget_measured_parts(r, &clones, &cpu, &rest)) {
        json_t *parts = json_object();
        json_object_set_new(parts, "clones_and_resolvers", json_integer((json_int_t)clones));
        json_object_set_new(parts, "cpu_detection", cpu >= 0 ? json_integer((json_int_t)cpu) : json_null());
        /* of it, fmvgen's own (cpuid dispatch: fmvgen_cpu_levels) */
        int64_t lv = r->selected_code.cpu_levels_bytes, lb = r->variants[0].code.cpu_levels_bytes;
        json_object_set_new(parts, "cpu_detection_fmvgen", lv >= 0 && lb >= 0 ? json_integer((json_int_t)(lv - lb)) : json_null());
        json_object_set_new(parts, "other", json_integer((json_int_t)rest));
        json_object_set_new(o, "selected_growth_parts", parts);
    } else
        json_object_set_new(o, "selected_growth_parts", json_null());
    return o;
}

/* "code_size": the totals of every measured build. */
/* A function the code-growth budget kept with a cheaper set than its
 * timings chose (select/budget_sets.h): both sets, their bytes (each set's
 * all-candidates build) and speedups; null otherwise. */
static json_t *budget_set_json(const struct select_report *r, size_t f)
{
    const struct decision *d = &r->decision;
    if (r->static_mode || !d->functions || f >= d->n_functions) return json_null();
    const struct decision_function *df = &d->functions[f];
    if (df->budget_from < 1 || df->chosen < 1) return json_null();
    json_t *o = json_object();
    int sets[2] = {df->budget_from, df->chosen};
    const char *keys[2] = {"timed", "kept"};
    for (size_t i = 0; i < 2; i++) {
        const struct stats_interval *iv = decision_estimate(d, f, (size_t)sets[i]);
        json_t *s = json_object();
        json_object_set_new(s, "set", json_string(r->variants[sets[i]].name));
        json_object_set_new(s, "bytes_added", bytes_json(select_bytes_added(r, f, (size_t)sets[i])));
        json_object_set_new(s, "speedup", real_json(iv->speedup));
        json_object_set_new(s, "speedup_low", real_json(iv->speedup_lo));
        json_object_set_new(s, "speedup_high", real_json(iv->speedup_hi));
        json_object_set_new(o, keys[i], s);
    }
    return o;
}

static json_t *code_size_json(const struct select_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "counted", json_string(REPORT_CODE_COUNTED));
    json_object_set_new(o, "baseline", r->n_variants ? code_json(r, &r->variants[0].code, 0) : json_null());
    json_t *all = json_object();
    for (size_t v = 1; v < r->n_variants; v++)
        json_object_set_new(all, r->variants[v].name, code_json(r, &r->variants[v].code, 1));
    json_object_set_new(o, "all_candidates", all);
    json_object_set_new(o, "selected", code_json(r, &r->selected_code, 1));
    /* selected growth / all-candidates growth, per target set */
    json_t *ratio = json_object();
    for (size_t v = 1; v < r->n_variants; v++) {
        int64_t all_g = select_code_growth(r, &r->variants[v].code);
        if (!r->selected_code.measured || !r->variants[v].code.measured || all_g <= 0) continue;
        json_object_set_new(ratio, r->variants[v].name,
                            real_json((double)select_code_growth(r, &r->selected_code) / (double)all_g));
    }
    json_object_set_new(o, "selected_growth_vs_all_candidates", ratio);
    const struct select_march *m = &r->march;
    json_t *mj = json_object();
    json_object_set_new(mj, "attempted", json_boolean(m->attempted));
    json_object_set_new(mj, "built", json_boolean(m->built));
    json_object_set_new(mj, "flags", m->flags ? json_string(m->flags) : json_null());
    json_object_set_new(mj, "built_via", m->via ? json_string(m->via) : json_null());
    json_object_set_new(mj, "failure", m->failure ? json_string(m->failure) : json_null());
    int usable = m->code.measured && !m->failure;
    json_object_set_new(mj, "code", usable ? code_json(r, &m->code, 1) : json_null());
    /* glibc-hwcaps ships it beside the baseline: all of its code is extra */
    json_object_set_new(mj, "hwcaps_extra_bytes", usable ? json_integer((json_int_t)m->code.code_bytes) : json_null());
    json_object_set_new(o, "march_x86_64_v3", mj);
    json_object_set_new(o, "budget", budget_json(r));
    return o;
}

/* The group of small gains (decision.h): null when nothing was timed. */
static json_t *small_gains_json(const struct select_report *r)
{
    if (r->static_mode || !r->decision.functions) return json_null();
    const struct decision_group *g = &r->decision.group;
    json_t *o = json_object();
    json_object_set_new(o, "pool", json_integer((json_int_t)g->n_pool));
    json_object_set_new(o, "pool_share", real_json(g->share));
    json_object_set_new(o, "selected", json_integer((json_int_t)g->n_members));
    int chosen = g->chosen >= 1 && (size_t)g->chosen < r->n_variants;
    json_object_set_new(o, "variant", chosen ? json_string(r->variants[g->chosen].name) : json_null());
    json_object_set_new(o, "speedup", chosen ? select_interval_json(&g->by_variant_chosen) : json_null());
    return o;
}

/* The FMA bisection (fmabisect.h): null when no search arose. */
static json_t *fma_bisect_json(const struct select_report *r)
{
    const struct select_fma_bisect *b = &r->fma_bisect;
    if (!b->why || b->variant < 1) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "variant", json_string(r->variants[b->variant].name));
    json_object_set_new(o, "others_at", json_string(r->variants[b->exact].name));
    json_object_set_new(o, "limit", json_integer(b->limit));
    json_object_set_new(o, "builds", json_integer((json_int_t)b->n_builds));
    json_object_set_new(o, "why", json_string(b->why));
    json_object_set_new(o, "cleared", json_integer((json_int_t)b->n_cleared));
    json_object_set_new(o, "changes_output", json_integer((json_int_t)b->n_culprits));
    json_object_set_new(o, "unresolved", json_integer((json_int_t)b->n_unresolved));
    json_t *tests = json_array();
    for (size_t i = 0; i < b->tests.n; i++) json_array_append_new(tests, json_string(b->tests.v[i]));
    json_object_set_new(o, "tests", tests);
    return o;
}

/* The placement check (select/placement.h): null when the selected build
 * was not profiled (nothing selected, withdrawn, --static). */
static json_t *placement_json(const struct select_report *r)
{
    const struct select_placement *pl = &r->placement;
    if (!pl->checked && !pl->why_not && !pl->pinned.n && !pl->unpinned.n && !pl->pins_off) return json_null();
    json_t *o = json_object(), *slower = json_array();
    json_object_set_new(o, "checked", json_boolean(pl->checked));
    json_object_set_new(o, "why_not", pl->why_not ? json_string(pl->why_not) : json_null());
    json_object_set_new(o, "selected_profiled_runs", json_integer((json_int_t)pl->n_runs));
    json_object_set_new(o, "functions_tested", json_integer((json_int_t)pl->n_tested));
    for (size_t i = 0; i < pl->n_slower; i++) {
        const struct select_placement_function *f = &pl->slower[i];
        json_t *j = json_object();
        json_object_set_new(j, "symbol", json_string(f->symbol));
        json_object_set_new(j, "file", json_string(f->file));
        json_object_set_new(j, "baseline_samples_per_run", real_json(f->base_mean));
        json_object_set_new(j, "selected_samples_per_run", real_json(f->sel_mean));
        json_object_set_new(j, "interval", select_interval_json(&f->iv));
        json_object_set_new(j, "code_same", f->code_same < 0 ? json_null() : json_boolean(f->code_same));
        json_object_set_new(j, "code_why", f->code_why ? json_string(f->code_why) : json_null());
        int known = f->code_same >= 0;
        json_object_set_new(j, "baseline_address", known ? json_integer((json_int_t)f->base_addr) : json_null());
        json_object_set_new(j, "selected_address", known ? json_integer((json_int_t)f->sel_addr) : json_null());
        json_object_set_new(j, "baseline_offset_mod_64", known ? json_integer((json_int_t)(f->base_addr % 64)) : json_null());
        json_object_set_new(j, "selected_offset_mod_64", known ? json_integer((json_int_t)(f->sel_addr % 64)) : json_null());
        json_object_set_new(j, "placement", json_boolean(f->code_same == 1));
        json_array_append_new(slower, j);
    }
    json_object_set_new(o, "slower", slower);
    json_t *pins = json_array();
    for (size_t i = 0; i < pl->pinned.n; i++) {
        const char *at = strrchr(pl->pinned.v[i], '@');
        json_t *j = json_object();
        json_object_set_new(j, "function", json_stringn(pl->pinned.v[i], (size_t)(at - pl->pinned.v[i])));
        json_object_set_new(j, "offset_mod_64", json_integer(atoi(at + 1)));
        json_array_append_new(pins, j);
    }
    json_object_set_new(o, "pinned", pins);
    json_t *unpinned = json_array();
    for (size_t i = 0; i < pl->unpinned.n; i++) {
        const char *colon = strstr(pl->unpinned.v[i], ": ");
        json_t *j = json_object();
        json_object_set_new(j, "function", colon ? json_stringn(pl->unpinned.v[i], (size_t)(colon - pl->unpinned.v[i]))
                                                 : json_string(pl->unpinned.v[i]));
        json_object_set_new(j, "why", colon ? json_string(colon + 2) : json_null());
        json_array_append_new(unpinned, j);
    }
    json_object_set_new(o, "unpinned", unpinned);
    json_object_set_new(o, "pins", json_boolean(!pl->pins_off));
    return o;
}

/* How --runs auto chose the runs (runsauto.h); null with --runs N. */
static json_t *runs_auto_json(const struct select_report *r)
{
    const struct runs_auto *ra = &r->runs_auto;
    if (!ra->probed) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "probe_runs", json_integer((json_int_t)ra->probe_runs));
    json_object_set_new(o, "slow_factor", json_real(RUNS_AUTO_SLOW));
    json_object_set_new(o, "slow_runs", json_integer((json_int_t)ra->slow_runs));
    json_object_set_new(o, "bursty_workloads", json_integer((json_int_t)ra->bursty));
    json_object_set_new(o, "worst_ratio", json_real(ra->worst_ratio));
    json_object_set_new(o, "worst_workload", ra->worst_ratio > 0 && ra->worst_workload < r->n_workloads
                                                 ? json_string(r->workloads[ra->worst_workload].command)
                                                 : json_null());
    json_object_set_new(o, "failure", ra->failure ? json_string(ra->failure) : json_null());
    json_object_set_new(o, "runs", json_integer(ra->runs));
    return o;
}

json_t *select_report_json(const struct select_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "mode", json_string(r->static_mode ? "static" : "timed"));
    json_object_set_new(o, "timed", json_boolean(!r->static_mode));
    json_object_set_new(o, "runs", json_integer(r->runs));
    json_object_set_new(o, "runs_auto", runs_auto_json(r));
    json_object_set_new(o, "builds", json_integer((json_int_t)r->n_builds));
    json_object_set_new(o, "fma_bisect", fma_bisect_json(r));
    /* profiled_runs: the first stage's rounds alone; the confirmation's
     * fresh rounds are confirmation_runs (run_counts says which is which) */
    json_object_set_new(o, "profiled_runs", json_integer((json_int_t)r->n_profiled_runs));
    json_object_set_new(o, "confirmation_runs", json_integer((json_int_t)r->decision.confirmation.n_profiled_runs));
    json_object_set_new(o, "run_counts", report_run_counts_json(r));
    json_object_set_new(o, "estimates", report_estimates_json(r));
    json_object_set_new(o, "timed_runs", json_integer((json_int_t)r->n_timed_runs));
    json_object_set_new(o, "min_share", real_json(r->min_share));
    json_object_set_new(o, "tolerance", r->tolerance < 0 ? json_null() : real_json(r->tolerance));
    json_t *vs = json_array();
    for (size_t v = 0; v < r->n_variants; v++) {
        const struct select_variant *x = &r->variants[v];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(x->name));
        json_object_set_new(j, "targets", json_string(x->targets));
        json_object_set_new(j, "fma", json_boolean(x->fma));
        json_object_set_new(j, "built", json_boolean(x->built));
        json_object_set_new(j, "outputs", json_string(x->output_match ? x->output_match : ""));
        json_object_set_new(j, "eligible", json_boolean(x->eligible));
        json_object_set_new(j, "failure", x->failure ? json_string(x->failure) : json_null());
        json_object_set_new(j, "code", code_json(r, &x->code, v > 0));
        json_array_append_new(vs, j);
    }
    json_object_set_new(o, "variants", vs);
    json_t *fs = json_array();
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(fn->name));
        json_object_set_new(j, "display_name", json_string(fn->display_name));
        json_object_set_new(j, "file", json_string(fn->file));
        json_object_set_new(j, "line", json_integer(fn->line));
        json_object_set_new(j, "kind", candidate_kind_json(fn->kind));
        json_object_set_new(j, "evidence", fn->evidence ? json_string(fn->evidence) : json_null());
        json_object_set_new(j, "selected", json_boolean(fn->in_patch));
        json_object_set_new(j, "fma_free_code", json_boolean(fn->fma_free_code));
        json_object_set_new(j, "fma_verdict", fn->fma_verdict ? json_string(fma_verdict_code(fn->fma_verdict))
                                                               : json_null());
        json_object_set_new(j, "outlined_helpers", fn->outlined ? json_string(fn->outlined) : json_null());
        json_t *helpers = json_array();
        for (size_t i = 0; i < fn->helpers.n; i++) json_array_append_new(helpers, json_string(fn->helpers.v[i]));
        json_object_set_new(j, "inlined_helpers", helpers);
        json_object_set_new(j, "why", json_string(select_function_verdict(r, f)));
        json_object_set_new(j, "reason", json_string(reason_code(r, f)));
        /* the rule's own verdict (decision.h), and its retest on fresh runs */
        json_object_set_new(j, "decision", r->static_mode || !r->decision.functions
                                               ? json_null()
                                               : json_string(decision_reason_code(r->decision.functions[f].reason)));
        json_object_set_new(j, "confirmation", report_confirmation_json(r, f));
        /* other candidates have its name (select_name_count); samples_by_file:
         * the profile still told it from them */
        json_object_set_new(j, "name_unique", json_boolean(select_name_count(r, f) == 1));
        json_object_set_new(j, "candidates_with_this_name", json_integer((json_int_t)select_name_count(r, f)));
        /* a shared name told apart by source file (attribution.h) */
        json_object_set_new(j, "samples_by_file", json_boolean(fn->by_file));
        json_object_set_new(j, "dispatch", !r->dispatch ? json_null()
                                           : json_string(fn->ifunc_fallback ? "ifunc" : r->dispatch));
        /* bytes its clones add: in every measured build, and the two the
         * report shows (its set's or best set's all-candidates build, the
         * selected build) */
        json_t *by = json_object();
        for (size_t v = 1; v < r->n_variants; v++)
            if (r->variants[v].code.measured) json_object_set_new(by, r->variants[v].name, bytes_json(select_bytes_added(r, f, v)));
        if (r->selected_code.measured) json_object_set_new(by, "selected", bytes_json(select_bytes_added(r, f, r->n_variants)));
        json_object_set_new(j, "bytes_added", by);
        size_t sv = select_shown_variant(r, f);
        json_object_set_new(j, "bytes_added_all_candidates", bytes_json(select_bytes_added(r, f, sv)));
        json_object_set_new(j, "bytes_added_all_candidates_set", sv < r->n_variants ? json_string(r->variants[sv].name) : json_null());
        json_object_set_new(j, "bytes_added_selected", bytes_json(select_bytes_added(r, f, r->n_variants)));
        /* the targets its clones get in selected.patch (each function its own set) */
        json_object_set_new(j, "targets", !fn->in_patch ? json_null()
                                          : json_string(fn->copy_only ? fn->copy_only : r->variants[fn->set].targets));
        /* the budget left its set's other copies out (select/trimcopies.h) */
        json_object_set_new(j, "copies_left_out_bytes", fn->in_patch && fn->copy_only ? json_integer(fn->trimmed_bytes)
                                                                                        : json_null());
        json_object_set_new(j, "budget_cheaper_set", budget_set_json(r, f));
        {
            /* dropped for the budget: what it would add alone, and the
             * --max-growth that leaves room for it (select/budget.h) */
            const struct decision_function *d = !r->static_mode && r->decision.functions && f < r->decision.n_functions
                                                    ? &r->decision.functions[f] : NULL;
            int alone = d && d->budget_dropped >= 1 && d->budget_alone > 0;
            json_object_set_new(j, "budget_alone_bytes", alone ? json_integer((json_int_t)d->budget_alone) : json_null());
            json_object_set_new(j, "budget_max_growth_needed", alone ? json_integer(d->budget_needs_growth) : json_null());
        }
        /* candidates/alternative.h: the callee that could be cloned instead */
        json_object_set_new(j, "alternative_callee", fn->alternative ? json_string(fn->alternative) : json_null());
        json_object_set_new(j, "budget_kept_by_cheaper_sets",
                            json_boolean(!r->static_mode && r->decision.functions && f < r->decision.n_functions &&
                                         r->decision.functions[f].budget_room &&
                                         r->decision.functions[f].chosen >= 1));
        if (!r->static_mode) {
            const struct decision_function *d = &r->decision.functions[f];
            /* no share when the baseline never sampled it: 0% would read as measured */
            json_object_set_new(j, "share", select_baseline_unsampled(r, f) ? json_null() : real_json(d->share));
            json_object_set_new(j, "baseline_sampled", json_boolean(!select_baseline_unsampled(r, f)));
            json_object_set_new(j, "baseline_samples_per_run", real_json(d->base_samples));
            json_object_set_new(j, "target_set", fn->in_patch ? json_string(r->variants[fn->set].name) : json_null());
            json_t *by = json_object();
            for (size_t v = 1; v < r->n_variants; v++) {
                if (!r->variants[v].built) continue;
                /* a confirmed function's retested set: the fresh runs'
                 * interval (decision_estimate), the profiled runs' beside it */
                int fresh = decision_estimate_fresh(&r->decision, f, v);
                json_t *iv = select_interval_json(decision_estimate(&r->decision, f, v));
                json_object_set_new(iv, "estimate_from", json_string(fresh ? "confirmation_runs" : "profiled_runs"));
                json_object_set_new(iv, "profiled_runs_interval",
                                    fresh ? select_interval_json(&d->by_variant[v]) : json_null());
                json_object_set_new(iv, "clone_ran", fn->ran && fn->ran[v] ? json_string(fn->ran[v]) : json_null());
                json_object_set_new(iv, "same_code", json_boolean(fn->same_code && fn->same_code[v]));
                json_object_set_new(by, r->variants[v].name, iv);
            }
            json_object_set_new(j, "variants", by);
        }
        json_array_append_new(fs, j);
    }
    json_object_set_new(o, "functions", fs);
    json_t *ws = json_array();
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        json_t *j = json_object();
        json_object_set_new(j, "command", json_string(wr->command));
        json_object_set_new(j, "end_to_end", wr->timed ? select_interval_json(&wr->e2e) : json_null());
        json_object_set_new(j, "decided_on", !wr->timed ? json_null() : json_string(wr->cpu_decides ? "cpu" : "wall"));
        json_object_set_new(j, "end_to_end_cpu",
                            wr->timed && wr->e2e_cpu.valid ? select_interval_json(&wr->e2e_cpu) : json_null());
        json_object_set_new(j, "failure", wr->failure ? json_string(wr->failure) : json_null());
        json_object_set_new(j, "march_x86_64_v3", wr->march_timed ? select_interval_json(&wr->march_e2e) : json_null());
        json_object_set_new(j, "selected_vs_march_x86_64_v3",
                            wr->march_timed && wr->selected_vs_march.valid ? select_interval_json(&wr->selected_vs_march)
                                                                           : json_null());
        json_object_set_new(j, "march_failure", wr->march_failure ? json_string(wr->march_failure) : json_null());
        json_object_set_new(j, "all_candidates", all_candidates_json(r, wr));
        json_object_set_new(j, "sampling", sampling_json(&wr->sampling));
        json_array_append_new(ws, j);
    }
    json_object_set_new(o, "workloads", ws);
    /* what one sample counts in every samples figure of this report (sampling.h) */
    json_object_set_new(o, "sample_unit_us", json_real((double)SAMPLING_UNIT_NS / 1000));
    json_object_set_new(o, "patch_targets", r->patch_targets ? json_string(r->patch_targets) : json_null());
    json_object_set_new(o, "selected", json_integer((json_int_t)r->n_selected));
    json_object_set_new(o, "code_size", code_size_json(r));
    json_object_set_new(o, "dispatch", select_dispatch_json(r));
    json_object_set_new(o, "small_gains", small_gains_json(r));
    json_object_set_new(o, "statistics", report_statistics_json(r));
    json_object_set_new(o, "references", report_references_json(r));
    json_object_set_new(o, "run_records", report_run_records_json(r));
    json_object_set_new(o, "placement", placement_json(r));
    json_t *notes = json_array();
    for (size_t i = 0; i < r->notes.n; i++) json_array_append_new(notes, json_string(r->notes.v[i]));
    json_object_set_new(o, "notes", notes);
    /* the hot functions that are no candidate (hotrest.h) */
    json_t *hot = json_array();
    for (size_t i = 0; i < r->n_hot_rest; i++) {
        const struct select_hot_rest *h = &r->hot_rest[i];
        json_array_append_new(hot, json_pack("{s:s, s:s, s:s, s:f, s:s}", "symbol", h->symbol, "display_name",
                                             h->display_name, "file", h->file, "share", h->share, "why", h->why));
    }
    json_object_set_new(o, "hot_non_candidates", hot);
    return o;
}
