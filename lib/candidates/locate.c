/* locate.c - see locate.h.
 *
 * The TU's function definitions are indexed in two passes: first those in
 * the main file (almost every record names one of them, and computing
 * manglings there is cheap), and only when a name is still unresolved, the
 * definitions in included files (a C++ TU includes thousands of them). */
#include "candidates/locate.h"
#include "candidates/tuargs.h"
#include "capture/compiler.h"
#include "util/demangle.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

struct def_entry {
    CXCursor cursor;
    CXFile file;
    unsigned offset, end_offset, line, end_line;
    int is_template;        /* function template, or member of a class template */
    struct strvec names;    /* manglings (C: also the plain name) */
    char *qualified;        /* "ns::S::m", template arguments left out */
};

/* An error libclang reports in the project's code of a TU the compiler
 * built: the definition holding it is left out, not the whole TU. */
struct code_error {
    CXFile file;
    unsigned offset;
    char *message;
};

/* A file the TU includes, and where the main file includes it (the main
 * file's #include that leads to it, directly or through headers). */
struct inclusion {
    CXFile file;
    unsigned main_offset;
};

struct parsed_tu {
    struct code_error *errors;
    size_t nerrors;
    CXTranslationUnit tu;
    CXFile main_file;
    char *source, *directory;
    int cxx;
    struct def_entry *defs;
    size_t ndefs, cap;
    int indexed_main;       /* first pass done */
    int indexed_includes;   /* second pass done */
    struct inclusion *inclusions;   /* files the TU includes (read once, on demand) */
    size_t ninclusions;
    int read_inclusions;
};

char *cx_take(CXString s)
{
    const char *c = clang_getCString(s);
    char *r = c ? xstrdup(c) : NULL;
    clang_disposeString(s);
    return r;
}

unsigned loc_offset(CXSourceLocation loc, CXFile *file, unsigned *line, unsigned *col)
{
    CXFile f = NULL;
    unsigned l = 0, c = 0, off = 0;
    clang_getExpansionLocation(loc, &f, &l, &c, &off);
    if (file) *file = f;
    if (line) *line = l;
    if (col) *col = c;
    return off;
}

CXTranslationUnit tu_handle(const struct parsed_tu *tu) { return tu->tu; }
int tu_is_cxx(const struct parsed_tu *tu) { return tu->cxx; }
CXFile tu_main_file(const struct parsed_tu *tu) { return tu->main_file; }

int tu_is_main_file(const struct parsed_tu *tu, CXFile file)
{
    return file && clang_File_isEqual(file, tu->main_file);
}

const char *tu_file_text(const struct parsed_tu *tu, CXFile file, size_t *len)
{
    size_t n = 0;
    const char *t = file ? clang_getFileContents(tu->tu, file, &n) : NULL;
    if (len) *len = t ? n : 0;
    return t;
}

/* ---- parsing ---------------------------------------------------------- */

/* Every error in the project's code (not in system headers), for
 * tu_error_within(). */
static void collect_code_errors(struct parsed_tu *t)
{
    unsigned n = clang_getNumDiagnostics(t->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(t->tu, i);
        CXSourceLocation loc = clang_getDiagnosticLocation(d);
        CXFile f = NULL;
        unsigned off = loc_offset(loc, &f, NULL, NULL);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && f && !clang_Location_isInSystemHeader(loc)) {
            t->errors = xrealloc(t->errors, (t->nerrors + 1) * sizeof *t->errors);
            t->errors[t->nerrors].file = f;
            t->errors[t->nerrors].offset = off;
            t->errors[t->nerrors++].message = cx_take(
                clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn));
        }
        clang_disposeDiagnostic(d);
    }
}

const char *tu_error_within(const struct parsed_tu *t, CXFile file, unsigned start, unsigned end)
{
    for (size_t i = 0; i < t->nerrors; i++)
        if (file && clang_File_isEqual(t->errors[i].file, file) && t->errors[i].offset >= start &&
            t->errors[i].offset <= end)
            return t->errors[i].message;
    return NULL;
}

/* 1 when the source is still the one the compiler built successfully: its
 * hash is the compile's. */
static int source_unchanged(const struct compile_row *c, const char *source)
{
    if (!c->source_hash || !*c->source_hash) return 0;
    char *now = hash_file_hex(source);
    int same = now && !strcmp(now, c->source_hash);
    free(now);
    return same;
}

/* The first error clang reports with a location in the project's code
 * (system_headers 0) or in a system header (1), formatted "file:line:col:
 * error: message", or NULL. Errors without a location come from the driver
 * (flags only GCC knows) and do not stop the parse. */
static char *first_source_error(CXTranslationUnit tu, int system_headers)
{
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        CXSourceLocation loc = clang_getDiagnosticLocation(d);
        CXFile f = NULL;
        clang_getExpansionLocation(loc, &f, NULL, NULL, NULL);
        char *msg = NULL;
        if (sev >= CXDiagnostic_Error && f && !clang_Location_isInSystemHeader(loc) == !system_headers)
            msg = cx_take(clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn));
        clang_disposeDiagnostic(d);
        if (msg) return msg;
    }
    return NULL;
}

struct parsed_tu *tu_parse(CXIndex index, const struct compile_row *c, const char *gcc_include, int tolerate_errors,
                           char **error)
{
    *error = NULL;
    char *source = path_absolute(c->source, c->directory);
    if (!file_exists(source)) {
        *error = xasprintf("%s: cannot read the source file", source);
        free(source);
        return NULL;
    }
    struct strvec args = STRVEC_INIT;
    tuargs_build(c->argv, c->directory, c->language, gcc_include, &args);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode rc = clang_parseTranslationUnit2(index, source, (const char *const *)args.v, (int)args.n, NULL,
                                                      0, CXTranslationUnit_KeepGoing, &tu);
    sv_free(&args);
    if (rc != CXError_Success || !tu) {
        *error = xasprintf("%s: libclang could not parse it (error %d)", source, (int)rc);
        free(source);
        return NULL;
    }
    int keep_errors = 0;
    char *err = first_source_error(tu, 0);
    if (!err) {
        /* A system header libclang cannot digest (GCC's libstdc++ is newer
         * than libclang) says nothing about the project's definitions:
         * warn, and go on with the rest of the AST. */
        char *sys = first_source_error(tu, 1);
        if (sys) *error = xasprintf("%s: libclang stumbles on a system header (%s); its functions are located anyway",
                                    source, sys);
        free(sys);
    } else if (tolerate_errors) {
        *error = xasprintf("%s: parsed without the build's flags (from a log): %s", source, err);
        free(err);
    } else if (source_unchanged(c, source)) {
        /* The compiler built this very text: libclang lacks something the
         * compiler has (a GCC extension, a newer library's templates). Only
         * the definitions holding an error are left out. */
        *error = xasprintf("%s: libclang reports errors the compiler did not (%s); the functions holding them "
                           "are left out",
                           source, err);
        free(err);
        keep_errors = 1;
    } else {
        *error = xasprintf("%s: does not parse: %s", source, err);
        free(err);
        clang_disposeTranslationUnit(tu);
        free(source);
        return NULL;
    }
    struct parsed_tu *t = xcalloc(1, sizeof *t);
    t->tu = tu;
    t->source = source;
    t->directory = xstrdup(c->directory);
    t->main_file = clang_getFile(tu, source);
    const char *lang = c->language;
    t->cxx = lang ? !strcmp(lang, "c++") : clang_getCursorLanguage(clang_getTranslationUnitCursor(tu)) ==
                                                CXLanguage_CPlusPlus;
    if (keep_errors) collect_code_errors(t);
    return t;
}

void tu_free(struct parsed_tu *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nerrors; i++) free(t->errors[i].message);
    free(t->errors);
    for (size_t i = 0; i < t->ndefs; i++) {
        sv_free(&t->defs[i].names);
        free(t->defs[i].qualified);
    }
    free(t->defs);
    free(t->inclusions);
    clang_disposeTranslationUnit(t->tu);
    free(t->source);
    free(t->directory);
    free(t);
}

/* ---- included files ---------------------------------------------------- */

static void inclusion_visit(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    struct parsed_tu *t = data;
    if (depth == 0 || tu_is_main_file(t, file)) return;
    for (size_t i = 0; i < t->ninclusions; i++)
        if (clang_File_isEqual(t->inclusions[i].file, file)) return;   /* the first #include counts */
    t->inclusions = xrealloc(t->inclusions, (t->ninclusions + 1) * sizeof *t->inclusions);
    t->inclusions[t->ninclusions].file = file;
    t->inclusions[t->ninclusions++].main_offset = loc_offset(stack[depth - 1], NULL, NULL, NULL);
}

static void read_inclusions(struct parsed_tu *t)
{
    if (t->read_inclusions) return;
    t->read_inclusions = 1;
    clang_getInclusions(t->tu, inclusion_visit, t);
}

int tu_include_offset(struct parsed_tu *t, CXFile file, unsigned *offset)
{
    read_inclusions(t);
    for (size_t i = 0; i < t->ninclusions; i++)
        if (clang_File_isEqual(t->inclusions[i].file, file)) {
            *offset = t->inclusions[i].main_offset;
            return 1;
        }
    return 0;
}

static char *included_file_path(struct parsed_tu *t, CXFile file, const char *name);

void tu_included_sources(struct parsed_tu *t, struct strvec *out)
{
    read_inclusions(t);
    for (size_t i = 0; i < t->ninclusions; i++) {
        CXFile f = t->inclusions[i].file;
        if (clang_Location_isInSystemHeader(clang_getLocationForOffset(t->tu, f, 0))) continue;
        char *name = cx_take(clang_getFileName(f));
        if (name && compile_language_of(name) && !path_is_header(name)) {
            char *abs = included_file_path(t, f, name);
            if (!sv_contains(out, abs)) sv_push(out, abs);
            free(abs);
        }
        free(name);
    }
}

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

/* The absolute path of a file of the TU. A header's name may hold ".."
 * after a symbolic link: libclang finds libstdc++ as
 * "/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/..." where
 * /lib links to /usr/lib, so removing ".." by text gives /include/c++/12
 * (wrong); the file system resolves it. The TU's own file keeps its
 * textual path: it must match the compile's source and the project root. */
static char *included_file_path(struct parsed_tu *t, CXFile file, const char *name)
{
    if (!tu_is_main_file(t, file) && strstr(name, "/..")) {
        char *joined = name[0] == '/' ? xstrdup(name) : path_join(t->directory, name);
        char *real = realpath(joined, NULL);
        free(joined);
        if (real) return real;
    }
    return path_absolute(name, t->directory);
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
    out->file = included_file_path(t, d->file, name ? name : "");
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

char *text_identifier_at(const char *text, size_t len, unsigned off)
{
    if (!text || off >= len) return NULL;
    size_t n = 0;
    while (off + n < len && (text[off + n] == '_' || (text[off + n] >= 'a' && text[off + n] <= 'z') ||
                             (text[off + n] >= 'A' && text[off + n] <= 'Z') ||
                             (n > 0 && text[off + n] >= '0' && text[off + n] <= '9')))
        n++;
    return n ? xstrndup(text + off, n) : NULL;
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

char *locate_static_macro(struct parsed_tu *t, const struct fn_def *def)
{
    if (def->match != DEF_FOUND || clang_getCursorLinkage(def->cursor) != CXLinkage_Internal) return NULL;
    if (def->symbol && strstr(def->symbol, "_GLOBAL__N_")) return NULL;   /* C++ anonymous namespace */
    /* The head as it stands in the file (a range of macro locations gives
     * libclang no tokens). */
    CXFile f = NULL;
    unsigned name_at = loc_offset(clang_getCursorLocation(def->cursor), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, def->cxfile) || name_at <= def->offset) return NULL;
    CXSourceRange head = clang_getRange(clang_getLocationForOffset(t->tu, f, def->offset),
                                        clang_getLocationForOffset(t->tu, f, name_at));
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(t->tu, head, &toks, &n);
    char *macro = NULL;
    int has_static = 0;
    for (unsigned i = 0; i < n && !has_static; i++) {
        char *sp = cx_take(clang_getTokenSpelling(t->tu, toks[i]));
        if (sp && !strcmp(sp, "static")) has_static = 1;
        else if (!macro && sp && clang_getTokenKind(toks[i]) == CXToken_Identifier) macro = xstrdup(sp);
        free(sp);
    }
    if (toks) clang_disposeTokens(t->tu, toks, n);
    if (has_static || !macro) {   /* written out, or an anonymous namespace (no word for it) */
        free(macro);
        return NULL;
    }
    return macro;
}

/* ---- uses of a function ------------------------------------------------ */

struct use_walk {
    CXCursor target;          /* the function's canonical declaration */
    CXFile file;              /* where a use counts ... */
    unsigned limit;           /* ... in a top-level declaration starting before this offset */
    CXCursor top;             /* the top-level declaration walked */
    struct use_site *v;
    size_t n, cap;
};

static enum CXChildVisitResult use_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct use_walk *u = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    /* Declarations (the prototype, the definition) are not uses; calls,
     * address-taking and initializers are references. */
    if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr || k == CXCursor_OverloadedDeclRef) {
        CXCursor ref = clang_getCursorReferenced(c);
        if (!clang_Cursor_isNull(ref) && clang_equalCursors(clang_getCanonicalCursor(ref), u->target)) {
            CXFile f = NULL;
            unsigned line = 0;
            unsigned off = loc_offset(clang_getCursorLocation(c), &f, &line, NULL);
            if (f && clang_File_isEqual(f, u->file)) {
                if (u->n == u->cap) u->v = xrealloc(u->v, (u->cap = u->cap ? 2 * u->cap : 8) * sizeof *u->v);
                u->v[u->n++] = (struct use_site){off, line, u->top};
            }
        }
    }
    return CXChildVisit_Recurse;
}

/* Only the top-level declarations of u->file that start before u->limit
 * can hold a use there: the rest of the TU (system headers) is skipped. */
static enum CXChildVisitResult use_top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    struct use_walk *u = data;
    CXFile f = NULL;
    unsigned off = loc_offset(clang_getRangeStart(clang_getCursorExtent(c)), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, u->file) || off >= u->limit) return CXChildVisit_Continue;
    u->top = c;
    use_visit(c, parent, data);
    clang_visitChildren(c, use_visit, u);
    return CXChildVisit_Continue;
}

size_t locate_uses(struct parsed_tu *tu, CXCursor target, CXFile file, unsigned limit, struct use_site **out)
{
    struct use_walk u = {clang_getCanonicalCursor(target), file, limit, clang_getNullCursor(), NULL, 0, 0};
    clang_visitChildren(clang_getTranslationUnitCursor(tu->tu), use_top_visit, &u);
    *out = u.v;
    return u.n;
}
