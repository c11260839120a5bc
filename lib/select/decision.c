/* decision.c - see decision.h. */
#include "select/decision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static const double *samples_of(const struct decision_input *in, size_t w, size_t v, size_t f)
{
    return in->samples + ((w * in->n_variants + v) * in->n_functions + f) * in->n_runs;
}

/* Per run, the function's samples summed over the workloads. */
void decision_summed(const struct decision_input *in, size_t v, size_t f, double *out)
{
    for (size_t r = 0; r < in->n_runs; r++) out[r] = 0;
    for (size_t w = 0; w < in->n_workloads; w++) {
        const double *s = samples_of(in, w, v, f);
        for (size_t r = 0; r < in->n_runs; r++) out[r] += s[r];
    }
}

static int eligible(const struct decision_input *in, size_t f, size_t v)
{
    return in->function_eligible ? in->function_eligible[f * in->n_variants + v] : in->variant_eligible[v];
}

static int same_code(const struct decision_input *in, size_t f, size_t v)
{
    return in->same_code && in->same_code[f * in->n_variants + v];
}

static int same_code_everywhere(const struct decision_input *in, size_t f)
{
    size_t v = 1;
    while (v < in->n_variants && same_code(in, f, v)) v++;
    return in->n_variants > 1 && v == in->n_variants;
}

int decision_slower_somewhere(const struct decision_input *in, size_t v, size_t f)
{
    if (in->n_workloads < 2) return 0;   /* the summed verdict already says it */
    for (size_t w = 0; w < in->n_workloads; w++) {
        struct stats_interval iv;
        stats_compare_samples(samples_of(in, w, 0, f), in->n_runs, samples_of(in, w, v, f), in->n_runs, &iv);
        if (stats_slower(&iv)) return 1;
    }
    return 0;
}

/* The function's share of the baseline's samples, judged per workload and
 * the largest kept: a function taking 30% of a short workload beside a ten
 * times longer one is hot, though it holds 3% of all the samples together. */
static double largest_share(const struct decision_input *in, size_t f)
{
    double largest = 0;
    for (size_t w = 0; w < in->n_workloads; w++) {
        const double *total = in->totals + (w * in->n_variants) * in->n_runs;
        double t = stats_mean(total, in->n_runs), mine = stats_mean(samples_of(in, w, 0, f), in->n_runs);
        if (t > 0 && mine / t > largest) largest = mine / t;
    }
    return largest;
}

/* Per run, the samples of the pool's functions in variant v, summed over
 * the workloads (w < 0) or of workload w. */
static void pool_summed(const struct decision_input *in, const int *pool, long w, size_t v, double *out)
{
    for (size_t r = 0; r < in->n_runs; r++) out[r] = 0;
    for (size_t ww = 0; ww < in->n_workloads; ww++) {
        if (w >= 0 && (size_t)w != ww) continue;
        for (size_t f = 0; f < in->n_functions; f++) {
            if (!pool[f]) continue;
            const double *s = samples_of(in, ww, v, f);
            for (size_t r = 0; r < in->n_runs; r++) out[r] += s[r];
        }
    }
}

/* The pool's largest share of a workload's baseline samples. */
static double pool_share(const struct decision_input *in, const int *pool, double *scratch)
{
    double largest = 0;
    for (size_t w = 0; w < in->n_workloads; w++) {
        const double *total = in->totals + (w * in->n_variants) * in->n_runs;
        pool_summed(in, pool, (long)w, 0, scratch);
        double t = stats_mean(total, in->n_runs), mine = stats_mean(scratch, in->n_runs);
        if (t > 0 && mine / t > largest) largest = mine / t;
    }
    return largest;
}

static int pool_slower_on_some_workload(const struct decision_input *in, const int *pool, size_t v, double *a,
                                        double *b)
{
    if (in->n_workloads < 2) return 0;
    for (size_t w = 0; w < in->n_workloads; w++) {
        pool_summed(in, pool, (long)w, 0, a);
        pool_summed(in, pool, (long)w, v, b);
        struct stats_interval iv;
        stats_compare_samples(a, in->n_runs, b, in->n_runs, &iv);
        if (stats_slower(&iv)) return 1;
    }
    return 0;
}

/* The group of small gains (decision.h): the pool is every function left
 * without a verdict against it, fixed before the variants are compared. */
static void decide_group(const struct decision_input *in, struct decision *out)
{
    struct decision_group *g = &out->group;
    memset(g, 0, sizeof *g);
    g->chosen = -1;
    if (in->n_runs < 2 || in->n_functions == 0) return;
    int *pool = xcalloc(in->n_functions, sizeof *pool);
    for (size_t f = 0; f < in->n_functions; f++) {
        enum decision_reason why = out->functions[f].reason;
        pool[f] = why == DECISION_COLD || why == DECISION_FEW_SAMPLES || why == DECISION_NO_GAIN ||
                  why == DECISION_MULTIPLE_TESTS || why == DECISION_CALIBRATION;
        g->n_pool += (size_t)pool[f];
    }
    double *a = xcalloc(in->n_runs, sizeof *a), *b = xcalloc(in->n_runs, sizeof *b);
    g->share = pool_share(in, pool, a);
    pool_summed(in, pool, -1, 0, a);
    if (g->n_pool >= 2 && g->share >= in->min_share && stats_mean(a, in->n_runs) >= in->min_samples) {
        /* the pool's own A/A interval, as for one function */
        struct stats_interval aa = {0};
        if (out->calibrated) {
            for (size_t r = 0; r < in->n_runs; r++) b[r] = 0;
            for (size_t w = 0; w < in->n_workloads; w++)
                for (size_t f = 0; f < in->n_functions; f++)
                    for (size_t r = 0; pool[f] && r < in->n_runs; r++)
                        b[r] += in->aa_samples[(w * in->n_functions + f) * in->n_runs + r];
            stats_compare_samples(a, in->n_runs, b, in->n_runs, &aa);
        }
        /* one test per eligible set: Bonferroni over them */
        size_t n_sets = 0;
        for (size_t v = 1; v < in->n_variants; v++) n_sets += (size_t)in->variant_eligible[v];
        double best = 0;
        for (size_t v = 1; v < in->n_variants; v++) {
            if (!in->variant_eligible[v]) continue;
            struct stats_interval iv;
            pool_summed(in, pool, -1, 0, a);
            pool_summed(in, pool, -1, v, b);
            stats_compare_samples(a, in->n_runs, b, in->n_runs, &iv);
            stats_widen(&iv, decision_aa_margin(&aa, &iv));
            if (!stats_faster(&iv) || iv.p > out->alpha / (double)n_sets || iv.speedup <= best) continue;
            if (pool_slower_on_some_workload(in, pool, v, a, b)) continue;
            best = iv.speedup;
            g->chosen = (int)v;
            g->by_variant_chosen = iv;
        }
    }
    for (size_t f = 0; g->chosen >= 1 && f < in->n_functions; f++) {
        struct decision_function *d = &out->functions[f];
        size_t v = (size_t)g->chosen;
        if (!pool[f] || !eligible(in, f, v) || same_code(in, f, v) || d->share < in->min_share * DECISION_GROUP_MEMBER_SHARE) continue;
        if (d->by_variant[v].mean_b >= d->by_variant[v].mean_a || decision_slower_somewhere(in, v, f)) continue;
        d->chosen = g->chosen;
        d->reason = DECISION_SELECTED_TOGETHER;
        g->n_members++;
    }
    free(pool);
    free(a);
    free(b);
}

/* Per run, f's samples in the A/A arm, summed over the workloads. */
void decision_aa_summed(const struct decision_input *in, size_t f, double *out)
{
    for (size_t r = 0; r < in->n_runs; r++) out[r] = 0;
    for (size_t w = 0; w < in->n_workloads; w++) {
        const double *s = in->aa_samples + (w * in->n_functions + f) * in->n_runs;
        for (size_t r = 0; r < in->n_runs; r++) out[r] += s[r];
    }
}

double decision_aa_margin(const struct stats_interval *aa, const struct stats_interval *iv)
{
    if (!aa->valid || (aa->lo <= 0 && aa->hi >= 0)) return 0;
    double m = fabs(aa->lo) > fabs(aa->hi) ? fabs(aa->lo) : fabs(aa->hi);
    if (aa->log_scale == iv->log_scale) return m;
    double base = aa->mean_a;   /* the baseline's mean samples per run */
    if (aa->log_scale) return base * (exp(m) - 1);   /* a ratio, in samples */
    return base > 0 ? log1p(m / base) : INFINITY;      /* samples, as a ratio */
}

static int overlap(const struct stats_interval *a, const struct stats_interval *b)
{
    return a->speedup_lo <= b->speedup_hi && b->speedup_lo <= a->speedup_hi;
}

int decision_prefer_smaller(const struct stats_interval *by_variant, const int *qualifies, const double *bytes,
                            size_t n_variants)
{
    int fastest = -1;
    for (size_t v = 1; v < n_variants; v++)
        if (qualifies[v] && (fastest < 0 || by_variant[v].speedup > by_variant[fastest].speedup)) fastest = (int)v;
    if (fastest < 0 || !bytes || bytes[fastest] < 0) return fastest;
    int pick = fastest;
    for (size_t v = 1; v < n_variants; v++) {
        if (!qualifies[v] || (int)v == fastest || bytes[v] < 0 || bytes[v] >= bytes[pick]) continue;
        if (overlap(&by_variant[v], &by_variant[fastest])) pick = (int)v;
    }
    return pick;
}

/* A function hot and sampled enough for a verdict (the share and sample rules). */
static int judged(const struct decision_input *in, const struct decision_function *d)
{
    return d->share >= in->min_share && d->base_samples >= in->min_samples && in->n_runs >= 2;
}

/* Each workload's total samples, baseline vs the A/A arm. */
static void calibrate_workloads(const struct decision_input *in, struct decision *out)
{
    out->aa_workload = xcalloc(in->n_workloads + 1, sizeof *out->aa_workload);
    out->aa_workload_margin = xcalloc(in->n_workloads + 1, sizeof *out->aa_workload_margin);
    for (size_t w = 0; w < in->n_workloads; w++) {
        const double *base = in->totals + (w * in->n_variants) * in->n_runs;
        stats_compare_samples(base, in->n_runs, in->aa_totals + w * in->n_runs, in->n_runs, &out->aa_workload[w]);
        out->aa_workload_margin[w] = decision_aa_margin(&out->aa_workload[w], &out->aa_workload[w]);
    }
}

void decide(const struct decision_input *in, struct decision *out)
{
    memset(out, 0, sizeof *out);
    out->n_functions = in->n_functions;
    out->n_variants = in->n_variants;
    out->n_workloads = in->n_workloads;
    out->alpha = in->alpha > 0 ? in->alpha : DECISION_ALPHA;
    out->calibrated = in->aa_samples && in->aa_totals;
    out->functions = xcalloc(in->n_functions ? in->n_functions : 1, sizeof *out->functions);
    if (out->calibrated) calibrate_workloads(in, out);
    double *base = xcalloc(in->n_runs ? in->n_runs : 1, sizeof *base);
    double *var = xcalloc(in->n_runs ? in->n_runs : 1, sizeof *var);
    /* 1. intervals, calibrated */
    for (size_t f = 0; f < in->n_functions; f++) {
        struct decision_function *d = &out->functions[f];
        d->chosen = d->fastest = -1;
        d->best_ineligible = -1;
        d->by_variant = xcalloc(in->n_variants, sizeof *d->by_variant);
        d->qualifies = xcalloc(in->n_variants, sizeof *d->qualifies);
        d->holm = xcalloc(in->n_variants, sizeof *d->holm);
        d->held = xcalloc(in->n_variants, sizeof *d->held);
        decision_summed(in, 0, f, base);
        d->base_samples = stats_mean(base, in->n_runs);
        d->share = largest_share(in, f);
        if (out->calibrated) {
            decision_aa_summed(in, f, var);
            stats_compare_samples(base, in->n_runs, var, in->n_runs, &d->aa);
            if (judged(in, d) && d->aa.valid) {
                out->n_aa_checked++;
                if (decision_aa_margin(&d->aa, &d->aa) > 0) {
                    d->aa_biased = 1;
                    out->n_aa_biased++;
                }
            }
        }
        for (size_t v = 1; v < in->n_variants; v++) {
            if (in->variant_profiled && !in->variant_profiled[v]) continue;   /* no interval: never faster */
            decision_summed(in, v, f, var);
            stats_compare_samples(base, in->n_runs, var, in->n_runs, &d->by_variant[v]);
            double m = out->calibrated ? decision_aa_margin(&d->aa, &d->by_variant[v]) : 0;
            if (m > 0) d->aa_margin = m;
            stats_widen(&d->by_variant[v], m);
        }
    }
    /* 2. the family: every hot function's interval with every set */
    size_t cap = in->n_functions * in->n_variants + 1, m = 0;
    double *p = xcalloc(cap, sizeof *p);
    size_t *who = xcalloc(cap, sizeof *who);
    int *rejected = xcalloc(cap, sizeof *rejected);
    for (size_t f = 0; f < in->n_functions; f++)
        for (size_t v = 1; v < in->n_variants && judged(in, &out->functions[f]); v++)
            if (out->functions[f].by_variant[v].valid && !same_code(in, f, v)) {
                p[m] = out->functions[f].by_variant[v].p;
                who[m++] = f * in->n_variants + v;
            }
    stats_holm(p, m, out->alpha, rejected);
    for (size_t i = 0; i < m; i++) out->functions[who[i] / in->n_variants].holm[who[i] % in->n_variants] = rejected[i];
    out->n_tests = m;
    free(p);
    free(who);
    free(rejected);
    /* 3. verdicts */
    for (size_t f = 0; f < in->n_functions; f++) {
        struct decision_function *d = &out->functions[f];
        int any_faster = 0, any_faster_eligible = 0, unadjusted = 0, uncalibrated = 0;
        double best_inel = 0;
        for (size_t v = 1; v < in->n_variants; v++) {
            const struct stats_interval *iv = &d->by_variant[v];
            if (same_code(in, f, v)) continue;
            if (!stats_faster(iv)) {
                /* faster before the A/A widening */
                uncalibrated |= iv->widened > 0 && iv->lo + iv->widened > 0;
                continue;
            }
            if (!d->holm[v]) {
                unadjusted = 1;
                int el = eligible(in, f, v), slower = decision_slower_somewhere(in, v, f);
                d->held[v] = el && !slower;
                d->n_unheld_ineligible += !el;
                d->n_unheld_slower += el && slower;
                continue;
            }
            any_faster = 1;
            if (decision_slower_somewhere(in, v, f)) continue;
            if (!eligible(in, f, v)) {
                if (iv->speedup > best_inel) {
                    best_inel = iv->speedup;
                    d->best_ineligible = (int)v;
                }
                continue;
            }
            any_faster_eligible = 1;
            d->qualifies[v] = 1;
        }
        d->fastest = decision_prefer_smaller(d->by_variant, d->qualifies, NULL, in->n_variants);
        d->chosen = decision_prefer_smaller(d->by_variant, d->qualifies,
                                            in->code_bytes ? in->code_bytes + f * in->n_variants : NULL,
                                            in->n_variants);
        double best = d->fastest >= 1 ? d->by_variant[d->fastest].speedup : 0;
        if (d->best_ineligible >= 0 && best_inel <= best) d->best_ineligible = -1;

        if (same_code_everywhere(in, f)) {
            d->reason = DECISION_SAME_CODE;
            d->chosen = d->fastest = d->best_ineligible = -1;
        } else if (d->share < in->min_share) {
            d->reason = DECISION_COLD;
            d->chosen = d->fastest = -1;
        } else if (d->base_samples < in->min_samples || in->n_runs < 2) {
            d->reason = DECISION_FEW_SAMPLES;
            d->chosen = d->fastest = -1;
        } else if (d->chosen >= 0) {
            d->reason = DECISION_SELECTED;
        } else if (d->best_ineligible >= 0) {
            d->reason = DECISION_INELIGIBLE;
        } else if (any_faster && !any_faster_eligible) {
            d->reason = DECISION_SLOWER;
        } else if (unadjusted) {
            d->reason = DECISION_MULTIPLE_TESTS;
            out->n_unadjusted++;
        } else if (uncalibrated) {
            d->reason = DECISION_CALIBRATION;
        } else {
            d->reason = DECISION_NO_GAIN;
        }
    }
    free(base);
    free(var);
    decide_group(in, out);
}

double decision_saved_share(const struct decision_input *in, size_t w, size_t f, size_t v)
{
    const double *t0 = in->totals + (w * in->n_variants) * in->n_runs;
    double base_total = stats_mean(t0, in->n_runs);
    if (base_total <= 0) return 0;
    return (stats_mean(samples_of(in, w, 0, f), in->n_runs) - stats_mean(samples_of(in, w, v, f), in->n_runs)) /
           base_total;
}

int decision_fixed_time(double saved, const struct stats_interval *e2e)
{
    if (saved < DECISION_FIXED_TIME_SAVED || !e2e->valid || stats_faster(e2e)) return 0;
    return e2e->speedup_hi < 1 / (1 - saved / 2);
}

int decision_waits_dominate(double wall_median, double cpu_median)
{
    return cpu_median > 0 && wall_median >= DECISION_WAITS_RATIO * cpu_median;
}

void decision_free(struct decision *d)
{
    for (size_t f = 0; f < d->n_functions; f++) {
        free(d->functions[f].by_variant);
        free(d->functions[f].qualifies);
        free(d->functions[f].holm);
        free(d->functions[f].held);
        free(d->functions[f].confirm);
        free(d->functions[f].confirm_holm);
        free(d->functions[f].confirm_saved);
    }
    free(d->functions);
    free(d->aa_workload);
    free(d->aa_workload_margin);
    d->aa_workload = NULL;
    d->aa_workload_margin = NULL;
    d->functions = NULL;
    d->n_functions = 0;
}

const char *decision_reason_name(enum decision_reason r)
{
    switch (r) {
    case DECISION_SELECTED: return "selected";
    case DECISION_COLD: return "cold (below the minimum share of the run)";
    case DECISION_FEW_SAMPLES: return "too few samples for a verdict (more --runs or a longer workload)";
    case DECISION_NO_GAIN: return "no target set made it significantly faster";
    case DECISION_SLOWER: return "faster overall but significantly slower on some workload";
    case DECISION_INELIGIBLE: return "gained only with a target set whose outputs or tests differ from the baseline's";
    case DECISION_SELECTED_TOGETHER:
        return "selected with the small gains: not significantly faster alone, but the functions without a verdict "
               "are, together";
    case DECISION_MULTIPLE_TESTS:
        return "faster by its own interval, but not once corrected for the number of functions and target sets "
               "tested (Holm)";
    case DECISION_CALIBRATION:
        return "faster, but by no more than the baseline differs from itself (A/A calibration)";
    case DECISION_SAME_CODE:
        return "its clones are its default's code with every target set: no set changes it, so its timings are "
               "noise";
    case DECISION_CODE_BUDGET:
        return "faster, but dropped for the code-growth budget: each workload's best function first, then the fit keeping the most gain, leaves it out";
    case DECISION_CONFIRMED:
        return "selected: held back by Holm over all the tests, or near-significant, then confirmed on fresh runs "
               "(Holm over the comparisons retested)";
    }
    return "?";
}

const char *decision_reason_code(enum decision_reason r)
{
    switch (r) {
    case DECISION_SELECTED: return "selected";
    case DECISION_SELECTED_TOGETHER: return "selected-together";
    case DECISION_COLD: return "cold";
    case DECISION_FEW_SAMPLES: return "few-samples";
    case DECISION_NO_GAIN: return "no-gain";
    case DECISION_SLOWER: return "slower";
    case DECISION_INELIGIBLE: return "ineligible";
    case DECISION_MULTIPLE_TESTS: return "multiple-tests";
    case DECISION_CALIBRATION: return "calibration";
    case DECISION_SAME_CODE: return "same-code";
    case DECISION_CODE_BUDGET: return "code-budget";
    case DECISION_CONFIRMED: return "confirmed";
    }
    return "?";
}
