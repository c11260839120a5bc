/* locate.h - finds, in one TU parsed once with libclang using the TU's own
 * flags (tu.h), the definition of each function the compiler vectorized.
 *
 * A compiled function is named by its optimization record: GCC writes the
 * C name, or for C++ the mangled symbol; Clang always writes the symbol.
 * Both are matched against libclang's manglings of each definition
 * (constructors and destructors have several), so overloads, namespaces,
 * static and anonymous-namespace functions map to their own definition.
 * Compiler clone suffixes (".constprop.0", ".isra.0", ".part.0", ".cold")
 * are stripped first: the clone comes from the same definition.
 * A symbol that names no definition is demangled: an instantiation maps to
 * its template's definition, a lambda is reported as such.
 * A record without a function (plain -fopt-info log) maps to the innermost
 * definition whose extent holds the loop's file:line.
 *
 * Positions: line/col are 1-based, offsets are bytes into the file as
 * libclang read it (CRLF counts two bytes). The insert position is the start
 * of the line holding the definition's first token - storage class, return
 * type on its own line, template<>, or a leading attribute - where the patch
 * writer puts the target_clones line. */
#ifndef FMVGEN_LOCATE_H
#define FMVGEN_LOCATE_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "candidates/tu.h"
#include "util/util.h"

enum def_match {
    DEF_NOT_FOUND = 0,
    DEF_FOUND,          /* the definition of the compiled function */
    DEF_TEMPLATE,       /* an instantiation: cursor is the template's definition */
    DEF_LAMBDA,         /* a lambda's call operator (not located) */
};

struct fn_def {
    enum def_match match;
    CXCursor cursor;          /* valid for DEF_FOUND / DEF_TEMPLATE */
    char *symbol;             /* the name to store: record's name without clone suffix */
    char *display_name;       /* C: "foo"; C++: "ns::S::m(float *, int)" */
    char *file;               /* absolute path of the definition (NULL if not located) */
    CXFile cxfile;
    unsigned line, col, end_line, end_col;   /* exact extent, first token to closing brace */
    unsigned offset, end_offset;
    unsigned insert_offset, insert_line;
    /* Code before the definition on its insert line ("namespace { "), or
     * NULL: the attribute line would then precede that code too. */
    char *shared_line_prefix;
};

/* Resolves a record's function name. Returns out->match. */
enum def_match locate_by_name(struct parsed_tu *tu, const char *function, struct fn_def *out);
/* Resolves a record without a function by its position; file may be
 * relative to the compile's directory. */
enum def_match locate_by_line(struct parsed_tu *tu, const char *file, int line, struct fn_def *out);
void fn_def_free(struct fn_def *def);

/* 1 when both results are the same definition (several record names -
 * a constructor's C1 and C2 symbols, a log's loops - may lead to one). */
int fn_def_same(const struct fn_def *a, const struct fn_def *b);

/* Every function definition located in path (absolute) in this TU, filled
 * as locate_by_name fills a result: symbol = the compiled name in this TU
 * (C: the name after macro expansion; C++: the mangled symbol), match
 * DEF_TEMPLATE for templates. Returns how many (*out: caller frees each
 * with fn_def_free, then the array). */
size_t locate_defs_in_file(struct parsed_tu *tu, const char *path, struct fn_def **out);

/* How def's name is written in its file: *spelled gets the identifier at
 * the name's position (caller frees; NULL when none), e.g. the macro
 * _jpeg_fdct_islow where libjpeg-turbo's 12-bit TU compiles
 * jpeg12_fdct_islow. Returns 1 when it is the name itself. (libclang 14's
 * clang_getSpellingLocation gives the expansion's place, not the macro
 * definition's: simdifdef.h's pp_renames says what a macro expands to.) */
int locate_name_spelling(struct parsed_tu *tu, const struct fn_def *def, char **spelled);

/* For a definition with internal linkage whose head has no 'static' word:
 * the sentence that says where its linkage comes from (caller frees) -
 * an earlier declaration that says static ("declared static at line N ..."),
 * else a macro, the head's first identifier (libjpeg-turbo's
 * "METHODDEF(void) f(...)", "LOCAL(int)": "internal linkage through the
 * macro METHODDEF ..."). NULL otherwise. The patch cannot see such a static
 * in the definition's text. LOCATE_STATIC_EARLIER starts the sentence of the
 * first kind (the head holds no macro that writes static). */
#define LOCATE_STATIC_EARLIER "declared static at "
char *locate_static_hidden(struct parsed_tu *tu, const struct fn_def *def);

/* A use of a function: a call, its address taken, an initializer - not a
 * declaration (the prototype, the definition). */
struct use_site {
    unsigned offset, line;     /* where it stands in the file (after macro expansion) */
    CXCursor top;              /* the top-level declaration of the TU holding it */
};
/* The uses of the function target in file, within the top-level
 * declarations of file that start before limit (UINT_MAX: all of them), in
 * AST order. A walk of the AST, not clang_findReferencesInFile, which
 * misses a use written through a renaming macro (libjpeg-turbo calls
 * jpeg12_fdct_islow as _jpeg_fdct_islow). Returns how many (*out: caller
 * frees; NULL when none). */
size_t locate_uses(struct parsed_tu *tu, CXCursor target, CXFile file, unsigned limit, struct use_site **out);

#endif
