/* laterdecl.h - the attribute lines above a function's declarations below
 * its definition (candidates/laterdecl.h, note "declared-later"): clang
 * takes a plain declaration after a multi-versioned definition for another
 * function, so each such declaration of an IFUNC-dispatched function gets,
 * on its own line just above it, the very line its definition gets
 * (FMVGEN_CLONES(sym) - the definition's _HIDDEN line has hidden the
 * symbols once already - or FMVGEN_CLONES_STATIC), indented like the
 * declaration. A function reached through a pointer
 * (pointer or cpuid dispatch) gets none: its declarations below declare
 * the plain trampoline. */
#ifndef FMVGEN_PATCH_LATERDECL_H
#define FMVGEN_PATCH_LATERDECL_H

#include <stddef.h>

#include "patch/diff.h"
#include "patch/plan.h"

/* Why f must be reached through a pointer whatever the dispatch - its
 * note's "plain": a declaration below its definition that no attribute
 * line can go above, named - or NULL. Such a function takes the pointer
 * lines under IFUNC dispatch too (cpuid: its own copies, whose IFUNC is no
 * target_clones), and is left out where they refuse it
 * (patch_settle_in_files): IFUNC's target_clones would not build with
 * clang. */
const char *patch_laterdecl_plain(const struct patch_function *f);

/* How many lines fs[0..n) may add (room for patch_laterdecl_insert). */
size_t patch_laterdecl_count(struct patch_function *const *fs, size_t n);

/* Checks the stored lines of fs[0..n) against the file's text old: each a
 * line start below its definition, on the line the scan stored. 0, or -1
 * after a one-line error naming the file. */
int patch_laterdecl_check(struct patch_function *const *fs, size_t n, const char *path, const char *old, size_t len);

/* Appends the lines of fs[0..n) (their is_static and pointer settled) to
 * ins[*k..), texts[*k..) getting each text (caller frees); the caller sorts
 * ins by offset, stably, so at one offset they come after what was there. */
void patch_laterdecl_insert(struct patch_function *const *fs, size_t n, const struct patch_target_set *sets,
                            const char *old, size_t len, struct insertion *ins, size_t *k, char **texts);

#endif
