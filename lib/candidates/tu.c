/* tu.c - see tu.h: parsing a TU with libclang, its errors, the files it
 * includes, and the text helpers the locator and the rules share. */
#include "candidates/tu.h"
#include "candidates/tu_internal.h"
#include "candidates/tuargs.h"
#include "capture/compiler.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

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
    t->isa_baseline = intrinsics_baseline(c->argv);
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
    sv_free(&t->tag_names);
    uses_index_free(t);
    laterdecl_index_free(t);
    clang_disposeTranslationUnit(t->tu);
    free(t->source);
    free(t->directory);
    free(t);
}

/* The absolute path of a file of the TU. A header's name may hold ".."
 * after a symbolic link: libclang finds libstdc++ as
 * "/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/..." where
 * /lib links to /usr/lib, so removing ".." by text gives /include/c++/12
 * (wrong); the file system resolves it. The TU's own file keeps its
 * textual path: it must match the compile's source and the project root. */
char *tu_file_path(struct parsed_tu *t, CXFile file, const char *name)
{
    if (!tu_is_main_file(t, file) && strstr(name, "/..")) {
        char *joined = name[0] == '/' ? xstrdup(name) : path_join(t->directory, name);
        char *real = realpath(joined, NULL);
        free(joined);
        if (real) return real;
    }
    return path_absolute(name, t->directory);
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

size_t tu_inclusion_count(struct parsed_tu *t)
{
    read_inclusions(t);
    return t->ninclusions;
}

CXFile tu_inclusion_at(struct parsed_tu *t, size_t i, unsigned *main_offset)
{
    read_inclusions(t);
    *main_offset = t->inclusions[i].main_offset;
    return t->inclusions[i].file;
}

void tu_included_sources(struct parsed_tu *t, struct strvec *out)
{
    read_inclusions(t);
    for (size_t i = 0; i < t->ninclusions; i++) {
        CXFile f = t->inclusions[i].file;
        if (clang_Location_isInSystemHeader(clang_getLocationForOffset(t->tu, f, 0))) continue;
        char *name = cx_take(clang_getFileName(f));
        if (name && (compile_language_of(name) || path_is_header(name))) {
            char *abs = tu_file_path(t, f, name);
            if (!sv_contains(out, abs)) sv_push(out, abs);
            free(abs);
        }
        free(name);
    }
}

int tu_files_mention(struct parsed_tu *t, const char *const *words)
{
    read_inclusions(t);
    for (size_t i = 0; i <= t->ninclusions; i++) {
        size_t len = 0;
        const char *text = tu_file_text(t, i < t->ninclusions ? t->inclusions[i].file : t->main_file, &len);
        for (size_t w = 0; text && words[w]; w++)
            if (memmem(text, len, words[w], strlen(words[w]))) return 1;
    }
    return 0;
}

/* ---- file-scope tags ----------------------------------------------------- */

/* The spelling of decl when it is a struct, union, enum or class, else NULL. */
static char *tag_spelling(CXCursor decl)
{
    enum CXCursorKind k = clang_getCursorKind(decl);
    if (k != CXCursor_StructDecl && k != CXCursor_UnionDecl && k != CXCursor_EnumDecl && k != CXCursor_ClassDecl)
        return NULL;
    return cx_take(clang_getCursorSpelling(decl));
}

static enum CXChildVisitResult tag_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct strvec *names = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl) return CXChildVisit_Recurse;   /* extern "C" */
    /* "typedef struct spec spec_t;" declares the tag too */
    char *s = k == CXCursor_TypedefDecl ? tag_spelling(clang_getTypeDeclaration(clang_getTypedefDeclUnderlyingType(c)))
                                        : tag_spelling(c);
    if (s && *s) sv_push(names, s);
    free(s);
    return CXChildVisit_Continue;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int tu_file_scope_tag_named(struct parsed_tu *t, const char *name)
{
    if (!t->read_tag_names) {
        t->read_tag_names = 1;
        clang_visitChildren(clang_getTranslationUnitCursor(t->tu), tag_visit, &t->tag_names);
        if (t->tag_names.n) qsort(t->tag_names.v, t->tag_names.n, sizeof *t->tag_names.v, str_cmp);
    }
    return name && t->tag_names.n &&
           bsearch(&name, t->tag_names.v, t->tag_names.n, sizeof *t->tag_names.v, str_cmp) != NULL;
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

enum base_isa tu_isa_baseline(const struct parsed_tu *tu)
{
    return (enum base_isa)tu->isa_baseline;
}
