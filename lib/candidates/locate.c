/* locate.c - see locate.h: the index of the TU's function definitions,
 * and resolving a record's name or position to one of them.
 *
 * The TU's function definitions are indexed in two passes: first those in
 * the main file (almost every record names one of them, and computing
 * manglings there is cheap), and only when a name is still unresolved, the
 * definitions in included files (a C++ TU includes thousands of them). */
#include "candidates/locate.h"
#include "candidates/tu_internal.h"
#include "util/demangle.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* ---- the index of definitions ----------------------------------------- */

static int is_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction || k == CXCursor_FunctionTemplate;
}

static int is_container_kind(enum CXCursorKind k)
{
    return k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl ||
           k == CXCursor_ClassDecl || k == CXCursor_StructDecl || k == CXCursor_UnionDecl ||
           k == CXCursor_ClassTemplate || k == CXCursor_ClassTemplatePartialSpecialization;
}

static int is_class_template_kind(enum CXCursorKind k)
{
    return k == CXCursor_ClassTemplate || k == CXCursor_ClassTemplatePartialSpecialization;
}

/* "ns::S" for the scopes around c (namespaces and classes), "" at file scope. */
static void append_scope(CXCursor c, struct strbuf *sb)
{
    CXCursor p = clang_getCursorSemanticParent(c);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (clang_Cursor_isNull(p) || k == CXCursor_TranslationUnit || clang_isInvalid(k)) return;
    append_scope(p, sb);
    if (k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl) return;
    char *name = cx_take(clang_getCursorSpelling(p));
    if (k == CXCursor_Namespace && (!name || !*name || clang_Cursor_isAnonymous(p))) {
        free(name);
        name = xstrdup("(anonymous namespace)");
    }
    if (name && *name) {
        sb_adds(sb, name);
        sb_adds(sb, "::");
    }
    free(name);
}

static int in_class_template(CXCursor c)
{
    for (CXCursor p = clang_getCursorSemanticParent(c); !clang_Cursor_isNull(p);
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_TranslationUnit || clang_isInvalid(k)) break;
        if (is_class_template_kind(k)) return 1;
    }
    return 0;
}

static void add_def(struct parsed_tu *t, CXCursor c, CXFile file)
{
    if (t->ndefs == t->cap) t->defs = xrealloc(t->defs, (t->cap = t->cap ? t->cap * 2 : 64) * sizeof *t->defs);
    struct def_entry *d = &t->defs[t->ndefs++];
    memset(d, 0, sizeof *d);
    d->cursor = c;
    d->file = file;
    CXSourceRange r = clang_getCursorExtent(c);
    d->offset = loc_offset(clang_getRangeStart(r), NULL, &d->line, NULL);
    d->end_offset = loc_offset(clang_getRangeEnd(r), NULL, &d->end_line, NULL);
    enum CXCursorKind k = clang_getCursorKind(c);
    d->is_template = k == CXCursor_FunctionTemplate || in_class_template(c);
    struct strbuf q = STRBUF_INIT;
    append_scope(c, &q);
    char *spelling = cx_take(clang_getCursorSpelling(c));
    sb_adds(&q, spelling ? spelling : "");
    d->qualified = sb_detach(&q);
    if (!t->cxx && spelling) sv_push(&d->names, spelling);
    free(spelling);
    if (d->is_template) return;   /* a template has no symbol; its instances are matched by name */
    if (k == CXCursor_Constructor || k == CXCursor_Destructor) {
        /* Complete- and base-object variants (C1/C2, D0/D1/D2). */
        CXStringSet *set = clang_Cursor_getCXXManglings(c);
        for (unsigned i = 0; set && i < set->Count; i++) sv_push(&d->names, clang_getCString(set->Strings[i]));
        if (set) clang_disposeStringSet(set);
    } else {
        char *m = cx_take(clang_Cursor_getMangling(c));
        if (m && *m && !sv_contains(&d->names, m)) sv_push(&d->names, m);
        free(m);
    }
}

struct index_pass {
    struct parsed_tu *tu;
    int includes;   /* 0: main-file definitions; 1: those of included files */
};

static enum CXChildVisitResult index_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct index_pass *pass = data;
    CXFile file = NULL;
    loc_offset(clang_getCursorLocation(c), &file, NULL, NULL);
    if (!file) return CXChildVisit_Continue;
    int in_main = tu_is_main_file(pass->tu, file);
    enum CXCursorKind k = clang_getCursorKind(c);
    if (is_container_kind(k)) {
        /* A scope opened in the main file holds main-file definitions, and
         * one opened in a header holds the header's. */
        return in_main == !pass->includes ? CXChildVisit_Recurse : CXChildVisit_Continue;
    }
    if (in_main == !pass->includes && is_function_kind(k) && clang_isCursorDefinition(c))
        add_def(pass->tu, c, file);
    return CXChildVisit_Continue;
}

static void index_pass(struct parsed_tu *t, int includes)
{
    struct index_pass pass = {t, includes};
    clang_visitChildren(clang_getTranslationUnitCursor(t->tu), index_visit, &pass);
}

static void ensure_main_index(struct parsed_tu *t)
{
    if (t->indexed_main) return;
    t->indexed_main = 1;
    index_pass(t, 0);
}

static void ensure_include_index(struct parsed_tu *t)
{
    ensure_main_index(t);
    if (t->indexed_includes) return;
    t->indexed_includes = 1;
    index_pass(t, 1);
}

/* ---- filling a result ------------------------------------------------- */

/* 1 when text[from, to) can only be the start of the same declaration:
 * identifiers (macros), attribute syntax, comments - nothing that ends or
 * opens something else (';', '{', '}') and no string outside parentheses
 * (extern "C"). */
static int declaration_prefix(const char *text, unsigned from, unsigned to)
{
    int depth = 0;
    for (unsigned i = from; i < to; i++) {
        char ch = text[i];
        if (i + 1 < to && ch == '/' && text[i + 1] == '*') {
            const char *end = strstr(text + i + 2, "*/");
            if (!end || (unsigned)(end - text) + 2 > to) return 0;
            i = (unsigned)(end - text) + 1;
            continue;
        }
        if (ch == '(' || ch == '[') depth++;
        else if ((ch == ')' || ch == ']') && depth > 0) depth--;
        else if (ch == ';' || ch == '{' || ch == '}' || ch == '#' || (ch == '"' && depth == 0)) return 0;
        else if (ch == '/' && i + 1 < to && text[i + 1] == '/') return 0;
    }
    return 1;
}

struct attr_scan {
    CXFile file;
    unsigned before;        /* only attributes starting before this offset */
    unsigned starts[32], ends[32];
    int n;
};

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct attr_scan *s = data;
    if (!clang_isAttribute(clang_getCursorKind(c)) || s->n == 32) return CXChildVisit_Continue;
    CXSourceRange r = clang_getCursorExtent(c);
    CXFile f = NULL;
    unsigned start = loc_offset(clang_getRangeStart(r), &f, NULL, NULL);
    unsigned end = loc_offset(clang_getRangeEnd(r), NULL, NULL, NULL);
    if (f && clang_File_isEqual(f, s->file) && start < s->before) {
        s->starts[s->n] = start;
        s->ends[s->n++] = end;
    }
    return CXChildVisit_Continue;
}

/* Moves *start back over attributes written before the extent libclang
 * reports (it leaves out [[gnu::...]], some leading __attribute__s, and an
 * attribute macro on the line above). An attribute inherited from an
 * earlier declaration is not adjacent: a ';' or '}' stands between them,
 * and it is left alone. */
static unsigned extend_over_attributes(CXCursor c, CXFile file, const char *text, unsigned start)
{
    struct attr_scan s = {.file = file, .before = start};
    clang_visitChildren(c, attr_visit, &s);
    for (int moved = 1; moved;) {
        moved = 0;
        for (int i = 0; i < s.n; i++) {
            if (s.starts[i] < start && s.ends[i] <= start && declaration_prefix(text, s.ends[i], start)) {
                start = s.starts[i];
                moved = 1;
            }
        }
    }
    return start;
}

static char *display_name_of(const struct parsed_tu *t, CXCursor c)
{
    if (!t->cxx) return cx_take(clang_getCursorSpelling(c));
    struct strbuf sb = STRBUF_INIT;
    append_scope(c, &sb);
    char *dn = cx_take(clang_getCursorDisplayName(c));
    sb_adds(&sb, dn ? dn : "");
    free(dn);
    return sb_detach(&sb);
}

static void fill_from_entry(struct parsed_tu *t, const struct def_entry *d, enum def_match match,
                            const char *symbol, struct fn_def *out)
{
    out->match = match;
    out->cursor = d->cursor;
    out->cxfile = d->file;
    out->symbol = xstrdup(symbol);
    if (!out->display_name) out->display_name = display_name_of(t, d->cursor);
    char *name = cx_take(clang_getFileName(d->file));
    out->file = tu_file_path(t, d->file, name ? name : "");
    free(name);

    CXSourceRange r = clang_getCursorExtent(d->cursor);
    out->offset = loc_offset(clang_getRangeStart(r), NULL, &out->line, &out->col);
    out->end_offset = loc_offset(clang_getRangeEnd(r), NULL, &out->end_line, &out->end_col);
    size_t len = 0;
    const char *text = tu_file_text(t, d->file, &len);
    unsigned first = out->offset;
    if (text && first <= len) first = extend_over_attributes(d->cursor, d->file, text, first);
    /* The insert line is the line of the first token: back to just after
     * the previous '\n' (so a CRLF file keeps its "\r\n" before it). */
    unsigned ls = first;
    if (text && first <= len) {
        while (ls > 0 && text[ls - 1] != '\n') ls--;
        unsigned lines = 1;
        for (unsigned i = 0; i < ls; i++) lines += text[i] == '\n';
        out->insert_line = lines;
        /* "[[gnu::hot]]" starts before its attribute's extent, and API
         * macros that expand to nothing or to attributes ("LZ4LIB_API int
         * f(...)") leave no trace in the AST: both are still the
         * definition. Code that ends something else is not. */
        if (!declaration_prefix(text, ls, first)) out->shared_line_prefix = xstrndup(text + ls, first - ls);
        if (first < out->offset) {
            out->line = lines;
            out->col = first - ls + 1;
            out->offset = first;
        }
    } else {
        out->insert_line = out->line;
        ls = out->offset - (out->col ? out->col - 1 : 0);
    }
    out->insert_offset = ls;
}

/* ---- resolving --------------------------------------------------------- */

static const struct def_entry *find_symbol(struct parsed_tu *t, const char *symbol, size_t from)
{
    for (size_t i = from; i < t->ndefs; i++)
        if (sv_contains(&t->defs[i].names, symbol)) return &t->defs[i];
    return NULL;
}

/* demangled without template argument lists: "void tadd<int>(int*, int)"
 * -> "void tadd(int*, int)", "V<int>::sum() const" -> "V::sum() const". */
static char *strip_template_args(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    int depth = 0;
    for (const char *p = s; *p; p++) {
        /* operator<, operator<<, operator<= are names, not argument lists. */
        if (!strncmp(p, "operator", 8)) {
            const char *q = p + 8;
            size_t n = strspn(q, "<>=");
            if (depth == 0) sb_add(&sb, p, 8 + n);
            p = q + n - 1;
            continue;
        }
        if (*p == '<') depth++;
        else if (*p == '>' && depth > 0) depth--;
        else if (depth == 0) sb_addc(&sb, *p);
    }
    return sb_detach(&sb);
}

/* The template whose instance demangled names: the longest qualified name
 * that appears as a whole name followed by its parameter list. */
static const struct def_entry *find_template(struct parsed_tu *t, const char *demangled)
{
    char *plain = strip_template_args(demangled);
    const struct def_entry *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < t->ndefs; i++) {
        const struct def_entry *d = &t->defs[i];
        if (!d->is_template || !d->qualified || !*d->qualified) continue;
        size_t n = strlen(d->qualified);
        if (n <= best_len) continue;
        for (const char *p = strstr(plain, d->qualified); p; p = strstr(p + 1, d->qualified)) {
            int starts_name = p == plain || strchr(" *&", p[-1]);
            if (starts_name && p[n] == '(') {
                best = d;
                best_len = n;
                break;
            }
        }
    }
    free(plain);
    return best;
}

enum def_match locate_by_name(struct parsed_tu *t, const char *function, struct fn_def *out)
{
    memset(out, 0, sizeof *out);
    char *symbol = xstrndup(function, symbol_base_length(function));
    ensure_main_index(t);
    size_t main_count = t->ndefs;
    const struct def_entry *d = find_symbol(t, symbol, 0);
    if (!d) {
        ensure_include_index(t);
        d = find_symbol(t, symbol, main_count);
    }
    if (d) {
        fill_from_entry(t, d, DEF_FOUND, symbol, out);
        free(symbol);
        return out->match;
    }
    char *demangled = symbol_demangle(symbol);
    out->symbol = symbol;
    out->display_name = demangled ? demangled : xstrdup(symbol);
    /* GCC and Clang (inline context) mangle a lambda as "{lambda(int)#1}";
     * Clang names one in a non-inline function "$_0". */
    if (demangled && (strstr(demangled, "{lambda(") || (strstr(demangled, "::$_") && strstr(demangled, "operator()")))) {
        out->match = DEF_LAMBDA;
        return out->match;
    }
    const struct def_entry *tmpl = demangled ? find_template(t, demangled) : NULL;
    if (tmpl) {
        out->symbol = NULL;
        fill_from_entry(t, tmpl, DEF_TEMPLATE, symbol, out);
        free(symbol);
    }
    return out->match;
}

enum def_match locate_by_line(struct parsed_tu *t, const char *file, int line, struct fn_def *out)
{
    memset(out, 0, sizeof *out);
    if (!file || line <= 0) return DEF_NOT_FOUND;
    char *abs = path_absolute(file, t->directory);
    CXFile f = clang_getFile(t->tu, abs);
    free(abs);
    if (!f) return DEF_NOT_FOUND;
    ensure_main_index(t);
    if (!tu_is_main_file(t, f)) ensure_include_index(t);
    const struct def_entry *best = NULL;
    for (size_t i = 0; i < t->ndefs; i++) {
        const struct def_entry *d = &t->defs[i];
        if (!clang_File_isEqual(d->file, f) || (unsigned)line < d->line || (unsigned)line > d->end_line) continue;
        if (!best || d->offset > best->offset) best = d;   /* innermost */
    }
    if (!best) return DEF_NOT_FOUND;
    const char *symbol = best->names.n ? best->names.v[0] : best->qualified;
    fill_from_entry(t, best, best->is_template ? DEF_TEMPLATE : DEF_FOUND, symbol, out);
    return out->match;
}

void fn_def_free(struct fn_def *d)
{
    if (!d) return;
    free(d->symbol);
    free(d->display_name);
    free(d->file);
    free(d->shared_line_prefix);
    memset(d, 0, sizeof *d);
}

int fn_def_same(const struct fn_def *a, const struct fn_def *b)
{
    if (!a->cxfile || !b->cxfile) return 0;
    if (!clang_File_isEqual(a->cxfile, b->cxfile) || a->offset != b->offset) return 0;
    /* One text, two definitions: a header included twice with another
     * function name each time (libdeflate's decompress_template.h) gives
     * two declarations at the same offset. Each is its own row. */
    if (!clang_Cursor_isNull(a->cursor) && !clang_Cursor_isNull(b->cursor))
        return clang_equalCursors(a->cursor, b->cursor);
    return 1;
}

size_t locate_defs_in_file(struct parsed_tu *t, const char *path, struct fn_def **out)
{
    *out = NULL;
    CXFile f = clang_getFile(t->tu, path);
    if (!f) return 0;
    ensure_include_index(t);
    size_t n = 0;
    for (size_t i = 0; i < t->ndefs; i++) {
        const struct def_entry *d = &t->defs[i];
        if (!clang_File_isEqual(d->file, f)) continue;
        *out = xrealloc(*out, (n + 1) * sizeof **out);
        memset(&(*out)[n], 0, sizeof **out);
        const char *symbol = d->names.n ? d->names.v[0] : d->qualified;
        fill_from_entry(t, d, d->is_template ? DEF_TEMPLATE : DEF_FOUND, symbol ? symbol : "", &(*out)[n]);
        n++;
    }
    return n;
}

int locate_name_spelling(struct parsed_tu *t, const struct fn_def *def, char **spelled)
{
    *spelled = NULL;
    CXFile f = NULL;
    unsigned off = 0;
    clang_getExpansionLocation(clang_getCursorLocation(def->cursor), &f, NULL, NULL, &off);
    size_t len = 0;
    const char *text = tu_file_text(t, f, &len);
    *spelled = text_identifier_at(text, len, off);
    char *name = cx_take(clang_getCursorSpelling(def->cursor));
    int same = *spelled && name && !strcmp(*spelled, name);
    free(name);
    return same;
}

/* The words of a declaration's head, from start (an offset in f) up to the
 * name at name_at (its token left out: a range's end token is included):
 * whether "static" is one, and the first identifier (*ident, caller frees). */
static int head_has_static(struct parsed_tu *t, CXFile f, unsigned start, unsigned name_at, char **ident)
{
    *ident = NULL;
    if (name_at <= start) return 0;
    CXSourceRange head = clang_getRange(clang_getLocationForOffset(t->tu, f, start),
                                        clang_getLocationForOffset(t->tu, f, name_at));
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(t->tu, head, &toks, &n);
    int has_static = 0;
    for (unsigned i = 0; i < n && !has_static; i++) {
        if (loc_offset(clang_getTokenLocation(t->tu, toks[i]), NULL, NULL, NULL) >= name_at) break;
        char *sp = cx_take(clang_getTokenSpelling(t->tu, toks[i]));
        if (sp && !strcmp(sp, "static")) has_static = 1;
        else if (!*ident && sp && clang_getTokenKind(toks[i]) == CXToken_Identifier) *ident = xstrdup(sp);
        free(sp);
    }
    if (toks) clang_disposeTokens(t->tu, toks, n);
    if (has_static) {
        free(*ident);
        *ident = NULL;
    }
    return has_static;
}

char *locate_static_hidden(struct parsed_tu *t, const struct fn_def *def)
{
    if (def->match != DEF_FOUND || clang_getCursorLinkage(def->cursor) != CXLinkage_Internal) return NULL;
    if (def->symbol && strstr(def->symbol, "_GLOBAL__N_")) return NULL;   /* C++ anonymous namespace */
    /* The head as it stands in the file (a range of macro locations gives
     * libclang no tokens). */
    CXFile f = NULL;
    unsigned name_at = loc_offset(clang_getCursorLocation(def->cursor), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, def->cxfile) || name_at <= def->offset) return NULL;
    char *macro = NULL;
    if (head_has_static(t, f, def->offset, name_at, &macro)) return NULL;   /* written out */
    /* C: the first declaration said static, the definition need not
     * ("static T f(void); ... T f(void) {...}": libsamplerate). */
    CXCursor first = clang_getCanonicalCursor(def->cursor);
    if (!clang_equalCursors(first, def->cursor)) {
        CXFile ff = NULL;
        unsigned line = 0;
        unsigned at = loc_offset(clang_getCursorLocation(first), &ff, &line, NULL);
        unsigned from = loc_offset(clang_getRangeStart(clang_getCursorExtent(first)), NULL, NULL, NULL);
        char *ident = NULL;
        if (ff && head_has_static(t, ff, from, at, &ident)) {
            free(macro);
            char *name = cx_take(clang_getFileName(ff));
            char *d = clang_File_isEqual(ff, def->cxfile)
                          ? xasprintf(LOCATE_STATIC_EARLIER "line %u, before its definition (line %u), which does not "
                                      "repeat 'static': the patch marks it FMVGEN_CLONES_STATIC", line, def->line)
                          : xasprintf(LOCATE_STATIC_EARLIER "%s:%u, before its definition (line %u), which does not "
                                      "repeat 'static': the patch marks it FMVGEN_CLONES_STATIC",
                                      name ? path_basename(name) : "?", line, def->line);
            free(name);
            return d;
        }
        free(ident);
    }
    if (!macro) return NULL;   /* an anonymous namespace (no word for it) */
    char *d = xasprintf("internal linkage through the macro %s: the patch marks it FMVGEN_CLONES_STATIC", macro);
    free(macro);
    return d;
}
