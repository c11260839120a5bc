/* libcalls.c - see libcalls.h. */
#include "select/libcalls.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void libcalls_dropped(const struct patch_function *fns, size_t nf, struct strvec *dropped, struct strvec *unknown)
{
    for (size_t f = 0; f < nf; f++) {
        const struct patch_function *fn = &fns[f];
        if (!fn->dropped_known) {
            if (fn->evidence && unknown) sv_push(unknown, fn->display_name ? fn->display_name : fn->name);
            continue;
        }
        for (size_t k = 0; k < fn->dropped_calls.n; k++)
            if (!sv_contains(&dropped[f], fn->dropped_calls.v[k])) sv_push(&dropped[f], fn->dropped_calls.v[k]);
    }
}

int libcalls_symbol_is(const char *sym, const char *callee)
{
    if (!strcmp(sym, callee)) return 1;
    size_t n = strlen(callee);
    if (strncmp(sym, "__", 2) || strncmp(sym + 2, callee, n) || sym[2 + n] != '_' || !sym[3 + n]) return 0;
    for (const char *c = sym + 3 + n; *c; c++)
        if (!isalnum((unsigned char)*c)) return 0;
    return 1;
}

void libcalls_log_profile(struct libcall_log *log, const struct profile *p, const struct strvec *dropped,
                          size_t nf, size_t w, size_t v, size_t r, int aa)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !e->symbol || e->samples <= 0) continue;
        const char *callee = NULL;
        for (size_t f = 0; f < nf && !callee; f++)
            for (size_t k = 0; k < dropped[f].n && !callee; k++)
                if (libcalls_symbol_is(e->symbol, dropped[f].v[k])) callee = dropped[f].v[k];
        if (!callee) continue;
        if (log->n == log->cap) {
            log->cap = log->cap ? 2 * log->cap : 32;
            log->v = xrealloc(log->v, log->cap * sizeof *log->v);
        }
        log->v[log->n++] = (struct libcall_entry){w, v, r, aa, xstrdup(callee), (double)e->samples};
    }
}

void libcalls_apply(const struct libcall_log *log, const struct strvec *dropped, const char *const *names,
                    size_t nw, size_t nv, size_t nf, size_t nr, double *samples, double *aa_samples,
                    double *credited, struct strvec *seen, struct strvec *shared_with)
{
    /* the weights first, from the baseline as measured: crediting must not
     * change them */
    double *weight = xcalloc(nw * nf + 1, sizeof *weight);
    for (size_t w = 0; w < nw; w++)
        for (size_t f = 0; f < nf; f++) {
            const double *s = samples + ((w * nv) * nf + f) * nr;
            for (size_t r = 0; r < nr; r++) weight[w * nf + f] += s[r];
        }
    for (size_t i = 0; i < log->n; i++) {
        const struct libcall_entry *e = &log->v[i];
        if (e->w >= nw || e->v >= nv || e->r >= nr || (e->aa && !aa_samples)) continue;
        double total = 0;
        size_t n_droppers = 0;
        for (size_t f = 0; f < nf; f++)
            if (sv_contains(&dropped[f], e->callee)) total += weight[e->w * nf + f], n_droppers++;
        for (size_t f = 0; f < nf; f++) {
            if (!sv_contains(&dropped[f], e->callee)) continue;
            double share = total > 0 ? e->samples * weight[e->w * nf + f] / total : e->samples / (double)n_droppers;
            if (e->aa) aa_samples[(e->w * nf + f) * nr + e->r] += share;
            else samples[((e->w * nv + e->v) * nf + f) * nr + e->r] += share;
            if (e->aa || e->v != 0) continue;
            if (credited) credited[f] += share / (double)nr;
            if (seen && share > 0 && !sv_contains(&seen[f], e->callee)) sv_push(&seen[f], e->callee);
            for (size_t g = 0; shared_with && g < nf; g++)
                if (g != f && sv_contains(&dropped[g], e->callee) && !sv_contains(&shared_with[f], names[g]))
                    sv_push(&shared_with[f], names[g]);
        }
    }
    free(weight);
}

void libcall_log_free(struct libcall_log *log)
{
    for (size_t i = 0; i < log->n; i++) free(log->v[i].callee);
    free(log->v);
    memset(log, 0, sizeof *log);
}
