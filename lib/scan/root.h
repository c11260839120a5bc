/* root.h - the project root of a scan when --root is not given: the
 * directory the patch's paths are relative to (store meta "root").
 *
 * In order:
 *   1. the git toplevel of the current directory;
 *   2. where the build directory's own build system says the sources are
 *      (read once the build ran): CMakeCache.txt's CMAKE_HOME_DIRECTORY,
 *      an autotools Makefile's abs_top_srcdir, meson-info/meson-info.json's
 *      source directory - so that a release tarball built out of tree
 *      (build/ beside src/, ../configure) is patched from its top;
 *   3. the current directory.
 * A compiled source outside the root cannot be named by a patch: a warning
 * names the first one and --root, and `patch` leaves its functions out, said
 * why. */
#ifndef FMVGEN_SCAN_ROOT_H
#define FMVGEN_SCAN_ROOT_H

#include "store/store.h"

/* 1 or 3 above, before the build: absolute, caller frees; *from_git gets
 * whether it is 1. */
char *scan_root_guess(int *from_git);

/* 2 above for build directory builddir: the top source directory its build
 * system recorded (absolute, caller frees), or NULL. */
char *scan_root_of_build(const char *builddir);

/* Warns about the first compiled source of st outside root, if any; the
 * number of compiled sources outside. */
size_t scan_root_check(struct store *st, const char *root);

#endif
