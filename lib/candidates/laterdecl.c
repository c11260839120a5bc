/* laterdecl.c - see laterdecl.h. The declarations come from one walk of
 * the TU per parse (file-scope declarations everywhere, block-scope ones in
 * the bodies of the project's files), kept with the TU; a query filters
 * them by the function's canonical cursor and position. */
#include "candidates/laterdecl.h"
#include "candidates/tu_internal.h"
#include "store/notes.h"
#include "util/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct later_entry {
    CXCursor cursor, canonical;
    CXFile file;
    unsigned offset, line;   /* the declaration's first token (expansion) */
    int block;               /* inside a function body */
};

struct later_index {
    struct later_entry *v;
    size_t n, cap;
};

struct later_walk {
    struct parsed_tu *tu;
    struct later_index *ix;
};

static void add_entry(struct later_walk *w, CXCursor c, int block)
{
    if (clang_isCursorDefinition(c)) return;
    CXFile f = NULL;
    unsigned line = 0;
    unsigned off = loc_offset(clang_getRangeStart(clang_getCursorExtent(c)), &f, &line, NULL);
    if (!f) return;
    struct later_index *ix = w->ix;
    if (ix->n == ix->cap) ix->v = xrealloc(ix->v, (ix->cap = ix->cap ? 2 * ix->cap : 64) * sizeof *ix->v);
    ix->v[ix->n++] = (struct later_entry){c, clang_getCanonicalCursor(c), f, off, line, block};
}

static enum CXChildVisitResult body_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl) add_entry(data, c, 1);
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct later_walk *w = data;
    switch (clang_getCursorKind(c)) {
    case CXCursor_FunctionDecl:
        if (!clang_isCursorDefinition(c)) add_entry(w, c, 0);
        else if (!clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
            clang_visitChildren(c, body_visit, w);   /* block-scope declarations */
        return CXChildVisit_Continue;
    case CXCursor_LinkageSpec:
    case CXCursor_Namespace:
    case CXCursor_UnexposedDecl:   /* libclang 14's extern "C" */
        return CXChildVisit_Recurse;
    default:
        return CXChildVisit_Continue;
    }
}

static struct later_index *index_of(struct parsed_tu *tu)
{
    if (tu->later_decls) return tu->later_decls;
    tu->later_decls = xcalloc(1, sizeof *tu->later_decls);
    struct later_walk w = {tu, tu->later_decls};
    clang_visitChildren(clang_getTranslationUnitCursor(tu->tu), top_visit, &w);
    return tu->later_decls;
}

void laterdecl_index_free(struct parsed_tu *tu)
{
    if (!tu->later_decls) return;
    free(tu->later_decls->v);
    free(tu->later_decls);
    tu->later_decls = NULL;
}

/* ---- one declaration ----------------------------------------------------- */

static int is_ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static unsigned line_at(const char *text, size_t offset)
{
    unsigned line = 1;
    for (size_t i = 0; i < offset; i++) line += text[i] == '\n';
    return line;
}

/* Where e stands in the TU's main file: its own offset there, else the
 * offset of the #include that brings its file in (UINT_MAX: none). */
static unsigned main_position(struct parsed_tu *tu, CXFile file, unsigned offset)
{
    if (tu_is_main_file(tu, file)) return offset;
    unsigned at = 0;
    return tu_include_offset(tu, file, &at) ? at : UINT_MAX;
}

/* 1 when e comes after def's definition in the TU. */
static int is_below(struct parsed_tu *tu, const struct fn_def *def, const struct later_entry *e)
{
    if (clang_File_isEqual(e->file, def->cxfile)) return e->offset > def->end_offset;
    unsigned def_at = main_position(tu, def->cxfile, def->offset);
    unsigned e_at = main_position(tu, e->file, e->offset);
    return def_at != UINT_MAX && e_at != UINT_MAX && e_at > def_at;
}

/* Why the attribute line cannot go just above e, a declaration in def's
 * own file, or NULL: e's line start is then where it goes (*start). */
static const char *cannot_take_line(struct parsed_tu *tu, const struct fn_def *def, const struct later_entry *e,
                                    size_t *start)
{
    size_t len = 0;
    const char *text = tu_file_text(tu, e->file, &len);
    if (!text || e->offset >= len) return "its text cannot be read";
    /* a macro writes it: the name is not at the declaration's place */
    char *name = cx_take(clang_getCursorSpelling(def->cursor));
    unsigned name_at = loc_offset(clang_getCursorLocation(e->cursor), NULL, NULL, NULL);
    size_t nlen = name ? strlen(name) : 0;
    int named = name && name_at + nlen <= len && !strncmp(text + name_at, name, nlen) &&
                (name_at + nlen == len || !is_ident_char(text[name_at + nlen])) &&
                (name_at == 0 || !is_ident_char(text[name_at - 1]));
    free(name);
    if (!named) return "a macro writes it, and the line would attribute what the macro writes first";
    size_t s = e->offset;
    while (s > 0 && (text[s - 1] == ' ' || text[s - 1] == '\t')) s--;
    if (s > 0 && text[s - 1] != '\n') return "other code comes before it on its line";
    if ((s >= 2 && text[s - 2] == '\\') || (s >= 3 && text[s - 2] == '\r' && text[s - 3] == '\\'))
        return "the line before it continues onto its line";
    /* one declaration of one name, ended by ';' */
    CXSourceRange r = clang_getCursorExtent(e->cursor);
    unsigned end = loc_offset(clang_getRangeEnd(r), NULL, NULL, NULL);
    while (end < len && (text[end] == ' ' || text[end] == '\t')) end++;
    if (end < len && text[end] == ',') return "it declares more than one name";
    if (end >= len || text[end] != ';') return "it is not ended by ';' right after it";
    CXTranslationUnit t = tu_handle(tu);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(t, r, &toks, &n);
    const char *why = NULL;
    int depth = 0;
    for (unsigned i = 0; i < n && !why; i++) {
        char *sp = cx_take(clang_getTokenSpelling(t, toks[i]));
        if (!sp) continue;
        if (!strcmp(sp, "(") || !strcmp(sp, "[")) depth++;
        else if ((!strcmp(sp, ")") || !strcmp(sp, "]")) && depth > 0) depth--;
        else if (!strcmp(sp, ",") && depth == 0) why = "it declares more than one name";
        if (i == 0 && !strcmp(sp, "[") && n > 1) why = "it starts with an attribute list [[...]], before which the "
                                                       "attribute cannot go";
        if (i == 1 && clang_getTokenKind(toks[i]) == CXToken_Literal)
            why = "it starts with extern \"C\", before which the attribute cannot go";
        free(sp);
    }
    if (toks) clang_disposeTokens(t, toks, n);
    *start = s;
    return why;
}

/* The declarations of def below its definition that matter (a block-scope
 * one of an external function does not), in TU order. */
static size_t later_of(struct parsed_tu *tu, const struct fn_def *def, const struct later_entry ***out)
{
    *out = NULL;
    if (def->match != DEF_FOUND || clang_getCursorKind(def->cursor) != CXCursor_FunctionDecl) return 0;
    const struct later_index *ix = index_of(tu);
    CXCursor canonical = clang_getCanonicalCursor(def->cursor);
    enum CXLinkageKind link = clang_getCursorLinkage(def->cursor);
    int is_static = link == CXLinkage_Internal || link == CXLinkage_UniqueExternal;
    const struct later_entry **v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < ix->n; i++) {
        const struct later_entry *e = &ix->v[i];
        if (!clang_equalCursors(e->canonical, canonical) || (e->block && !is_static) || !is_below(tu, def, e))
            continue;
        v = xrealloc(v, (n + 1) * sizeof *v);
        v[n++] = e;
    }
    *out = v;
    return n;
}

/* Why no attribute line can go above one of v[0..n), def's declarations
 * below it (the first such, named by file and line), or NULL. */
static char *no_line_for(struct parsed_tu *tu, const struct fn_def *def, const struct later_entry **v, size_t n)
{
    char *why = NULL;
    for (size_t i = 0; i < n && !why; i++) {
        const struct later_entry *e = v[i];
        char *path = cx_take(clang_getFileName(e->file));
        const char *fname = path ? path_basename(path) : "?";
        char *reason = NULL;
        size_t start = 0;
        const char *cannot = NULL;
        if (!clang_File_isEqual(e->file, def->cxfile)) {
            unsigned at = 0;
            size_t len = 0;
            const char *text = tu_file_text(tu, def->cxfile, &len);
            int system = clang_Location_isInSystemHeader(clang_getCursorLocation(e->cursor));
            if (tu_is_main_file(tu, def->cxfile) && tu_include_offset(tu, e->file, &at) && text && at <= len)
                reason = xasprintf("%s, #included at line %u below the definition, is %s", fname, line_at(text, at),
                                   system ? "a system header, which no patch can change"
                                          : "not the file that defines it, and fmvgen patches only that file");
            else
                reason = xasprintf("%s is not the file that defines it, and fmvgen patches only that file", fname);
        } else if (!tu_is_main_file(tu, def->cxfile)) {
            reason = xstrdup("its definition is in a file TUs #include, where each TU would need the line its own way");
        } else if ((cannot = cannot_take_line(tu, def, e, &start))) {
            reason = xstrdup(cannot);
        }
        if (reason)
            why = xasprintf("declared again at line %u of %s, below its definition (line %u), and no attribute line "
                            "can go above that declaration: %s", e->line, fname, def->line, reason);
        free(reason);
        free(path);
    }
    return why;
}

char *laterdecl_excluded(struct parsed_tu *tu, const struct fn_def *def)
{
    if (tu_is_main_file(tu, def->cxfile)) return NULL;   /* its note says what the patch does */
    const struct later_entry **v = NULL;
    size_t n = later_of(tu, def, &v);
    char *why = no_line_for(tu, def, v, n);
    free(v);
    if (!why) return NULL;
    char *r = xasprintf("%s (clang takes a declaration without target_clones after a multi-versioned definition "
                        "for another function: calls become ambiguous)", why);
    free(why);
    return r;
}

json_t *laterdecl_note(struct parsed_tu *tu, const struct fn_def *def)
{
    if (!tu_is_main_file(tu, def->cxfile)) return NULL;
    const struct later_entry **v = NULL;
    size_t n = later_of(tu, def, &v);
    json_t *lines = json_array();
    struct strbuf at = STRBUF_INIT;
    int ok = n > 0;
    size_t len = 0;
    const char *text = tu_file_text(tu, def->cxfile, &len);
    for (size_t i = 0; i < n && ok; i++) {
        size_t start = 0;
        ok = clang_File_isEqual(v[i]->file, def->cxfile) && text && !cannot_take_line(tu, def, v[i], &start);
        if (!ok) break;
        unsigned line = line_at(text, start);
        json_array_append_new(lines, json_pack("{s:I, s:I, s:b}", "offset", (json_int_t)start, "line",
                                               (json_int_t)line, "block", v[i]->block));
        sb_addf(&at, "%s%u", i ? ", " : "", line);
    }
    char *plain = ok || !n ? NULL : no_line_for(tu, def, v, n);
    free(v);
    json_t *note = NULL;
    if (plain) {
        char *detail = xasprintf("%s; the patch reaches it through a pointer, whatever the dispatch, so that "
                                 "declaration declares a plain function (clang takes a declaration without "
                                 "target_clones after a multi-versioned definition for another function), and "
                                 "leaves it out where a pointer cannot take it", plain);
        note = note_new(NOTE_DECLARED_LATER, detail);
        json_object_set_new(note, "lines", json_array());
        json_object_set_new(note, "plain", json_string(plain));
        free(detail);
        free(plain);
    } else if (ok) {
        char *detail = xasprintf("declared again below its definition (line %u), at line%s %s: the patch puts the "
                                 "attribute line above each (clang takes a declaration without target_clones after "
                                 "a multi-versioned definition for another function)",
                                 def->line, json_array_size(lines) > 1 ? "s" : "", sb_str(&at));
        note = note_new(NOTE_DECLARED_LATER, detail);
        json_object_set(note, "lines", lines);
        free(detail);
    }
    json_decref(lines);
    sb_free(&at);
    return note;
}
