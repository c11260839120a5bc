/* visibility.h - what fmvgen patch must say about hidden visibility.
 *
 * GCC 12 gives the dispatcher of a target_clones function default
 * visibility whatever -fvisibility=hidden (or a visibility("hidden")
 * attribute) says, and clang < 18's f.ifunc alias and resolver are global
 * too (measured; docs/DESIGN.md, "-fvisibility=hidden"): a shared library
 * built that way exports each patched external function, and a function of
 * the same name in the program or in another library can then be called
 * instead of it. The preamble cannot see -fvisibility, so the patch says
 * so. */
#ifndef FMVGEN_PATCH_VISIBILITY_H
#define FMVGEN_PATCH_VISIBILITY_H

#include "util/util.h"

struct store;
struct patch_plan;

/* The plan's external (not static) functions whose compile (any compile of
 * that file and name) had -fvisibility=hidden or -fvisibility=internal as
 * its last -fvisibility option, as "REL:LINE NAME", appended to out in plan
 * order. 0, or -1 after an error line naming the store. */
int patch_hidden_functions(struct store *st, const struct patch_plan *p, struct strvec *out);

#endif
