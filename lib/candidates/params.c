/* params.c - see params.h. */
#include "candidates/params.h"
#include "candidates/redecl.h"
#include "candidates/tu.h"
#include "store/notes.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static json_t *refused(const char *why)
{
    char *d = xasprintf("--dispatch cpuid cannot forward its calls: %s", why);
    json_t *n = note_new(NOTE_PARAMS, d);
    json_object_set_new(n, "refused", json_string(why));
    free(d);
    return n;
}

json_t *params_note_refused(const char *why)
{
    return refused(why);
}

/* ---- calls to a function that returns twice ---- */

/* 1 when GCC treats a call to name as returning twice (special_function_p:
 * the name less one leading "_", "__" or "__x" is setjmp or sigsetjmp, or
 * the name is savectx, vfork or getcontext; glibc's setjmp() and
 * sigsetjmp() are macros for _setjmp and __sigsetjmp), or it is
 * __builtin_setjmp. */
static int returns_twice_name(const char *name)
{
    if (!strcmp(name, "__builtin_setjmp") || !strcmp(name, "savectx") || !strcmp(name, "vfork") ||
        !strcmp(name, "getcontext"))
        return 1;
    const char *t = name;
    if (t[0] == '_') t += t[1] != '_' ? 1 : t[2] == 'x' ? 3 : 2;
    return !strcmp(t, "setjmp") || !strcmp(t, "sigsetjmp");
}

/* 1 when decl's own text says returns_twice (an attribute libclang does not
 * expose as a cursor). */
static int declared_returns_twice(CXCursor decl)
{
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(decl);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(decl), &toks, &n);
    int found = 0;
    for (unsigned i = 0; i < n && !found; i++) {
        if (clang_getTokenKind(toks[i]) != CXToken_Identifier) continue;
        char *t = cx_take(clang_getTokenSpelling(tu, toks[i]));
        found = t && (!strcmp(t, "returns_twice") || !strcmp(t, "__returns_twice__"));
        free(t);
    }
    clang_disposeTokens(tu, toks, n);
    return found;
}

struct twice_scan {
    char *why; /* first call, as a sentence */
};

static enum CXChildVisitResult twice_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct twice_scan *s = data;
    if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
    CXCursor callee = clang_getCursorReferenced(c);
    if (clang_getCursorKind(callee) != CXCursor_FunctionDecl) return CXChildVisit_Recurse;
    char *name = cx_take(clang_getCursorSpelling(callee));
    if (name && (returns_twice_name(name) || declared_returns_twice(callee))) {
        unsigned line = 0;
        loc_offset(clang_getCursorLocation(c), NULL, &line, NULL);
        s->why = xasprintf("it calls %s at line %u, which returns twice: GCC never inlines such a function, not "
                           "even always_inline (\"can never be inlined because it uses setjmp\"), so its copies "
                           "could not take its body",
                           name, line);
    }
    free(name);
    return s->why ? CXChildVisit_Break : CXChildVisit_Recurse;
}

json_t *params_note(struct parsed_tu *tu, const struct fn_def *def)
{
    /* the CPUID copies' preamble is C only (off under __cplusplus): say so,
     * not a property the function may not have */
    if (tu_is_cxx(tu))
        return refused(clang_getCursorKind(def->cursor) == CXCursor_CXXMethod
                           ? "a C++ member function (fmvgen's CPUID copies are C only)"
                           : "a C++ function (fmvgen's CPUID copies are C only)");
    CXType ft = clang_getCursorType(def->cursor);
    if (ft.kind == CXType_FunctionNoProto || redecl_is_knr(tu, def))
        return refused("a K&R definition (no prototype to forward its promoted parameters with)");
    if (clang_isFunctionTypeVariadic(ft)) return refused("a variadic function (its ... cannot be passed on)");
    struct twice_scan twice = {NULL};
    clang_visitChildren(def->cursor, twice_visit, &twice);
    if (twice.why) {
        json_t *r = refused(twice.why);
        free(twice.why);
        return r;
    }
    int n = clang_Cursor_getNumArguments(def->cursor);
    if (n < 0) return refused("libclang gives no parameters for it");
    json_t *names = json_array();
    struct strbuf list = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        CXCursor parm = clang_Cursor_getArgument(def->cursor, (unsigned)i);
        char *pn = clang_Cursor_isNull(parm) ? NULL : cx_take(clang_getCursorSpelling(parm));
        if (!pn || !*pn) {
            free(pn);
            json_decref(names);
            sb_free(&list);
            char *why = xasprintf("its parameter %d has no name", i + 1);
            json_t *r = refused(why);
            free(why);
            return r;
        }
        sb_addf(&list, "%s%s", i ? ", " : "", pn);
        json_array_append_new(names, json_string(pn));
        free(pn);
    }
    int is_void = clang_getResultType(ft).kind == CXType_Void;
    char *d = xasprintf("--dispatch cpuid forwards its calls as (%s)%s", sb_str(&list),
                        is_void ? ", returning void" : "");
    json_t *note = note_new(NOTE_PARAMS, d);
    json_object_set_new(note, "names", names);
    json_object_set_new(note, "void", json_boolean(is_void));
    free(d);
    sb_free(&list);
    return note;
}
