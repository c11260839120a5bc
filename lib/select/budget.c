/* budget.c - see budget.h. */
#include "select/budget.h"
#include "select/budget_sets.h"
#include "select/trimcopies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpuidcode.h"
#include "select/decision.h"
#include "select/decision_confirm.h"
#include "select/result.h"
#include "util/util.h"

/* The growth of the selection less dropped: the kept functions' bytes and
 * every fixed part some kept function needs. skip: one more function
 * counted as dropped (-1: none). */
static double predicted(const struct budget_parts *p, const int *dropped, long skip)
{
    double sum = 0;
    for (size_t f = 0; f < p->n; f++)
        if (p->selected[f] && !dropped[f] && (long)f != skip && p->bytes[f] > 0) sum += p->bytes[f];
    for (size_t k = 0; k < p->n_fixed; k++) {
        int needed = 0;
        for (size_t f = 0; f < p->n && !needed; f++)
            needed = p->selected[f] && !dropped[f] && (long)f != skip && p->needs[f * p->n_fixed + k];
        if (needed && p->fixed[k] > 0) sum += p->fixed[k];
    }
    return sum;
}

/* What dropping f alone would save: its bytes and the fixed parts only it
 * needs. */
static double marginal(const struct budget_parts *p, const int *dropped, size_t f)
{
    return predicted(p, dropped, -1) - predicted(p, dropped, (long)f);
}

/* a's gain per byte is below b's (ties: the bigger goes first) */
static int worse(double gain_a, double bytes_a, double gain_b, double bytes_b)
{
    double ra = gain_a / bytes_a, rb = gain_b / bytes_b;
    if (ra != rb) return ra < rb;
    return bytes_a > bytes_b;
}

/* The greedy fit: drop the least gain per byte until within the limit,
 * never dropping keep (-1: none) or a function pin marks (NULL: none), then
 * take back what fits again. Returns the number dropped. */
static size_t fit_greedy(const struct budget_parts *p, double limit, long keep, const unsigned char *pin, int *dropped)
{
    size_t n = p->n;
    for (size_t f = 0; f < n; f++) dropped[f] = 0;
    double now = predicted(p, dropped, -1);
    size_t n_dropped = 0;
    while (limit >= 0 && now > limit) {
        long pick = -1;
        double pick_bytes = 0;
        for (size_t f = 0; f < n; f++) {
            if (!p->selected[f] || dropped[f] || !(p->bytes[f] > 0) || (long)f == keep || (pin && pin[f])) continue;
            double m = marginal(p, dropped, f);
            if (pick < 0 || worse(p->gain[f], m, p->gain[pick], pick_bytes)) pick = (long)f, pick_bytes = m;
        }
        if (pick < 0) break;   /* only unknown sizes left: nothing more to drop */
        dropped[pick] = 1;
        n_dropped++;
        now = predicted(p, dropped, -1);
    }
    /* take back what fits again, best gain per byte first (a big function
     * dropped early can leave room for a small one dropped before it) */
    for (int again = 1; again && n_dropped;) {
        again = 0;
        long pick = -1;
        double pick_bytes = 0;
        for (size_t f = 0; f < n; f++) {
            if (!dropped[f] || !(p->gain[f] > 0)) continue;
            dropped[f] = 0;
            double with = predicted(p, dropped, -1), m = with - predicted(p, dropped, (long)f);
            dropped[f] = 1;
            if (with <= limit && (pick < 0 || worse(p->gain[pick], pick_bytes, p->gain[f], m)))
                pick = (long)f, pick_bytes = m;
        }
        if (pick >= 0) {
            dropped[pick] = 0;
            n_dropped--;
            again = 1;
        }
    }
    return n_dropped;
}

/* The gain of what is kept. */
static double kept_gain(const struct budget_parts *p, const int *dropped)
{
    double g = 0;
    for (size_t f = 0; f < p->n; f++)
        if (p->selected[f] && !dropped[f]) g += p->gain[f];
    return g;
}

/* The greedy fit, then each dropped function tried kept, the rest fitted
 * around it: the fit keeping the most gain wins (per byte, a big function
 * with the largest gain can lose to many small ones that together gain
 * less). pin as in fit_greedy. */
static size_t fit_most_gain(const struct budget_parts *p, double limit, const unsigned char *pin, int *dropped)
{
    size_t n = p->n;
    size_t n_dropped = fit_greedy(p, limit, -1, pin, dropped);
    if (n_dropped && limit >= 0) {
        int *alt = xcalloc(n + 1, sizeof *alt), *was = xcalloc(n + 1, sizeof *was);
        memcpy(was, dropped, n * sizeof *was);
        double best = kept_gain(p, dropped);
        for (size_t f = 0; f < n; f++) {
            if (!was[f] || !(p->gain[f] > 0)) continue;
            size_t k = fit_greedy(p, limit, (long)f, pin, alt);
            if (predicted(p, alt, -1) > limit || !(kept_gain(p, alt) > best)) continue;
            best = kept_gain(p, alt);
            memcpy(dropped, alt, n * sizeof *dropped);
            n_dropped = k;
        }
        free(alt);
        free(was);
    }
    return n_dropped;
}

void budget_best_per_workload(const struct budget_parts *p, long *best)
{
    for (size_t w = 0; w < p->n_workloads; w++) {
        best[w] = -1;
        for (size_t f = 0; f < p->n; f++) {
            if (!p->selected[f]) continue;
            double s = p->saved[f * p->n_workloads + w];
            if (!(s >= BUDGET_BEST_MIN_SAVED)) continue;
            double b = best[w] >= 0 ? p->saved[(size_t)best[w] * p->n_workloads + w] : 0;
            if (best[w] < 0 || s > b || (s == b && p->bytes[f] < p->bytes[best[w]])) best[w] = (long)f;
        }
    }
}

/* The workloads whose best function (best[w]) is kept. */
static size_t workloads_served(const struct budget_parts *p, const long *best, const int *dropped)
{
    size_t k = 0;
    for (size_t w = 0; w < p->n_workloads; w++) k += best[w] >= 0 && !dropped[best[w]];
    return k;
}

/* f's gain at the low end of its interval (gain_low), else its estimate. */
static double low_gain(const struct budget_parts *p, size_t f)
{
    return p->gain_low ? p->gain_low[f] : p->gain[f];
}

/* The workloads' best functions alone (a: p with only them selected): the
 * greedy fit by gain per byte; then each dropped one tried kept, the others
 * fitted around it, and that fit wins when it keeps more workloads' best
 * functions, or as many and more gain even at the low ends of the intervals
 * of the functions it keeps instead (what it gives up counted at its
 * estimate): a workload's best function is not traded for noise. */
static void fit_best(const struct budget_parts *a, double limit, const long *best, int *dropped)
{
    size_t n = a->n;
    fit_greedy(a, limit, -1, NULL, dropped);
    if (limit < 0) return;
    int *alt = xcalloc(n + 1, sizeof *alt), *was = xcalloc(n + 1, sizeof *was);
    memcpy(was, dropped, n * sizeof *was);
    for (size_t f = 0; f < n; f++) {
        if (!a->selected[f] || !was[f] || !(a->gain[f] > 0) || !dropped[f]) continue;
        fit_greedy(a, limit, (long)f, NULL, alt);
        if (predicted(a, alt, -1) > limit) continue;
        size_t now = workloads_served(a, best, dropped), then = workloads_served(a, best, alt);
        double won = 0, lost = 0;
        for (size_t g = 0; g < n; g++) {
            if (!a->selected[g]) continue;
            if (dropped[g] && !alt[g]) won += low_gain(a, g);
            if (!dropped[g] && alt[g]) lost += a->gain[g];
        }
        if (then > now || (then == now && won > lost)) memcpy(dropped, alt, n * sizeof *dropped);
    }
    free(alt);
    free(was);
}

size_t budget_fit_parts(const struct budget_parts *p, double limit, int *dropped, double *before, double *after)
{
    size_t n = p->n;
    for (size_t f = 0; f < n; f++) dropped[f] = 0;
    if (before) *before = predicted(p, dropped, -1);
    size_t n_dropped;
    if (!p->saved || !p->n_workloads) {
        n_dropped = fit_most_gain(p, limit, NULL, dropped);
    } else {
        /* each workload's best function first, fitted alone; then the rest
         * fitted around the kept ones (pinned), by the most gain */
        long *best = xcalloc(p->n_workloads, sizeof *best);
        budget_best_per_workload(p, best);
        int *is_best = xcalloc(n + 1, sizeof *is_best), *rest = xcalloc(n + 1, sizeof *rest);
        int *first = xcalloc(n + 1, sizeof *first);
        unsigned char *pin = xcalloc(n + 1, 1);
        for (size_t w = 0; w < p->n_workloads; w++)
            if (best[w] >= 0) is_best[best[w]] = 1;
        struct budget_parts a = *p;
        a.selected = is_best;
        fit_best(&a, limit, best, first);
        for (size_t f = 0; f < n; f++) {
            pin[f] = (unsigned char)(is_best[f] && !first[f]);
            rest[f] = p->selected[f] && !(is_best[f] && first[f]);
        }
        struct budget_parts b = *p;
        b.selected = rest;
        fit_most_gain(&b, limit, pin, dropped);
        n_dropped = 0;
        for (size_t f = 0; f < n; f++) {
            if (is_best[f] && first[f]) dropped[f] = 1;
            if (!p->selected[f]) dropped[f] = 0;
            n_dropped += (size_t)dropped[f];
        }
        free(best);
        free(is_best);
        free(rest);
        free(first);
        free(pin);
    }
    if (after) *after = predicted(p, dropped, -1);
    return n_dropped;
}

size_t budget_fit(size_t n, const int *selected, const double *bytes, const double *gain, double overhead,
                  double limit, int *dropped, double *before, double *after)
{
    unsigned char *needs = xcalloc(n + 1, 1);
    for (size_t f = 0; f < n; f++) needs[f] = 1;
    double fixed = overhead > 0 ? overhead : 0;
    struct budget_parts p = {n, selected, bytes, gain, 1, &fixed, needs, 0, NULL, NULL};
    size_t k = budget_fit_parts(&p, limit, dropped, before, after);
    free(needs);
    return k;
}

/* The fixed part of set v's growth: its all-candidates build's growth beyond
 * the bytes its clones add; 0 when unknown. */
static double fixed_part(const struct select_report *r, size_t v)
{
    if (!r->variants[v].code.measured) return 0;
    double clones = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        int64_t b = select_bytes_added(r, f, v);
        if (b > 0) clones += (double)b;
    }
    double rest = (double)select_code_growth(r, &r->variants[v].code) - clones;
    return rest > 0 ? rest : 0;
}

/* The key of a fixed part: the file's path (its runtime CPU detection), or
 * path TAB unit (that object file's own fmvgen code: an older fmvgen's
 * fmvgen_cpu_levels, the padding before a run of its copies that ends
 * .text), or path TAB ELF_CPUID_LINKED_UNIT (the linked file's one
 * fmvgen_cpu_levels). Caller frees. */
static char *part_key(const struct select_clone_file *c)
{
    return c->unit ? xasprintf("%s\t%s", c->path, c->unit) : xstrdup(c->path);
}

/* The fixed parts of the selection (selected[f]: f in it, with its
 * decision's set): one per linked file holding a selected function's
 * clones reached through a compiler-made resolver (key: the file's path;
 * bytes: its runtime CPU detection and the padding before its runs of
 * added code, the largest over the sets), one per linked file whose
 * fmvgen_cpu_levels a selected function's resolver calls (key: path TAB
 * ELF_CPUID_LINKED_UNIT), one per object file holding cpuid copies (key:
 * path TAB unit; bytes: an older fmvgen's fmvgen_cpu_levels of its own, the
 * padding before a run of them that ends .text; mostly 0 now), or one per
 * set where some file could not tell
 * ("\001" and the set's name: its all-candidates residue). Fills keys and
 * *fixed; returns needs[f * keys->n + k] (caller frees). */
static unsigned char *fixed_parts(const struct select_report *r, size_t n, const int *selected, struct strvec *keys,
                                  double **fixed)
{
    const struct decision *d = &r->decision;
    unsigned char *needs = NULL;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) needs = xcalloc(n * keys->n + 1, 1);
        for (size_t f = 0; f < n; f++) {
            if (!selected[f]) continue;
            size_t v = (size_t)d->functions[f].chosen;
            const struct select_clone_files *cf = r->functions[f].clone_files ? &r->functions[f].clone_files[v] : NULL;
            int known = cf && cf->n;
            for (size_t i = 0; known && i < cf->n; i++) known = cf->files[i].cpu_detect >= 0;
            for (size_t i = 0; i < (known ? cf->n : 1); i++) {
                char *key = known ? part_key(&cf->files[i]) : xasprintf("\001%s", r->variants[v].name);
                double part = known ? (double)(cf->files[i].cpu_detect + (int64_t)cf->files[i].run_padding)
                                    : fixed_part(r, v);
                size_t k = 0;
                while (k < keys->n && strcmp(keys->v[k], key)) k++;
                if (pass) {
                    needs[f * keys->n + k] = 1;
                } else {
                    if (k == keys->n) {
                        sv_push(keys, key);
                        *fixed = xrealloc(*fixed, keys->n * sizeof **fixed);
                        (*fixed)[k] = 0;
                    }
                    if (part > (*fixed)[k]) (*fixed)[k] = part;
                }
                free(key);
            }
        }
    }
    return needs;
}

/* What the fixed part is, in words. Caller frees. */
static char *budget_fixed_what(const struct select_budget *b)
{
    struct strbuf sb = STRBUF_INIT;
    if (b->n_fixed_levels)
        sb_addf(&sb, "fmvgen's CPU check (fmvgen_cpu_levels) once in each of %zu linked file%s with "
                     "cpuid-dispatched copies",
                b->n_fixed_levels, b->n_fixed_levels == 1 ? "" : "s");
    if (b->n_fixed_units)
        sb_addf(&sb, "%sfmvgen's code of %zu object file%s with cpuid-dispatched copies (an older fmvgen's "
                     "fmvgen_cpu_levels in each, or the padding before their run at the end of .text)",
                sb.len ? "; " : "", b->n_fixed_units, b->n_fixed_units == 1 ? "" : "s");
    if (b->n_fixed_files)
        sb_addf(&sb, "%sthe compiler runtime's CPU detection linked into %zu file%s with a resolver",
                sb.len ? "; " : "", b->n_fixed_files, b->n_fixed_files == 1 ? "" : "s");
    if (b->fixed_residue)
        sb_addf(&sb, "%sthe all-candidates build's growth beyond its clones, where the CPU-detection code could not "
                     "be told (an overestimate)", sb.len ? "; " : "");
    if (!sb.len) sb_adds(&sb, "none");
    return sb_detach(&sb);
}

/* The interval a function's verdict on set v rests on: the fresh runs' when
 * the confirmation selected it, else the profiled runs'. */
static const struct stats_interval *set_interval(const struct decision_function *df, size_t v)
{
    return df->reason == DECISION_CONFIRMED && df->confirm ? &df->confirm[v] : &df->by_variant[v];
}

/* A gain at the low end of interval iv: the share saved scales with
 * 1 - 1/speedup (the function's own time cut), so gain times (1 - 1/lo) /
 * (1 - 1/speedup); 0 when the low end is no gain. */
static double low_gain_of(double gain, const struct stats_interval *iv)
{
    if (!iv || !iv->valid || !(gain > 0) || !(iv->speedup > 1)) return 0;
    if (!(iv->speedup_lo > 1)) return 0;
    double lo = iv->speedup_lo < iv->speedup ? iv->speedup_lo : iv->speedup;
    return gain * (1 - 1 / lo) / (1 - 1 / iv->speedup);
}

/* One fit of the selection as it stands, each function with its decision's
 * set: fills selected, bytes, gain and dropped, and b's fixed parts and
 * predictions; returns the number dropped. */
static size_t fit_selection(struct select_report *r, const struct decision_input *in, size_t n, int *selected,
                            double *bytes, double *gain, int *dropped, double *saved, long *best, const int *trim)
{
    size_t nw = in->n_workloads;
    double *low = xcalloc(n + 1, sizeof *low);
    struct select_budget *b = &r->budget;
    struct decision *d = &r->decision;
    b->n_unknown = b->n_fixed_units = b->n_fixed_levels = b->n_fixed_files = 0;
    b->overhead = 0;
    b->fixed_residue = 0;
    for (size_t f = 0; f < n; f++) {
        int v = d->functions[f].chosen;
        selected[f] = dropped[f] = 0;
        bytes[f] = gain[f] = 0;
        if (v < 1 || (size_t)v >= r->n_variants) continue;
        selected[f] = 1;
        bytes[f] = (double)select_bytes_added(r, f, (size_t)v);
        if (bytes[f] < 0) b->n_unknown++;
        else if (trim && trim[f]) {   /* the copy that ran alone */
            char *t;
            const char *sym;
            bytes[f] -= (double)trim_unran_bytes(r, f, (size_t)v, &t, &sym);
            free(t);
        }
        gain[f] = budget_set_gain(r, in, f, (size_t)v);
        for (size_t w = 0; w < nw; w++) saved[f * nw + w] = decision_estimate_saved(d, in, w, f, (size_t)v);
        low[f] = low_gain_of(gain[f], set_interval(&d->functions[f], (size_t)v));
    }
    struct strvec keys = STRVEC_INIT;
    double *fixed = NULL;
    unsigned char *needs = fixed_parts(r, n, selected, &keys, &fixed);
    for (size_t k = 0; k < keys.n; k++) {
        b->overhead += fixed[k];
        const char *unit = strchr(keys.v[k], '\t');
        if (keys.v[k][0] == '\001') b->fixed_residue = 1;
        else if (unit && !strcmp(unit + 1, ELF_CPUID_LINKED_UNIT)) b->n_fixed_levels++;
        else if (unit) b->n_fixed_units += fixed[k] > 0;   /* a unit with nothing of its own is no part */
        else b->n_fixed_files++;
    }
    struct budget_parts parts = {n, selected, bytes, gain, keys.n, fixed, needs, nw, saved, low};
    size_t n_dropped = budget_fit_parts(&parts, b->fit_limit, dropped, &b->before, &b->after);
    budget_best_per_workload(&parts, best);
    b->n_served = b->n_to_serve = b->n_best_dropped = 0;
    for (size_t w = 0; w < nw; w++) {
        b->n_to_serve += best[w] >= 0;
        b->n_served += best[w] >= 0 && !dropped[best[w]];
    }
    for (size_t f = 0; f < n; f++) {
        int is_best = 0;
        for (size_t w = 0; w < nw; w++) is_best |= best[w] == (long)f;
        b->n_best_dropped += is_best && dropped[f];
    }
    free(low);
    sv_free(&keys);
    free(fixed);
    free(needs);
    return n_dropped;
}

/* What the fits of one selection work on (fit_selection's arrays), for
 * the search over the sets the functions qualified for. */
struct fit_state {
    struct select_report *r;
    const struct decision_input *in;
    size_t n;
    int *selected, *dropped;
    double *bytes, *gain, *saved;
    long *best;
    const int *trim;
    const int *timed;   /* [f]: its timings' set */
    long *best0;        /* [w]: the best function in the fit of the timings' sets */
    double within;      /* the prediction an assignment must keep within */
};

/* The fit the arrays hold, as the search compares fits (budget_sets.h). */
static void outcome_of(const struct fit_state *s, struct budget_outcome *o)
{
    memset(o, 0, sizeof *o);
    for (size_t w = 0; w < s->in->n_workloads; w++) {
        long f = s->best0[w];
        o->served += f >= 0 && s->selected[f] && !s->dropped[f];
    }
    for (size_t f = 0; f < s->n; f++) {
        if (s->selected[f] && !s->dropped[f]) o->gain += s->gain[f];
        o->moved += s->timed[f] >= 1 && s->r->decision.functions[f].chosen != s->timed[f];
    }
    o->bytes = s->r->budget.after;
    o->within = !(s->r->budget.after > s->within);
}

/* Fits the selection with each function's set from sets. */
static void eval_sets(void *ctx, const int *sets, struct budget_outcome *o)
{
    struct fit_state *s = ctx;
    for (size_t f = 0; f < s->n; f++) s->r->decision.functions[f].chosen = sets[f];
    s->r->budget.n_dropped = fit_selection(s->r, s->in, s->n, s->selected, s->bytes, s->gain, s->dropped, s->saved,
                                           s->best, s->trim);
    outcome_of(s, o);
}

/* Fits the selection (fit_selection), a function the fit drops tried
 * again with a cheaper set that also made it significantly faster, until
 * no dropped one has such a set; then, when the fit still drops one, the
 * search over the sets every function qualified for (budget_sets.h).
 * timed[f]: f's timings' set (its decision's chosen on entry); fills
 * timed_dropped with the fit of the timings' sets. Returns that fit's
 * prediction. */
static double fit_rounds(struct select_report *r, const struct decision_input *in, size_t n, int *selected,
                         double *bytes, double *gain, int *dropped, double *saved, long *best, const int *trim,
                         const int *timed, int *timed_dropped)
{
    struct select_budget *b = &r->budget;
    double before = -1;
    struct fit_state s = {r, in, n, selected, dropped, bytes, gain, saved, best, trim, timed, NULL, 0};
    s.best0 = xcalloc(in->n_workloads + 1, sizeof *s.best0);
    for (size_t round = 0;; round++) {
        b->n_dropped = fit_selection(r, in, n, selected, bytes, gain, dropped, saved, best, trim);
        if (before < 0) {
            before = b->before;
            memcpy(timed_dropped, dropped, n * sizeof *dropped);
            memcpy(s.best0, best, in->n_workloads * sizeof *best);
        }
        if (!b->n_dropped || round + 1 >= r->n_variants) break;
        int moved = 0;
        for (size_t f = 0; f < n; f++) {
            int v = dropped[f] ? budget_cheaper_set(r, in, f) : -1;
            if (v >= 1) r->decision.functions[f].chosen = v, moved = 1;
        }
        if (!moved) break;
    }
    if (b->n_dropped) {
        /* the search, from the fit the arrays hold; then the fit it keeps */
        struct budget_outcome o;
        int *sets = xcalloc(n + 1, sizeof *sets);
        s.within = b->after > b->fit_limit ? b->after : b->fit_limit;
        outcome_of(&s, &o);
        if (budget_sets_search(r, in, n, timed, &o, eval_sets, &s, sets)) eval_sets(&s, sets, &o);
        free(sets);
    }
    free(s.best0);
    return before;
}

/* After the fit without them: each kept function's copies that never ran
 * are given back, the most gain first, while the fit then drops nothing
 * more and stays within the limit. trim[f]: 1 left out, 0 given back, -1
 * left out for good (they did not fit). */
static void trim_give_back(struct select_report *r, const struct decision_input *in, size_t n, int *selected,
                           double *bytes, double *gain, int *dropped, double *saved, long *best, int *trim)
{
    struct select_budget *b = &r->budget;
    for (;;) {
        long pick = -1;
        for (size_t f = 0; f < n; f++) {
            if (trim[f] != 1 || dropped[f] || !selected[f]) continue;
            if (pick < 0 || gain[f] > gain[pick]) pick = (long)f;
        }
        if (pick < 0) return;
        size_t was = b->n_dropped;
        trim[pick] = 0;
        b->n_dropped = fit_selection(r, in, n, selected, bytes, gain, dropped, saved, best, trim);
        if (b->n_dropped > was || b->after > b->fit_limit) {
            trim[pick] = -1;   /* no room: left out after all */
            b->n_dropped = fit_selection(r, in, n, selected, bytes, gain, dropped, saved, best, trim);
        }
    }
}

int budget_growth_for(const struct select_budget *b, double bytes)
{
    if (b->whole_bytes <= 0 || bytes <= 0) return 0;
    int p = (int)ceil(bytes * 100 / (b->whole_bytes * (1 - BUDGET_UNPREDICTED_SHARE)) - 1e-9);
    return p < 1 ? 1 : p;
}

/* What a dropped function f (its chosen set, bytes its added bytes) would
 * add selected alone, with the fixed parts it needs, and the --max-growth
 * whose fit holds that: into its decision and its note. */
static void alone_note(struct select_report *r, size_t n, size_t f, double bytes)
{
    struct select_budget *b = &r->budget;
    struct decision_function *df = &r->decision.functions[f];
    if (bytes < 0 || b->whole_bytes <= 0) return;
    int *only = xcalloc(n + 1, sizeof *only);
    only[f] = 1;
    struct strvec keys = STRVEC_INIT;
    double *fixed = NULL;
    free(fixed_parts(r, n, only, &keys, &fixed));
    double alone = bytes;
    for (size_t k = 0; k < keys.n; k++) alone += fixed[k] > 0 ? fixed[k] : 0;
    sv_free(&keys);
    free(fixed);
    free(only);
    df->budget_alone = alone;
    df->budget_needs_growth = budget_growth_for(b, alone);
    if (alone <= b->fit_limit) return;   /* it fits alone: the others took the room */
    char *more = xasprintf("%s; even alone, with the fixed part it needs, it would add %.0f bytes, %.1f%% of a "
                           "second whole build, more than the fit's %.0f: --max-growth %d leaves room for it",
                           r->functions[f].note, alone, 100 * alone / b->whole_bytes, b->fit_limit,
                           df->budget_needs_growth);
    free(r->functions[f].note);
    r->functions[f].note = more;
    if (!r->functions[f].alternative) return;
    /* candidates/alternative.h: named, not taken - no build measured it */
    more = xasprintf("%s; its static callee %s holds its loops (alternative-callee) and cloned alone would add "
                     "less, but this select neither built nor measured that clone, so it claims no gain for it",
                     r->functions[f].note, r->functions[f].alternative);
    free(r->functions[f].note);
    r->functions[f].note = more;
}

void budget_apply(struct select_report *r, const struct decision_input *in, double max_growth)
{
    struct select_budget *b = &r->budget;
    memset(b, 0, sizeof *b);
    b->max_growth = max_growth;
    struct decision *d = &r->decision;
    size_t n = d->n_functions < r->n_functions ? d->n_functions : r->n_functions;
    size_t n_selected = 0;
    for (size_t f = 0; f < n; f++) n_selected += d->functions[f].chosen >= 1;
    if (max_growth < 0) return;
    if (!r->n_variants || !r->variants[0].code.measured || !r->variants[0].code.code_bytes) {
        if (n_selected)
            sv_pushf(&r->notes, "no code-growth budget was checked: the baseline's code could not be measured");
        return;
    }
    int march = r->march.code.measured && !r->march.failure && r->march.code.code_bytes;
    b->whole_bytes = (double)(march ? r->march.code.code_bytes : r->variants[0].code.code_bytes);
    b->whole_what = march ? "the -march=x86-64-v3 reference" : "the baseline (no -march=x86-64-v3 reference measured)";
    b->limit = b->whole_bytes * max_growth / 100;
    b->fit_limit = b->limit * (1 - BUDGET_UNPREDICTED_SHARE);
    b->applied = 1;
    if (!n_selected) return;

    int *selected = xcalloc(n + 1, sizeof *selected), *dropped = xcalloc(n + 1, sizeof *dropped);
    int *timed_set = xcalloc(n + 1, sizeof *timed_set);
    double *bytes = xcalloc(n + 1, sizeof *bytes), *gain = xcalloc(n + 1, sizeof *gain);
    size_t nw = in->n_workloads;
    double *saved = xcalloc(n * nw + 1, sizeof *saved);
    long *best = xcalloc(nw + 1, sizeof *best);
    for (size_t f = 0; f < n; f++) timed_set[f] = d->functions[f].chosen;
    int *trim = xcalloc(n + 1, sizeof *trim), *timed_dropped = xcalloc(n + 1, sizeof *timed_dropped);
    double before = fit_rounds(r, in, n, selected, bytes, gain, dropped, saved, best, NULL, timed_set, timed_dropped);
    if (b->n_dropped && trim_mark(r, n, trim)) {
        /* the copies that never ran go first: fitted again without them */
        for (size_t f = 0; f < n; f++) d->functions[f].chosen = timed_set[f];
        fit_rounds(r, in, n, selected, bytes, gain, dropped, saved, best, trim, timed_set, timed_dropped);
        trim_give_back(r, in, n, selected, bytes, gain, dropped, saved, best, trim);
    }
    b->before = before;
    trim_report(r, n, dropped, trim);
    free(trim);
    /* the functions kept because others took cheaper sets: dropped by the
     * fit of the timings' sets, kept now with their own */
    struct strbuf names = STRBUF_INIT, cheaper = STRBUF_INIT, room = STRBUF_INIT;
    for (size_t f = 0; f < n; f++) {
        struct decision_function *df = &d->functions[f];
        if (!selected[f] || dropped[f] || !timed_dropped[f] || df->chosen != timed_set[f]) continue;
        df->budget_room = 1;
        b->n_room++;
        sb_addf(&room, "%s%s (%.0f bytes, %.2f%% saved)", room.len ? ", " : "", r->functions[f].display_name,
                bytes[f], gain[f] * 100);
    }
    for (size_t f = 0; f < n; f++) {
        struct select_function *fn = &r->functions[f];
        struct decision_function *df = &d->functions[f];
        int moved = timed_set[f] >= 1 && df->chosen != timed_set[f];
        if (moved) {
            df->budget_from = timed_set[f];
            b->n_cheaper += !dropped[f];
        }
        if (moved && !dropped[f]) budget_sets_kept_note(r, f, timed_set[f], bytes[f], sb_str(&room), &cheaper);
        if (!dropped[f]) continue;
        const char *set = r->variants[df->chosen].name;
        struct strbuf of = STRBUF_INIT;   /* the workloads it is the best function of */
        for (size_t w = 0; w < nw; w++)
            if (best[w] == (long)f)
                sb_addf(&of, "%s'%s' (%.2f%% of it)", of.len ? ", " : "",
                        w < r->n_workloads ? r->workloads[w].command : "?", saved[f * nw + w] * 100);
        free(fn->note);
        if (of.len)
            fn->note = xasprintf("dropped for the code-growth budget: its %s clones add %.0f bytes for %.2f%% of the "
                                 "workloads' time saved (%.2f%% per KB); the best function of %s, but the budget has "
                                 "no room for every workload's best function, and those kept gain more per byte",
                                 set, bytes[f], gain[f] * 100, bytes[f] > 0 ? gain[f] * 100 * 1024 / bytes[f] : 0.0,
                                 sb_str(&of));
        else
            fn->note = xasprintf("dropped for the code-growth budget: its %s clones add %.0f bytes for %.2f%% of the "
                                 "workloads' time saved (%.2f%% per KB): the budget goes to each workload's best "
                                 "function first, and the fit of the rest that keeps the most gain leaves it out",
                                 set, bytes[f], gain[f] * 100, bytes[f] > 0 ? gain[f] * 100 * 1024 / bytes[f] : 0.0);
        sb_free(&of);
        alone_note(r, n, f, bytes[f]);
        if (moved) {
            char *was = xasprintf("%s; its faster %s clones (%lld bytes) fit even less", fn->note,
                                  r->variants[timed_set[f]].name,
                                  (long long)select_bytes_added(r, f, (size_t)timed_set[f]));
            free(fn->note);
            fn->note = was;
        }
        sb_addf(&names, "%s%s (%.0f bytes, %.2f%% saved)", names.len ? ", " : "", fn->display_name, bytes[f],
                gain[f] * 100);
        df->budget_dropped = df->chosen;
        df->chosen = -1;
        df->reason = DECISION_CODE_BUDGET;
    }
    char *fixed_what = budget_fixed_what(b);
    if (b->n_dropped)
        sv_pushf(&r->notes, "code-growth budget: the selection would add %.0f bytes, above %.0f%% of a second whole "
                            "build (%s, %.0f bytes): %.0f bytes, of which the fit uses %.0f (the rest is kept for code "
                            "the prediction cannot see, as callers the clones change); dropped (each workload's best "
                            "function first, then the fit keeping the most gain; %zu of %zu workloads keep their best "
                            "function): %s; it now adds "
                            "%.0f bytes (predicted; the fixed part of the selection as given: %.0f bytes, %s); "
                            "--max-growth %d would keep them all",
                 b->before, max_growth, b->whole_what, b->whole_bytes, b->limit, b->fit_limit, b->n_served,
                 b->n_to_serve,
                 sb_str(&names), b->after, b->overhead, fixed_what, budget_growth_for(b, b->before));
    if (cheaper.len)
        sv_pushf(&r->notes, "code-growth budget: the selection would add %.0f bytes, above %.0f%% of a second whole "
                            "build (%.0f bytes); kept with a cheaper target set that also made them significantly "
                            "faster: %s%s%s; it now adds %.0f bytes (predicted)",
                 b->before, max_growth, b->limit, sb_str(&cheaper),
                 room.len ? "; this leaves room for functions the timings' sets left out: " : "", sb_str(&room),
                 b->after);
    if (b->after > b->limit)
        sv_pushf(&r->notes, "code-growth budget: the selection still adds %.0f bytes, above the limit of %.0f bytes: "
                            "%zu selected function%s added bytes that could not be measured", b->after, b->limit,
                 b->n_unknown, b->n_unknown == 1 ? "" : "s");
    free(fixed_what);
    sb_free(&names);
    sb_free(&cheaper);
    sb_free(&room);
    free(timed_dropped);
    free(selected);
    free(dropped);
    free(timed_set);
    free(bytes);
    free(gain);
    free(saved);
    free(best);
}

int budget_measured_parts(const struct select_report *r, int64_t *clones, int64_t *cpu_detect, int64_t *rest)
{
    if (!r->selected_code.measured || !r->n_variants || !r->variants[0].code.measured) return 0;
    const struct select_code *s = &r->selected_code, *base = &r->variants[0].code;
    int64_t real = select_code_growth(r, s);
    *clones = (int64_t)(s->clone_bytes + s->resolver_bytes) + s->extra_bytes -
              ((int64_t)(base->clone_bytes + base->resolver_bytes) + base->extra_bytes);
    *cpu_detect = s->cpu_detect_bytes >= 0 && base->cpu_detect_bytes >= 0
                      ? s->cpu_detect_bytes - base->cpu_detect_bytes
                      : -1;
    *rest = real - *clones - (*cpu_detect > 0 ? *cpu_detect : 0);
    return 1;
}

char *budget_sentence(const struct select_report *r)
{
    const struct select_budget *b = &r->budget;
    if (!b->applied) return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "code-growth budget: %.0f bytes, %g%% of a second whole build (%s, %.0f bytes), of which the fit "
                 "uses %.0f (the rest is kept for code the prediction cannot see); the selection was predicted to add "
                 "%.0f bytes", b->limit, b->max_growth, b->whole_what, b->whole_bytes, b->fit_limit, budget_predicted(b));
    if (b->n_pins)
        sb_addf(&sb, " (%.0f of them the placement pins' padding at its worst case: %zu pin%s in %zu linked "
                     "compile%s)", b->pin_bytes, b->n_pins, b->n_pins == 1 ? "" : "s", b->n_pin_copies,
                b->n_pin_copies == 1 ? "" : "s");
    if (b->n_pad_files)
        sb_addf(&sb, " (%.0f the pad before .text's functions in %zu linked file%s)", b->pad_bytes, b->n_pad_files,
                b->n_pad_files == 1 ? "" : "s");
    if (b->n_dropped) sb_addf(&sb, " after %zu function%s dropped (%.0f before)", b->n_dropped,
                              b->n_dropped == 1 ? " was" : "s were", b->before);
    if (r->selected_code.measured && r->n_variants && r->variants[0].code.measured) {
        int64_t real = select_code_growth(r, &r->selected_code);
        sb_addf(&sb, "; the selected build adds %lld bytes (%.2f%% of the second whole build): %s", (long long)real,
                100.0 * (double)real / b->whole_bytes, (double)real <= b->limit ? "within the budget" : "ABOVE the budget");
        int64_t clones, cpu, rest;
        int64_t levels = r->selected_code.cpu_levels_bytes >= 0 && r->variants[0].code.cpu_levels_bytes >= 0
                             ? r->selected_code.cpu_levels_bytes - r->variants[0].code.cpu_levels_bytes
                             : -1;
        if (real && budget_measured_parts(r, &clones, &cpu, &rest)) {
            sb_addf(&sb, " (clones and resolvers with their padding and PLT entries %lld, ", (long long)clones);
            if (cpu >= 0 && levels > 0)
                sb_addf(&sb, "CPU detection %lld (fmvgen's CPU check %lld, the runtime's %lld), ", (long long)cpu,
                        (long long)levels, (long long)(cpu - levels));
            else if (cpu >= 0) sb_addf(&sb, "the runtime's CPU detection %lld, ", (long long)cpu);
            else sb_adds(&sb, "the runtime's CPU detection not told (a stripped file), ");
            sb_addf(&sb, "other %lld)", (long long)rest);
        }
    }
    return sb_detach(&sb);
}

double budget_pin_room(const struct select_budget *b)
{
    if (!b->applied || b->limit < 0) return 1e300;
    double room = b->fit_limit - b->after - b->pin_bytes - b->pad_bytes;
    return room > 0 ? room : 0;
}

int budget_take_pin(struct select_budget *b, unsigned k, size_t n_files)
{
    if (!n_files) n_files = 1;
    double worst = (double)n_files * BUDGET_PIN_BYTES(k);
    if (worst > budget_pin_room(b)) return 0;
    b->pin_bytes += worst;
    b->n_pins++;
    b->n_pin_copies += n_files;
    return 1;
}

int budget_take_pad(struct select_budget *b, unsigned bytes, size_t n_files)
{
    if (!n_files) n_files = 1;
    double all = (double)n_files * (double)bytes;
    if (all > budget_pin_room(b)) return 0;
    b->pad_bytes += all;
    b->n_pad_files += n_files;
    return 1;
}

double budget_predicted(const struct select_budget *b)
{
    return b->after + b->pin_bytes + b->pad_bytes;
}

void budget_check_measured(struct select_report *r)
{
    const struct select_budget *b = &r->budget;
    if (!b->applied || !r->selected_code.measured || !r->variants[0].code.measured) return;
    int64_t real = select_code_growth(r, &r->selected_code);
    if ((double)real > b->limit)
        sv_pushf(&r->notes, "code-growth budget exceeded: the selected build adds %lld bytes, %.2f%% of a second "
                            "whole build (%s), above the limit of %.0f%% (%.0f bytes); the prediction from the "
                            "all-candidates builds and the pins was %.0f bytes",
                 (long long)real, 100.0 * (double)real / b->whole_bytes, b->whole_what, b->max_growth, b->limit,
                 budget_predicted(b));
}
