/* visibility.h - what fmvgen patch must say about hidden visibility.
 *
 * GCC 12 gives the dispatcher of a target_clones function default
 * visibility whatever -fvisibility=hidden (or a visibility("hidden")
 * attribute) says, and clang < 18's f.ifunc alias and resolver are global
 * too (docs/DESIGN.md, "-fvisibility=hidden"): a shared library
 * built that way would export each patched external function, and a
 * function of the same name in the program or in another library could
 * then be called instead of it. The scan records each function libclang
 * sees as hidden (its "visibility" note; store meta visibility_notes), and
 * the patch hides its dispatcher (<SET>_HIDDEN, patch/preamble.h). Only a
 * store scanned before that has no such record: then the patch can only
 * say which functions were compiled with -fvisibility=hidden. */
#ifndef FMVGEN_PATCH_VISIBILITY_H
#define FMVGEN_PATCH_VISIBILITY_H

#include "util/util.h"

struct store;
struct patch_plan;

/* For a store without visibility records (meta visibility_notes): the
 * plan's external (not static, not pointer-dispatched) functions whose
 * compile (any compile of that file and name) had -fvisibility=hidden or
 * -fvisibility=internal as its last -fvisibility option, as "REL:LINE
 * NAME", appended to out in plan order; nothing with records. 0, or -1
 * after an error line naming the store. */
int patch_hidden_functions(struct store *st, const struct patch_plan *p, struct strvec *out);

#endif
