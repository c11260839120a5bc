/* profiling.c - the profiled runs of `fmvgen select` (session_phases.h):
 * every eligible-or-comparable variant runs every workload under perf,
 * interleaved (each round in a fresh seeded order, with the baseline once
 * more as the A/A arm), --runs times; the samples are folded onto
 * the candidates (attribution.h, by file where names are shared) and the
 * rule of decision.h decides. */
#include "select/session_phases.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "elf/symsource.h"
#include "measure/profile.h"
#include "select/attribution.h"
#include "select/cloneisa.h"
#include "select/hostlines.h"
#include "store/store.h"
#include "select/outlined.h"
#include "select/decision.h"
#include "util/shuffle.h"
#include "select/runcheck.h"

/* A variant is profiled when it built and its workloads ran (even if its
 * outputs differ: the report then says what FMA would have bought). */
static int profiled(const struct select_variant *v, size_t index)
{
    return v->built && (index == 0 || !v->failure || !strncmp(v->failure, "output", 6));
}

/* How each candidate is found in a profile (attribution.h): a name other
 * candidates share is counted by source file, unless even files cannot tell
 * them apart (same basename, or two external functions); a name of its own
 * by file only when the profile shows namesakes from other files. */
static void attribution_plan(const struct select_session *s, struct attribution_function *fns,
                             struct strvec *sources, enum attribution_need *need)
{
    const struct select_report *r = &s->rep;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        attribution_sources(pf->rel, pf->notes, &sources[f]);
        fns[f] = (struct attribution_function){pf->name, sv_argv(&sources[f]), pf->is_static};
    }
    for (size_t f = 0; f < r->n_functions; f++) {
        if (select_name_count(r, f) == 1) need[f] = ATTRIBUTION_BY_FILE_IF_NAMESAKES;
        else need[f] = attribution_files_clash(fns, r->n_functions, f) ? ATTRIBUTION_BY_NAME : ATTRIBUTION_BY_FILE;
    }
}

/* attribution_count, folding the copies of a function that several TUs
 * compile from one included source file, each under its own symbol when a
 * macro renames it (jpeg_fdct_islow, jpeg12_fdct_islow): all are its time. */
static void count_function(const struct profile *p, const struct attribution_origin *origins,
                           const struct attribution_function *fn, const struct patch_function *pf,
                           enum attribution_need need, struct attribution_count *out)
{
    if (!pf->symbols.n) {
        attribution_count(p, origins, fn, need, out);
        return;
    }
    memset(out, 0, sizeof *out);
    long best = -1;
    for (size_t i = 0; i < pf->symbols.n; i++) {
        struct attribution_function one = *fn;
        one.name = pf->symbols.v[i];
        struct attribution_count c;
        attribution_count(p, origins, &one, need, &c);
        out->samples += c.samples;
        out->name_samples += c.name_samples;
        out->undecided |= c.undecided;
        if (c.hottest && c.samples > best) best = c.samples, out->hottest = c.hottest;
    }
}

/* Per function and variant (decision.h's function_eligible): a variant's
 * own eligibility, and for an FMA variant whose only failure is a differing
 * output, its functions whose clones there hold no FMA instruction
 * (cloneisa.h) - provided an FMA-free variant is eligible, which shows that
 * wider vectors alone change no result here (no reassociation), so what
 * differs is FMA contraction in other functions. NULL when no variant is
 * such. Caller frees. */
static int *function_eligibility(struct select_session *s, const char *const *names)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants;
    int exact_eligible = 0, any = 0;
    for (size_t v = 1; v < nv; v++) exact_eligible |= s->sets[v - 1].exact && r->variants[v].eligible;
    int *out = xcalloc(nf * nv + 1, sizeof *out);
    for (size_t v = 0; v < nv; v++) {
        const struct select_variant *x = &r->variants[v];
        for (size_t f = 0; f < nf; f++) out[f * nv + v] = x->eligible;
        if (v == 0 || x->eligible || !x->fma || !exact_eligible || !x->built || !x->failure ||
            strncmp(x->failure, "output", 6) != 0)
            continue;
        struct clone_isa *isa = xcalloc(nf + 1, sizeof *isa);
        clone_isa_of_dir(s->builds[v].dir, names, nf, isa);
        for (size_t f = 0; f < nf; f++) {
            int fma_free = isa[f].found && !clone_isa_uses_fma(&isa[f]);
            out[f * nv + v] = fma_free;
            r->functions[f].fma_free_code |= fma_free;
            any |= fma_free;
        }
        free(isa);
    }
    if (!any) {
        free(out);
        return NULL;
    }
    return out;
}

/* The sampled local symbols of run p (workload w, variant v) that belong to
 * no candidate, into log (outlined.h). */
static void log_helpers(const struct profile *p, const struct attribution_origin *origins, const char *const *names,
                        size_t nf, size_t w, size_t v, size_t round, struct outlined_log *log)
{
    for (size_t i = 0; origins && i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !origins[i].known || !origins[i].local || !origins[i].file || !*origins[i].file) continue;
        char *base = attribution_base_name(e->symbol);
        int candidate = 0;
        for (size_t f = 0; f < nf && !candidate; f++) candidate = !strcmp(base, names[f]);
        if (!candidate) outlined_add(log, w, v, round, origins[i].file, base, (double)e->samples);
        free(base);
    }
}

/* Time the clones moved out of the candidates into helpers they no longer
 * inline is counted as the candidates' (outlined.h), and said. */
static void count_outlined(struct select_session *s, const struct outlined_log *log, const struct strvec *sources,
                           double *samples)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    double *moved = xcalloc(nf * nv + 1, sizeof *moved);
    struct strvec *helpers = xcalloc(nf + 1, sizeof *helpers);
    outlined_apply(log, sources, nw, nv, nf, nr, samples, moved, helpers);
    for (size_t f = 0; f < nf; f++) {
        if (!helpers[f].n) continue;
        struct strbuf names = STRBUF_INIT;
        for (size_t i = 0; i < helpers[f].n; i++) sb_addf(&names, "%s%s", i ? ", " : "", helpers[f].v[i]);
        double most = 0;
        for (size_t v = 1; v < nv; v++)
            if (moved[f * nv + v] > most) most = moved[f * nv + v];
        /* a few samples moved are counted all the same (report.json's
         * outlined_helpers), but not worth a line each (opus: 18 of them, most
         * with 0-6 samples per run) */
        if (most >= SELECT_MIN_SAMPLES)
            sv_pushf(&r->notes, "%s: with its clones, %s ran out of line (inlined into it in the baseline), %.0f "
                                "samples per run at most: counted as its time, since the clones moved that time, "
                                "they did not save it", r->functions[f].display_name, sb_str(&names), most);
        free(r->functions[f].outlined);
        r->functions[f].outlined = sb_detach(&names);
        sb_free(&names);
        sv_free(&helpers[f]);
    }
    free(helpers);
    free(moved);
}

/* Kernels the baseline inlined into their hosts (hostlines.h): each one's
 * hosts, and the tallies that tell whether its time could be told apart. */
struct inlined_kernels {
    struct hostlines *lines;
    struct hostlines_function *fns;     /* [f]; hosts NULL: not such a kernel */
    struct strvec *hosts;               /* [f] */
    long *add, *unresolved, *host;      /* [f]: one run's */
    long *base_unresolved, *base_host;  /* [f]: over the baseline's runs */
    double *base_credited;              /* [f]: over the baseline's runs */
    int *line_shift;                    /* [v * nf + f]: lines the patch inserted above f's
                                         * definition in variant v's source copy */
    size_t n, nf;                       /* n: how many have hosts */
};

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

static void inlined_kernels_init(struct inlined_kernels *k, const struct select_session *s,
                                 const struct attribution_function *fns)
{
    size_t nf = s->rep.n_functions;
    memset(k, 0, sizeof *k);
    k->nf = nf;
    k->fns = xcalloc(nf + 1, sizeof *k->fns);
    k->hosts = xcalloc(nf + 1, sizeof *k->hosts);
    k->add = xcalloc(nf + 1, sizeof *k->add);
    k->unresolved = xcalloc(nf + 1, sizeof *k->unresolved);
    k->host = xcalloc(nf + 1, sizeof *k->host);
    k->base_unresolved = xcalloc(nf + 1, sizeof *k->base_unresolved);
    k->base_host = xcalloc(nf + 1, sizeof *k->base_host);
    k->base_credited = xcalloc(nf + 1, sizeof *k->base_credited);
    for (size_t f = 0; f < nf; f++) {
        k->fns[f] = (struct hostlines_function){.name = fns[f].name, .files = fns[f].files};
        if (!hostlines_hosts_of(s->candidates.functions[f].notes, &k->hosts[f])) continue;
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
static void inlined_kernels_count(struct inlined_kernels *k, const struct profile *p, size_t v, int baseline,
                                  double *samples, double *name_samples, size_t stride)
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
        k->base_credited[f] += (double)k->add[f];
    }
}

/* After the runs: a kernel whose hosts' baseline samples could not be
 * resolved to inline frames is not judged (all its samples zeroed: too few
 * samples), and said; those credited are said once. */
static void inlined_kernels_finish(struct inlined_kernels *k, struct select_session *s, double *samples,
                                   double *aa_samples)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    struct strbuf told = STRBUF_INIT;
    size_t n_told = 0;
    for (size_t f = 0; f < nf && k->n; f++) {
        if (!k->fns[f].hosts) continue;
        const char *hosts = k->hosts[f].v[0];
        if (hostlines_unjudged(k->base_unresolved[f], k->base_host[f])) {
            for (size_t i = 0; i < nw * nv; i++) memset(&samples[(i * nf + f) * nr], 0, nr * sizeof *samples);
            for (size_t w = 0; w < nw; w++) memset(&aa_samples[(w * nf + f) * nr], 0, nr * sizeof *aa_samples);
            sv_pushf(&r->notes, "%s: not judged: the baseline inlined it into %s%s, and %ld of the %ld samples "
                                "taken there have no line information to tell its time from %s's (build with -g)",
                     r->functions[f].display_name, hosts, k->hosts[f].n > 1 ? " and others" : "",
                     k->base_unresolved[f], k->base_host[f], hosts);
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

static void inlined_kernels_free(struct inlined_kernels *k)
{
    hostlines_free(k->lines);
    for (size_t f = 0; f < k->nf; f++) sv_free(&k->hosts[f]);
    free(k->hosts);
    free(k->fns);
    free(k->add);
    free(k->unresolved);
    free(k->host);
    free(k->base_unresolved);
    free(k->base_host);
    free(k->base_credited);
    free(k->line_shift);
}

int session_profile_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    double *samples = xcalloc(nw * nv * nf * nr + 1, sizeof *samples);
    /* by name too: a shared name that one profile could not tell by file
     * is counted by name in every run, so its runs stay comparable */
    double *name_samples = xcalloc(nw * nv * nf * nr + 1, sizeof *name_samples);
    struct attribution_function *fns = xcalloc(nf + 1, sizeof *fns);
    struct strvec *sources = xcalloc(nf + 1, sizeof *sources);
    enum attribution_need *need = xcalloc(nf + 1, sizeof *need);
    int *undecided = xcalloc(nf + 1, sizeof *undecided);
    struct elf_symsource_cache *symbols = elf_symsource_cache_new();
    struct outlined_log helpers_log = {0};
    attribution_plan(s, fns, sources, need);
    struct inlined_kernels kernels;
    inlined_kernels_init(&kernels, s, fns);
    double *totals = xcalloc(nw * nv * nr + 1, sizeof *totals);
    int *eligible = xcalloc(nv, sizeof *eligible);
    const char **names = xcalloc(nf + 1, sizeof *names);
    for (size_t f = 0; f < nf; f++) names[f] = r->functions[f].name;
    for (size_t v = 0; v < nv; v++) eligible[v] = r->variants[v].eligible;
    /* + the A/A arm (decision.h): the baseline again, in its own place of
     * each round's random order (util/shuffle.h) */
    size_t n_arms = nv + 1, *order = xcalloc(n_arms, sizeof *order);
    double *aa_samples = xcalloc(nw * nf * nr + 1, sizeof *aa_samples);
    double *aa_name_samples = xcalloc(nw * nf * nr + 1, sizeof *aa_name_samples);
    double *aa_totals = xcalloc(nw * nr + 1, sizeof *aa_totals);
    struct select_runcheck *check = select_runcheck_new(s);
    int rc = 0;
    for (size_t round = 0; round < nr && rc == 0; round++) {
        session_step(round + 1, nr, "profiled runs, interleaved in a random order");
        shuffle_round_order(r->seed, round, n_arms, order);
        for (size_t k = 0; k < n_arms && rc == 0; k++) {
            int aa = order[k] == nv;
            size_t v = aa ? 0 : order[k];
            if (!profiled(&r->variants[v], v)) continue;
            for (size_t w = 0; w < nw && rc == 0; w++) {
                if (session_interrupted()) {
                    rc = -1;
                    break;
                }
                struct profile p;
                if (select_runcheck_profile(check, s, v, w, round, &p) != 0) {   /* runcheck.h: proven */
                    rc = -1;
                    break;
                }
                r->n_profiled_runs++;
                *(aa ? &aa_totals[w * nr + round] : &totals[(w * nv + v) * nr + round]) = (double)p.total_samples;
                struct attribution_origin *origins = attribution_locate(&p, symbols);
                if (!aa) log_helpers(&p, origins, names, nf, w, v, round, &helpers_log);
                for (size_t f = 0; f < nf; f++) {
                    struct attribution_count c;
                    count_function(&p, origins, &fns[f], &s->candidates.functions[f], need[f], &c);
                    size_t at = aa ? (w * nf + f) * nr + round : ((w * nv + v) * nf + f) * nr + round;
                    (aa ? aa_samples : samples)[at] = (double)c.samples;
                    (aa ? aa_name_samples : name_samples)[at] = (double)c.name_samples;
                    undecided[f] |= c.undecided;
                    if (!aa && c.hottest && !r->functions[f].ran[v]) r->functions[f].ran[v] = xstrdup(c.hottest);
                }
                if (aa)
                    inlined_kernels_count(&kernels, &p, 0, 0, &aa_samples[w * nf * nr + round],
                                          &aa_name_samples[w * nf * nr + round], nr);
                else
                    inlined_kernels_count(&kernels, &p, v, v == 0, &samples[(w * nv + v) * nf * nr + round],
                                          &name_samples[(w * nv + v) * nf * nr + round], nr);
                free(origins);
                profile_free(&p);
            }
        }
    }
    free(order);
    for (size_t f = 0; f < nf; f++) {
        if (need[f] != ATTRIBUTION_BY_FILE) continue;
        r->functions[f].by_file = !undecided[f];
        for (size_t i = 0; undecided[f] && i < nw * nv; i++)
            memcpy(&samples[(i * nf + f) * nr], &name_samples[(i * nf + f) * nr], nr * sizeof *samples);
        for (size_t w = 0; undecided[f] && w < nw; w++)
            memcpy(&aa_samples[(w * nf + f) * nr], &aa_name_samples[(w * nf + f) * nr], nr * sizeof *samples);
    }
    if (rc == 0) inlined_kernels_finish(&kernels, s, samples, aa_samples);
    if (rc == 0) rc = select_runcheck_finish(check, s);
    select_runcheck_free(check);
    int *function_eligible = NULL;
    double *code_bytes = NULL;
    if (rc == 0) {
        count_outlined(s, &helpers_log, sources, samples);
        function_eligible = function_eligibility(s, names);
        code_bytes = session_code_bytes(s);
        struct decision_input in = {
            .n_functions = nf, .n_workloads = nw, .n_variants = nv, .n_runs = nr,
            .functions = names, .samples = samples, .totals = totals, .variant_eligible = eligible,
            .function_eligible = function_eligible,
            .min_share = s->o->min_share, .min_samples = SELECT_MIN_SAMPLES,
            .aa_samples = aa_samples, .aa_totals = aa_totals, .code_bytes = code_bytes,
        };
        decide(&in, &r->decision);
        /* what each function's chosen clones saved, per workload: for
         * telling a fixed-time workload once the end-to-end times are in */
        s->saved = xcalloc(nw * nf + 1, sizeof *s->saved);
        for (size_t w = 0; w < nw; w++)
            for (size_t f = 0; f < nf; f++)
                if (r->decision.functions[f].chosen >= 1)
                    s->saved[w * nf + f] = decision_saved_share(&in, w, f, (size_t)r->decision.functions[f].chosen);
    }
    free(function_eligible);
    free(code_bytes);
    free(aa_samples);
    free(aa_name_samples);
    free(aa_totals);
    free(samples);
    free(name_samples);
    free(fns);
    for (size_t f = 0; f < nf; f++) sv_free(&sources[f]);
    free(sources);
    free(need);
    free(undecided);
    elf_symsource_cache_free(symbols);
    outlined_log_free(&helpers_log);
    inlined_kernels_free(&kernels);
    free(totals);
    free(eligible);
    free(names);
    return rc;
}

/* Functions selected as a group of small gains (decision.h) are said, with
 * the group's own interval: none of them would be selected alone. */
void session_note_small_gains(struct select_session *s)
{
    struct select_report *r = &s->rep;
    const struct decision_group *g = &r->decision.group;
    size_t n = 0;
    for (size_t f = 0; f < r->n_functions && f < r->decision.n_functions; f++)
        n += r->functions[f].in_patch && r->decision.functions[f].reason == DECISION_SELECTED_TOGETHER;
    if (g->chosen < 1 || !n) return;
    const struct stats_interval *iv = &g->by_variant_chosen;
    sv_pushf(&r->notes, "%zu function%s selected together as small gains with %s: none is significantly faster "
                        "alone, but the %zu functions without a verdict (%.1f%% of a workload) are %.2fx [%.2f, %.2f] "
                        "faster together", n, n == 1 ? "" : "s", r->variants[g->chosen].name,
             g->n_pool, g->share * 100, iv->speedup, iv->speedup_lo, iv->speedup_hi);
}

/* Too few samples, or wide intervals, are said, not hidden. */
void session_note_fma_free(struct select_session *s)
{
    struct select_report *r = &s->rep;
    struct strbuf names = STRBUF_INIT;
    size_t n = 0, set = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (!fn->in_patch || fn->set < 1 || (size_t)fn->set >= r->n_variants || r->variants[fn->set].eligible) continue;
        free(fn->note);
        fn->note = xasprintf("selected with %s, whose outputs differ: its clones there hold no FMA instruction "
                             "(inspect), so they compute what the baseline computes",
                             r->variants[fn->set].name);
        sb_addf(&names, "%s%s", n ? ", " : "", fn->display_name);
        set = (size_t)fn->set;
        n++;
    }
    if (n)
        sv_pushf(&r->notes, "%s got %s clones although that variant's outputs differ from the baseline's: %s no FMA "
                            "instruction (inspect), so %s what the baseline computes; the differences come from "
                            "other functions' FMA, which stay held back", sb_str(&names), r->variants[set].name,
                 n == 1 ? "its clones hold" : "their clones hold", n == 1 ? "it computes" : "they compute");
    sb_free(&names);
}

void session_note_noise(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t few = 0;
    for (size_t f = 0; f < r->decision.n_functions; f++)
        if (r->decision.functions[f].reason == DECISION_FEW_SAMPLES) few++;
    if (few)
        sv_pushf(&r->notes, "%zu function%s had too few samples for a verdict: raise --runs (now %d) or make the "
                            "workload longer", few, few == 1 ? "" : "s", s->o->runs);
    if (s->o->runs < 3)
        sv_pushf(&r->notes, "only %d runs per variant: intervals are wide; --runs 5 or more is advised", s->o->runs);
}
