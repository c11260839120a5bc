/* redecl.h - the redeclaration lines of a patch (candidates/redecl.h: a
 * function used in its file before its definition gets, above the
 * top-level declaration holding the first use, one inserted line
 *
 *     FMVGEN_CLONES(add_public) void add_public(int *a, const int *b, int n);
 *
 * between '#pragma GCC diagnostic push' / 'ignored "-Wredundant-decls"'
 * and 'pop' lines: in C a function used before its definition has a
 * declaration already, and GCC's -Wredundant-decls would report the line
 *
 * with the very macro its definition gets - FMVGEN_CLONES_STATIC for
 * internal linkage - so that every compiler sees the same target_clones on
 * both; clang accepts the definition's attribute only then). For clang < 18
 * FMVGEN_CLONES(sym) also emits the ".globl sym / .set sym, sym.ifunc"
 * alias: with the redeclaration it is emitted twice, to the same value,
 * which GNU as and LLVM's integrated assembler both accept (docs/FINDINGS.md,
 * "Patch").
 *
 * The line goes at a line start of the file, on the line the scan named;
 * the preamble must come before it (patch_redecl_first_start), and at one
 * offset the preamble comes first, then redeclarations, then attribute
 * lines (the line above a definition stays its own). */
#ifndef FMVGEN_PATCH_REDECL_H
#define FMVGEN_PATCH_REDECL_H

#include <stddef.h>

#include "patch/diff.h"
#include "patch/plan.h"

/* The first offset of f's file that f's lines touch: its redeclaration's,
 * when its "redeclared" note puts one above the definition, else f->start. */
size_t patch_redecl_first_start(const struct patch_function *f);

/* Checks the redeclarations of fs[0..n) against the file's text old: each
 * at a line start, on the line the scan stored, above its definition.
 * 0, or -1 after a one-line error naming the file. */
int patch_redecl_check(struct patch_function *const *fs, size_t n, const char *path, const char *old, size_t len);

/* Why f cannot take dispatch d's renamed body, or NULL: its redeclaration
 * stands for an attribute clang refuses beside target_clones on a first
 * declaration (candidates/redecl.h), and the renamed body would be that
 * first declaration (pointer), or for a definition without a prototype
 * ("f()", note "noproto": the renamed body would have none, which clang
 * cannot multi-version). Such a function is dispatched by IFUNC instead. (cpuid: an attribute that keeps the body out of its copies
 * refuses its params note, candidates/params.h.) */
const char *patch_redecl_refuses_dispatch(const struct patch_function *f, enum patch_dispatch d);

/* Adds the redeclaration lines of fs[0..n) (their is_static settled, each
 * with its set's macro in sets) to ins[0..*k), which holds npre preamble
 * insertions first and then attribute lines in offset order: the result
 * keeps offset order, a redeclaration after the preamble and before the
 * attribute lines at its offset. ins has room for *k + n more; texts[i]
 * gets each new text (caller frees). */
void patch_redecl_insert(struct patch_function *const *fs, size_t n, const struct patch_target_set *sets,
                         const char *old, size_t len, struct insertion *ins, size_t *k, size_t npre, char **texts);

#endif
