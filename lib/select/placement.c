/* placement.c - see placement.h. */
#include "select/placement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct placement_key {
    char *file, *symbol;
    double *samples;   /* [(arm * nw + w) * max_runs + k] */
};

struct placement_log {
    size_t nw, max_runs;
    size_t *runs;      /* [arm * nw + w] */
    double *totals;    /* [(arm * nw + w) * max_runs + k] */
    struct placement_key *keys;
    size_t n_keys, cap_keys;
};

struct placement_log *placement_log_new(size_t n_workloads, size_t max_runs)
{
    struct placement_log *l = xcalloc(1, sizeof *l);
    l->nw = n_workloads;
    l->max_runs = max_runs;
    l->runs = xcalloc(2 * n_workloads + 1, sizeof *l->runs);
    l->totals = xcalloc(2 * n_workloads * max_runs + 1, sizeof *l->totals);
    return l;
}

void placement_log_free(struct placement_log *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->n_keys; i++) {
        free(l->keys[i].file);
        free(l->keys[i].symbol);
        free(l->keys[i].samples);
    }
    free(l->keys);
    free(l->runs);
    free(l->totals);
    free(l);
}

static size_t at(const struct placement_log *l, enum placement_arm arm, size_t w, size_t k)
{
    return ((size_t)arm * l->nw + w) * l->max_runs + k;
}

void placement_log_run(struct placement_log *l, enum placement_arm arm, size_t w, size_t k, double total)
{
    if (!l || w >= l->nw || k >= l->max_runs) return;
    l->totals[at(l, arm, w, k)] = total;
    size_t *n = &l->runs[(size_t)arm * l->nw + w];
    if (k + 1 > *n) *n = k + 1;
}

static struct placement_key *key_of(struct placement_log *l, const char *file, const char *symbol)
{
    for (size_t i = l->n_keys; i-- > 0;)
        if (!strcmp(l->keys[i].symbol, symbol) && !strcmp(l->keys[i].file, file)) return &l->keys[i];
    if (l->n_keys == l->cap_keys) {
        l->cap_keys = l->cap_keys ? 2 * l->cap_keys : 64;
        l->keys = xrealloc(l->keys, l->cap_keys * sizeof *l->keys);
    }
    struct placement_key *k = &l->keys[l->n_keys++];
    k->file = xstrdup(file);
    k->symbol = xstrdup(symbol);
    k->samples = xcalloc(2 * l->nw * l->max_runs + 1, sizeof *k->samples);
    return k;
}

void placement_log_add(struct placement_log *l, enum placement_arm arm, size_t w, size_t k, const char *file,
                       const char *symbol, double samples)
{
    if (!l || w >= l->nw || k >= l->max_runs || !file || !symbol) return;
    key_of(l, file, symbol)->samples[at(l, arm, w, k)] += samples;
}

size_t placement_log_runs(const struct placement_log *l, enum placement_arm arm, size_t w)
{
    return l && w < l->nw ? l->runs[(size_t)arm * l->nw + w] : 0;
}

static double mean_of(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    return n ? s / (double)n : 0;
}

/* Is key k hot on workload w in the baseline (share of the runs' total)? */
static int hot_on(const struct placement_log *l, const struct placement_key *k, size_t w, double min_share)
{
    size_t n = l->runs[w];
    if (!n) return 0;
    double total = mean_of(&l->totals[at(l, PLACEMENT_BASELINE, w, 0)], n);
    return total > 0 && mean_of(&k->samples[at(l, PLACEMENT_BASELINE, w, 0)], n) >= min_share * total;
}

static int by_verdict(const void *pa, const void *pb)
{
    const struct placement_verdict *a = pa, *b = pb;
    if (a->slower != b->slower) return b->slower - a->slower;
    if (a->base_mean != b->base_mean) return a->base_mean < b->base_mean ? 1 : -1;
    return strcmp(a->symbol, b->symbol);
}

struct placement_verdict *placement_judge(const struct placement_log *l, double min_share, double min_samples,
                                          const double *margins, placement_skip_fn skip, void *ctx, size_t *n,
                                          size_t *n_missing)
{
    *n = 0;
    *n_missing = 0;
    if (!l || !l->n_keys) return NULL;
    /* runs summed over the workloads: run k of every workload */
    size_t nb = l->max_runs, ns = l->max_runs;
    for (size_t w = 0; w < l->nw; w++) {
        size_t b = placement_log_runs(l, PLACEMENT_BASELINE, w), s = placement_log_runs(l, PLACEMENT_SELECTED, w);
        if (b < 2 || s < 2) (*n_missing)++;
        if (b < nb) nb = b;
        if (s < ns) ns = s;
    }
    if (nb < 2 || ns < 2) return NULL;
    struct placement_verdict *out = xcalloc(l->n_keys, sizeof *out);
    double *base = xcalloc(nb, sizeof *base), *sel = xcalloc(ns, sizeof *sel);
    for (size_t i = 0; i < l->n_keys; i++) {
        const struct placement_key *k = &l->keys[i];
        double margin = 0;
        int hot = 0;
        for (size_t w = 0; w < l->nw; w++) {
            if (!hot_on(l, k, w, min_share)) continue;
            hot = 1;
            if (margins && margins[w] > margin) margin = margins[w];
        }
        if (!hot || (skip && skip(k->symbol, ctx))) continue;
        memset(base, 0, nb * sizeof *base);
        memset(sel, 0, ns * sizeof *sel);
        for (size_t w = 0; w < l->nw; w++) {
            for (size_t r = 0; r < nb; r++) base[r] += k->samples[at(l, PLACEMENT_BASELINE, w, r)];
            for (size_t r = 0; r < ns; r++) sel[r] += k->samples[at(l, PLACEMENT_SELECTED, w, r)];
        }
        struct placement_verdict *v = &out[*n];
        v->base_mean = mean_of(base, nb);
        if (v->base_mean < min_samples) continue;
        v->file = k->file;
        v->symbol = k->symbol;
        v->sel_mean = mean_of(sel, ns);
        stats_compare_samples(base, nb, sel, ns, &v->iv);
        stats_widen(&v->iv, margin);
        (*n)++;
    }
    free(base);
    free(sel);
    if (!*n) {
        free(out);
        return NULL;
    }
    double *p = xcalloc(*n, sizeof *p);
    int *reject = xcalloc(*n, sizeof *reject);
    for (size_t i = 0; i < *n; i++) p[i] = out[i].iv.valid ? out[i].iv.p : 1;
    stats_holm(p, *n, 0.05, reject);
    for (size_t i = 0; i < *n; i++) out[i].slower = reject[i] && out[i].iv.valid && stats_slower(&out[i].iv);
    free(p);
    free(reject);
    qsort(out, *n, sizeof *out, by_verdict);
    return out;
}

static int by_heat(const void *pa, const void *pb)
{
    const struct placement_hot *a = pa, *b = pb;
    if (a->base_mean != b->base_mean) return a->base_mean < b->base_mean ? 1 : -1;
    int c = strcmp(a->symbol, b->symbol);
    return c ? c : strcmp(a->file, b->file);
}

struct placement_hot *placement_hot(const struct placement_log *l, double min_share, double min_samples,
                                    placement_skip_fn skip, void *ctx, size_t *n)
{
    *n = 0;
    if (!l || !l->n_keys) return NULL;
    struct placement_hot *out = xcalloc(l->n_keys, sizeof *out);
    for (size_t i = 0; i < l->n_keys; i++) {
        const struct placement_key *k = &l->keys[i];
        double sum = 0, share = 0;
        int hot = 0;
        for (size_t w = 0; w < l->nw; w++) {
            size_t nr = l->runs[w];
            if (!nr) continue;
            double mean = mean_of(&k->samples[at(l, PLACEMENT_BASELINE, w, 0)], nr);
            double total = mean_of(&l->totals[at(l, PLACEMENT_BASELINE, w, 0)], nr);
            sum += mean;
            if (total > 0 && mean / total > share) share = mean / total;
            hot = hot || hot_on(l, k, w, min_share);
        }
        if (!hot || sum < min_samples || (skip && skip(k->symbol, ctx))) continue;
        out[(*n)++] = (struct placement_hot){k->file, k->symbol, sum, share};
    }
    if (!*n) {
        free(out);
        return NULL;
    }
    qsort(out, *n, sizeof *out, by_heat);
    return out;
}

/* name itself or a compiler-made piece of it: "name.<anything>" */
static int symbol_of(const char *symbol, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(symbol, name, n) && (!symbol[n] || symbol[n] == '.');
}

void placement_ran_files(const struct placement_log *l, struct strvec *files)
{
    for (size_t i = 0; l && i < l->n_keys; i++) {
        const struct placement_key *k = &l->keys[i];
        double s = 0;
        for (size_t w = 0; w < l->nw; w++)
            for (size_t r = 0; r < l->runs[w]; r++) s += k->samples[at(l, PLACEMENT_BASELINE, w, r)];
        if (s > 0 && !sv_contains(files, k->file)) sv_push(files, k->file);
    }
}

void placement_sampled_files(const struct placement_log *l, const char *name, struct strvec *files)
{
    if (!l) return;
    size_t first = files->n;
    double *sum = NULL;   /* [i - first]: samples of files->v[i] */
    for (size_t i = 0; i < l->n_keys; i++) {
        const struct placement_key *k = &l->keys[i];
        if (!symbol_of(k->symbol, name)) continue;
        double s = 0;
        for (size_t w = 0; w < l->nw; w++)
            for (size_t r = 0; r < l->runs[w]; r++) s += k->samples[at(l, PLACEMENT_BASELINE, w, r)];
        if (s <= 0) continue;
        size_t j = first;
        while (j < files->n && strcmp(files->v[j], k->file)) j++;
        if (j == files->n) {
            sv_push(files, k->file);
            sum = xrealloc(sum, (files->n - first) * sizeof *sum);
            sum[j - first] = 0;
        }
        sum[j - first] += s;
    }
    for (size_t i = first + 1; i < files->n; i++)   /* insertion sort: most samples first */
        for (size_t j = i; j > first && sum[j - first] > sum[j - 1 - first]; j--) {
            double t = sum[j - first];
            sum[j - first] = sum[j - 1 - first];
            sum[j - 1 - first] = t;
            char *p = files->v[j];
            files->v[j] = files->v[j - 1];
            files->v[j - 1] = p;
        }
    free(sum);
}
