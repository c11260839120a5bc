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
 * the scores of all its shares added, each host named in its note, its
 * evidence each share's, named by host ("inlined into logf_all: vroundss
 * replaces floorf; inlined into main: ...") and its dropped calls those of
 * all shares; into candidates too, those are named in the note (their
 * clones call it out of line; each such candidate's own evidence holds its
 * share already, and select splits the samples of a call both drop). A
 * share the compiler left without inline frames (clang merges the inlined
 * copies of an unrolled loop into the host's scope) is credited to no
 * callee: the callee then names only the hosts whose frames held it.
 * A callee that has a row already (its loops, inlined.h) takes the score
 * and evidence when it has none, and the kind that says more.
 *
 * A callee that has no row says so on each host, with that host's share.
 * Callees from system headers (the intrinsics of <xmmintrin.h>, libc
 * inlines) are never patched: each host names them all in one note.
 *
 * An excluded host with ISA evidence and no callee credited gets an
 * "isa-unattributed" note: its gains are its own code's, or a callee's
 * defined elsewhere. (Built without -g, the target probe's code still has
 * inline frames: candidates/isa.h weighs its shares by the host's gain.) */
#include "candidates/analyze_internal.h"
#include "candidates/eligibility.h"
#include "candidates/inlined.h"
#include "candidates/inlname.h"
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
    struct strvec symbols;   /* the hosts' symbols, as hosts */
    size_t *host_rows;       /* the hosts' rows (indices: rows grow) */
    int score, fma_score;
    struct strbuf evidence;
    struct strvec dropped;   /* the calls its shares drop, each once */
};

static json_t *inlined_note(const char *callee, enum exclusion_reason reason, struct credited *cr)
{
    char *what = xasprintf("its code gains at the target (isa: %s) where the build inlined it", sb_str(&cr->evidence));
    json_t *n = inlined_into_note(what, callee, reason, &cr->hosts, &cr->symbols, &cr->reasons, &cr->also);
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

/* The row of one callee credited with shares of excluded hosts; NULL, or
 * why the callee has none (caller frees), said on its hosts. A callee
 * defined in a system header (an intrinsic, a libc inline) has no row and
 * no reason: *system_header gets its header's name (caller frees). */
static char *add_callee(struct parsed_tu *tu, struct pp_directives *pp, const struct compile_row *c,
                        const struct wanted_list *wanted, const struct fn_def *seen, size_t nseen,
                        struct row_list *rows, const char *callee, struct credited *cr, char **system_header)
{
    struct fn_def def;
    size_t nsame = 0;
    enum def_match m = inline_name_locate(tu, c->source, callee, &def, &nsame);
    if (m != DEF_FOUND && m != DEF_TEMPLATE) {
        return nsame > 1 ? xasprintf("%zu definitions of this file are named %s (inline frames name a C++ function "
                                     "by its short name): which one it is cannot be told",
                                     nsame, callee)
                         : xasprintf("no definition of %s is located in this file (a callee from a header, or a "
                                     "name libclang does not know)",
                                     callee);
    }
    if (!tu_is_main_file(tu, def.cxfile)) {
        if (clang_Location_isInSystemHeader(clang_getCursorLocation(def.cursor))) {
            *system_header = xstrdup(def.file ? path_basename(def.file) : "a system header");
            fn_def_free(&def);
            return NULL;
        }
        char *why = xasprintf("%s is defined in %s, not in this file: a header's function is not patched", callee,
                              def.file ? def.file : "another file");
        fn_def_free(&def);
        return why;
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
        return NULL;
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
                     NULL, 0, notes);
        size_t j;
        json_array_foreach(notes, j, n) fn_row_add_note(r, n);
        json_decref(notes);
    }
    fn_def_free(&def);
    return NULL;
}

/* The hosts of a callee that has no row of its own say that their gains
 * in its share are attributed to no candidate, and why. */
static void note_unlocated(struct row_list *rows, const struct credited *cr, const char *callee,
                           const struct strvec *shares, const char *why)
{
    for (size_t i = 0; i < cr->hosts.n; i++) {
        struct fn_row *h = &rows->v[cr->host_rows[i]];
        char *d = xasprintf("%s's gains at the target include the share of %s, a callee it inlined (isa: %s), "
                            "which no candidate takes: %s",
                            h->display_name, callee, shares->v[i], why);
        json_t *n = note_new(NOTE_ISA_UNATTRIBUTED, d);
        fn_row_add_note(h, n);
        json_decref(n);
        free(d);
    }
}

/* One note per host for all the system-header callees (intrinsics, libc
 * inlines) whose shares of its gains no candidate takes: their evidence is
 * in the host's own, and a header outside the project is never patched. */
static void note_system_callees(struct fn_row *h, const struct strvec *callees)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add_joined(&sb, callees, ", ");
    char *d = xasprintf("%s's gains at the target include the shares of %zu function%s from system headers that it "
                        "inlined, which no candidate takes: %s; %s",
                        h->display_name, callees->n, callees->n == 1 ? "" : "s", sb_str(&sb),
                        h->reason == REASON_INTRINSICS ? "the hand-written SIMD its exclusion names"
                                                       : "code outside the project is not patched");
    json_t *n = note_new(NOTE_ISA_UNATTRIBUTED, d);
    fn_row_add_note(h, n);
    json_decref(n);
    free(d);
    sb_free(&sb);
}

static void note_unattributed(const struct wanted_list *wanted, struct row_list *rows,
                              size_t nrows_before)
{
    for (size_t i = 0; i < nrows_before; i++) {
        struct fn_row *r = &rows->v[i];
        if (!r->reason || r->reason == REASON_ATTRIBUTE || !r->evidence || !r->name) continue;
        int credited = 0;
        struct strvec left = STRVEC_INIT;   /* its dropped calls no callee's share drops */
        sv_push_all(&left, r->dropped.v);
        for (size_t k = 0; k < wanted->ninl; k++) {
            if (strcmp(wanted->inl[k].host, r->name) != 0) continue;
            credited = 1;
            for (size_t d = 0; d < wanted->inl[k].dropped.n; d++)
                for (size_t x = 0; x < left.n; x++)
                    if (!strcmp(left.v[x], wanted->inl[k].dropped.v[d])) {
                        free(left.v[x]);
                        left.v[x] = left.v[--left.n];
                        left.v[left.n] = NULL;
                        break;
                    }
        }
        if (credited && left.n) {
            /* clang 14 keeps no inline frame on a roundss that replaces an
             * inlined callee's floorf: the call is gone, and no share says */
            struct strbuf sb = STRBUF_INIT;
            sb_add_joined(&sb, &left, ", ");
            char *d = xasprintf("%s's code at the target no longer calls %s, and no callee it inlined is credited "
                                "with that: its own calls, or a callee's whose code at the target kept no inline "
                                "frame; that gain goes to no candidate",
                                r->display_name, sb_str(&sb));
            json_t *n = note_new(NOTE_ISA_UNATTRIBUTED, d);
            fn_row_add_note(r, n);
            json_decref(n);
            free(d);
            sb_free(&sb);
        }
        sv_free(&left);
        if (credited) continue;
        char *d = xasprintf("%s's gains at the target (isa: %s) are credited to no callee: no callee's inline "
                            "frames hold them (its own code, or a callee defined elsewhere)",
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
    /* per host row: the system-header callees whose shares it holds */
    struct strvec *sys = xcalloc(nrows_before ? nrows_before : 1, sizeof *sys);
    for (size_t i = 0; i < wanted->ninl; i++) {
        const char *callee = wanted->inl[i].name;
        if (sv_contains(&done, callee)) continue;
        sv_push(&done, callee);
        struct credited cr = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, NULL, 0, 0, STRBUF_INIT, STRVEC_INIT};
        struct strvec shares = STRVEC_INIT;   /* each host's share's evidence */
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
            cr.host_rows = xrealloc(cr.host_rows, (cr.hosts.n + 1) * sizeof *cr.host_rows);
            cr.host_rows[cr.hosts.n] = (size_t)(h - rows->v);
            sv_push(&cr.hosts, h->display_name);
            sv_push(&cr.symbols, h->name ? h->name : "");
            sv_push(&cr.reasons, reason_name(h->reason));
            cr.score += f->score;
            cr.fma_score += f->fma_score;
            sv_push(&shares, f->evidence);
            for (size_t d = 0; d < f->dropped.n; d++)
                if (!sv_contains(&cr.dropped, f->dropped.v[d])) sv_push(&cr.dropped, f->dropped.v[d]);
        }
        /* one host: its share's evidence; several: each share named */
        for (size_t k = 0; k < shares.n; k++) {
            if (shares.n > 1) sb_addf(&cr.evidence, "%sinlined into %s: ", k ? "; " : "", cr.hosts.v[k]);
            sb_adds(&cr.evidence, shares.v[k]);
        }
        char *sysh = NULL;
        char *why = cr.hosts.n ? add_callee(tu, pp, c, wanted, seen, nseen, rows, callee, &cr, &sysh) : NULL;
        if (why) note_unlocated(rows, &cr, callee, &shares, why);
        if (sysh) {
            char *item = xasprintf("%s (%s)", callee, sysh);
            for (size_t k = 0; k < cr.hosts.n; k++)
                if (cr.host_rows[k] < nrows_before) sv_push(&sys[cr.host_rows[k]], item);
            free(item);
        }
        free(sysh);
        free(why);
        sv_free(&shares);
        free(cr.host_rows);
        sv_free(&cr.hosts);
        sv_free(&cr.symbols);
        sv_free(&cr.reasons);
        sv_free(&cr.also);
        sb_free(&cr.evidence);
        sv_free(&cr.dropped);
    }
    sv_free(&done);
    for (size_t i = 0; i < nrows_before; i++) {
        if (sys[i].n) note_system_callees(&rows->v[i], &sys[i]);
        sv_free(&sys[i]);
    }
    free(sys);
    note_unattributed(wanted, rows, nrows_before);
}
