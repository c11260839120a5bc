/* eligibility.c - see eligibility.h. Each rule reads libclang's AST of the
 * definition; where libclang does not expose a fact (which attribute an
 * "unexposed" attribute is, which inline keyword was written, coroutine
 * keywords) the rule reads the definition's own tokens. */
#include "candidates/eligibility.h"
#include "candidates/intrinsics.h"
#include "candidates/lambdadisp.h"
#include "candidates/marker.h"
#include "candidates/laterdecl.h"
#include "candidates/redecl.h"
#include "candidates/simdifdef.h"
#include "capture/compiler.h"
#include "util/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- small libclang helpers ------------------------------------------- */

typedef int (*token_fn)(CXTranslationUnit tu, CXToken tok, const char *spelling, void *ctx);

/* Calls fn for each token of range until it returns non-zero; returns that. */
static int for_each_token(CXTranslationUnit tu, CXSourceRange range, token_fn fn, void *ctx)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, range, &toks, &n);
    int r = 0;
    for (unsigned i = 0; i < n && !r; i++) {
        char *s = cx_take(clang_getTokenSpelling(tu, toks[i]));
        r = fn(tu, toks[i], s ? s : "", ctx);
        free(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    return r;
}

static unsigned cursor_line(CXCursor c)
{
    unsigned line = 0;
    loc_offset(clang_getCursorLocation(c), NULL, &line, NULL);
    return line;
}

struct find_child {
    enum CXCursorKind kinds[2];
    CXCursor found;
};

static enum CXChildVisitResult find_child_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct find_child *f = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == f->kinds[0] || k == f->kinds[1]) f->found = c;   /* the last one: the body follows the parameters */
    return CXChildVisit_Continue;
}

/* The function's body: its compound statement, or a function-try-block. */
static CXCursor body_of(CXCursor fn)
{
    struct find_child f = {{CXCursor_CompoundStmt, CXCursor_CXXTryStmt}, clang_getNullCursor()};
    clang_visitChildren(fn, find_child_visit, &f);
    return f.found;
}

static int is_scope_of_file(CXCursor p)
{
    enum CXCursorKind k = clang_getCursorKind(p);
    return clang_Cursor_isNull(p) || k == CXCursor_TranslationUnit || k == CXCursor_LinkageSpec ||
           k == CXCursor_UnexposedDecl;
}

/* ---- rules ------------------------------------------------------------ */

/* 1 when t takes "...". libclang calls a function without a prototype
 * variadic too, but a C definition with an empty list, "void f() { }" (the
 * old style of benchmark code: BYTEmark's InitStopWatch), takes no
 * arguments, and gcc, clang 14 and clang 19 clone it; a K&R definition with
 * parameters gets the prototype its declarations make. */
static int is_variadic(CXType t)
{
    return t.kind != CXType_FunctionNoProto && clang_isFunctionTypeVariadic(t);
}

/* 1 for a C definition with an empty parameter list, "void f() { }": no
 * prototype (a K&R definition with parameters gets the one its
 * declarations make). */
static int is_noproto(const struct fn_def *def)
{
    return clang_getCursorType(def->cursor).kind == CXType_FunctionNoProto;
}

static char *rule_main(const struct fn_def *def)
{
    char *name = cx_take(clang_getCursorSpelling(def->cursor));
    int is_main = name && !strcmp(name, "main") && is_scope_of_file(clang_getCursorSemanticParent(def->cursor));
    free(name);
    return is_main ? xstrdup("main is the program's entry point: clang rejects target_clones on it, and a GCC "
                             "-static binary crashes before the resolver can run")
                   : NULL;
}

/* A source file (.c, .cc, .cpp, ...) another TU includes is patched like
 * a TU's own file (libjpeg-turbo compiles jcdctmgr.c through 8-, 12- and
 * 16-bit wrapper TUs that #include it): the attribute line goes into it
 * once, and every TU that includes it compiles the clones. analyze.c then
 * checks the rules in each of those TUs. A static, non-inline definition
 * in a project header (a code template: libsoxr's poly-fir.h, which
 * cr32.c and cr32s.c include after their own #defines) passes here: its
 * line goes into the header behind a per-TU switch (header.h) and each
 * including TU is judged on its own, and so do an external, non-inline C
 * one (the template's expansions each define their own symbol) and a
 * static inline one that the TU's build compiled out of line (emitted).
 * Other header functions (external C++ or inline, inline and inlined, in a
 * system header, or a header analyzed as its own TU), and
 * files of another kind (.inc, .def), are never patched. */
static int inline_static_plain(const struct fn_def *def, int always);

static char *rule_header(struct parsed_tu *tu, const struct fn_def *def, int emitted)
{
    if (path_is_header(def->file)) {
        /* A build log names headers like sources, and they are analyzed
         * alone: no TU of its own includes it. */
        if (tu_is_main_file(tu, def->cxfile))
            return xasprintf("defined in header %s, compiled as its own TU: patching it would change every file "
                             "that includes it", def->file);
        enum CXLinkageKind link = clang_getCursorLinkage(def->cursor);
        /* An external C function of a code template (mpg123's synth.h,
         * expanded under the names SYNTH_NAME gives) is switched per TU
         * like a static one (header.h); C++'s symbol is mangled, and an
         * external inline function is the includers' shared definition. */
        if (link != CXLinkage_Internal && clang_getCursorLanguage(def->cursor) == CXLanguage_CPlusPlus)
            return xasprintf("defined in header %s with external linkage in C++: its symbol is mangled, so no per-TU "
                             "switch can name it (only a header's static or external C functions get one)",
                             def->file);
        if (link != CXLinkage_Internal && clang_Cursor_isFunctionInlined(def->cursor))
            return xasprintf("defined inline in header %s with external linkage: the definition every includer "
                             "shares, and patching it would change every file that includes it", def->file);
        /* Compiled out of line in this TU (xz's rc_encode in
         * range_encoder.h): a static function of the TU like any other,
         * switched on per TU as a template's. rule_inline says the rest. */
        if (clang_Cursor_isFunctionInlined(def->cursor) && !(emitted && inline_static_plain(def, 0)))
            return xasprintf("defined inline in header %s: meant to be inlined into its callers, and patching it "
                             "would change every file that includes it", def->file);
        if (clang_Location_isInSystemHeader(clang_getCursorLocation(def->cursor)))
            return xasprintf("defined in system header %s: not the project's code", def->file);
        return NULL;
    }
    if (tu_is_main_file(tu, def->cxfile) || compile_language_of(def->file)) return NULL;
    return xasprintf("defined in %s, which the TU includes and which is neither a header nor a C/C++ source: only "
                     "source files are patched", def->file);
}

/* A definition written by a macro has its body's '{' inside the macro: the
 * body's position (after expansion) then holds the macro's name instead. */
static char *rule_macro(struct parsed_tu *tu, const struct fn_def *def)
{
    CXCursor body = body_of(def->cursor);
    if (clang_Cursor_isNull(body)) return NULL;
    CXFile f = NULL;
    unsigned line = 0;
    unsigned off = loc_offset(clang_getRangeStart(clang_getCursorExtent(body)), &f, &line, NULL);
    size_t len = 0;
    const char *text = tu_file_text(tu, f, &len);
    if (!text || off >= len || text[off] == '{' || !strncmp(text + off, "try", 3)) return NULL;
    char *macro = text_identifier_at(text, len, off);
    if (!macro) return xasprintf("defined by a macro expansion at line %u", line);
    char *r = xasprintf("defined by the expansion of macro %s at line %u", macro, line);
    free(macro);
    return r;
}

static char *rule_template(const struct fn_def *def)
{
    if (def->match == DEF_TEMPLATE && clang_getCursorKind(def->cursor) == CXCursor_FunctionTemplate)
        return xasprintf("instance of a function template (%s)", def->display_name);
    enum CXCursorKind k = clang_getCursorKind(def->cursor);
    if (k == CXCursor_FunctionTemplate) return xstrdup("function template");
    for (CXCursor p = clang_getCursorSemanticParent(def->cursor); !is_scope_of_file(p);
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind pk = clang_getCursorKind(p);
        if (pk == CXCursor_ClassTemplate || pk == CXCursor_ClassTemplatePartialSpecialization) {
            char *cls = cx_take(clang_getCursorSpelling(p));
            char *r = xasprintf("member of class template %s", cls ? cls : "");
            free(cls);
            return r;
        }
        if (clang_isInvalid(pk)) break;
    }
    CXCursor primary = clang_getSpecializedCursorTemplate(def->cursor);
    if (!clang_Cursor_isNull(primary)) {
        char *name = cx_take(clang_getCursorSpelling(primary));
        char *r = xasprintf("explicit specialization of template %s", name ? name : "");
        free(name);
        return r;
    }
    return NULL;
}

static int coroutine_token(CXTranslationUnit tu, CXToken tok, const char *s, void *ctx)
{
    (void)tu;
    CXTokenKind k = clang_getTokenKind(tok);
    if ((k == CXToken_Keyword || k == CXToken_Identifier) &&
        (!strcmp(s, "co_await") || !strcmp(s, "co_yield") || !strcmp(s, "co_return"))) {
        *(char **)ctx = xasprintf("coroutine (uses %s)", s);
        return 1;
    }
    return 0;
}

static char *rule_coroutine(struct parsed_tu *tu, const struct fn_def *def)
{
    if (!tu_is_cxx(tu)) return NULL;
    /* libclang shows a coroutine's body as an unexposed statement: read the
     * tokens of the whole definition. */
    char *detail = NULL;
    for_each_token(tu_handle(tu), clang_getCursorExtent(def->cursor), coroutine_token, &detail);
    return detail;
}

/* ---- attributes -------------------------------------------------------- */

struct attr_names {
    CXTranslationUnit tu;
    struct strvec names;   /* normalized: "target", "weak", "always_inline" */
};

struct attr_token_state {
    char *name;
};

static int attr_name_token(CXTranslationUnit tu, CXToken tok, const char *s, void *ctx)
{
    (void)tu;
    struct attr_token_state *st = ctx;
    CXTokenKind k = clang_getTokenKind(tok);
    if (k != CXToken_Identifier && k != CXToken_Keyword) return 0;
    /* [[gnu::target(...)]]: the namespace is not the name. When the range
     * starts at the __attribute__ keyword itself (an attribute written by a
     * nested macro, as fmvgen's own FMVGEN_CLONES), the name follows it. */
    if (!strcmp(s, "gnu") || !strcmp(s, "__gnu__") || !strcmp(s, "clang") || !strcmp(s, "_Clang") ||
        !strcmp(s, "__attribute__") || !strcmp(s, "__attribute"))
        return 0;
    size_t n = strlen(s);
    /* fmvgen's own marker (FMVGEN_CLONES(sym) / FMVGEN_CLONES_STATIC) nests
     * two macros, and libclang 14 then gives only the expansion's tokens: a
     * function patched by an earlier run already carries target_clones. */
    if (!strncmp(s, "FMVGEN_CLONES", 13)) st->name = xstrdup("target_clones");
    else if (n > 4 && !strncmp(s, "__", 2) && !strcmp(s + n - 2, "__")) st->name = xstrndup(s + 2, n - 4);
    else st->name = xstrdup(s);
    return 1;
}

/* The attribute's name as written: its tokens at their spelling place, so an
 * attribute that comes from a macro (#define WEAK __attribute__((weak))) is
 * read from the macro's definition. */
static char *attribute_name(CXTranslationUnit tu, CXCursor attr)
{
    CXSourceRange ext = clang_getCursorExtent(attr);
    CXFile f1 = NULL, f2 = NULL;
    unsigned o1 = 0, o2 = 0;
    clang_getSpellingLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &o1);
    clang_getSpellingLocation(clang_getRangeEnd(ext), &f2, NULL, NULL, &o2);
    CXSourceRange range = ext;
    if (f1 && f2 && clang_File_isEqual(f1, f2) && o2 >= o1)
        range = clang_getRange(clang_getLocationForOffset(tu, f1, o1), clang_getLocationForOffset(tu, f2, o2));
    struct attr_token_state st = {NULL};
    for_each_token(tu, range, attr_name_token, &st);
    return st.name;
}

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct attr_names *a = data;
    if (!clang_isAttribute(clang_getCursorKind(c))) return CXChildVisit_Continue;
    char *name = attribute_name(a->tu, c);
    if (name && !sv_contains(&a->names, name)) sv_push(&a->names, name);
    free(name);
    return CXChildVisit_Continue;
}

/* Attributes of the definition and of its first declaration (a prototype
 * in a header may carry weak or target for the definition). */
static void collect_attributes(CXTranslationUnit tu, CXCursor fn, struct strvec *out)
{
    struct attr_names a = {tu, STRVEC_INIT};
    clang_visitChildren(fn, attr_visit, &a);
    CXCursor canon = clang_getCanonicalCursor(fn);
    if (!clang_equalCursors(canon, fn)) clang_visitChildren(canon, attr_visit, &a);
    *out = a.names;
}

/* Attributes written on the definition itself (not inherited from an
 * earlier declaration: clang accepts those). */
struct own_attrs {
    CXTranslationUnit tu;
    CXFile file;
    unsigned start, end;
    const struct pp_directives *pp;   /* NULL: macros not looked into */
    struct strvec names;
};

static enum CXChildVisitResult own_attr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct own_attrs *a = data;
    if (!clang_isAttribute(clang_getCursorKind(c))) return CXChildVisit_Continue;
    CXFile f = NULL;
    unsigned off = loc_offset(clang_getRangeStart(clang_getCursorExtent(c)), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, a->file) || off < a->start || off > a->end) return CXChildVisit_Continue;
    char *name = attribute_name(a->tu, c);
    if (name && !sv_contains(&a->names, name)) sv_push(&a->names, name);
    /* Written by a macro (libclang then names the macro): the attributes
     * its #define writes. */
    if (name && a->pp) pp_macro_attributes(a->pp, name, &a->names);
    free(name);
    return CXChildVisit_Continue;
}

/* Clang 14 and 19 refuse target_clones next to these attributes on the same
 * declaration ("attribute 'target_clones' multiversioning cannot be combined
 * with attribute 'noinline'"; each measured here; GCC accepts them all) -
 * but only on the function's first declaration: after a plain one (a
 * header's prototype, as libraries that export with a macro on their
 * definitions have), both build it (measured for each attribute below that
 * a test names: visibility, noinline, hot, cold, used, const, section,
 * aligned, constructor, flatten, minsize, warn_unused_result). */
static char *rule_clang_incompatible_attribute(struct parsed_tu *tu, const struct pp_directives *pp,
                                               const struct fn_def *def, int *redeclarable, const char **which)
{
    *redeclarable = 0;
    *which = NULL;
    if (!clang_equalCursors(clang_getCanonicalCursor(def->cursor), def->cursor)) return NULL;
    static const char *const CLANG_REFUSES[] = {
        "noinline", "cold", "hot", "flatten", "used", "visibility", "pure", "const", "unused", "maybe_unused",
        "warn_unused_result", "nodiscard", "aligned", "section", "no_sanitize", "no_sanitize_address",
        "leaf", "deprecated", "no_stack_protector", "no_instrument_function", "minsize", "optnone",
        "constructor", "destructor", NULL};
    /* From the insert line: leading attributes stand before the extent. */
    unsigned start = def->insert_offset < def->offset ? def->insert_offset : def->offset;
    struct own_attrs a = {tu_handle(tu), def->cxfile, start, def->end_offset, pp, STRVEC_INIT};
    clang_visitChildren(def->cursor, own_attr_visit, &a);
    char *r = NULL;
    for (const char *const *b = CLANG_REFUSES; *b && !r; b++)
        if (sv_contains(&a.names, *b)) {
            r = xasprintf("carries __attribute__((%s)), which clang cannot combine with target_clones", *b);
            *which = *b;
        }
    /* run before main by the loader's init code: kept plain, whatever else it carries */
    *redeclarable = r && !sv_contains(&a.names, "constructor") && !sv_contains(&a.names, "destructor");
    sv_free(&a.names);
    return r;
}

static char *rule_attribute(const struct strvec *attrs)
{
    static const char *const BLOCKING[] = {"target", "target_clones", "ifunc", "naked", "weak",
                                           "target_version", "cpu_dispatch", "cpu_specific", NULL};
    for (const char *const *b = BLOCKING; *b; b++)
        if (sv_contains(attrs, *b)) return xasprintf("already carries __attribute__((%s))", *b);
    return NULL;
}

/* 1 when text[0..at) ends with 'alias (' or '__alias__ (' (blanks
 * anywhere between). */
static int alias_before(const char *text, size_t at)
{
    while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n')) at--;
    if (at == 0 || text[--at] != '(') return 0;
    while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n')) at--;
    size_t end = at;
    while (at > 0 && (isalnum((unsigned char)text[at - 1]) || text[at - 1] == '_')) at--;
    size_t n = end - at;
    return (n == 5 && !strncmp(text + at, "alias", 5)) || (n == 9 && !strncmp(text + at, "__alias__", 9));
}

/* The target of an alias attribute in its file (xz 5.4's
 * lzma_stream_encoder_mt_52, which three symbol-versioned declarations
 * alias): clang < 18 names a multi-versioned function's dispatcher
 * SYMBOL.ifunc, and rejects the alias ("alias must point to a defined
 * variable or function"). */
static char *rule_alias_target(struct parsed_tu *tu, const struct fn_def *def)
{
    if (!def->symbol || !*def->symbol) return NULL;
    size_t len = 0;
    const char *text = tu_file_text(tu, def->cxfile, &len);
    if (!text) return NULL;
    char *quoted = xasprintf("\"%s\"", def->symbol);
    size_t qn = strlen(quoted);
    char *r = NULL;
    for (const char *at = memmem(text, len, quoted, qn); !r && at;
         at = memmem(at + 1, len - (size_t)(at + 1 - text), quoted, qn)) {
        size_t i = (size_t)(at - text);
        if (!alias_before(text, i)) continue;
        unsigned line = 1;
        for (size_t k = 0; k < i; k++) line += text[k] == '\n';
        r = xasprintf("the target of __attribute__((alias(%s))) at line %u: clang < 18 names a multi-versioned "
                      "function's dispatcher %s.ifunc and rejects the alias",
                      quoted, line, def->symbol);
    }
    free(quoted);
    return r;
}

/* A definition fmvgen patched: its marker line stands above it (marker.h;
 * libclang 14 may see no attribute where the line makes one). */
static char *rule_patched(struct parsed_tu *tu, const struct fn_def *def)
{
    /* --dispatch cpuid's copies, resolvers and CPU levels (patch/cpuid.h):
     * the default copy carries no attribute that says so */
    const char *name = def->display_name ? def->display_name : def->symbol;
    if (name && (!strncmp(name, "fmvgen_cp_", 10) || !strncmp(name, "fmvgen_resolve_", 15) ||
                 !strcmp(name, "fmvgen_cpu_levels") || !strncmp(name, "fmvgen_cpu_levels.", 18)))
        return xasprintf("%s is fmvgen's own code (--dispatch cpuid)", name);
    size_t len = 0, at = 0;
    const char *text = tu_file_text(tu, def->cxfile, &len);
    size_t n = patch_marker_at(text, len, def->insert_offset, &at);
    return n ? xasprintf("already carries %.*s (patched by fmvgen)", (int)n, text + at) : NULL;
}

/* ---- inline ------------------------------------------------------------ */

struct head_words {
    int is_static, is_extern, is_inline, is_constexpr;
};

static int head_token(CXTranslationUnit tu, CXToken tok, const char *s, void *ctx)
{
    (void)tu;
    (void)tok;
    struct head_words *w = ctx;
    if (!strcmp(s, "static")) w->is_static = 1;
    else if (!strcmp(s, "extern")) w->is_extern = 1;
    else if (!strcmp(s, "inline") || !strcmp(s, "__inline__") || !strcmp(s, "__inline")) w->is_inline = 1;
    else if (!strcmp(s, "constexpr") || !strcmp(s, "consteval")) w->is_constexpr = 1;
    return 0;
}

/* 1 when def is declared inline (not always_inline), has internal linkage
 * and is a plain C function or a free C++ one: a function that, compiled
 * out of line, is an ordinary static function to clone. */
static int inline_static_plain(const struct fn_def *def, int always)
{
    if (always || clang_getCursorLinkage(def->cursor) != CXLinkage_Internal) return 0;
    enum CXCursorKind kind = clang_getCursorKind(def->cursor);
    return kind == CXCursor_FunctionDecl;
}

static char *rule_inline(struct parsed_tu *tu, const struct fn_def *def, const struct strvec *attrs, int emitted)
{
    int inlined = clang_Cursor_isFunctionInlined(def->cursor);
    int always = sv_contains(attrs, "always_inline");
    if (!inlined && !always) return NULL;
    if (emitted && inline_static_plain(def, always)) return NULL;
    /* The words written before the name say which kind of inline it is. */
    struct head_words w = {0};
    CXSourceRange head = clang_getRange(clang_getRangeStart(clang_getCursorExtent(def->cursor)),
                                        clang_getCursorLocation(def->cursor));
    for_each_token(tu_handle(tu), head, head_token, &w);
    if (always && !w.is_inline) return xstrdup("always_inline attribute: every caller gets its own copy");
    if (w.is_inline && w.is_static) return xstrdup("static inline: meant to be inlined into its callers");
    if (w.is_inline && w.is_extern) return xstrdup("extern inline: meant to be inlined into its callers");
    if (w.is_inline) return xstrdup("declared inline: meant to be inlined into its callers");
    if (w.is_constexpr) return xstrdup("constexpr (implicitly inline)");
    enum CXCursorKind lex = clang_getCursorKind(clang_getCursorLexicalParent(def->cursor));
    if (lex == CXCursor_ClassDecl || lex == CXCursor_StructDecl || lex == CXCursor_UnionDecl)
        return xstrdup("member function defined inside its class (implicitly inline)");
    return xstrdup("inline through a macro or an earlier declaration");
}

/* The first SIMD macro a preprocessor test around or inside def names
 * above baseline (NULL: none). Caller frees. */
static char *simd_test_above(const struct pp_directives *pp, const struct fn_def *def, enum base_isa baseline)
{
    if (!pp) return NULL;
    struct strvec macros = STRVEC_INIT;
    simd_ifdef_macros(pp, def, &macros);
    char *above = NULL;
    for (size_t i = 0; i < macros.n && !above; i++)
        if (intrinsics_macro_level(macros.v[i]) > baseline) above = xstrdup(macros.v[i]);
    sv_free(&macros);
    return above;
}

/* GCC emits a constructor's (destructor's) complete-object symbol as an
 * alias of the base-object one, and "target_clones cannot be combined with
 * alias" (an error at any -O); clang 19 crashes on a multiversioned
 * destructor (measured on snappy's ZLib::ZLib() and small cases). */
static char *rule_constructor(const struct fn_def *def)
{
    enum CXCursorKind k = clang_getCursorKind(def->cursor);
    /* the reason code is "constructor" for both: the detail does not repeat it */
    if (k == CXCursor_Constructor)
        return xstrdup("GCC makes a constructor's complete-object symbol an alias, and target_clones cannot be "
                       "combined with an alias");
    if (k == CXCursor_Destructor)
        return xstrdup("a destructor: GCC makes its complete-object symbol an alias, and target_clones cannot be "
                       "combined with an alias (clang 19 crashes on it)");
    return NULL;
}

/* GCC 12 refuses target_clones on a virtual member function: one defined
 * out of class is dispatched by lambdas instead (candidates/lambdadisp.h),
 * where its body allows it. */
static char *rule_virtual(struct parsed_tu *tu, const struct fn_def *def)
{
    if (!clang_CXXMethod_isVirtual(def->cursor)) return NULL;
    return lambda_dispatch_refused(tu, def, NULL);
}

/* ---- a tag of the function's name ------------------------------------- */

/* clang 19 (19.1.7) segfaults in CodeGenModule::emitMultiVersionFunctions
 * on a target_clones function whose name a file-scope struct, union or
 * enum tag also has (before or after it, a forward declaration too; C and
 * C++): libsoxr's "struct soxr_runtime_spec" and its function
 * soxr_runtime_spec(). A tag nested in a struct or a function does not. */
static char *rule_tag_name(struct parsed_tu *tu, const struct fn_def *def)
{
    if (clang_getCursorKind(def->cursor) != CXCursor_FunctionDecl) return NULL;
    if (!is_scope_of_file(clang_getCursorSemanticParent(def->cursor))) return NULL;
    char *name = cx_take(clang_getCursorSpelling(def->cursor));
    if (!name || !*name) {
        free(name);
        return NULL;
    }
    char *r = tu_file_scope_tag_named(tu, name)
                  ? xasprintf("a struct, union or enum tag is also named %s: clang 19 crashes (segfault) on "
                              "target_clones on a function named like a file-scope tag",
                              name)
                  : NULL;
    free(name);
    return r;
}

/* ---- C++ internal linkage calling template code ------------------------ */

struct template_use {
    unsigned line;
    char *name;
};

static enum CXChildVisitResult template_use_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct template_use *u = data;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        CXCursor callee = clang_getCursorReferenced(c);
        if (!clang_Cursor_isNull(callee) && !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(callee))) {
            u->line = cursor_line(c);
            u->name = cx_take(clang_getCursorDisplayName(callee));
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* clang 19 does not emit the template instances (std::vector's constructor,
 * std::allocator's, ...) that only a multiversioned function with internal
 * linkage (static, or in an anonymous namespace) uses: the patched program
 * fails to link with "undefined reference to std::allocator<int>::allocator()"
 * (measured on snappy_test_tool.cc's Measure; gcc and clang 14 are fine, and
 * so is clang 19 for an external function). */
static char *rule_internal_template_use(struct parsed_tu *tu, const struct fn_def *def, CXCursor body)
{
    if (!tu_is_cxx(tu) || clang_Cursor_isNull(body)) return NULL;
    enum CXLinkageKind link = clang_getCursorLinkage(def->cursor);
    if (link != CXLinkage_Internal && link != CXLinkage_UniqueExternal) return NULL;
    struct template_use u = {0, NULL};
    clang_visitChildren(body, template_use_visit, &u);
    if (!u.line) return NULL;
    char *r = xasprintf("internal linkage and calls template code (%s at line %u): clang 19 then leaves the "
                        "template instances undefined at link time",
                        u.name ? u.name : "?", u.line);
    free(u.name);
    return r;
}

/* ---- used before its definition ----------------------------------------- */

/* Clang rejects target_clones on a definition when the function was already
 * called or had its address taken earlier in the TU (GCC does not). The
 * patch then declares it with the attribute above the first use
 * (redecl.h): out->note says where and what. Excluded only where no such
 * declaration can work, the detail saying why. */
static char *rule_used_before_definition(struct parsed_tu *tu, const struct fn_def *def, struct eligibility *out)
{
    struct redecl r;
    char *why = NULL;
    int rc = redecl_plan(tu, def, &r, &why);
    if (rc > 0) out->note = redecl_note(&r, def);
    redecl_free(&r);
    return why;
}

/* ---- all rules --------------------------------------------------------- */

static void set(struct eligibility *out, enum exclusion_reason reason, char *detail)
{
    out->reason = reason;
    out->detail = detail;
}

static char *rule_target_pragma(const struct pp_directives *pp, const struct fn_def *def)
{
    if (!pp) return NULL;
    unsigned line = 0;
    const char *file = NULL;
    const char *pragma = pp_target_pragma_at(pp, def->cxfile, def->offset, &line, &file);
    if (!pragma) return NULL;
    char *cxname = cx_take(clang_getFileName(def->cxfile));
    char *where = file && cxname && strcmp(file, cxname) != 0 ? xasprintf(" of %s", path_basename(file)) : xstrdup("");
    char *r = xasprintf("stands under '%s' (line %u%s): GCC ignores target_clones where a target pragma is in force",
                        pragma, line, where);
    free(where);
    free(cxname);
    return r;
}

/* The attributes of def's declarations and those its own macros write. */
static void all_attributes(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def,
                           struct strvec *out)
{
    collect_attributes(tu_handle(tu), def->cursor, out);
    unsigned start = def->insert_offset < def->offset ? def->insert_offset : def->offset;
    struct own_attrs own = {tu_handle(tu), def->cxfile, start, def->end_offset, pp, STRVEC_INIT};
    clang_visitChildren(def->cursor, own_attr_visit, &own);
    for (size_t i = 0; i < own.names.n; i++)
        if (!sv_contains(out, own.names.v[i])) sv_push(out, own.names.v[i]);
    sv_free(&own.names);
}

const char *eligibility_body_kept_out(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def)
{
    static const char *const KEEP_OUT[] = {"noinline", "optnone", "noipa", NULL};
    struct strvec attrs = STRVEC_INIT;
    all_attributes(tu, pp, def, &attrs);
    const char *r = NULL;
    for (const char *const *b = KEEP_OUT; *b && !r; b++)
        if (sv_contains(&attrs, *b)) r = *b;
    sv_free(&attrs);
    return r;
}

char *eligibility_inline_conflict(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def)
{
    static const char *const CONFLICTS[] = {"noinline", "optnone", "noipa", "target", "target_clones",
                                            "ifunc", "naked", "weak", "target_version", "cpu_dispatch",
                                            "cpu_specific", "constructor", "destructor", NULL};
    struct strvec attrs = STRVEC_INIT;
    all_attributes(tu, pp, def, &attrs);
    char *r = NULL;
    for (const char *const *b = CONFLICTS; *b && !r; b++)
        if (sv_contains(&attrs, *b)) r = xasprintf("carries __attribute__((%s)), which always_inline contradicts", *b);
    if (!r && sv_contains(&attrs, "always_inline"))
        r = xstrdup("always_inline already: each clone inlines it as it is");
    sv_free(&attrs);
    if (!r) r = rule_alias_target(tu, def);
    if (!r) r = rule_patched(tu, def);
    if (!r) r = rule_target_pragma(pp, def);
    return r;
}

void eligibility_check(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def,
                       struct eligibility *out)
{
    eligibility_check_emitted(tu, pp, def, 0, out);
}

void eligibility_check_emitted(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def,
                               int emitted, struct eligibility *out)
{
    memset(out, 0, sizeof *out);
    char *d;
    if (def->match == DEF_NOT_FOUND) {
        set(out, REASON_NOT_FOUND,
            xasprintf("no definition of %s in the TU (compiler-generated, or not visible to libclang)",
                      def->display_name ? def->display_name : def->symbol));
        return;
    }
    if (def->match == DEF_LAMBDA) {
        set(out, REASON_LAMBDA, xasprintf("lambda (%s)", def->display_name));
        return;
    }
    const char *err = tu_error_within(tu, def->cxfile, def->offset, def->end_offset);
    if (err) set(out, REASON_PARSE_ERROR, xasprintf("libclang cannot parse it: %s", err));
    else if (clang_CXXMethod_isDefaulted(def->cursor))
        set(out, REASON_NOT_FOUND,
            xstrdup("defaulted (= default): the compiler writes its body, there is no source to patch"));
    else if ((d = rule_main(def))) set(out, REASON_MAIN, d);
    else if ((d = rule_header(tu, def, emitted))) set(out, REASON_HEADER, d);
    else if ((d = rule_macro(tu, def))) set(out, REASON_MACRO, d);
    else if ((d = rule_template(def))) set(out, REASON_TEMPLATE, d);
    else if ((d = rule_virtual(tu, def))) set(out, REASON_VIRTUAL, d);
    else if ((d = rule_coroutine(tu, def))) set(out, REASON_COROUTINE, d);
    if (out->reason) return;

    struct strvec attrs = STRVEC_INIT;
    collect_attributes(tu_handle(tu), def->cursor, &attrs);
    d = rule_inline(tu, def, &attrs, emitted);
    if (d) set(out, REASON_INLINE, d);
    else if (is_variadic(clang_getCursorType(def->cursor)))
        set(out, REASON_VARIADIC, xstrdup("variadic function (takes ...)"));
    else if ((d = rule_attribute(&attrs)) || (d = rule_alias_target(tu, def)) || (d = rule_patched(tu, def)) || (d = rule_target_pragma(pp, def)))
        set(out, REASON_ATTRIBUTE, d);
    else if ((d = rule_constructor(def))) set(out, REASON_CONSTRUCTOR, d);
    else if ((d = rule_tag_name(tu, def))) set(out, REASON_TAG_NAME, d);
    int redeclarable = 0;
    const char *attr_name = NULL;
    if (!out->reason && (d = rule_clang_incompatible_attribute(tu, pp, def, &redeclarable, &attr_name)) && !redeclarable)
        set(out, REASON_ATTRIBUTE, d);
    sv_free(&attrs);
    if (out->reason) return;
    /* One clang refuses beside target_clones: a redeclaration goes first
     * (the one above a first use, else one above the definition). */
    char *clang_attr = d && redeclarable ? d : NULL;

    struct body_scan scan;
    enum base_isa baseline = tu_isa_baseline(tu);
    CXCursor body = body_of(def->cursor);
    intrinsics_scan_body(tu, body, baseline, &scan);
    /* Baseline intrinsics compile in every clone, and the ISA scoring
     * judges their code; a path picked by a test of an ISA above the
     * baseline is compiled by the probe, never by a clone. */
    char *simd_above = scan.baseline && !scan.intrinsic ? simd_test_above(pp, def, baseline) : NULL;
    if (scan.intrinsic)
        set(out, REASON_INTRINSICS,
            xasprintf("%s: the default clone, built with the build's flags, would not compile it", scan.intrinsic));
    else if (simd_above)
        set(out, REASON_INTRINSICS,
            xasprintf("%s, but '%s' picks its SIMD path with the preprocessor: the probe at the target compiles "
                      "another path than any clone gets, so its code cannot be judged",
                      scan.baseline, simd_above));
    else if (scan.asm_line)
        set(out, REASON_INLINE_ASM,
            xasprintf("inline asm at line %u: the default clone would not compile", scan.asm_line));
    else if ((d = rule_used_before_definition(tu, def, out))) set(out, REASON_USED_BEFORE_DEFINITION, d);
    else if ((d = laterdecl_excluded(tu, def))) set(out, REASON_DECLARED_AFTER_DEFINITION, d);
    else if ((d = rule_internal_template_use(tu, def, body))) set(out, REASON_INTERNAL_TEMPLATE, d);
    else if (clang_attr && !out->note) {
        struct redecl r;
        char *why = NULL;
        if (redecl_plan_above_definition(tu, def, &r, &why) > 0)
            out->note = redecl_attribute_note(&r, clang_attr, attr_name);
        else
            set(out, REASON_ATTRIBUTE, xasprintf("%s, and no declaration can go above it: %s", clang_attr, why));
        redecl_free(&r);
        free(why);
    } else if (!out->reason && !out->note && is_noproto(def)) {
        /* "void f() { }": clang multi-versions only a function with a
         * prototype in scope; the redeclaration above gives it "(void)" */
        struct redecl r;
        char *why = NULL;
        if (redecl_plan_above_definition(tu, def, &r, &why) > 0)
            out->note = redecl_noproto_note(&r);
        else
            set(out, REASON_USED_BEFORE_DEFINITION,
                xasprintf("defined without a prototype (\"()\"), which clang multi-versions only with a prototyped "
                          "declaration above it, and none can go there: %s", why));
        redecl_free(&r);
        free(why);
    }
    if (!out->reason && out->note && is_noproto(def) && note_kind_of(out->note) == NOTE_REDECLARED)
        json_object_set_new(out->note, "noproto", json_true());
    free(clang_attr);
    body_scan_free(&scan);
    free(simd_above);
    if (out->reason && out->note) {
        json_decref(out->note);
        out->note = NULL;
    }
    if (!out->reason && clang_CXXMethod_isVirtual(def->cursor)) {   /* no attribute: the lambdas' note alone */
        json_decref(out->note);
        out->note = NULL;
        if ((d = lambda_dispatch_refused(tu, def, &out->note))) set(out, REASON_VIRTUAL, d);
    }
}
