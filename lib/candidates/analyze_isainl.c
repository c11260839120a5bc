/* analyze_isainl.c - see analyze_internal.h: ISA gains of a static callee
 * that the build compiled inlined into an excluded function.
 *
 * GCC inlines a static kernel that main calls once into main; at -O2 most
 * such kernels vectorize nothing, so their gains at the target (FMA, rorx,
 * roundss for floorf, popcnt for __popcountdi2, pmulld) show only in main's
 * code, and main is never patched. The scan keeps, for code built with -g,
 * the share of each function's code that each inlined callee makes
 * (elf/funcisa.h, from the inline frames); isa.h compares the target's
 * share with the build's (isa_result.inl). Here the callee becomes the
 * candidate, of kind isa, with its own share's score and evidence and an
 * "inlined-into" note naming its hosts, as for loops (inlined.h): cloned,
 * it stays out of line, one call more at each call from its host.
 *
 * A callee qualifies when libclang locates its definition in the TU's main
 * file and a host is a located, excluded function of this TU (any reason
 * but "attribute": such a host compiles the callee for its own targets
 * already). The callee is then judged by the eligibility rules like any
 * definition. A callee inlined into several excluded hosts is one row with
 * the scores of all its shares added and each host named; into candidates
 * too, those are named in the note (their clones call it out of line).
 * A callee that has a row already (its loops, inlined.h) takes the score
 * and evidence when it has none, and the kind that says more.
 *
 * An excluded host with ISA evidence and no callee credited gets an
 * "isa-unattributed" note: built without -g there are no inline frames to
 * attribute by; else its gains are its own code's. */
#include "candidates/analyze_internal.h"
#include "candidates/eligibility.h"
#include "candidates/inlined.h"
#include "candidates/tu.h"
#include "capture/probe.h"
#include "store/notes.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The row of the located definition named name (the symbol stored), or
 * NULL; *k gets its index in seen. */
static struct fn_row *host_row(const struct fn_def *seen, const size_t *row_of, size_t nseen, struct row_list *rows,
                               const char *name)
{
    for (size_t k = 0; k < nseen; k++)
        if (row_of[k] != SIZE_MAX && seen[k].symbol && !strcmp(seen[k].symbol, name)) return &rows->v[row_of[k]];
    return NULL;
}

static struct fn_row *row_at(struct row_list *rows, const struct fn_def *d)
{
    for (size_t i = 0; i < rows->n; i++)
        if (rows->v[i].located && rows->v[i].file && d->file && !strcmp(rows->v[i].file, d->file) &&
            rows->v[i].line == d->line && !strcmp(rows->v[i].name, d->symbol))
            return &rows->v[i];
    return NULL;
}

struct credited {
    struct strvec hosts, reasons, also;
    int score, fma_score;
    struct strbuf evidence;
    struct strvec dropped;   /* the calls its shares drop, each once */
};

static json_t *inlined_note(const char *callee, enum exclusion_reason reason, struct credited *cr)
{
    char *what = xasprintf("its code gains at the target (isa: %s) where the build inlined it", sb_str(&cr->evidence));
    json_t *n = inlined_into_note(what, callee, reason, &cr->hosts, &cr->reasons, &cr->also);
    free(what);
    json_object_set_new(n, "lines", json_array());
    json_object_set_new(n, "isa", json_true());
    return n;
}

static int has_note_kind(const struct fn_row *r, const char *kind)
{
    json_t *notes = r->notes ? json_loads(r->notes, 0, NULL) : NULL;
    size_t i;
    json_t *n;
    int found = 0;
    json_array_foreach(notes, i, n)
    {
        const char *k = json_string_value(json_object_get(n, "kind"));
        found |= k && !strcmp(k, kind);
    }
    json_decref(notes);
    return found;
}

/* The row of one callee credited with shares of excluded hosts. */
static void add_callee(struct parsed_tu *tu, struct pp_directives *pp, const struct wanted_list *wanted,
                       const struct fn_def *seen, size_t nseen, struct row_list *rows, const char *callee,
                       struct credited *cr)
{
    struct fn_def def;
    if (locate_by_name(tu, callee, &def) != DEF_FOUND || !tu_is_main_file(tu, def.cxfile)) {
        fn_def_free(&def);
        return;
    }
    char *evidence = sb_detach(&cr->evidence);
    struct fn_row *r = row_at(rows, &def);
    if (r) {
        if (!r->evidence) {
            r->score = cr->score;
            r->fma_score = cr->fma_score;
            r->evidence = xstrdup(evidence);
            sv_free(&r->dropped);
            sv_push_all(&r->dropped, cr->dropped.v);
        }
        r->kind = candidate_kind_max(r->kind != KIND_NONE ? r->kind : KIND_VECTORIZED, KIND_ISA);
        sb_adds(&cr->evidence, evidence);
        if (!has_note_kind(r, "inlined-into")) {
            json_t *n = inlined_note(r->display_name, r->reason, cr);
            fn_row_add_note(r, n);
            json_decref(n);
        }
        free(evidence);
        fn_def_free(&def);
        return;
    }
    struct eligibility el;
    eligibility_check(tu, pp, &def, &el);
    r = fn_row_new(rows);
    fn_row_located(r, &def, &el, def_notes(pp, tu, &def));
    r->kind = KIND_ISA;
    r->score = cr->score;
    r->fma_score = cr->fma_score;
    r->evidence = evidence;
    sv_push_all(&r->dropped, cr->dropped.v);
    sb_adds(&cr->evidence, evidence);
    json_t *n = inlined_note(r->display_name, el.reason, cr);
    fn_row_add_note(r, n);
    json_decref(n);
    if (el.note) fn_row_add_note(r, el.note);
    json_decref(el.note);
    if (!el.reason) {
        /* its own helpers, inlined into it: kept inlined into its clones */
        json_t *notes = json_array();
        helpers_note(tu, pp, &def, NULL, 0, seen, nseen, wanted->object_known ? &wanted->object_functions : NULL,
                     notes);
        size_t j;
        json_array_foreach(notes, j, n) fn_row_add_note(r, n);
        json_decref(notes);
    }
    fn_def_free(&def);
}

static void note_unattributed(const struct compile_row *c, const struct wanted_list *wanted, struct row_list *rows,
                              size_t nrows_before)
{
    int g = probe_compile_has_debug(c);
    for (size_t i = 0; i < nrows_before; i++) {
        struct fn_row *r = &rows->v[i];
        if (!r->reason || r->reason == REASON_ATTRIBUTE || !r->evidence || !r->name) continue;
        int credited = 0;
        for (size_t k = 0; k < wanted->ninl && !credited; k++) credited = !strcmp(wanted->inl[k].host, r->name);
        if (credited) continue;
        char *d = g ? xasprintf("%s's gains at the target (isa: %s) are credited to no callee: no callee's inline "
                                "frames hold them (its own code, or a callee defined elsewhere)",
                                r->display_name, r->evidence)
                    : xasprintf("%s's gains at the target (isa: %s) are credited to no callee it inlined: the "
                                "compile has no -g, so its code has no inline frames to attribute them by",
                                r->display_name, r->evidence);
        json_t *n = note_new(NOTE_ISA_UNATTRIBUTED, d);
        fn_row_add_note(r, n);
        json_decref(n);
        free(d);
    }
}

void analyze_isa_inlined(struct parsed_tu *tu, struct pp_directives *pp, const struct compile_row *c,
                         const struct wanted_list *wanted, const struct fn_def *seen, const size_t *row_of,
                         size_t nseen, struct row_list *rows)
{
    size_t nrows_before = rows->n;
    struct strvec done = STRVEC_INIT;
    for (size_t i = 0; i < wanted->ninl; i++) {
        const char *callee = wanted->inl[i].name;
        if (sv_contains(&done, callee)) continue;
        sv_push(&done, callee);
        struct credited cr = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, 0, 0, STRBUF_INIT, STRVEC_INIT};
        for (size_t k = i; k < wanted->ninl; k++) {
            const struct isa_function *f = &wanted->inl[k];
            if (strcmp(f->name, callee) != 0) continue;
            struct fn_row *h = host_row(seen, row_of, nseen, rows, f->host);
            if (!h) continue;
            if (!h->reason) {
                if (!sv_contains(&cr.also, h->display_name)) sv_push(&cr.also, h->display_name);
                continue;
            }
            if (h->reason == REASON_ATTRIBUTE || sv_contains(&cr.hosts, h->display_name)) continue;
            sv_push(&cr.hosts, h->display_name);
            sv_push(&cr.reasons, reason_name(h->reason));
            cr.score += f->score;
            cr.fma_score += f->fma_score;
            if (cr.evidence.len) sb_addf(&cr.evidence, "; inlined into %s: ", h->display_name);
            sb_adds(&cr.evidence, f->evidence);
            for (size_t d = 0; d < f->dropped.n; d++)
                if (!sv_contains(&cr.dropped, f->dropped.v[d])) sv_push(&cr.dropped, f->dropped.v[d]);
        }
        if (cr.hosts.n) add_callee(tu, pp, wanted, seen, nseen, rows, callee, &cr);
        sv_free(&cr.hosts);
        sv_free(&cr.reasons);
        sv_free(&cr.also);
        sb_free(&cr.evidence);
        sv_free(&cr.dropped);
    }
    sv_free(&done);
    note_unattributed(c, wanted, rows, nrows_before);
}
