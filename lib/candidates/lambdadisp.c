/* lambdadisp.c - see lambdadisp.h. */
#include "candidates/lambdadisp.h"
#include "store/notes.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

struct body_find {
    CXCursor body;
};

static enum CXChildVisitResult body_find_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct body_find *f = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CompoundStmt || k == CXCursor_CXXTryStmt) f->body = c;   /* the last: after the parameters */
    return CXChildVisit_Continue;
}

static unsigned line_of(CXCursor c)
{
    unsigned line = 0;
    loc_offset(clang_getCursorLocation(c), NULL, &line, NULL);
    return line;
}

struct lambda_body_scan {
    char *why;
};

static enum CXChildVisitResult scan_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct lambda_body_scan *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_VarDecl &&
        (clang_Cursor_getStorageClass(c) == CX_SC_Static || clang_getCursorTLSKind(c) != CXTLS_None)) {
        char *name = cx_take(clang_getCursorSpelling(c));
        s->why = xasprintf("its static local variable %s (line %u) would be duplicated: each target's lambda "
                           "would hold its own copy",
                           name ? name : "?", line_of(c));
        free(name);
        return CXChildVisit_Break;
    }
    if (k == CXCursor_CallExpr) {
        char *name = cx_take(clang_getCursorSpelling(c));
        if (name && (!strcmp(name, "__assert_fail") || !strcmp(name, "__assert_rtn") || !strcmp(name, "__assert")))
            s->why = xasprintf("assert() at line %u prints __PRETTY_FUNCTION__, which inside a lambda names "
                               "\"operator()\" (with -DNDEBUG assert is no obstacle)",
                               line_of(c));
        else if (name && (!strcmp(name, "__builtin_return_address") || !strcmp(name, "__builtin_frame_address")))
            s->why = xasprintf("%s at line %u would see the lambda's frame", name, line_of(c));
        free(name);
        if (s->why) return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* __func__ and the like, read from the tokens (libclang has no cursor kind
 * for them). */
static char *predefined_token(CXTranslationUnit tu, CXSourceRange range)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, range, &toks, &n);
    char *why = NULL;
    for (unsigned i = 0; i < n && !why; i++) {
        if (clang_getTokenKind(toks[i]) != CXToken_Identifier && clang_getTokenKind(toks[i]) != CXToken_Keyword)
            continue;
        char *s = cx_take(clang_getTokenSpelling(tu, toks[i]));
        if (s && (!strcmp(s, "__func__") || !strcmp(s, "__FUNCTION__") || !strcmp(s, "__PRETTY_FUNCTION__"))) {
            unsigned line = 0;
            loc_offset(clang_getTokenLocation(tu, toks[i]), NULL, &line, NULL);
            why = xasprintf("uses %s (line %u), which inside a lambda names \"operator()\"", s, line);
        }
        free(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    return why;
}

char *lambda_dispatch_refused(struct parsed_tu *tu, const struct fn_def *def, json_t **note)
{
    CXCursor lexical = clang_getCursorLexicalParent(def->cursor);
    enum CXCursorKind lk = clang_getCursorKind(lexical);
    if (lk == CXCursor_ClassDecl || lk == CXCursor_StructDecl || lk == CXCursor_UnionDecl)
        return xstrdup("a virtual member function defined in its class body (implicitly inline; GCC refuses "
                       "target_clones on a virtual function): define it outside the class for fmvgen's lambda "
                       "dispatch");
    struct body_find f = {clang_getNullCursor()};
    clang_visitChildren(def->cursor, body_find_visit, &f);
    if (clang_Cursor_isNull(f.body)) return xstrdup("virtual, and libclang shows no body");
    if (clang_getCursorKind(f.body) == CXCursor_CXXTryStmt)
        return xstrdup("virtual with a function-try-block: lambda dispatch needs a plain compound body");
    char *why = predefined_token(tu_handle(tu), clang_getCursorExtent(f.body));
    if (!why) {
        struct lambda_body_scan s = {NULL};
        clang_visitChildren(f.body, scan_visit, &s);
        why = s.why;
    }
    if (why) {
        char *r = xasprintf("virtual (GCC refuses target_clones on it) and no lambda dispatch: %s", why);
        free(why);
        return r;
    }
    CXType result = clang_getCanonicalType(clang_getResultType(clang_getCursorType(def->cursor)));
    char *spelled = cx_take(clang_getTypeSpelling(result));
    if (!spelled || strchr(spelled, '(')) {
        char *r = xasprintf("virtual (GCC refuses target_clones on it) and no lambda dispatch: its result type "
                            "(%s) has no spelling valid in its body",
                            spelled ? spelled : "?");
        free(spelled);
        return r;
    }
    CXSourceRange ext = clang_getCursorExtent(f.body);
    CXFile bf = NULL, ef = NULL;
    unsigned body = loc_offset(clang_getRangeStart(ext), &bf, NULL, NULL);
    unsigned end = loc_offset(clang_getRangeEnd(ext), &ef, NULL, NULL);
    if (!bf || !clang_File_isEqual(bf, ef) || end == 0) {
        free(spelled);
        return xstrdup("virtual (GCC refuses target_clones on it) and no lambda dispatch: its body's braces are "
                       "not in one file");
    }
    if (!note) {
        free(spelled);
        return NULL;
    }
    json_t *n = note_new(NOTE_LAMBDA_DISPATCH,
                         "virtual: dispatched by lambdas, its body duplicated in the source, one lambda per target "
                         "(GCC refuses target_clones on a virtual function)");
    json_object_set_new(n, "result", json_string(spelled));
    json_object_set_new(n, "body", json_integer(body));
    json_object_set_new(n, "end", json_integer(end - 1));   /* the range ends after the '}' */
    *note = n;
    free(spelled);
    return NULL;
}
