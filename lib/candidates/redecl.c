/* redecl.c - see redecl.h. The first use comes from locate_uses (an AST
 * walk of the top-level declarations before the definition); the text from
 * libclang's types of the definition; the checks from the definition's
 * references outside its body (TypeRef, TemplateRef, DeclRefExpr, ...),
 * each of whose first declarations must lie above the insertion line. */
#include "candidates/redecl.h"
#include "store/notes.h"
#include "util/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int is_ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ---- the text ---------------------------------------------------------- */

/* A C declarator: type spelled by libclang with name put where C puts it
 * ("int *" a -> "int *a", "int [4]" -> "int a[4]", "void (*)(int)" ->
 * "void (*fn)(int)"). Shapes with other parentheses (typeof(...),
 * attributes) stay abstract: a declaration needs no parameter names. */
static char *declarator(const char *type, const char *name)
{
    if (!name || !*name || strstr(type, "typeof") || strstr(type, "__attribute")) return xstrdup(type);
    const char *at = NULL;
    const char *fp = strstr(type, "(*");
    if (fp) at = strchr(fp, ')');
    else if (strchr(type, '(')) return xstrdup(type);
    else at = strchr(type, '[');
    if (!at) {   /* the name last */
        size_t n = strlen(type);
        return xasprintf("%s%s%s", type, n && type[n - 1] == '*' ? "" : " ", name);
    }
    size_t end = (size_t)(at - type);
    if (!fp)
        while (end > 0 && type[end - 1] == ' ') end--;
    const char *sep = end > 0 && is_ident_char(type[end - 1]) ? " " : "";
    return xasprintf("%.*s%s%s%s", (int)end, type, sep, name, at);
}

/* libclang's spelling of t: as written in C (typedef names kept), the
 * canonical type in C++ (fully qualified: needs no using-directive). */
static char *type_spelling(CXType t, int cxx)
{
    return cx_take(clang_getTypeSpelling(cxx ? clang_getCanonicalType(t) : t));
}

static int unnamed_type(const char *spelling)
{
    return strstr(spelling, "(unnamed") || strstr(spelling, "(anonymous") || strstr(spelling, "(lambda");
}

/* Why def cannot be redeclared at file scope at all (C++ shapes), or NULL. */
static char *cannot_redeclare(struct parsed_tu *tu, const struct fn_def *def)
{
    enum CXCursorKind k = clang_getCursorKind(def->cursor);
    if (k == CXCursor_CXXMethod || k == CXCursor_ConversionFunction || k == CXCursor_Constructor ||
        k == CXCursor_Destructor)
        return xstrdup("a member function can only be redeclared inside its class, which is complete before the "
                       "use");
    if (k != CXCursor_FunctionDecl) return xstrdup("not a plain function declaration");
    if (!tu_is_cxx(tu)) return NULL;
    enum CXCursorKind sem = clang_getCursorKind(clang_getCursorSemanticParent(def->cursor));
    enum CXCursorKind lex = clang_getCursorKind(clang_getCursorLexicalParent(def->cursor));
    /* libclang 14 shows an extern "C" block as an unexposed declaration */
    int in_linkage_spec = sem == CXCursor_LinkageSpec || sem == CXCursor_UnexposedDecl ||
                          lex == CXCursor_LinkageSpec || lex == CXCursor_UnexposedDecl;
    if (sem != CXCursor_TranslationUnit && !in_linkage_spec)
        return xstrdup("it is declared in a namespace, and the redeclaration goes at file scope");
    if (lex != CXCursor_TranslationUnit)
        return xstrdup("it is defined inside an extern \"C\" block, and a redeclaration at file scope outside it "
                       "would give it C++ linkage first");
    return NULL;
}

/* 1 for a K&R definition, "int f(a, n) int *a; int n; { ... }": a ';'
 * between its parameter list's ')' and its body. libclang gives it the
 * prototype its parameter declarations make, but a prototype is
 * compatible with it only where no parameter is promoted (char, short,
 * float), so the declaration written is "int f();". */
int redecl_is_knr(struct parsed_tu *tu, const struct fn_def *def)
{
    if (tu_is_cxx(tu)) return 0;
    CXTranslationUnit t = tu_handle(tu);
    CXSourceRange range = clang_getRange(clang_getCursorLocation(def->cursor),
                                         clang_getRangeEnd(clang_getCursorExtent(def->cursor)));
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(t, range, &toks, &n);
    int depth = 0, closed = 0, knr = 0;
    for (unsigned i = 0; i < n && !knr; i++) {
        if (clang_getTokenKind(toks[i]) != CXToken_Punctuation) continue;
        char *sp = cx_take(clang_getTokenSpelling(t, toks[i]));
        if (sp && !strcmp(sp, "(")) depth++;
        else if (sp && !strcmp(sp, ")") && depth > 0 && --depth == 0) closed = 1;   /* from the name: "f(int k))(int)" */
        else if (sp && closed && depth == 0 && !strcmp(sp, "{")) i = n;   /* the body */
        else if (sp && closed && depth == 0 && !strcmp(sp, ";")) knr = 1;
        free(sp);
    }
    if (toks) clang_disposeTokens(t, toks, n);
    return knr;
}

static enum CXChildVisitResult visibility_attr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) != CXCursor_VisibilityAttr) return CXChildVisit_Continue;
    *(int *)data = 1;
    return CXChildVisit_Break;
}

/* The definition's own visibility attribute, as the redeclaration must
 * repeat it ("" when it has none): clang 19 gives the dispatcher the
 * visibility of the first multi-versioned declaration, so a redeclaration
 * without the attribute of an EXPORT definition in a -fvisibility=hidden
 * file would hide the exported function. */
static const char *visibility_attr(const struct fn_def *def)
{
    int has = 0;
    clang_visitChildren(def->cursor, visibility_attr_visit, &has);
    if (!has) return "";
    switch (clang_getCursorVisibility(def->cursor)) {
    case CXVisibility_Hidden: return "__attribute__((visibility(\"hidden\"))) ";
    case CXVisibility_Protected: return "__attribute__((visibility(\"protected\"))) ";
    case CXVisibility_Default: return "__attribute__((visibility(\"default\"))) ";
    default: return "";
    }
}

char *redecl_text(struct parsed_tu *tu, const struct fn_def *def, char **why)
{
    *why = cannot_redeclare(tu, def);
    if (*why) return NULL;
    int cxx = tu_is_cxx(tu);
    CXType ft = clang_getCursorType(def->cursor);
    enum CXCallingConv cc = clang_getFunctionTypeCallingConv(ft);
    if (cc != CXCallingConv_C && cc != CXCallingConv_Default && cc != CXCallingConv_X86_64SysV) {
        *why = xstrdup("it has a calling convention of its own, which fmvgen does not write");
        return NULL;
    }
    const char *noexcept_word = "";
    if (cxx) {
        int spec = clang_getCursorExceptionSpecificationType(def->cursor);
        if (spec == CXCursor_ExceptionSpecificationKind_BasicNoexcept) noexcept_word = " noexcept";
        else if (spec == CXCursor_ExceptionSpecificationKind_DynamicNone) noexcept_word = " throw()";
        else if (spec != CXCursor_ExceptionSpecificationKind_None && spec != CXCursor_ExceptionSpecificationKind_Unevaluated) {
            *why = xstrdup("it has an exception specification fmvgen does not write (only noexcept and throw())");
            return NULL;
        }
    }
    char *ret = type_spelling(clang_getResultType(ft), cxx);
    char *name = cx_take(clang_getCursorSpelling(def->cursor));
    if (!ret || !name || strchr(ret, '(') || strchr(ret, '[') || unnamed_type(ret)) {
        *why = xasprintf("its return type %s cannot be written before the name without a typedef",
                         ret ? ret : "?");
        free(ret);
        free(name);
        return NULL;
    }
    struct strbuf sb = STRBUF_INIT;
    enum CXLinkageKind link = clang_getCursorLinkage(def->cursor);
    if (clang_Cursor_getStorageClass(def->cursor) == CX_SC_Static || link == CXLinkage_Internal)
        sb_adds(&sb, "static ");
    else
        sb_adds(&sb, visibility_attr(def));
    size_t rn = strlen(ret);
    sb_addf(&sb, "%s%s%s(", ret, rn && ret[rn - 1] == '*' ? "" : " ", name);
    if (redecl_is_knr(tu, def)) {
        /* A K&R definition: "f()" declares it without a prototype, the
         * only declaration compatible with its promoted parameters. */
    } else if (ft.kind == CXType_FunctionNoProto) {
        /* "f() { }": no parameters; "(void)" is compatible with it and
         * gives it the prototype clang needs to multi-version it */
        sb_adds(&sb, "void");
    } else {
        int n = clang_getNumArgTypes(ft);
        if (n == 0 && !cxx) sb_adds(&sb, "void");
        for (int i = 0; i < n && !*why; i++) {
            CXCursor parm = clang_Cursor_getArgument(def->cursor, (unsigned)i);
            CXType t = clang_Cursor_isNull(parm) ? clang_getArgType(ft, (unsigned)i) : clang_getCursorType(parm);
            char *ts = type_spelling(t, cxx);
            char *pn = clang_Cursor_isNull(parm) || cxx ? NULL : cx_take(clang_getCursorSpelling(parm));
            if (!ts || unnamed_type(ts)) {
                *why = xasprintf("its parameter %d has an unnamed type (%s)", i + 1, ts ? ts : "?");
            } else {
                char *d = declarator(ts, pn);
                sb_addf(&sb, "%s%s", i ? ", " : "", d);
                free(d);
            }
            free(ts);
            free(pn);
        }
    }
    sb_addf(&sb, ")%s;", noexcept_word);
    free(ret);
    free(name);
    if (*why) {
        sb_free(&sb);
        return NULL;
    }
    return sb_detach(&sb);
}

/* ---- what the signature names must be declared above the line ----------- */

struct names_check {
    struct parsed_tu *tu;
    CXFile file;           /* the definition's (the TU's main file) */
    unsigned point;        /* the insertion offset */
    unsigned point_line;
    char *why;
};

static enum CXChildVisitResult names_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct names_check *n = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    /* The body is not part of the declaration. */
    if (k == CXCursor_CompoundStmt || k == CXCursor_CXXTryStmt || clang_isAttribute(k)) return CXChildVisit_Continue;
    if (k != CXCursor_TypeRef && k != CXCursor_TemplateRef && k != CXCursor_NamespaceRef && k != CXCursor_DeclRefExpr &&
        k != CXCursor_MemberRef)
        return CXChildVisit_Recurse;
    CXCursor decl = clang_getCanonicalCursor(clang_getCursorReferenced(c));
    if (clang_Cursor_isNull(decl)) return CXChildVisit_Recurse;
    CXFile f = NULL;
    unsigned line = 0;
    unsigned off = loc_offset(clang_getCursorLocation(decl), &f, &line, NULL);
    if (!f) return CXChildVisit_Recurse;   /* a builtin */
    unsigned include_at = 0;
    int above = clang_File_isEqual(f, n->file) ? off < n->point
                                               : tu_include_offset(n->tu, f, &include_at) && include_at < n->point;
    if (above) return CXChildVisit_Recurse;
    char *name = cx_take(clang_getCursorSpelling(decl));
    char *where = NULL;
    if (clang_File_isEqual(f, n->file)) {
        where = xasprintf("declared at line %u", line);
    } else {
        char *path = cx_take(clang_getFileName(f));
        where = xasprintf("declared in %s, which is #included", path ? path_basename(path) : "another file");
        free(path);
    }
    enum CXCursorKind dk = clang_getCursorKind(decl);
    n->why = xasprintf("its signature names %s%s, %s below line %u where the redeclaration would go",
                       dk == CXCursor_ParmDecl ? "the parameter " : "", name && *name ? name : "a type", where,
                       n->point_line);
    free(name);
    free(where);
    return CXChildVisit_Break;
}

/* ---- the insertion line ------------------------------------------------- */

/* 1 when offset of text lies inside a comment (or a string literal):
 * text scanned from its start, as the lexer would. */
static int in_comment_at(const char *text, size_t offset)
{
    for (size_t i = 0; i < offset; i++) {
        char c = text[i];
        if (c == '/' && i + 1 < offset && text[i + 1] == '*') {
            const char *close = i + 2 < offset ? memmem(text + i + 2, offset - i - 2, "*/", 2) : NULL;
            if (!close || (size_t)(close - text) + 2 > offset) return 1;
            i = (size_t)(close - text) + 1;
        } else if (c == '/' && i + 1 < offset && text[i + 1] == '/') {
            while (i < offset && !(text[i] == '\n' && text[i - 1] != '\\')) i++;
            if (i >= offset) return 1;
        } else if (c == '"' || c == '\'') {
            for (i++; i < offset && text[i] != c && text[i] != '\n'; i++)
                if (text[i] == '\\') i++;
            if (i >= offset) return 1;
        }
    }
    return 0;
}

struct spans {
    CXFile file;
    unsigned at;     /* a line start */
    int spanned;     /* a top-level declaration starts before at and ends after it */
};

static enum CXChildVisitResult span_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct spans *s = data;
    CXSourceRange r = clang_getCursorExtent(c);
    CXFile f = NULL;
    unsigned start = loc_offset(clang_getRangeStart(r), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, s->file) || start >= s->at) return CXChildVisit_Continue;
    if (loc_offset(clang_getRangeEnd(r), NULL, NULL, NULL) > s->at) s->spanned = 1;
    return s->spanned ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* The start of the line holding offset (where a top-level declaration
 * starts), when a line inserted there stands at file scope: not inside an
 * earlier declaration (its closing "} void g(void) {" on one line), a
 * comment, or a macro definition continued onto it. (size_t)-1 otherwise. */
static size_t file_scope_line_start(struct parsed_tu *tu, CXFile file, const char *text, size_t len,
                                    unsigned offset)
{
    if (!text || offset > len) return (size_t)-1;
    size_t start = offset;
    while (start > 0 && text[start - 1] != '\n') start--;
    if (start == offset) {   /* the declaration starts its line: nothing before it there */
    } else {
        struct spans s = {file, (unsigned)start, 0};
        clang_visitChildren(clang_getTranslationUnitCursor(tu_handle(tu)), span_visit, &s);
        if (s.spanned || in_comment_at(text, start)) return (size_t)-1;
    }
    if (start >= 2 && text[start - 2] == '\\') return (size_t)-1;
    if (start >= 3 && text[start - 2] == '\r' && text[start - 3] == '\\') return (size_t)-1;
    return start;
}

static unsigned line_at(const char *text, size_t offset)
{
    unsigned line = 1;
    for (size_t i = 0; i < offset; i++) line += text[i] == '\n';
    return line;
}

static char *excluded(unsigned use_line, const char *of_file, const char *why)
{
    return xasprintf("used at line %u%s%s before its definition, and no redeclaration can go before that use: %s "
                     "(clang rejects target_clones on a function used before its first multi-versioned "
                     "declaration)",
                     use_line, of_file ? " of " : "", of_file ? of_file : "", why);
}

/* ---- an included source: an existing prototype's own text ---------------- */

struct proto_find {
    CXCursor canonical;
    CXFile file;
    unsigned limit;
    CXCursor found;
};

static enum CXChildVisitResult proto_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct proto_find *p = data;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl || clang_isCursorDefinition(c)) return CXChildVisit_Continue;
    CXFile f = NULL;
    unsigned off = loc_offset(clang_getRangeStart(clang_getCursorExtent(c)), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, p->file) || off >= p->limit) return CXChildVisit_Continue;
    if (!clang_equalCursors(clang_getCanonicalCursor(c), p->canonical)) return CXChildVisit_Continue;
    p->found = c;
    return CXChildVisit_Break;
}

/* A source file that TUs #include is one text for all of them, but each
 * TU may give its macros other meanings (soxr's fft4g.c: "#define double
 * float" in one wrapper), so libclang's types of one TU would be wrong in
 * another. A declaration of the function that the file itself writes above
 * limit (a forward prototype) compiles in every TU that compiles the
 * definition: its tokens, copied below it, read alike in each. NULL when
 * there is none, or it is not one whole declaration ("static void a(void),
 * b(void);", a declaration not ended by ';' right after it). */
static char *prototype_text(struct parsed_tu *tu, const struct fn_def *def, unsigned limit)
{
    struct proto_find p = {clang_getCanonicalCursor(def->cursor), def->cxfile, limit, clang_getNullCursor()};
    clang_visitChildren(clang_getTranslationUnitCursor(tu_handle(tu)), proto_visit, &p);
    if (clang_Cursor_isNull(p.found)) return NULL;
    CXSourceRange r = clang_getCursorExtent(p.found);
    size_t len = 0;
    const char *text = tu_file_text(tu, def->cxfile, &len);
    unsigned end = loc_offset(clang_getRangeEnd(r), NULL, NULL, NULL);
    while (text && end < len && (text[end] == ' ' || text[end] == '\t')) end++;
    if (!text || end >= len || text[end] != ';') return NULL;
    CXTranslationUnit t = tu_handle(tu);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(t, r, &toks, &n);
    struct strbuf sb = STRBUF_INIT;
    int depth = 0, ok = n > 0, prev_open = 0, prev_star = 0;
    for (unsigned i = 0; i < n && ok; i++) {
        char *sp = cx_take(clang_getTokenSpelling(t, toks[i]));
        if (!sp || clang_getTokenKind(toks[i]) == CXToken_Comment) {
            free(sp);
            continue;
        }
        if (!strcmp(sp, "(") || !strcmp(sp, "[")) depth++;
        else if ((!strcmp(sp, ")") || !strcmp(sp, "]")) && depth > 0) depth--;
        else if ((!strcmp(sp, ",") && depth == 0) || !strcmp(sp, "{") || !strcmp(sp, ";") || sp[0] == '#') ok = 0;
        /* C spacing: "static void f(int n, float *a)" */
        int tight = !sb.len || !strcmp(sp, "(") || !strcmp(sp, ")") || !strcmp(sp, "[") || !strcmp(sp, "]") ||
                    !strcmp(sp, ",") || prev_open || prev_star;
        sb_addf(&sb, "%s%s", tight ? "" : " ", sp);
        prev_open = !strcmp(sp, "(") || !strcmp(sp, "[");
        prev_star = !strcmp(sp, "*");
        free(sp);
    }
    if (toks) clang_disposeTokens(t, toks, n);
    if (!ok) {
        sb_free(&sb);
        return NULL;
    }
    sb_adds(&sb, ";");
    return sb_detach(&sb);
}

/* The first use in file before limit: its index in uses, or -1. */
static long first_use(const struct use_site *uses, size_t n, unsigned limit)
{
    long best = -1;
    for (size_t i = 0; i < n; i++)
        if (uses[i].offset < limit && (best < 0 || uses[i].offset < uses[best].offset)) best = (long)i;
    return best;
}

/* A use of def in a project header that def's file (the TU's main file)
 * #includes above def: of those headers, the one included first. Sets its
 * file, the use's line there and the #include's offset; 0 when none. */
static int header_use(struct parsed_tu *tu, const struct fn_def *def, CXFile *file, unsigned *use_line,
                      unsigned *include_at)
{
    int found = 0;
    size_t n = tu_inclusion_count(tu);
    for (size_t i = 0; i < n; i++) {
        unsigned at = 0;
        CXFile f = tu_inclusion_at(tu, i, &at);
        if (at >= def->offset || (found && at >= *include_at) ||
            clang_Location_isInSystemHeader(clang_getLocationForOffset(tu_handle(tu), f, 0)))
            continue;
        struct use_site *uses = NULL;
        size_t nu = locate_uses(tu, def->cursor, f, UINT_MAX, &uses);
        long u = first_use(uses, nu, UINT_MAX);
        if (u >= 0) {
            found = 1;
            *file = f;
            *use_line = uses[u].line;
            *include_at = at;
        }
        free(uses);
    }
    return found;
}

/* Why a first use in a header (header_use) leaves def excluded: the
 * redeclaration would have to come before the header's own prototype of
 * def (the header calls it, so it declares it), and clang takes a plain
 * declaration after a multi-versioned one for another function ("call to
 * 'f' is ambiguous"); above the #include, the header's types are not
 * declared yet either. Caller frees. */
static char *header_use_why(struct parsed_tu *tu, const struct fn_def *def, CXFile hfile, unsigned use_line,
                            unsigned include_at)
{
    char *hpath = cx_take(clang_getFileName(hfile));
    const char *hname = hpath ? path_basename(hpath) : "a header";
    size_t len = 0;
    const char *text = tu_file_text(tu, def->cxfile, &len);
    unsigned include_line = text && include_at <= len ? line_at(text, include_at) : 0;
    char *reason = xasprintf("%s is #included at line %u, above the definition, and an attributed redeclaration "
                             "would have to go into that header, above its own declaration of the function; fmvgen "
                             "patches only the file that defines it",
                             hname, include_line);
    char *why = excluded(use_line, hname, reason);
    free(reason);
    free(hpath);
    return why;
}

int redecl_plan(struct parsed_tu *tu, const struct fn_def *def, struct redecl *out, char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    struct use_site *uses = NULL;
    size_t nuses = locate_uses(tu, def->cursor, def->cxfile, def->offset, &uses);
    long u = first_use(uses, nuses, def->offset);
    unsigned include_at = 0;
    if (u < 0 && !tu_is_main_file(tu, def->cxfile) && tu_include_offset(tu, def->cxfile, &include_at)) {
        /* Used in the including TU before its #include: the line would have
         * to go into the TU's file, which is not where the definition is. */
        struct use_site *main_uses = NULL;
        size_t nm = locate_uses(tu, def->cursor, tu_main_file(tu), include_at, &main_uses);
        long m = first_use(main_uses, nm, include_at);
        if (m >= 0) {
            char *tu_path = cx_take(clang_getFileName(tu_main_file(tu)));
            *why = excluded(main_uses[m].line, tu_path ? path_basename(tu_path) : "its TU",
                            "the use is in the including TU, above the #include of the file that defines it, and "
                            "fmvgen patches only that file");
            free(tu_path);
        }
        free(main_uses);
        free(uses);
        return *why ? -1 : 0;
    }
    if (u < 0) {
        free(uses);
        CXFile hfile = NULL;
        unsigned hline = 0, hinclude = 0;
        if (!tu_is_main_file(tu, def->cxfile) || !header_use(tu, def, &hfile, &hline, &hinclude)) return 0;
        out->use_line = hline;
        *why = header_use_why(tu, def, hfile, hline, hinclude);
        return -1;
    }
    struct use_site use = uses[u];
    free(uses);
    out->use_line = use.line;
    char *reason = NULL;
    size_t len = 0;
    const char *text = tu_file_text(tu, def->cxfile, &len);
    CXSourceRange top = clang_getCursorExtent(use.top);
    /* Where it stands in the file: for a declaration a macro writes at file
     * scope (REGISTER(f)), the macro's name - a line above it is at file
     * scope as well. */
    CXFile ef = NULL;
    unsigned eoff = 0, top_end = 0;
    clang_getExpansionLocation(clang_getRangeStart(top), &ef, NULL, NULL, &eoff);
    clang_getExpansionLocation(clang_getRangeEnd(top), NULL, NULL, NULL, &top_end);
    size_t start = file_scope_line_start(tu, def->cxfile, text, len, eoff);
    if (!text || !ef || !clang_File_isEqual(ef, def->cxfile)) {
        reason = xstrdup("the declaration holding the use cannot be read");
    } else if (top_end > def->offset) {
        reason = xstrdup("the use and the definition are in one top-level block");
    } else if (start == (size_t)-1) {
        reason = xasprintf("line %u, where the declaration holding the use starts, begins inside an earlier "
                           "declaration, a comment or a macro definition", line_at(text, eoff));
    }
    if (!reason) {
        out->offset = (unsigned)start;
        out->line = line_at(text, start);
        if (tu_is_main_file(tu, def->cxfile)) {
            out->text = redecl_text(tu, def, &reason);
        } else {
            out->text = prototype_text(tu, def, out->offset);
            if (!out->text)
                reason = xstrdup("it is defined in a source file TUs #include, where each TU may spell its types "
                                 "differently, and no declaration of it above that use, in that file, gives text "
                                 "that reads alike in every TU");
        }
    }
    if (!reason) {
        struct names_check n = {tu, def->cxfile, out->offset, out->line, NULL};
        clang_visitChildren(def->cursor, names_visit, &n);
        reason = n.why;
    }
    if (reason) {
        *why = excluded(use.line, NULL, reason);
        free(reason);
        redecl_free(out);
        out->use_line = use.line;
        return -1;
    }
    return 1;
}

int redecl_plan_above_definition(struct parsed_tu *tu, const struct fn_def *def, struct redecl *out, char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    if (!tu_is_main_file(tu, def->cxfile)) {
        *why = xstrdup("it is defined in a source file TUs #include, where each TU may spell its types differently");
        return -1;
    }
    out->offset = def->insert_offset;
    out->line = def->insert_line;
    out->text = redecl_text(tu, def, why);
    if (!*why) {
        struct names_check n = {tu, def->cxfile, out->offset, out->line, NULL};
        clang_visitChildren(def->cursor, names_visit, &n);
        *why = n.why;
    }
    if (!*why) return 1;
    redecl_free(out);
    return -1;
}

json_t *redecl_attribute_note(const struct redecl *r, const char *attr, const char *attr_name)
{
    char *detail = xasprintf("%s on a function's first declaration: the patch declares it with the attribute at "
                             "line %u, above its definition, which clang then accepts: %s",
                             attr, r->line, r->text);
    json_t *n = note_new(NOTE_REDECLARED, detail);
    json_object_set_new(n, "use_line", json_integer(0));
    json_object_set_new(n, "attribute", json_string(attr_name));
    json_object_set_new(n, "insert_offset", json_integer((int)r->offset));
    json_object_set_new(n, "insert_line", json_integer((int)r->line));
    json_object_set_new(n, "text", json_string(r->text));
    free(detail);
    return n;
}

json_t *redecl_noproto_note(const struct redecl *r)
{
    char *detail = xasprintf("defined without a prototype (\"()\"): the patch declares it with one at line %u, "
                             "above its definition (clang 14 emits no clones of a function without one, clang 19 "
                             "refuses it): %s",
                             r->line, r->text);
    json_t *n = note_new(NOTE_REDECLARED, detail);
    json_object_set_new(n, "use_line", json_integer(0));
    json_object_set_new(n, "noproto", json_true());
    json_object_set_new(n, "insert_offset", json_integer((int)r->offset));
    json_object_set_new(n, "insert_line", json_integer((int)r->line));
    json_object_set_new(n, "text", json_string(r->text));
    free(detail);
    return n;
}

void redecl_free(struct redecl *r)
{
    free(r->text);
    r->text = NULL;
}

json_t *redecl_note(const struct redecl *r, const struct fn_def *def)
{
    char *detail = xasprintf("used at line %u before its definition (line %u): the patch declares it with the "
                             "attribute at line %u, above that use (clang rejects target_clones on a function used "
                             "before its first multi-versioned declaration): %s",
                             r->use_line, def->line, r->line, r->text);
    json_t *n = note_new(NOTE_REDECLARED, detail);
    json_object_set_new(n, "use_line", json_integer((int)r->use_line));
    json_object_set_new(n, "insert_offset", json_integer((int)r->offset));
    json_object_set_new(n, "insert_line", json_integer((int)r->line));
    json_object_set_new(n, "text", json_string(r->text));
    free(detail);
    return n;
}
