/* decision_confirm.c - see decision_confirm.h. */
#include "select/decision_confirm.h"

#include <stdlib.h>

#include "util/util.h"

/* f is retested: held back by Holm alone with some set, or near-significant. */
static int retested(const struct decision *d, size_t f)
{
    const struct decision_function *df = &d->functions[f];
    if (df->near_set >= 1) return 1;
    if (df->reason != DECISION_MULTIPLE_TESTS || !df->held) return 0;
    for (size_t v = 1; v < d->n_variants; v++)
        if (df->held[v]) return 1;
    return 0;
}

/* Set v of a retested function f is in the retest. */
static int in_retest(const struct decision_function *df, size_t v)
{
    return df->near_set >= 1 ? (size_t)df->near_set == v : df->held && df->held[v];
}

int decision_confirm_retests(const struct decision *d, size_t f, size_t v)
{
    if (f >= d->n_functions || v < 1 || v >= d->n_variants) return 0;
    const struct decision_function *df = &d->functions[f];
    return (df->confirm || retested(d, f)) && in_retest(df, v);
}

static int eligible_for(const struct decision_input *in, size_t f, size_t v)
{
    if (in->variant_profiled && !in->variant_profiled[v]) return 0;
    if (in->same_code && in->same_code[f * in->n_variants + v]) return 0;
    return in->function_eligible ? in->function_eligible[f * in->n_variants + v] : in->variant_eligible[v];
}

/* The largest share of a workload's time f saved with v (first runs). */
static double most_saved(const struct decision_input *in, size_t f, size_t v)
{
    double best = 0;
    for (size_t w = 0; w < in->n_workloads; w++) {
        double s = decision_saved_share(in, w, f, v);
        if (s > best) best = s;
    }
    return best;
}

size_t decision_confirm_near(const struct decision_input *in, struct decision *d)
{
    struct decision_confirmation *c = &d->confirmation;
    c->n_near = c->n_near_found = 0;
    if (in->n_runs < 2) return 0;
    for (size_t f = 0; f < d->n_functions; f++) {
        struct decision_function *df = &d->functions[f];
        df->near_set = 0;
        df->near_saved = 0;
        if (df->reason != DECISION_NO_GAIN && df->reason != DECISION_CALIBRATION) continue;
        for (size_t v = 1; v < d->n_variants; v++) {
            const struct stats_interval *iv = &df->by_variant[v];
            if (!eligible_for(in, f, v) || !iv->valid || !(iv->diff > 0) || iv->speedup < DECISION_NEAR_GAIN ||
                !(iv->p <= DECISION_NEAR_P))
                continue;
            double saved = most_saved(in, f, v);
            if (saved < DECISION_NEAR_SAVED || saved <= df->near_saved || decision_slower_somewhere(in, v, f))
                continue;
            df->near_set = (int)v;
            df->near_saved = saved;
        }
        c->n_near_found += df->near_set >= 1;
    }
    /* the cap: the DECISION_NEAR_MAX that save the most (ties: the first) */
    for (size_t n = c->n_near_found; n > DECISION_NEAR_MAX; n--) {
        size_t least = d->n_functions;
        for (size_t f = 0; f < d->n_functions; f++)
            if (d->functions[f].near_set >= 1 &&
                (least == d->n_functions || d->functions[f].near_saved <= d->functions[least].near_saved))
                least = f;
        d->functions[least].near_set = 0;
        d->functions[least].near_saved = 0;
    }
    c->n_near = c->n_near_found < DECISION_NEAR_MAX ? c->n_near_found : DECISION_NEAR_MAX;
    return c->n_near;
}

size_t decision_confirm_pairs(const struct decision *d)
{
    size_t k = 0;
    for (size_t f = 0; f < d->n_functions; f++)
        for (size_t v = 1; retested(d, f) && v < d->n_variants; v++) k += (size_t)in_retest(&d->functions[f], v);
    return k;
}

void decision_confirm_arms(const struct decision *d, int *need)
{
    for (size_t v = 0; v < d->n_variants; v++) need[v] = v == 0;
    for (size_t f = 0; f < d->n_functions; f++)
        for (size_t v = 1; retested(d, f) && v < d->n_variants; v++) need[v] |= in_retest(&d->functions[f], v);
}

/* The one-sided p-value of "not faster" (the first runs fixed the
 * direction); 1 without an interval. */
static double one_sided(const struct stats_interval *iv)
{
    if (!iv->valid) return 1;
    return iv->diff > 0 ? iv->p / 2 : 1;
}

/* One look at the retest (decision_confirm / decision_confirm_again): the
 * intervals of every retested pair on fresh, Holm over all of them at the
 * look's level; a function not yet confirmed takes this look's intervals
 * and verdict, one confirmed at the first look keeps its own (its pairs
 * still count in the family). */
static void confirm_look(const struct decision_input *fresh, struct decision *d)
{
    struct decision_confirmation *c = &d->confirmation;
    size_t nv = d->n_variants, nr = fresh->n_runs, cap = 1, k = 0;
    /* the pairs this look tests: the retested ones, and at the second look
     * also those of functions confirmed at the first (no longer "retested"
     * by their reason, their pairs still in the family) */
    for (size_t f = 0; f < d->n_functions; f++)
        for (size_t v = 1; v < nv; v++) cap += (size_t)decision_confirm_retests(d, f, v);
    double alpha = c->alpha > 0 ? c->alpha : d->alpha;
    c->n_runs = nr;
    c->n_looks++;
    if (c->n_looks == 1) c->n_runs_first = nr;
    c->calibrated = fresh->aa_samples && fresh->aa_totals;
    double *base = xcalloc(nr + 1, sizeof *base), *var = xcalloc(nr + 1, sizeof *var);
    double *p = xcalloc(cap, sizeof *p);
    size_t *who = xcalloc(cap, sizeof *who);
    int *rejected = xcalloc(cap, sizeof *rejected);
    /* the fresh intervals, widened by the fresh A/A interval */
    for (size_t f = 0; f < d->n_functions; f++) {
        if (!(d->functions[f].confirm || retested(d, f))) continue;
        struct decision_function *df = &d->functions[f];
        int keep = df->confirmed;   /* decided at the first look */
        if (!df->confirm) {
            df->confirm = xcalloc(nv, sizeof *df->confirm);
            df->confirm_holm = xcalloc(nv, sizeof *df->confirm_holm);
            df->confirm_saved = xcalloc(nv * d->n_workloads + 1, sizeof *df->confirm_saved);
            c->n_functions++;
        }
        decision_summed(fresh, 0, f, base);
        struct stats_interval aa = {0};
        if (c->calibrated) {
            decision_aa_summed(fresh, f, var);
            stats_compare_samples(base, nr, var, nr, &aa);
        }
        for (size_t v = 1; v < nv; v++) {
            if (!in_retest(df, v)) continue;
            struct stats_interval iv;
            decision_summed(fresh, v, f, var);
            stats_compare_samples(base, nr, var, nr, &iv);
            stats_widen(&iv, decision_aa_margin(&aa, &iv));
            if (!keep) {
                df->confirm[v] = iv;
                for (size_t w = 0; w < d->n_workloads && w < fresh->n_workloads; w++)
                    df->confirm_saved[v * d->n_workloads + w] = decision_saved_share(fresh, w, f, v);
            }
            p[k] = one_sided(&iv);
            who[k++] = f * nv + v;
        }
    }
    c->n_tests = k;
    /* their own family */
    stats_holm(p, k, alpha, rejected);
    for (size_t i = 0; i < k; i++) {
        struct decision_function *df = &d->functions[who[i] / nv];
        if (!df->confirmed) df->confirm_holm[who[i] % nv] = rejected[i];
    }
    int *qualifies = xcalloc(nv, sizeof *qualifies);
    for (size_t f = 0; f < d->n_functions; f++) {
        struct decision_function *df = &d->functions[f];
        if (!df->confirm || df->confirmed) continue;
        for (size_t v = 1; v < nv; v++)
            qualifies[v] = df->confirm_holm[v] && df->confirm[v].diff > 0 &&
                           !decision_slower_somewhere(fresh, v, f);
        int fastest = decision_prefer_smaller(df->confirm, qualifies, NULL, nv);
        if (fastest < 1) continue;
        df->fastest = fastest;
        df->chosen = decision_prefer_smaller(df->confirm, qualifies,
                                             fresh->code_bytes ? fresh->code_bytes + f * nv : NULL, nv);
        for (size_t v = 1; v < nv; v++) df->qualifies[v] = qualifies[v];
        df->reason = DECISION_CONFIRMED;
        df->confirmed = c->n_looks;
        c->n_confirmed++;
        c->n_near_confirmed += df->near_set >= 1;
        c->n_confirmed_second += c->n_looks == 2;
    }
    free(qualifies);
    free(base);
    free(var);
    free(p);
    free(who);
    free(rejected);
}

void decision_confirm(const struct decision_input *fresh, struct decision *d)
{
    confirm_look(fresh, d);
}

int decision_confirm_undecided(const struct decision *d)
{
    if (d->confirmation.n_looks != 1) return 0;
    for (size_t f = 0; f < d->n_functions; f++) {
        const struct decision_function *df = &d->functions[f];
        if (!df->confirm || df->confirmed) continue;
        for (size_t v = 1; v < d->n_variants; v++)
            if (in_retest(df, v) && df->confirm[v].valid && df->confirm[v].diff > 0) return 1;
    }
    return 0;
}

void decision_confirm_again(const struct decision_input *all, struct decision *d)
{
    confirm_look(all, d);
}

int decision_estimate_fresh(const struct decision *d, size_t f, size_t v)
{
    if (f >= d->n_functions || v < 1 || v >= d->n_variants) return 0;
    const struct decision_function *df = &d->functions[f];
    return df->confirmed && df->confirm && in_retest(df, v) && df->confirm[v].valid;
}

const struct stats_interval *decision_estimate(const struct decision *d, size_t f, size_t v)
{
    return decision_estimate_fresh(d, f, v) ? &d->functions[f].confirm[v] : &d->functions[f].by_variant[v];
}

double decision_estimate_saved(const struct decision *d, const struct decision_input *in, size_t w, size_t f,
                               size_t v)
{
    if (decision_estimate_fresh(d, f, v) && d->functions[f].confirm_saved && w < d->n_workloads)
        return d->functions[f].confirm_saved[v * d->n_workloads + w];
    return decision_saved_share(in, w, f, v);
}
