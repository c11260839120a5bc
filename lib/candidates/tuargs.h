/* tuargs.h - a stored compile's argv turned into the arguments libclang
 * needs to parse that TU the way the build compiled it.
 *
 * Kept: what changes the meaning of the source - macros (-D/-U), include
 * paths (-I, -isystem, -iquote, -idirafter, -include, -imacros, --sysroot),
 * the language standard, ISA and -f flags (they define __AVX2__, __PIC__,
 * __OPTIMIZE__, _OPENMP, ...). Paths are made absolute against the compile's
 * directory, because libclang parses in fmvgen's cwd, not the build's.
 * Dropped: the compiler itself, sources, -c/-S/-E, -o, dependency-file flags
 * (-M*), optimization-record flags, linker/assembler pass-through, warnings
 * (-w is added: warnings never matter here) and --param.
 * Flags clang does not know (GCC-only -f/-m) are passed on: clang reports
 * them as location-less "unknown argument" errors, which the locator
 * ignores, and still parses (KeepGoing). */
#ifndef FMVGEN_TUARGS_H
#define FMVGEN_TUARGS_H

#include "util/util.h"

/* Appends to out the libclang arguments for a compile: argv as stored (with
 * the compiler as argv[0]), directory the compile's working directory,
 * language "c" / "c++" (NULL: let clang decide from the file name).
 * gcc_include, when not NULL, is GCC's own header directory: appended with
 * -idirafter so that headers only GCC ships (omp.h, quadmath.h) are found
 * after clang's own. */
void tuargs_build(char *const *argv, const char *directory, const char *language, const char *gcc_include,
                  struct strvec *out);

#endif
