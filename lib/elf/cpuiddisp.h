/* cpuiddisp.h - fmvgen's --dispatch cpuid in a linked ELF file, by the
 * names the patch gives (docs/DESIGN.md "CPUID dispatch"):
 *
 *   SYM, SYM.fmvgen_init, SYM.fmvgen_ctor   the trampoline of the user's
 *                                           function SYM (as pointer dispatch)
 *   fmvgen_resolve_IDENT                    the resolver SYM.fmvgen_init calls:
 *                                           asks CPUID (fmvgen_cpu_levels) and
 *                                           returns one copy's address
 *   fmvgen_cp_IDENT_SLUG                    the copies, SLUG one of default,
 *                                           x86_64_v2, x86_64_v3, x86_64_v4, avx2
 *   fmvgen_cpu_levels                       the CPU detection, one per object
 *                                           file (cpudetect.h counts it)
 *
 * clones.c lists such a function as SYM, origin fmvgen, dispatch cpuid, its
 * resolver fmvgen_resolve_IDENT and its versions the copies
 * fmvgen_cp_IDENT_SLUG (each with the target its SLUG stands for). When two
 * files' static functions share IDENT, each resolver keeps the copies its
 * code loads. An address the resolver loads that is no copy of IDENT is not
 * a version (verify then reports the answer as wrong). */
#ifndef FMVGEN_ELF_CPUIDDISP_H
#define FMVGEN_ELF_CPUIDDISP_H

#define ELF_CPUID_RESOLVER_PREFIX "fmvgen_resolve_"
#define ELF_CPUID_COPY_PREFIX "fmvgen_cp_"
#define ELF_CPUID_LEVELS_SYMBOL "fmvgen_cpu_levels"

/* The target a copy's SLUG stands for: "default", "arch=x86-64-v2",
 * "arch=x86-64-v3", "arch=x86-64-v4", "avx2"; NULL for any other slug. */
const char *elf_cpuid_slug_target(const char *slug);

/* The x86-64 level a copy of that target needs, as fmvgen_cpu_levels
 * decides it: 1 for default, 2, 3 (arch=x86-64-v3 and avx2: v3 without FMA
 * is still picked on a v3 CPU), 4; 0 for a target that is no copy's. */
int elf_cpuid_target_level(const char *target);

/* The level of a CPU named "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"
 * (verify's helper says so): 1..4, 0 when unknown. */
int elf_cpuid_cpu_level(const char *level);

#endif
