/* ltexports.h - the functions a GNU libtool library exports through an
 * export list libtool makes itself, which must keep a plain (not IFUNC)
 * symbol.
 *
 * `libtool --mode=link ... -export-symbols-regex REGEX` (and libtool's
 * always_export_symbols) lists the library's symbols with `nm` of its
 * objects, keeps those whose nm type is one of [ABCDGIRSTW], greps them
 * by REGEX into <objdir>/<libname>.exp and links with a version script
 * that makes every symbol not in that list local. An IFUNC symbol
 * (target_clones' dispatcher; --dispatch cpuid's IFUNC) has nm type 'i',
 * which the filter drops: the patched library hides the function, and
 * every program linking it fails with "undefined reference" (with gcc,
 * clang 14 and clang 19 alike: docs/DESIGN.md). A list given as -export-symbols FILE is
 * used as written (no .exp is made) and keeps IFUNC names.
 *
 * patch_libtool_exports collects the names of every such list under dir
 * (a build directory): each regular file NAME.exp directly inside a
 * directory named ".libs" (libtool's objdir), at most 8 levels down,
 * skipping other dot-directories; one symbol per line. A list is found
 * only once the build made it (fmvgen patch runs after the scan's build).
 * Names are appended to out, each once. Unreadable entries are skipped. */
#ifndef FMVGEN_PATCH_LTEXPORTS_H
#define FMVGEN_PATCH_LTEXPORTS_H

#include "util/util.h"

void patch_libtool_exports(const char *dir, struct strvec *out);

/* The reason written where such a function is reached through a pointer
 * (or must be), for notes and the patch header. */
#define PATCH_LTEXPORT_WHY \
    "exported through libtool's -export-symbols-regex list, which nm makes without IFUNC symbols (the library would hide it)"

#endif
