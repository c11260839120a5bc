/* cpuiddisp.h - fmvgen's --dispatch cpuid in a linked ELF file, by the
 * names the patch gives (elf/fmvnames.h; docs/DESIGN.md "CPUID dispatch"):
 *
 *   fmvgen_resolve_IDENT                    the resolver: asks CPUID
 *                                           (fmvgen_cpu_levels) and returns
 *                                           one copy's address
 *   fmvgen_cp_IDENT_SLUG                    the copies, SLUG one of default,
 *                                           x86_64_v2, x86_64_v3, x86_64_v4, avx2
 *   fmvgen_cpu_levels                       the CPU detection, one per object
 *                                           file (cpukind.h counts it)
 *
 * and the user's function SYM reached in one of two ways:
 *   ifunc    SYM is an STT_GNU_IFUNC symbol (local or global) whose address
 *            is the resolver's: the loader (or static startup code) calls
 *            the resolver through an IRELATIVE relocation or the symbol,
 *            calls go through a PLT slot (glibc);
 *   pointer  SYM, SYM.fmvgen_init, SYM.fmvgen_ctor: the trampoline of
 *            pointer dispatch, whose init code calls the resolver (other
 *            libcs, and static functions built by clang, which would make a
 *            static ifunc global).
 * Both may be in one file.
 *
 * clones.c lists such a function as SYM, origin fmvgen, dispatch cpuid, its
 * resolver fmvgen_resolve_IDENT, its IFUNC symbol (ifunc reach only: the
 * ifunc field, elf_mv_reach_name) and its versions the copies
 * fmvgen_cp_IDENT_SLUG (each with the target its SLUG stands for; a piece
 * such as fmvgen_cp_f_default.cold is none). When two files' static
 * functions share IDENT, each resolver keeps the copies its code loads. An
 * address the resolver loads that is no copy of IDENT is not a version
 * (verify then reports the answer as wrong). */
#ifndef FMVGEN_ELF_CPUIDDISP_H
#define FMVGEN_ELF_CPUIDDISP_H

/* The x86-64 level a copy of that target needs, as fmvgen_cpu_levels
 * decides it: 1 for default, 2, 3 (arch=x86-64-v3 and avx2: v3 without FMA
 * is still picked on a v3 CPU), 4; 0 for a target that is no copy's. */
int elf_cpuid_target_level(const char *target);

/* The level of a CPU named "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"
 * (verify's helper says so): 1..4, 0 when unknown. */
int elf_cpuid_cpu_level(const char *level);

#endif
