/* budget_sets.c - see budget_sets.h. */
#include "select/budget_sets.h"

#include <stdlib.h>
#include <string.h>

#include "select/decision.h"
#include "select/decision_confirm.h"
#include "select/result.h"
#include "util/util.h"

double budget_set_gain(const struct select_report *r, const struct decision_input *in, size_t f, size_t v)
{
    double g = 0;
    for (size_t w = 0; w < in->n_workloads; w++) g += decision_estimate_saved(&r->decision, in, w, f, v);
    return in->n_workloads ? g / (double)in->n_workloads : 0;
}

/* f selected by its own verdict, with the sets it qualified for known */
static int own_verdict(const struct select_report *r, size_t f)
{
    const struct decision *d = &r->decision;
    if (f >= d->n_functions || f >= r->n_functions) return 0;
    const struct decision_function *df = &d->functions[f];
    return (df->reason == DECISION_SELECTED || df->reason == DECISION_CONFIRMED) && df->qualifies;
}

int budget_cheaper_set(const struct select_report *r, const struct decision_input *in, size_t f)
{
    if (!own_verdict(r, f)) return -1;
    const struct decision *d = &r->decision;
    const struct decision_function *df = &d->functions[f];
    if (df->chosen < 1) return -1;
    int64_t now = select_bytes_added(r, f, (size_t)df->chosen);
    if (now < 0) return -1;
    int pick = -1;
    double best = 0;
    for (size_t v = 1; v < d->n_variants && v < r->n_variants; v++) {
        if ((int)v == df->chosen || !df->qualifies[v]) continue;
        int64_t b = select_bytes_added(r, f, v);
        if (b < 0 || b >= now) continue;
        double g = budget_set_gain(r, in, f, v);
        if (pick < 0 || g > best) pick = (int)v, best = g;
    }
    return pick;
}

size_t budget_set_options(const struct select_report *r, size_t f, int timed, int *out, size_t cap)
{
    if (!cap || timed < 1 || !own_verdict(r, f)) return 0;
    const struct decision *d = &r->decision;
    const struct decision_function *df = &d->functions[f];
    size_t k = 0;
    out[k++] = timed;
    int64_t now = select_bytes_added(r, f, (size_t)timed);
    if (now < 0) return k;
    for (size_t v = 1; v < d->n_variants && v < r->n_variants && k < cap; v++) {
        if ((int)v == timed || !df->qualifies[v]) continue;
        int64_t b = select_bytes_added(r, f, v);
        if (b < 0 || b >= now) continue;
        /* fewest bytes last: insertion by bytes, descending (ties: the
         * lower set index first) */
        size_t i = k;
        while (i > 1 && select_bytes_added(r, f, (size_t)out[i - 1]) < b) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = (int)v;
        k++;
    }
    return k;
}

/* a keeps more of the workloads' best functions than b, or as many and
 * more gain */
static int gains_more(const struct budget_outcome *a, const struct budget_outcome *b)
{
    if (a->served != b->served) return a->served > b->served;
    return a->gain > b->gain + 1e-12;
}

int budget_outcome_better(const struct budget_outcome *a, const struct budget_outcome *b)
{
    if (a->served != b->served || a->gain > b->gain + 1e-12 || b->gain > a->gain + 1e-12) return gains_more(a, b);
    if (a->moved != b->moved) return a->moved < b->moved;
    return a->bytes < b->bytes;
}

size_t budget_search_sets(size_t n, const size_t *n_options, const int *const *options, const size_t *order,
                          size_t n_order, const int *start, const struct budget_outcome *start_outcome,
                          budget_eval_fn eval, void *ctx, int *best)
{
    memcpy(best, start, n * sizeof *best);
    /* the functions searched: those saving the most first, while the
     * assignments stay within the bound */
    size_t *who = xcalloc(n_order + 1, sizeof *who), k = 0, count = 1;
    for (size_t i = 0; i < n_order; i++) {
        size_t f = order[i];
        if (f >= n || n_options[f] < 2 || count * n_options[f] > BUDGET_SETS_MAX) continue;
        count *= n_options[f];
        who[k++] = f;
    }
    size_t fitted = 0;
    if (k) {
        int *sets = xcalloc(n + 1, sizeof *sets);
        size_t *idx = xcalloc(k, sizeof *idx);
        struct budget_outcome kept = *start_outcome, o;
        int found = 0;
        for (;;) {
            memcpy(sets, start, n * sizeof *sets);
            for (size_t i = 0; i < k; i++) sets[who[i]] = options[who[i]][idx[i]];
            memset(&o, 0, sizeof o);
            eval(ctx, sets, &o);
            fitted++;
            if (o.within && gains_more(&o, start_outcome) && (!found || budget_outcome_better(&o, &kept))) {
                kept = o;
                found = 1;
                memcpy(best, sets, n * sizeof *best);
            }
            /* the next assignment: the last function searched varies fastest */
            size_t i = k;
            while (i > 0 && ++idx[i - 1] == n_options[who[i - 1]]) idx[--i] = 0;
            if (!i) break;
        }
        free(sets);
        free(idx);
    }
    free(who);
    return fitted;
}

size_t budget_sets_search(const struct select_report *r, const struct decision_input *in, size_t n,
                          const int *timed, const struct budget_outcome *start_outcome, budget_eval_fn eval,
                          void *ctx, int *best)
{
    size_t n_order = 0;
    size_t *n_opt = xcalloc(n + 1, sizeof *n_opt), *order = xcalloc(n + 1, sizeof *order);
    int **opt = xcalloc(n + 1, sizeof *opt), *start = xcalloc(n + 1, sizeof *start);
    double *by = xcalloc(n + 1, sizeof *by);
    for (size_t f = 0; f < n; f++) {
        opt[f] = xcalloc(r->n_variants + 1, sizeof **opt);
        n_opt[f] = budget_set_options(r, f, timed[f], opt[f], r->n_variants);
        start[f] = r->decision.functions[f].chosen;
        if (n_opt[f] < 2) continue;
        /* those saving the most first (ties: the first) */
        by[f] = budget_set_gain(r, in, f, (size_t)timed[f]);
        size_t i = n_order++;
        while (i > 0 && by[order[i - 1]] < by[f]) order[i] = order[i - 1], i--;
        order[i] = f;
    }
    size_t fitted = 0;
    memcpy(best, start, n * sizeof *best);
    if (n_order)
        fitted = budget_search_sets(n, n_opt, (const int *const *)opt, order, n_order, start, start_outcome, eval, ctx,
                                    best);
    for (size_t f = 0; f < n; f++) free(opt[f]);
    free(opt);
    free(n_opt);
    free(order);
    free(start);
    free(by);
    return fitted;
}

void budget_sets_kept_note(struct select_report *r, size_t f, int timed, double bytes, const char *room,
                           struct strbuf *list)
{
    struct select_function *fn = &r->functions[f];
    const struct decision *d = &r->decision;
    int v = d->functions[f].chosen;
    const char *set = r->variants[v].name, *was = r->variants[timed].name;
    const struct stats_interval *iv = decision_estimate(d, f, (size_t)v), *ivw = decision_estimate(d, f, (size_t)timed);
    int64_t was_bytes = select_bytes_added(r, f, (size_t)timed);
    free(fn->note);
    fn->note = xasprintf("kept with its %s clones (%.0f bytes) for the code-growth budget, which has no room for its %s "
                         "clones (%lld bytes, %.2fx [%.2f, %.2f])%s%s; %s made it significantly faster too: %.2fx "
                         "[%.2f, %.2f]",
                         set, bytes, was, (long long)was_bytes, ivw->speedup, ivw->speedup_lo, ivw->speedup_hi,
                         *room ? " beside " : "", room, set, iv->speedup, iv->speedup_lo, iv->speedup_hi);
    sb_addf(list, "%s%s (%s, %.0f bytes, instead of %s, %lld bytes; %.2fx [%.2f, %.2f] instead of %.2fx [%.2f, %.2f])",
            list->len ? ", " : "", fn->display_name, set, bytes, was, (long long)was_bytes, iv->speedup, iv->speedup_lo,
            iv->speedup_hi, ivw->speedup, ivw->speedup_lo, ivw->speedup_hi);
}
