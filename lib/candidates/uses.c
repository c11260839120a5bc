/* uses.c - see locate.h (locate_uses): the uses of a function in a file,
 * by a walk of the TU's AST. */
#include "candidates/locate.h"
#include "candidates/tu_internal.h"
#include "util/util.h"

/* ---- uses of a function ------------------------------------------------ */

/* The TU's references in one file, read by one walk on the first
 * locate_uses for that file and kept with the TU (tu_internal.h): each
 * reference (DeclRefExpr, MemberRefExpr, OverloadedDeclRef) that stands
 * in the file, inside a top-level declaration of the file, in AST order,
 * with the canonical declaration it refers to. A query then filters them
 * (the target, the limit) instead of walking the AST again: one walk per
 * file instead of one per function asked about. */
struct use_ref {
    CXCursor canonical;       /* what it refers to, canonical */
    CXCursor top;             /* the top-level declaration holding it */
    unsigned top_offset;      /* where that declaration starts */
    unsigned offset, line;    /* where the reference stands */
};
struct use_index {
    CXFile file;
    struct use_ref *v;
    size_t n, cap;
};

struct use_walk {
    struct use_index *ix;
    CXCursor top;             /* the top-level declaration walked */
    unsigned top_offset;
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
        if (!clang_Cursor_isNull(ref)) {
            CXFile f = NULL;
            unsigned line = 0;
            unsigned off = loc_offset(clang_getCursorLocation(c), &f, &line, NULL);
            if (f && clang_File_isEqual(f, u->ix->file)) {
                struct use_index *ix = u->ix;
                if (ix->n == ix->cap) ix->v = xrealloc(ix->v, (ix->cap = ix->cap ? 2 * ix->cap : 64) * sizeof *ix->v);
                ix->v[ix->n++] = (struct use_ref){clang_getCanonicalCursor(ref), u->top, u->top_offset, off, line};
            }
        }
    }
    return CXChildVisit_Recurse;
}

/* Only the top-level declarations of the file can hold a use there: the
 * rest of the TU (system headers) is skipped. */
static enum CXChildVisitResult use_top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    struct use_walk *u = data;
    CXFile f = NULL;
    unsigned off = loc_offset(clang_getRangeStart(clang_getCursorExtent(c)), &f, NULL, NULL);
    if (!f || !clang_File_isEqual(f, u->ix->file)) return CXChildVisit_Continue;
    u->top = c;
    u->top_offset = off;
    use_visit(c, parent, data);
    clang_visitChildren(c, use_visit, u);
    return CXChildVisit_Continue;
}

static struct use_index *use_index_of(struct parsed_tu *tu, CXFile file)
{
    for (size_t i = 0; i < tu->nuse_indexes; i++)
        if (clang_File_isEqual(tu->use_indexes[i].file, file)) return &tu->use_indexes[i];
    tu->use_indexes = xrealloc(tu->use_indexes, (tu->nuse_indexes + 1) * sizeof *tu->use_indexes);
    struct use_index *ix = &tu->use_indexes[tu->nuse_indexes++];
    *ix = (struct use_index){file, NULL, 0, 0};
    struct use_walk u = {ix, clang_getNullCursor(), 0};
    clang_visitChildren(clang_getTranslationUnitCursor(tu->tu), use_top_visit, &u);
    return ix;
}

void uses_index_free(struct parsed_tu *tu)
{
    for (size_t i = 0; i < tu->nuse_indexes; i++) free(tu->use_indexes[i].v);
    free(tu->use_indexes);
    tu->use_indexes = NULL;
    tu->nuse_indexes = 0;
}

size_t locate_uses(struct parsed_tu *tu, CXCursor target, CXFile file, unsigned limit, struct use_site **out)
{
    *out = NULL;
    if (!file) return 0;
    const struct use_index *ix = use_index_of(tu, file);
    CXCursor canonical = clang_getCanonicalCursor(target);
    struct use_site *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < ix->n; i++) {
        const struct use_ref *r = &ix->v[i];
        if (r->top_offset >= limit || !clang_equalCursors(r->canonical, canonical)) continue;
        if (n == cap) v = xrealloc(v, (cap = cap ? 2 * cap : 8) * sizeof *v);
        v[n++] = (struct use_site){r->offset, r->line, r->top};
    }
    *out = v;
    return n;
}
