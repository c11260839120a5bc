/* uses.c - see locate.h (locate_uses): the uses of a function in a file,
 * by a walk of the TU's AST. */
#include "candidates/locate.h"
#include "candidates/tu_internal.h"
#include "util/util.h"

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
