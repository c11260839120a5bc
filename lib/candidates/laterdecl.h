/* laterdecl.h - a function declared again below its definition: a
 * prototype later in its file, a header #included below it, or (for a
 * static function) an `extern` declaration in a later function's body.
 *
 * Clang (14 and 19) takes a declaration without target_clones that follows
 * a multi-versioned definition for another function: calls after it are
 * "ambiguous", taking its address does not compile, an attribute on it
 * ("hot", "visibility") "cannot be combined" with the clones, and clang 19
 * calls a block-scope declaration of a static one a "different linkage".
 * GCC builds all of them. A declaration that carries the same attribute is
 * accepted by all three (measured: bench/results/laterdecl-20261205-s18.txt).
 * So the patch puts the definition's attribute line (FMVGEN_CLONES(sym),
 * FMVGEN_CLONES_STATIC) above each such declaration in the defining file
 * (note "declared-later", patch/laterdecl.h). Where no line can go above
 * one of them -
 *   - it is in another file (a header #included below the definition,
 *     the project's or a system one): fmvgen patches only the defining file;
 *   - a macro writes it (the line would attribute what the macro writes
 *     first);
 *   - other code comes before it on its line, or it declares more than one
 *     name ("void g(void), f(int);"), or (C++) it starts with extern "C"
 *     or an attribute list [[...]] (the attribute may not go before them) -
 * the note says so instead ("plain", no lines): the patch reaches the
 * function through a pointer whatever the dispatch, so that the later
 * declarations declare a plain function, and leaves it out where a
 * pointer cannot take it (patch/laterdecl.h). Only a definition in a file
 * TUs #include, or a header, stays excluded (declared-after-definition):
 * each TU would need the line its own way.
 * A block-scope declaration of an external function is left as it is:
 * gcc, clang 14 and 19 build it (an attribute line there would, for
 * clang < 18, put the alias's asm statement into the body). */
#ifndef FMVGEN_LATERDECL_H
#define FMVGEN_LATERDECL_H

#include <jansson.h>

#include "candidates/locate.h"

/* Why def (DEF_FOUND), defined in a file TUs #include or a header, cannot
 * be multi-versioned for a declaration below its definition - the whole
 * exclusion detail, naming the declaration's file and line (caller frees) -
 * or NULL (always for a definition in the TU's main file: its note). */
char *laterdecl_excluded(struct parsed_tu *tu, const struct fn_def *def);

/* The "declared-later" note of def (defined in the TU's main file) when
 * declarations below it need the attribute line, or NULL: {"kind",
 * "detail", "lines": [{"offset": line start, "line": 1-based, "block":
 * 0|1}, ...]} in file order when all can take it; else {"kind", "detail",
 * "lines": [], "plain": why no line can go above the first that cannot,
 * naming its file and line}. The caller owns the reference. */
json_t *laterdecl_note(struct parsed_tu *tu, const struct fn_def *def);

#endif
