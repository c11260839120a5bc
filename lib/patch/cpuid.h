/* cpuid.h - `fmvgen patch --dispatch cpuid`: each function f gets its own
 * copies compiled for each target (GCC/clang `target` attribute, no
 * target_clones) and its own resolver asking the preamble's CPUID code, so
 * no libgcc CPU detection (__cpu_indicator_init, ~4.6 KB per linked file)
 * is linked. Where the C library runs IFUNC resolvers (glibc: dynamic,
 * -static, -static-pie) f is an IFUNC whose resolver is that one; where it
 * does not (musl), and for static functions built by clang (which makes a
 * static function's IFUNC a global symbol: two files' static f of one name
 * would not link, and it would be exported), calls reach the copy through
 * pointer dispatch's trampoline (patch/pointer.h), which needs no IFUNC.
 *
 * What a function f (symbol SYM, targets arch=x86-64-v3, arch=x86-64-v4)
 * gets, whole lines only; the definition itself is untouched:
 *
 *   #ifdef FMVGEN_CPU_ON
 *   # define f fmvgen_mv_f
 *   # pragma GCC diagnostic push
 *   # pragma GCC diagnostic ignored "-Wattributes"
 *   #endif
 *   FMVGEN_CLONES_CPU                       static __inline__ always_inline (_STATIC: no "static")
 *   long f(const int *a, int n)
 *   { ... }
 *   #ifdef FMVGEN_CPU_ON
 *   # undef f
 *   static FMVGEN_CPU_T_X86_64_V3 long fmvgen_cp_f_x86_64_v3(const int *a, int n) { return fmvgen_mv_f(a, n); }
 *   static FMVGEN_CPU_T_X86_64_V4 long fmvgen_cp_f_x86_64_v4(const int *a, int n) { return fmvgen_mv_f(a, n); }
 *   static FMVGEN_CPU_T_DEFAULT long fmvgen_cp_f_default(const int *a, int n) { return fmvgen_mv_f(a, n); }
 *   static __attribute__((used FMVGEN_CPU_SEC_)) __typeof__(&fmvgen_mv_f) fmvgen_resolve_f(void)
 *       { unsigned l = fmvgen_cpu_levels(); return l & 4u ? fmvgen_cp_f_x86_64_v4 : ...; }   (one line)
 *   # ifdef FMVGEN_CPU_IFUNC                 (static f: FMVGEN_CPU_IFUNC_STATIC)
 *   long f(const int *a, int n) __attribute__((ifunc("fmvgen_resolve_f")));
 *   # else
 *   FMVGEN_PTR_DEF long f(const int *a, int n) FMVGEN_CPU_BODY(SYM, fmvgen_resolve_f)
 *   # endif
 *   # pragma GCC diagnostic pop
 *   #endif
 *
 * The copies' heads are f's head (comments dropped, on one line) with the
 * name replaced, "static" put first for an external f; each forwards its
 * parameters by the names the scan recorded (candidates/params.h; a void
 * f gets no "return"). The resolver returns f's own pointer type, so it
 * needs no casts and GCC's -Wattribute-alias is content; "used" makes
 * clang 14 inline into the copies an IFUNC alone reaches (patch/cpuid.c)
 * and keeps clang quiet where only the ifunc attribute names it. The IFUNC line is
 * f's head again, redeclared with the ifunc attribute: f keeps its linkage
 * and visibility (a -fvisibility=hidden library exports what it did, as
 * IFUNC symbols). The preamble defines FMVGEN_CPU_IFUNC where the C
 * library is glibc (PATCH_IFUNC_LIBC, after patch_libc_probe's include),
 * the compiler has the ifunc attribute and -DFMVGEN_CPU_NO_IFUNC is not
 * given, and FMVGEN_CPU_IFUNC_STATIC where, besides, it is not clang. A
 * head saying weak or section (which an IFUNC cannot take) gets the
 * trampoline line alone. The always_inline body is inlined into each
 * copy, so it is compiled for the copy's target. The pragmas keep GCC quiet
 * where a static copy meets a visibility attribute of f's head (an EXPORT
 * macro), and where an inline f's copy is noinline. Where FMVGEN_CPU_ON is
 * undefined (not x86-64 ELF, no target/naked/always_inline attributes,
 * C++, -DFMVGEN_NO_CLONES) the lines vanish and f is the plain function.
 *
 * Placement: the target copies (FMVGEN_CPU_T_<SLUG> but DEFAULT) and the
 * resolvers carry FMVGEN_CPU_SEC_, section("fmvgen_text") (PATCH_CPUID_SECTION)
 * where FMVGEN_CPU_ON is defined and -DFMVGEN_CPU_NO_SECTION is not: a
 * name not starting with ".text", so GNU ld and gold place that orphan
 * section after the linked .text (before .fini), lld after .fini, all of
 * it AX code in the text segment (bench/results/orphan-section-20261205-s18.txt):
 * what the patch adds to a file then no longer moves the project's own
 * functions in .text. fmvgen_cpu_levels goes there too (FMVGEN_CPU_LV_SEC_:
 * its COMDAT group's code section is named fmvgen_text; with
 * -DFMVGEN_CPU_NO_SECTION .text.unlikely.<sym>, at the start of .text).
 * The default copy stays in .text where f was (its
 * code and size are f's). What still moves them: an IFUNC's
 * 16-byte PLT slot where its program calls it (.plt, before .text with ld
 * and gold), the trampoline where there is no IFUNC, and GCC emitting the
 * default copies, whose addresses the resolvers take, ahead of the file's
 * other functions. All copies of one file share one input section, so
 * --gc-sections keeps or drops them together. A linker script that
 * discards unlisted sections, or --orphan-handling=error, needs the section
 * listed (or -DFMVGEN_CPU_NO_SECTION).
 *
 * Targets: arch=x86-64-v2/-v3/-v4 as feature lists (GCC 12 does not
 * inline into a function whose arch= differs), "avx2" as v3 without FMA;
 * the resolver picks the highest level the CPU has (fmvgen_cpu_levels:
 * bit 0 v2, bit 1 v3, bit 2 v4).
 *
 * fmvgen_cpu_levels is one per linked file (executable or shared
 * library), however many of its object files are patched: the preamble
 * defines it in top-level asm (C has no COMDAT) as the weak hidden symbol
 * PATCH_CPUID_LEVELS_SYMBOL in a COMDAT group of that name - its code in
 * a section named fmvgen_text (.text.unlikely.<sym> with
 * -DFMVGEN_CPU_NO_SECTION), its answer cache (one byte) in .bss.<sym> - which
 * the link keeps once; the C name fmvgen_cpu_levels is a hidden declaration
 * with that asm label, so resolvers call it directly (a PC-relative call
 * the link resolves: no PLT, GOT or run-time relocation, also -fPIC,
 * -fno-plt, -static-pie). It is never exported (hidden), and another
 * library's, or an older fmvgen's static fmvgen_cpu_levels, never
 * clashes with it; two libraries linked statically into one program share
 * one when their .vN is the same. `.ifndef` keeps one per assembly file
 * (LTO joins the files' top-level asm). Names read from ELF symbol tables by
 * select and inspect: fmvgen_cpu_levels.v1 (local once linked, in no TU;
 * hidden in a -static program), fmvgen_cp_<ident>_<slug>
 * (slug default, x86_64_v2, x86_64_v3, x86_64_v4, avx2),
 * fmvgen_resolve_<ident>, fmvgen_mv_<ident>; the IFUNC SYM whose value is
 * fmvgen_resolve_<ident>'s address, or the trampoline's
 * SYM.fmvgen_ptr/_init/_ctor. fmvgen_cpu_levels makes no call and reads no
 * relocated data: it runs inside IFUNC resolvers, before relocation ends;
 * it changes only call-clobbered registers (eax, ecx, edx, esi, edi, r8). */
#ifndef FMVGEN_PATCH_CPUID_H
#define FMVGEN_PATCH_CPUID_H

#include <stddef.h>

#include "patch/pointer.h"
#include "patch/preamble.h"
#include "util/util.h"

struct patch_function;

/* The marker line above a cpuid-dispatched definition (candidates/marker.h
 * recognizes any FMVGEN_CLONES* word); + "_STATIC" for a static f. */
#define PATCH_CPUID_MACRO "FMVGEN_CLONES_CPU"

/* The symbol of fmvgen_cpu_levels (the C name is declared with this asm
 * label): ".v1" is its contract's version (the level bits, the registers
 * it changes), changed with it, so that only interchangeable definitions
 * merge in a link. */
#define PATCH_CPUID_LEVELS_SYMBOL "fmvgen_cpu_levels.v1"

/* The section of the target copies and the resolvers (FMVGEN_CPU_SEC_;
 * elf/fmvnames.h: ELF_FMV_SECTION, the same name). */
#define PATCH_CPUID_SECTION "fmvgen_text"

/* The first of targets --dispatch cpuid has no copy for (a target other
 * than arch=x86-64-v2/-v3/-v4 and avx2), or NULL when it knows them all. */
const char *patch_cpuid_unknown_target(const struct strvec *targets);

/* The preamble of cpuid dispatch for sets[0..n) (each block guarded by
 * #ifndef, so two patched files in one TU define it once): FMVGEN_CPU_ON,
 * FMVGEN_CLONES_CPU(_STATIC), FMVGEN_PTR_ENDBR_ and FMVGEN_PTR_DEF (shared
 * with pointer dispatch), FMVGEN_CPU_BODY, FMVGEN_CPU_IFUNC(_STATIC), and
 * fmvgen_cpu_levels (its declaration, and its definition as asm, once per
 * linked file: above), and FMVGEN_CPU_T_<SLUG> for each target the sets use
 * and default. Lines end in eol. */
char *patch_preamble_cpuid(const struct patch_target_set *sets, size_t n, const char *eol);

/* 1 when text before offset defines everything sets[0..n) need (the
 * shared block and each target's macro). */
int patch_cpuid_preamble_defined(const char *text, size_t offset, const struct patch_target_set *sets, size_t n);

/* f's lines (as pointer dispatch's: struct patch_pointer_lines), or why f
 * cannot take them (NULL: it can): pointer dispatch's reasons, and no or a
 * refused "params" note (candidates/params.h: C++, variadic, K&R, an
 * unnamed parameter; a store scanned before the note existed). */
const char *patch_cpuid_lines(const struct patch_function *f, const char *text, size_t len,
                              const struct patch_target_set *set, struct patch_pointer_lines *out);

#endif
