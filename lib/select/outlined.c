/* outlined.c - see outlined.h. */
#include "select/outlined.h"
#include "select/attribution.h"

#include <stdlib.h>
#include <string.h>

void outlined_add(struct outlined_log *log, size_t w, size_t v, size_t r, const char *file, const char *symbol,
                  double samples)
{
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 64;
        log->v = xrealloc(log->v, log->cap * sizeof *log->v);
    }
    log->v[log->n++] = (struct outlined_entry){w, v, r, xstrdup(file), xstrdup(symbol), samples};
}

/* "file:symbol", the key a helper is known by. Caller frees. */
static char *key_of(const struct outlined_entry *e)
{
    return xasprintf("%s:%s", e->file, e->symbol);
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The keys of every helper a baseline run sampled, sorted for bsearch. */
static void baseline_keys(const struct outlined_log *log, struct strvec *out)
{
    for (size_t i = 0; i < log->n; i++)
        if (log->v[i].v == 0 && log->v[i].samples > 0) sv_pushf(out, "%s:%s", log->v[i].file, log->v[i].symbol);
    if (out->n) qsort(out->v, out->n, sizeof *out->v, compare_keys);
}

static int in_baseline(const struct strvec *keys, const struct outlined_entry *e)
{
    char *key = key_of(e);
    int found = keys->n && bsearch(&key, keys->v, keys->n, sizeof *keys->v, compare_keys) != NULL;
    free(key);
    return found;
}

static double baseline_mean(const double *samples, size_t w, size_t nv, size_t nf, size_t nr, size_t f)
{
    const double *s = samples + ((w * nv + 0) * nf + f) * nr;
    double sum = 0;
    for (size_t r = 0; r < nr; r++) sum += s[r];
    return nr ? sum / (double)nr : 0;
}

void outlined_apply(const struct outlined_log *log, const struct strvec *sources, size_t nw, size_t nv, size_t nf,
                    size_t nr, double *samples, double *moved, struct strvec *helpers)
{
    /* the baseline means first: adding moved time must not change the weights */
    double *weight = xcalloc(nw * nf + 1, sizeof *weight);
    for (size_t w = 0; w < nw; w++)
        for (size_t f = 0; f < nf; f++) weight[w * nf + f] = baseline_mean(samples, w, nv, nf, nr, f);
    struct strvec keys = STRVEC_INIT;
    baseline_keys(log, &keys);
    for (size_t i = 0; i < log->n; i++) {
        const struct outlined_entry *e = &log->v[i];
        if (e->v == 0 || e->w >= nw || e->v >= nv || e->r >= nr || in_baseline(&keys, e)) continue;
        double total = 0;
        for (size_t f = 0; f < nf; f++)
            if (attribution_file_among(sources[f].v, e->file)) total += weight[e->w * nf + f];
        if (total <= 0) continue;   /* no candidate of that file ran in the baseline */
        for (size_t f = 0; f < nf; f++) {
            if (!attribution_file_among(sources[f].v, e->file) || weight[e->w * nf + f] <= 0) continue;
            double share = e->samples * weight[e->w * nf + f] / total;
            samples[((e->w * nv + e->v) * nf + f) * nr + e->r] += share;
            if (moved) moved[f * nv + e->v] += share / (double)nr;
            if (helpers && !sv_contains(&helpers[f], e->symbol)) sv_push(&helpers[f], e->symbol);
        }
    }
    sv_free(&keys);
    free(weight);
}

void outlined_log_free(struct outlined_log *log)
{
    for (size_t i = 0; i < log->n; i++) {
        free(log->v[i].file);
        free(log->v[i].symbol);
    }
    free(log->v);
    memset(log, 0, sizeof *log);
}
