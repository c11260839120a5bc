/* result.c - the queries on select's results and their release (result.h). */
#include "select/result.h"
#include "select/decision_confirm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *select_speedup_unknown(const struct stats_interval *iv)
{
    if (iv->mean_a <= 0 && iv->mean_b <= 0) return "not sampled by either build";
    if (iv->mean_a <= 0) return "not sampled by the baseline";
    if (iv->mean_b <= 0 || !isfinite(iv->speedup)) return "not sampled by this variant";
    return NULL;
}

const struct stats_interval *select_deciding_e2e(const struct select_workload_result *wr)
{
    return wr->cpu_decides ? &wr->e2e_cpu : &wr->e2e;
}

int select_interval_wide(const struct stats_interval *iv)
{
    if (!iv->valid || select_speedup_unknown(iv)) return 0;
    if (!isfinite(iv->speedup_lo) || !isfinite(iv->speedup_hi)) return 1;
    return iv->speedup_hi - iv->speedup_lo > SELECT_WIDE_INTERVAL * iv->speedup;
}

size_t select_name_count(const struct select_report *r, size_t f)
{
    size_t n = 0;
    for (size_t g = 0; g < r->n_functions; g++)
        if (strcmp(r->functions[g].name, r->functions[f].name) == 0) n++;
    return n;
}

int select_name_ambiguous(const struct select_report *r, size_t f)
{
    return !r->functions[f].by_file && select_name_count(r, f) > 1;
}

int select_baseline_unsampled(const struct select_report *r, size_t f)
{
    const struct decision_function *d = r->decision.functions ? &r->decision.functions[f] : NULL;
    return !r->static_mode && d && d->base_samples <= 0 && d->share <= 0;
}

int64_t select_code_growth(const struct select_report *r, const struct select_code *c)
{
    if (!r->n_variants || !r->variants[0].code.measured || !c->measured) return 0;
    return (int64_t)c->code_bytes - (int64_t)r->variants[0].code.code_bytes;
}

double select_code_growth_percent(const struct select_report *r, const struct select_code *c)
{
    if (!r->n_variants || !r->variants[0].code.measured || !r->variants[0].code.code_bytes) return 0;
    return 100.0 * (double)select_code_growth(r, c) / (double)r->variants[0].code.code_bytes;
}

size_t select_shown_variant(const struct select_report *r, size_t f)
{
    if (r->functions[f].in_patch) return (size_t)r->functions[f].set;
    size_t best = 1;
    if (r->static_mode || !r->decision.functions) {
        for (size_t v = 1; v < r->n_variants; v++)
            if (r->variants[v].built) return v;
        return best;
    }
    const struct decision_function *d = &r->decision.functions[f];
    if (d->reason == DECISION_CODE_BUDGET && d->budget_dropped >= 1 && (size_t)d->budget_dropped < r->n_variants)
        return (size_t)d->budget_dropped;
    for (size_t v = 1; v < r->n_variants; v++)
        if (decision_estimate(&r->decision, f, v)->speedup > decision_estimate(&r->decision, f, best)->speedup)
            best = v;
    return best;
}

int64_t select_bytes_added(const struct select_report *r, size_t f, size_t v)
{
    const struct select_function *fn = &r->functions[f];
    return fn->bytes_added && v <= r->n_variants ? fn->bytes_added[v] : -1;
}

const char *select_function_verdict(const struct select_report *r, size_t f)
{
    const struct select_function *fn = &r->functions[f];
    if (r->static_mode) return fn->note ? fn->note : (fn->in_patch ? "selected" : "dropped");
    if (fn->note) return fn->note;
    return decision_reason_name(r->decision.functions[f].reason);
}

void select_march_free(struct select_march *m)
{
    free(m->flags);
    free(m->via);
    free(m->why);
    free(m->failure);
    sv_free(&m->missed);
    memset(m, 0, sizeof *m);
}

static double *copy_reals(const double *v, size_t n)
{
    double *out = xcalloc(n + 1, sizeof *out);
    if (v && n) memcpy(out, v, n * sizeof *out);
    return out;
}

void select_keep_run_stage(struct select_report *r, int confirmation, size_t n_rounds, size_t first_round,
                           const int *position, const double *samples, const double *totals,
                           const double *aa_samples, const double *aa_totals)
{
    if (r->n_run_stages >= sizeof r->run_stages / sizeof r->run_stages[0]) return;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = n_rounds;
    struct select_run_stage *st = &r->run_stages[r->n_run_stages++];
    st->confirmation = confirmation;
    st->n_rounds = nr;
    st->first_round = first_round;
    st->position = xcalloc((nv + 1) * nr + 1, sizeof *st->position);
    memcpy(st->position, position, (nv + 1) * nr * sizeof *st->position);
    st->samples = copy_reals(samples, nw * nv * nf * nr);
    st->totals = copy_reals(totals, nw * nv * nr);
    st->aa_samples = copy_reals(aa_samples, nw * nf * nr);
    st->aa_totals = copy_reals(aa_totals, nw * nr);
}

void select_copies_clear(struct select_copies *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->symbols[i]);
    free(c->symbols);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

void select_report_free(struct select_report *r)
{
    runs_auto_free(&r->runs_auto);
    for (size_t i = 0; i < r->n_hot_rest; i++) {
        free(r->hot_rest[i].symbol);
        free(r->hot_rest[i].display_name);
        free(r->hot_rest[i].file);
        free(r->hot_rest[i].why);
    }
    free(r->hot_rest);
    for (size_t v = 0; v < r->n_variants; v++) {
        free(r->variants[v].name);
        free(r->variants[v].targets);
        free(r->variants[v].failure);
        free(r->variants[v].output_match);
    }
    free(r->variants);
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        free(fn->name);
        free(fn->display_name);
        free(fn->file);
        free(fn->evidence);
        free(fn->note);
        free(fn->outlined);
        sv_free(&fn->helpers);
        free(fn->alternative);
        if (fn->ran)
            for (size_t v = 0; v < r->n_variants; v++) free(fn->ran[v]);
        free(fn->ran);
        free(fn->bytes_added);
        if (fn->clone_files)
            for (size_t v = 0; v <= r->n_variants; v++) {
                for (size_t i = 0; i < fn->clone_files[v].n; i++) {
                    free(fn->clone_files[v].files[i].path);
                    free(fn->clone_files[v].files[i].unit);
                }
                free(fn->clone_files[v].files);
            }
        free(fn->clone_files);
        if (fn->copies)
            for (size_t v = 0; v <= r->n_variants; v++) select_copies_clear(&fn->copies[v]);
        free(fn->copies);
        free(fn->copy_only);
        free(fn->copy_only_symbol);
        free(fn->same_code);
        free(fn->fma_why);
    }
    free(r->functions);
    decision_free(&r->decision);
    for (size_t w = 0; w < r->n_workloads; w++) {
        free(r->workloads[w].command);
        free(r->workloads[w].failure);
        free(r->workloads[w].march_failure);
        free(r->workloads[w].nofma_failure);
        free(r->workloads[w].all_candidates);
    }
    free(r->workloads);
    free(r->patch_targets);
    select_march_free(&r->march);
    select_march_free(&r->march_nofma);
    sv_free(&r->notes);
    for (size_t i = 0; i < r->placement.n_slower; i++) {
        free(r->placement.slower[i].symbol);
        free(r->placement.slower[i].file);
        free(r->placement.slower[i].code_why);
    }
    free(r->placement.slower);
    free(r->placement.why_not);
    sv_free(&r->placement.pinned);
    sv_free(&r->placement.unpinned);
    sv_free(&r->ifunc_fallback);
    select_fma_bisect_free(&r->fma_bisect);
    for (size_t i = 0; i < r->n_run_stages; i++) {
        struct select_run_stage *st = &r->run_stages[i];
        free(st->position);
        free(st->samples);
        free(st->totals);
        free(st->aa_samples);
        free(st->aa_totals);
    }
    memset(r, 0, sizeof *r);
}
