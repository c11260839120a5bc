/* helpers.c - see helpers.h. The positions of a candidate's loop records
 * lead to the definitions holding them (locate_by_line), the candidate's
 * body to the callees the build inlined; those that may be helpers are
 * narrowed until every use of each lies inside the candidate or inside
 * another one left: dropping one may orphan a helper that only it called,
 * hence the loop until nothing changes. */
#include "candidates/helpers.h"
#include "candidates/alternative.h"
#include "candidates/eligibility.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/notes.h"
#include "util/util.h"

struct maybe_helper {
    struct fn_def def;
    struct strvec lines;   /* loop lines of the candidate's records it holds, as text
                            * ("45"); none: found as a callee the build inlined */
    char *left_out;        /* why not, or NULL while it may be one */
    int declared_inline;   /* the source declares it inline already */
    int clonable;          /* passes the target_clones rules but for inline (alternative.h) */
    int has_loop;          /* found as a callee: it holds a loop */
    struct use_site *uses;
    size_t nuses;
};

static int inside(const struct fn_def *d, unsigned offset)
{
    return offset >= d->offset && offset <= d->end_offset;
}

static void note(json_t *notes, enum note_kind kind, const char *detail, json_t *helper)
{
    json_t *n = note_new(kind, detail);
    if (helper) json_object_set_new(n, "helper", helper);
    json_array_append_new(notes, n);
}

static json_t *helper_json(const struct fn_def *d)
{
    json_t *h = json_object();
    json_object_set_new(h, "name", json_string(d->symbol));
    json_object_set_new(h, "display_name", json_string(d->display_name ? d->display_name : d->symbol));
    json_object_set_new(h, "line", json_integer(d->line));
    json_object_set_new(h, "end_line", json_integer(d->end_line));
    json_object_set_new(h, "insert_offset", json_integer(d->insert_offset));
    json_object_set_new(h, "insert_line", json_integer(d->insert_line));
    return h;
}

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_isAttribute(clang_getCursorKind(c))) {
        *(int *)data = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

/* 1 when d carries an attribute (always_inline already, target, ...). */
static int has_attributes(const struct fn_def *d)
{
    int found = 0;
    clang_visitChildren(d->cursor, attr_visit, &found);
    return found;
}

/* Why always_inline may not be given to d, or NULL. The compiler inlined
 * it into the candidate in the build (its loops are the candidate's), so
 * it can be inlined; what is left out: one with an attribute that
 * contradicts always_inline (eligibility_inline_conflict: noinline,
 * target, ...), a function that is no plain C function (template, member,
 * lambda). The rules that only target_clones needs (used before its
 * definition, intrinsics, asm, attributes clang refuses beside
 * target_clones only, as no_sanitize) do not apply. A function
 * declared inline already (*declared_inline set) may be given it too: GCC
 * and clang 19 call a static inline helper out of line from clones of
 * another target, compiled for the baseline (libsamplerate's
 * calc_output_stereo: 80% of the run in the baseline helper, the clone's
 * own code 3%). Caller frees. */
static char *not_inlinable(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *d,
                           int *declared_inline, int *clonable)
{
    struct eligibility el;
    eligibility_check(tu, pp, d, &el);
    int fine = el.reason == REASON_NONE || el.reason == REASON_USED_BEFORE_DEFINITION ||
               el.reason == REASON_DECLARED_AFTER_DEFINITION ||
               el.reason == REASON_INTRINSICS || el.reason == REASON_INLINE_ASM ||
               el.reason == REASON_INTERNAL_TEMPLATE || el.reason == REASON_INLINE ||
               el.reason == REASON_ATTRIBUTE;
    if (declared_inline) *declared_inline = el.reason == REASON_INLINE;
    if (clonable) *clonable = el.reason == REASON_NONE || (el.reason == REASON_INLINE && !has_attributes(d));
    char *why = NULL, *conflict = NULL;
    if (!fine)
        why = xasprintf("%s (%s)", el.detail, reason_name(el.reason));
    else if ((el.reason == REASON_ATTRIBUTE || has_attributes(d)) && (conflict = eligibility_inline_conflict(tu, pp, d)))
        why = xasprintf("%s (attribute)", conflict);
    free(conflict);
    free(el.detail);
    json_decref(el.note);
    return why;
}

/* The definitions holding f's loop positions, other than f, each once;
 * those that can never be helpers get left_out at once (or are not
 * mentioned at all: code in headers, a definition with loops of its own). */
static size_t collect(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *f,
                      const struct loop_position *positions, size_t n, const struct fn_def *own, size_t nown,
                      struct maybe_helper **out)
{
    struct maybe_helper *v = xcalloc(n ? n : 1, sizeof *v);
    size_t nv = 0;
    for (size_t i = 0; i < n; i++) {
        struct fn_def d;
        if (locate_by_line(tu, positions[i].file, positions[i].line, &d) != DEF_FOUND || fn_def_same(&d, f) ||
            !clang_File_isEqual(d.cxfile, f->cxfile)) {
            fn_def_free(&d);
            continue;
        }
        int is_own = 0;
        for (size_t k = 0; k < nown && !is_own; k++) is_own = fn_def_same(&d, &own[k]);
        struct maybe_helper *m = NULL;
        for (size_t k = 0; k < nv && !m; k++)
            if (fn_def_same(&v[k].def, &d)) m = &v[k];
        if (is_own || m) {
            char line[16];
            snprintf(line, sizeof line, "%d", positions[i].line);
            if (m && !sv_contains(&m->lines, line)) sv_push(&m->lines, line);
            fn_def_free(&d);
            continue;
        }
        m = &v[nv++];
        m->def = d;
        sv_pushf(&m->lines, "%d", positions[i].line);
        enum CXLinkageKind link = clang_getCursorLinkage(d.cursor);
        if (link != CXLinkage_Internal) m->left_out = xstrdup("it has external linkage: other files may call it");
        else if (!tu_is_main_file(tu, d.cxfile)) m->left_out = xstrdup("it is not in the TU's own file");
        else m->left_out = not_inlinable(tu, pp, &d, &m->declared_inline, &m->clonable);
    }
    *out = v;
    return nv;
}

/* ---- callees the build inlined ---- */

static enum CXChildVisitResult loop_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt) {
        *(int *)data = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

static int holds_loop(CXCursor def)
{
    int found = 0;
    clang_visitChildren(def, loop_visit, &found);
    return found;
}

struct callee_walk {
    CXFile file;
    struct strvec seen;      /* "line" of each callee definition found, once */
    unsigned *lines;
    size_t n;
};

static enum CXChildVisitResult callee_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct callee_walk *w = data;
    if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
    CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));
    if (clang_Cursor_isNull(def) || clang_getCursorKind(def) != CXCursor_FunctionDecl) return CXChildVisit_Recurse;
    CXFile file = NULL;
    unsigned line = 0;
    loc_offset(clang_getCursorLocation(def), &file, &line, NULL);
    char key[16];
    snprintf(key, sizeof key, "%u", line);
    if (!file || !clang_File_isEqual(file, w->file) || sv_contains(&w->seen, key)) return CXChildVisit_Recurse;
    sv_push(&w->seen, key);
    w->lines = xrealloc(w->lines, (w->n + 1) * sizeof *w->lines);
    w->lines[w->n++] = line;
    return CXChildVisit_Recurse;
}

int helpers_object_defines(const struct strvec *object_functions, const char *symbol)
{
    if (!object_functions || !symbol) return 0;
    size_t n = strlen(symbol);
    for (size_t i = 0; i < object_functions->n; i++) {
        const char *f = object_functions->v[i];
        if (!strncmp(f, symbol, n) && (f[n] == '\0' || f[n] == '.')) return 1;
    }
    return 0;
}

/* Adds to v the static functions of f's file that f calls (and they call,
 * and so on) and that the build inlined everywhere - no symbol of their own
 * in the compile's object (object_functions, which must hold f's): big
 * helpers the clones would call out of line, like kissfft's kf_bfly4 and
 * kf_bfly5, whose loops do not vectorize but whose code gains from the
 * clones' ISA (FMA, AVX) all the same, and loop-free ones too: GCC inlines
 * a callee into a clone (or a cpuid copy) of another target only when it
 * does so before cloning (early inlining, small callees); a callee it
 * inlined later in the build, as a function called once (twolame's
 * DetermineByteOrder, psycho_4_spreading_function), stays out of line,
 * compiled for the baseline, with the scalar code (floor, bswap) the
 * target would have changed. */
static size_t add_inlined_callees(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *f,
                                  const struct strvec *object_functions, struct maybe_helper **vp, size_t nv)
{
    if (!object_functions || !helpers_object_defines(object_functions, f->symbol)) return nv;
    struct callee_walk w = {f->cxfile, STRVEC_INIT, NULL, 0};
    char *path = cx_take(clang_getFileName(f->cxfile));
    size_t next = 0;   /* the helper whose callees are walked after f's */
    CXCursor walking = f->cursor;
    for (;;) {
        size_t before = w.n;
        clang_visitChildren(walking, callee_visit, &w);
        for (size_t i = before; i < w.n; i++) {
            struct fn_def d;
            int keep = locate_by_line(tu, path, (int)w.lines[i], &d) == DEF_FOUND && !fn_def_same(&d, f) &&
                       clang_getCursorLinkage(d.cursor) == CXLinkage_Internal && tu_is_main_file(tu, d.cxfile) &&
                       !helpers_object_defines(object_functions, d.symbol);
            for (size_t k = 0; k < nv && keep; k++) keep = !fn_def_same(&(*vp)[k].def, &d);
            int declared_inline = 0, clonable = 0;
            char *why = keep ? not_inlinable(tu, pp, &d, &declared_inline, &clonable) : NULL;
            if (!keep || why) {
                free(why);
                fn_def_free(&d);
                continue;
            }
            *vp = xrealloc(*vp, (nv + 1) * sizeof **vp);
            memset(&(*vp)[nv], 0, sizeof **vp);
            (*vp)[nv].declared_inline = declared_inline;
            (*vp)[nv].clonable = clonable;
            (*vp)[nv].has_loop = holds_loop(d.cursor);
            (*vp)[nv++].def = d;
        }
        /* then the callees of every helper */
        while (next < nv && (*vp)[next].left_out) next++;
        if (next == nv) break;
        walking = (*vp)[next++].def.cursor;
    }
    free(path);
    sv_free(&w.seen);
    free(w.lines);
    return nv;
}

/* 1 when a use of m lies outside f and outside every accepted helper;
 * *line gets its line, *recursive is set when the use is inside m itself
 * (always_inline cannot inline a function into itself). */
static int used_elsewhere(const struct maybe_helper *m, const struct fn_def *f, const struct maybe_helper *v,
                          const int *accepted, size_t nv, unsigned *line, int *recursive)
{
    for (size_t u = 0; u < m->nuses; u++) {
        unsigned off = m->uses[u].offset;
        *recursive = inside(&m->def, off);
        int ok = !*recursive && inside(f, off);
        for (size_t k = 0; k < nv && !ok && !*recursive; k++) ok = accepted[k] && inside(&v[k].def, off);
        if (!ok) {
            *line = m->uses[u].line;
            return 1;
        }
    }
    return 0;
}

void helpers_note(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *f,
                  const struct loop_position *positions, size_t n, const struct fn_def *own, size_t nown,
                  const struct strvec *object_functions, const struct helper_isa_share *isa, size_t nisa,
                  json_t *notes)
{
    if (f->match != DEF_FOUND || !f->cxfile) return;
    struct maybe_helper *v = NULL;
    size_t nv = collect(tu, pp, f, positions, n, own, nown, &v);
    nv = add_inlined_callees(tu, pp, f, object_functions, &v, nv);
    for (size_t i = 0; i < nv; i++)
        if (!v[i].left_out) v[i].nuses = locate_uses(tu, v[i].def.cursor, v[i].def.cxfile, UINT_MAX, &v[i].uses);
    /* Accepted one by one: a helper whose every use lies in f or in a
     * helper accepted before. Helpers that call each other in a cycle are
     * never accepted - always_inline cannot inline a cycle away. */
    int *accepted = xcalloc(nv ? nv : 1, sizeof *accepted);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < nv; i++) {
            unsigned line = 0;
            int recursive = 0;
            if (v[i].left_out || accepted[i] || used_elsewhere(&v[i], f, v, accepted, nv, &line, &recursive)) continue;
            accepted[i] = changed = 1;
        }
    }
    for (size_t i = 0; i < nv; i++) {
        unsigned line = 0;
        int recursive = 0;
        if (v[i].left_out || accepted[i] || !used_elsewhere(&v[i], f, v, accepted, nv, &line, &recursive)) continue;
        if (recursive)
            v[i].left_out = xasprintf("it calls itself (line %u): it cannot be inlined whole", line);
        else
            v[i].left_out = xasprintf("it is also used at line %u, neither in %s nor in a helper inlined into it: "
                                      "forced inlining would grow that caller too",
                                      line, f->display_name ? f->display_name : f->symbol);
    }
    free(accepted);
    const char *fname = f->display_name ? f->display_name : f->symbol;
    for (size_t i = 0; i < nv; i++) {
        struct maybe_helper *m = &v[i];
        /* a callee that is no helper is not worth a note: it holds none of
         * f's vectorized loops */
        if (m->left_out && !m->lines.n) continue;
        struct strbuf sb = STRBUF_INIT;
        if (m->lines.n) {
            sb_addf(&sb, "holds %s's vectorized loops at line ", fname);
            sb_add_joined(&sb, &m->lines, ", ");
        } else {
            sb_addf(&sb, m->has_loop ? "holds a loop, and the build inlined it into %s (no symbol of its own)"
                                     : "was inlined into %s by the build (no symbol of its own)",
                    fname);
        }
        char *holds = sb_detach(&sb);
        char *d;
        if (m->left_out) {
            d = xasprintf("%s (line %u) %s but is not forced inline into its clones: %s", m->def.display_name,
                          m->def.line, holds, m->left_out);
            note(notes, NOTE_HELPER_LEFT_OUT, d, NULL);
        } else {
            d = xasprintf("%s (line %u) %s and only %s uses it: it is inlined into each of %s's clones "
                          "(always_inline), as the build inlined it, so that its code is compiled for each clone's "
                          "target (cloned alone, %s would call it out of line, built for the baseline%s)",
                          m->def.display_name, m->def.line, holds, fname, fname, fname,
                          m->declared_inline ? ": it is declared inline, but GCC and clang 19 do not inline it into "
                                               "a clone of another target unless always_inline"
                                             : "");
            json_t *h = helper_json(&m->def);
            if (m->declared_inline) json_object_set_new(h, "declared_inline", json_true());
            note(notes, NOTE_INLINED_HELPER, d, h);
        }
        free(d);
        free(holds);
    }
    /* alternative.h: the clonable helper holding the most of f's loops,
     * then the most of its ISA gain */
    size_t best = SIZE_MAX;
    int best_score = 0;
    for (size_t i = 0; i < nv; i++) {
        int score = 0;
        for (size_t j = 0; j < nisa; j++)
            if (v[i].def.symbol && !strcmp(isa[j].callee, v[i].def.symbol)) score += isa[j].score;
        if (v[i].left_out || !v[i].clonable || (!v[i].lines.n && score <= 0)) continue;
        if (best == SIZE_MAX || v[i].lines.n > v[best].lines.n ||
            (v[i].lines.n == v[best].lines.n && score > best_score)) {
            best = i;
            best_score = score;
        }
    }
    if (best != SIZE_MAX) {
        struct strvec all = {0};
        for (size_t i = 0; i < n; i++) sv_pushf(&all, "%d", positions[i].line);
        struct strvec distinct = {0};
        for (size_t i = 0; i < all.n; i++)
            if (!sv_contains(&distinct, all.v[i])) sv_push(&distinct, all.v[i]);
        json_array_append_new(notes, alternative_note(f, &v[best].def, &v[best].lines, distinct.n, best_score,
                                                      v[best].declared_inline));
        sv_free(&all);
        sv_free(&distinct);
    }
    for (size_t i = 0; i < nv; i++) {
        fn_def_free(&v[i].def);
        sv_free(&v[i].lines);
        free(v[i].left_out);
        free(v[i].uses);
    }
    free(v);
}
