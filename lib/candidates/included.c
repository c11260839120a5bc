/* included.c - see included.h. Sightings come from libclang (locate.h's
 * definitions of a file, eligibility.h's rules in that TU); the verdict is
 * plain data work over them. */
#include "candidates/included.h"
#include "candidates/eligibility.h"
#include "candidates/helpers.h"
#include "candidates/simdifdef.h"
#include "store/notes.h"

#include <stdlib.h>
#include <string.h>

static struct sighting *sighting_new(struct sightings *s)
{
    if (s->n == s->cap) s->v = xrealloc(s->v, (s->cap = s->cap ? s->cap * 2 : 16) * sizeof *s->v);
    struct sighting *g = &s->v[s->n++];
    memset(g, 0, sizeof *g);
    return g;
}

void sightings_collect(struct parsed_tu *tu, const struct pp_directives *pp, size_t compile,
                       const struct strvec *files, const struct strvec *object_functions, struct sightings *out)
{
    for (size_t i = 0; i < files->n; i++) {
        struct fn_def *defs = NULL;
        size_t n = locate_defs_in_file(tu, files->v[i], &defs);
        int header = path_is_header(files->v[i]);
        for (size_t k = 0; k < n; k++) {
            struct fn_def *d = &defs[k];
            /* A header: its static functions and its external non-inline
             * C ones only (header.h); static inline ones this TU's object
             * does not define (inlined everywhere) are excluded in each TU
             * by the header rule, and non-inline ones are off in such a TU
             * (below). */
            enum CXLinkageKind link = clang_getCursorLinkage(d->cursor);
            int emitted = d->match == DEF_FOUND && helpers_object_defines(object_functions, d->symbol);
            int external = link != CXLinkage_Internal;
            if (header && ((external && (tu_is_cxx(tu) || clang_Cursor_isFunctionInlined(d->cursor))) ||
                           (!external && clang_Cursor_isFunctionInlined(d->cursor) && !emitted))) {
                fn_def_free(d);
                continue;
            }
            struct sighting *g = sighting_new(out);
            g->compile = compile;
            g->file = xstrdup(d->file);
            g->insert_offset = d->insert_offset;
            g->symbol = xstrdup(d->symbol ? d->symbol : "");
            g->cxx = tu_is_cxx(tu);
            g->is_static = link == CXLinkage_Internal || link == CXLinkage_UniqueExternal;
            /* C: the compiled name is the decl's name. When the text at the
             * name says otherwise, a macro renamed it; FMVGEN_CLONES(spelled)
             * expands to it only through a plain "#define SPELLED NAME". */
            if (!locate_name_spelling(tu, d, &g->spelled) && !g->cxx) {
                if (!g->spelled)
                    g->spelling_why = xasprintf("its name at line %u is not written as an identifier", d->line);
                else if (!pp_renames(pp, g->spelled, g->symbol))
                    g->spelling_why = xasprintf("its name is written %s (line %u), a macro that is not a plain "
                                                "'#define %s %s'",
                                                g->spelled, d->line, g->spelled, g->symbol);
            }
            struct eligibility el;
            eligibility_check_emitted(tu, pp, d, emitted, &el);
            g->reason = el.reason;
            g->detail = el.detail;
            /* A header's static function this TU's object does not define:
             * the build inlined it into every caller here (or it is
             * unused). Switched on, the callers would call its clones
             * where its code was inlined: off in this TU. */
            if (header && !g->reason && object_functions && !emitted) {
                g->reason = REASON_INLINE;
                free(g->detail);
                g->detail = xasprintf("this TU's object defines no %s: the build inlined it into every caller "
                                      "here (or it is unused), and its clones would be calls instead",
                                      g->symbol);
            }
            /* The row of each TU has its own copy of the note; the verdict
             * checks that they agree (one line in the file serves all). */
            if (el.note) {
                const char *t = json_string_value(json_object_get(el.note, "text"));
                g->redecl_text = t ? xstrdup(t) : NULL;
                g->redecl_offset = (unsigned)json_integer_value(json_object_get(el.note, "insert_offset"));
            }
            json_decref(el.note);
            fn_def_free(d);
        }
        free(defs);
    }
}

void sightings_free(struct sightings *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].file);
        free(s->v[i].symbol);
        free(s->v[i].spelled);
        free(s->v[i].spelling_why);
        free(s->v[i].detail);
        free(s->v[i].redecl_text);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

static const char *tu_name(const struct included_tu *tus, size_t compile)
{
    return path_basename(tus[compile].source ? tus[compile].source : "?");
}

/* Why the one attribute line cannot name each TU's symbol, or NULL. Only
 * clang < 18's alias uses the symbol, so a static function is never a
 * problem; an external one needs one spelling that expands, in every TU,
 * to that TU's symbol. */
static char *rename_problem(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                            const char **spelling)
{
    *spelling = NULL;
    int differ = 0, is_static = 1;
    for (size_t i = 0; i < n; i++) {
        differ |= strcmp(all[i]->symbol, all[0]->symbol) != 0;
        is_static &= all[i]->is_static;
    }
    if (!differ || is_static) return NULL;
    for (size_t i = 0; i < n; i++) {
        const struct sighting *g = all[i];
        if (g->cxx)
            return xasprintf("renamed by macro in TU %s (symbol %s, elsewhere %s): a C++ function's symbol is "
                             "mangled, the attribute line cannot name each TU's",
                             tu_name(tus, g->compile), g->symbol, all[0]->symbol);
        if (g->spelling_why)
            return xasprintf("renamed by macro in TU %s (to %s): %s, so the attribute line cannot name each TU's "
                             "symbol",
                             tu_name(tus, g->compile), g->symbol, g->spelling_why);
        if (!g->spelled || strcmp(g->spelled, all[0]->spelled ? all[0]->spelled : "") != 0)
            return xasprintf("renamed by macro in TU %s (to %s), spelled differently there", tu_name(tus, g->compile),
                             g->symbol);
    }
    *spelling = all[0]->spelled;
    return NULL;
}

void included_verdict(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                      struct included_verdict *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0) return;
    /* A TU that excludes it: its reason for all of them, naming the TU
     * when another TU would have taken it. */
    for (size_t i = 0; i < n && !out->reason; i++) {
        const struct sighting *g = all[i];
        if (!g->reason) continue;
        out->reason = g->reason;
        out->detail = n > 1 ? xasprintf("in TU %s, which also compiles %s: %s", tu_name(tus, g->compile),
                                        path_basename(g->file), g->detail ? g->detail : reason_name(g->reason))
                            : xstrdup(g->detail ? g->detail : reason_name(g->reason));
    }
    if (out->reason) return;
    for (size_t i = 1; i < n; i++) {
        const struct sighting *a = all[0], *b = all[i];
        if (!a->redecl_text && !b->redecl_text) continue;
        /* Used early in one TU only (under #if): each TU's row would
         * patch the file its own way. */
        if (!a->redecl_text || !b->redecl_text || a->redecl_offset != b->redecl_offset ||
            strcmp(a->redecl_text, b->redecl_text) != 0) {
            out->reason = REASON_USED_BEFORE_DEFINITION;
            out->detail = xasprintf("TUs %s and %s, which both compile %s, would redeclare it differently above "
                                    "its first use ('%s' at offset %u, '%s' at offset %u), and the file takes "
                                    "one line",
                                    tu_name(tus, a->compile), tu_name(tus, b->compile), path_basename(a->file),
                                    a->redecl_text ? a->redecl_text : "none", a->redecl_offset,
                                    b->redecl_text ? b->redecl_text : "none", b->redecl_offset);
            return;
        }
    }
    const char *spelling = NULL;
    char *problem = rename_problem(all, n, tus, &spelling);
    if (problem) {
        out->reason = REASON_MACRO;
        out->detail = problem;
        return;
    }
    json_t *list = json_array(), *symbols = json_array();
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "defined in %s, which %zu TU%s compile%s: ", path_basename(all[0]->file), n, n == 1 ? "" : "s",
            n == 1 ? "s" : "");
    for (size_t i = 0; i < n; i++) {
        const struct sighting *g = all[i];
        json_array_append_new(list, json_pack("{s:s?, s:s?, s:s}", "source", tus[g->compile].source, "output",
                                              tus[g->compile].output, "symbol", g->symbol));
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(all[k]->symbol, g->symbol);
        if (!seen) json_array_append_new(symbols, json_string(g->symbol));
        sb_addf(&sb, "%s%s (%s)", i ? ", " : "", tu_name(tus, g->compile), g->symbol);
    }
    sb_addf(&sb, "; the attribute goes into %s once and each of them compiles the clones",
            path_basename(all[0]->file));
    json_t *note = note_new(NOTE_INCLUDED_SOURCE, sb_str(&sb));
    json_object_set_new(note, "tus", list);
    json_object_set_new(note, "symbols", symbols);
    json_object_set_new(note, "static", json_boolean(all[0]->is_static));
    if (spelling) json_object_set_new(note, "spelling", json_string(spelling));
    sb_free(&sb);
    out->note = note;
}
