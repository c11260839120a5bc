/* reference.h - the builds `fmvgen select` compares its choice with: the
 * unpatched project compiled whole-program at -march=x86-64-v3 (what
 * glibc-hwcaps packaging would ship beside the baseline), and on
 * request the same with -mno-fma (the FMA-free comparison, whose floats
 * match the baseline's).
 *
 * The flags reach every compile through fmvgen's compiler wrapper in append
 * mode (capture/wrapper.h), whatever the build does with CFLAGS (a
 * configured Makefile's `CFLAGS = -O2 -g` ignores the environment): its
 * links first in PATH and in CC/CXX, and for a copied CMake cache, which
 * runs its compiler by absolute path, as the cache's compiler launcher
 * (measure_relocate_cmake_ex). Each source compiled with the flags is
 * logged; select_reference_check then tells how many of the scan's sources
 * got them - none means the build reached its compiler another way (an
 * absolute CC in a configured Makefile), and the reference is reported as
 * not built, with why. An in-tree copy also holds the user's objects, up to
 * date for make: the reference is "patched" with every compiled source
 * rewritten unchanged, so each is newer than its object and is compiled
 * again. */
#ifndef FMVGEN_SELECT_REFERENCE_H
#define FMVGEN_SELECT_REFERENCE_H

#include <stddef.h>

#include "util/util.h"

struct store;
struct patch_plan;

#define SELECT_MARCH_FLAG "-march=x86-64-v3"

/* The references --reference names: "v3" and "v3-nofma". */
struct select_reference_kind {
    const char *name;    /* "v3" */
    const char *title;   /* "-march=x86-64-v3" */
    const char *flags;   /* appended to every compile */
};
extern const struct select_reference_kind select_reference_kinds[];
extern const size_t select_n_reference_kinds;
/* The kind named name, or NULL. */
const struct select_reference_kind *select_reference_kind(const char *name);

/* A plan whose files are the sources of the scan's successful compiles
 * under the project root, each with its own content (read from the user's
 * tree, never written there): written into a copy, they make the build
 * compile every source again. A source that no longer exists (one the build
 * made and deleted again) is left out and named in out->skipped. Returns 0,
 * or -1 after an error line naming a source that exists but cannot be read.
 * Free with patch_plan_free. */
int select_reference_plan(struct store *st, const char *root, struct patch_plan *out);

/* Which of plan's sources (its files, under copy_root, the copy the
 * reference built) the wrapper's log (WRAPPER_APPEND_LOG_ENV: one absolute
 * path a line; a missing file = none) names: n_flagged of n_sources, and
 * the first few that it does not name in missed (relative paths).
 * seen_root: where the build's processes saw the copy besides copy_root -
 * the project root when the reference built in a mount namespace with its
 * copy there (select/isolation.h) - or NULL; a logged path under it counts
 * as the same path under copy_root. */
struct select_reference_check {
    size_t n_sources, n_flagged;
    struct strvec missed;
};
void select_reference_check(const char *log_path, const char *copy_root, const char *seen_root,
                            const struct patch_plan *plan, struct select_reference_check *out);

#endif
