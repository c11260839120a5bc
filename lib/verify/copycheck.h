/* copycheck.h - what `fmvgen verify` requires of each function of fmvgen's
 * --dispatch cpuid (elf/cpuiddisp.h) on each CPU, from the dispatch map
 * (dispatch.h): its resolver fmvgen_resolve_IDENT returned
 *   1. one of that function's copies fmvgen_cp_IDENT_SLUG - not NULL, not an
 *      address in another object, not another function of the file;
 *   2. the copy fmvgen_cpu_levels must pick for the CPU's x86-64 level as the
 *      helper reads CPUID itself (the report's level column): the copy of the
 *      highest target the CPU has the level for (avx2 and arch=x86-64-v3 need
 *      v3, arch=x86-64-v4 needs v4), default below every target. A copy beyond
 *      the CPU would die of SIGILL on its first instruction the CPU lacks; one
 *      below it loses what the patch was for.
 * Either failure is an error of the patched build, never a pick: it fails
 * that CPU's run. IFUNC and pointer dispatch are left alone (their
 * resolvers are the compiler's, and glibc's own may return another
 * object's code). When the CPU's level is unknown, only 1 is checked. */
#ifndef FMVGEN_VERIFY_COPYCHECK_H
#define FMVGEN_VERIFY_COPYCHECK_H

#include <stddef.h>

#include "verify/dispatch.h"

/* The error of plan entry e in one CPU's dispatch result d, whose level is
 * cpu_level ("x86-64-v3"; NULL: unknown), as one sentence naming the
 * function, the answer and what it should have been; NULL when there is
 * none, the entry is not cpuid-dispatched, or the helper gave no answer
 * (dispatch.h reports that). Caller frees. */
char *copycheck_error(const struct dispatch_plan *plan, size_t e, const struct dispatch_result *d,
                      const char *cpu_level);

/* The copy of fn that a CPU of that level (elf_cpuid_cpu_level: 1..4) must
 * get, or NULL when fn has no copy for it (no default). When two copies
 * share the level (avx2 and arch=x86-64-v3), *alt gets the second. */
const struct elf_clone *copycheck_expected(const struct elf_mv_function *fn, int level, const struct elf_clone **alt);

#endif
