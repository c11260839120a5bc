/* explain.h - what scan says about a wrapped build's compiler setup, from
 * the CMake cache of the tree the build command works in (`cmake --build
 * DIR`'s, `cmake -B DIR`'s or `make|ninja -C DIR`'s DIR, also inside
 * `sh -c LINE`, the last named; else the build directory): why a
 * build that succeeded ran no compile through the wrapper (an error line
 * with what to do), and that a tree configured during the scan cached the
 * wrapper as its compiler (a warning: later builds of it go through the
 * wrapper). For lib/scan only. */
#ifndef FMVGEN_SCAN_EXPLAIN_H
#define FMVGEN_SCAN_EXPLAIN_H

/* builddir: absolute, where the build ran; build: its argv. */
void scan_explain_no_compiles(const char *builddir, char *const *build);
void scan_warn_cached_wrapper(const char *builddir, char *const *build);

#endif
