/* reference.h - the build `fmvgen select` compares its choice with: the
 * unpatched project compiled whole-program at -march=x86-64-v3, which is
 * what glibc-hwcaps packaging would ship beside the baseline (issue 4,
 * "Report what was measured").
 *
 * The build runs the user's build command once more, in a private copy, with
 * CFLAGS and CXXFLAGS in its environment: the flags every compile of that
 * language shared in the scan (its optimization level, -g, -f/-m switches,
 * -std, -D/-U/-I), plus -march=x86-64-v3 last (so it wins over an -march of
 * the build's own). The scan's flags are repeated because a Makefile's
 * `CFLAGS ?= -O3` is replaced, not extended, by the environment. An in-tree
 * copy also holds the user's objects, up to date for make: the reference is
 * "patched" with every compiled source rewritten unchanged, so each is newer
 * than its object and is compiled again. A build that still ignores the
 * environment is caught afterwards: its code is then identical to the
 * baseline's (select/codecost.h). */
#ifndef FMVGEN_SELECT_REFERENCE_H
#define FMVGEN_SELECT_REFERENCE_H

#include <stddef.h>

struct store;
struct patch_plan;

#define SELECT_MARCH_FLAG "-march=x86-64-v3"

/* The flags, separated by spaces, that every one of the n compile argvs
 * holds (in the order of the first), of the kinds listed above and without
 * whitespace or quotes (they go into a variable the build splits on
 * spaces), then SELECT_MARCH_FLAG. Caller frees. */
char *select_reference_flags_of(char **const *argvs, size_t n);

/* The same over the successful compiles of language ("c" or "c++") in the
 * store (just SELECT_MARCH_FLAG when there are none). Caller frees. */
char *select_reference_flags(struct store *st, const char *language);

/* A plan whose files are the sources of the scan's successful compiles
 * under the project root, each with its own content (read from the user's
 * tree, never written there): written into a copy, they make the build
 * compile every source again. A source that no longer exists (one the build
 * made and deleted again) is left out and named in out->skipped. Returns 0,
 * or -1 after an error line naming a source that exists but cannot be read.
 * Free with patch_plan_free. */
int select_reference_plan(struct store *st, const char *root, struct patch_plan *out);

/* The reference build gets its flags through the environment of this
 * process, which every step of a build inherits (a configure step too, so
 * CMake and autotools projects read them at configure time): apply sets
 * CFLAGS and CXXFLAGS (NULL: left as they are) and keeps the old values in
 * saved; restore puts them back. */
struct select_reference_env {
    char *cflags, *cxxflags;   /* the old values, NULL when unset */
    int set_c, set_cxx;        /* which were changed */
};
void select_reference_env_apply(const char *cflags, const char *cxxflags, struct select_reference_env *saved);
void select_reference_env_restore(struct select_reference_env *saved);

#endif
