/* inlinedkernels.c - see inlinedkernels.h. */
#include "select/inlinedkernels.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/util.h"


/* Line number `line` (1-based) of text: its start and length; 0 when none. */
static int nth_line(const char *text, int line, const char **start, size_t *len)
{
    const char *p = text;
    for (int i = 1; p && i < line; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return 0;
    *start = p;
    *len = strcspn(p, "\n");
    return 1;
}

/* How many lines the patch inserted above line `line` of orig in copy (it
 * inserts whole lines, never edits one): where that line's text is found
 * first at or below `line` in copy. 0 when it cannot be told. */
static int line_shift(const char *orig, const char *copy, int line)
{
    char *a = read_file(orig, NULL), *b = read_file(copy, NULL);
    const char *text, *at;
    size_t len, n;
    int shift = 0;
    if (a && b && line > 0 && nth_line(a, line, &text, &len))
        for (int k = line; nth_line(b, k, &at, &n); k++)
            if (n == len && !memcmp(at, text, len)) {
                shift = k - line;
                break;
            }
    free(a);
    free(b);
    return shift;
}

void inlined_kernels_init(struct inlined_kernels *k, const struct select_session *s,
                                 const struct attribution_function *fns)
{
    size_t nf = s->rep.n_functions;
    memset(k, 0, sizeof *k);
    k->nf = nf;
    k->fns = xcalloc(nf + 1, sizeof *k->fns);
    k->hosts = xcalloc(nf + 1, sizeof *k->hosts);
    k->host_names = xcalloc(nf + 1, sizeof *k->host_names);
    k->add = xcalloc(nf + 1, sizeof *k->add);
    k->unresolved = xcalloc(nf + 1, sizeof *k->unresolved);
    k->host = xcalloc(nf + 1, sizeof *k->host);
    k->base_unresolved = xcalloc(nf + 1, sizeof *k->base_unresolved);
    k->base_host = xcalloc(nf + 1, sizeof *k->base_host);
    k->base_credited = xcalloc(nf + 1, sizeof *k->base_credited);
    for (size_t f = 0; f < nf; f++) {
        k->fns[f] = (struct hostlines_function){.name = fns[f].name, .files = fns[f].files};
        if (!hostlines_hosts_of(s->candidates.functions[f].notes, &k->hosts[f], &k->host_names[f])) continue;
        k->fns[f].hosts = sv_argv(&k->hosts[f]);
        k->n++;
    }
    if (k->n) k->lines = hostlines_new();
    /* each kernel's definition extent, for the lines whose inline scope a
     * compiler dropped (hostlines.h) */
    sqlite3_stmt *q = NULL;
    if (k->n && sqlite3_prepare_v2(store_db(s->st), "SELECT MIN(line), MAX(end_line) FROM functions WHERE name = ?1 "
                                   "AND file = ?2 AND line > 0 AND end_line >= line", -1, &q, NULL) != SQLITE_OK)
        q = NULL;
    for (size_t f = 0; q && f < nf; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        if (!k->fns[f].hosts) continue;
        sqlite3_reset(q);
        sqlite3_bind_text(q, 1, pf->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(q, 2, pf->file, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 1) != SQLITE_NULL) {
            k->fns[f].file = pf->file;
            k->fns[f].line = sqlite3_column_int(q, 0);
            k->fns[f].end_line = sqlite3_column_int(q, 1);
        }
    }
    sqlite3_finalize(q);
    size_t nv = s->rep.n_variants;
    k->line_shift = xcalloc(nv * nf + 1, sizeof *k->line_shift);
    for (size_t v = 1; v < nv; v++)
        for (size_t f = 0; f < nf; f++) {
            const struct patch_function *pf = &s->candidates.functions[f];
            if (!k->fns[f].end_line || !s->sources || !s->sources[v]) continue;
            char *copy = path_join(s->sources[v], pf->rel);
            k->line_shift[v * nf + f] = line_shift(pf->file, copy, k->fns[f].line);
            free(copy);
        }
}

/* Credits the kernels of run p with their samples inside their hosts. */
void inlined_kernels_count(struct inlined_kernels *k, const struct profile *p, size_t v, int baseline,
                                  double *samples, double *name_samples, size_t stride, double scale)
{
    if (!k->n) return;
    /* the definitions' lines in this variant's (patched) source */
    struct hostlines_function *fns = xcalloc(k->nf + 1, sizeof *fns);
    for (size_t f = 0; f < k->nf; f++) {
        fns[f] = k->fns[f];
        fns[f].line += k->line_shift[v * k->nf + f];
        fns[f].end_line += fns[f].end_line ? k->line_shift[v * k->nf + f] : 0;
    }
    hostlines_count(k->lines, p, fns, k->nf, k->add, k->unresolved, k->host);
    free(fns);
    for (size_t f = 0; f < k->nf; f++) {
        if (!k->fns[f].hosts) continue;
        samples[f * stride] += (double)k->add[f];
        name_samples[f * stride] += (double)k->add[f];
        if (!baseline) continue;
        k->base_unresolved[f] += k->unresolved[f];
        k->base_host[f] += k->host[f];
        k->base_credited[f] += (double)k->add[f] * scale;
    }
}

/* After the runs: a kernel whose hosts' baseline samples could not be
 * resolved to inline frames is not judged (all its samples zeroed: too few
 * samples), and said; those credited are said once. */
void inlined_kernels_finish(struct inlined_kernels *k, struct select_session *s, double *samples,
                                   double *aa_samples)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    struct strbuf told = STRBUF_INIT;
    size_t n_told = 0;
    for (size_t f = 0; f < nf && k->n; f++) {
        if (!k->fns[f].hosts) continue;
        const char *hosts = k->host_names[f].v[0];
        /* a cold host's few samples decide nothing: judged (and found cold) */
        enum hostlines_verdict why =
            hostlines_verdict(k->base_unresolved[f], k->base_host[f], (long)(SELECT_MIN_SAMPLES * (nr ? nr : 1)));
        if (why != HOSTLINES_JUDGED) {
            for (size_t i = 0; i < nw * nv; i++) memset(&samples[(i * nf + f) * nr], 0, nr * sizeof *samples);
            for (size_t w = 0; w < nw; w++) memset(&aa_samples[(w * nf + f) * nr], 0, nr * sizeof *aa_samples);
            sv_pushf(&r->notes, "%s: not judged: the baseline inlined it into %s%s, and %ld of the %ld samples "
                                "taken there have no line information to tell its time from %s's (%s)",
                     r->functions[f].display_name, hosts, k->hosts[f].n > 1 ? " and others" : "",
                     k->base_unresolved[f], k->base_host[f], hosts,
                     why == HOSTLINES_NO_LINES ? "build with -g"
                                               : "addr2line placed their addresses on no line of the build's -g");
            continue;
        }
        if (k->base_credited[f] <= 0) continue;
        sb_addf(&told, "%s%s (%.0f samples per run, in %s)", n_told++ ? ", " : "", r->functions[f].display_name,
                k->base_credited[f] / (double)(nr ? nr : 1), hosts);
    }
    if (n_told)
        sv_pushf(&r->notes, "inlined into their hosts in the baseline, compared out of line in the variants: %s - "
                            "the hosts' samples whose inline frames (addr2line) hold the kernel counted as its own, in "
                            "every arm alike", sb_str(&told));
    sb_free(&told);
}

void inlined_kernels_free(struct inlined_kernels *k)
{
    hostlines_free(k->lines);
    for (size_t f = 0; f < k->nf; f++) {
        sv_free(&k->hosts[f]);
        sv_free(&k->host_names[f]);
    }
    free(k->hosts);
    free(k->host_names);
    free(k->fns);
    free(k->add);
    free(k->unresolved);
    free(k->host);
    free(k->base_unresolved);
    free(k->base_host);
    free(k->base_credited);
    free(k->line_shift);
}
