/* params.c - see params.h. */
#include "candidates/params.h"
#include "candidates/redecl.h"
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
