/* fmvpadding.h - the alignment padding after fmvgen's own code in a
 * linked ELF file (--dispatch cpuid and pointer; the names of
 * elf/fmvnames.h, found in the .symtab), as elf/padding.h tells it: what
 * the code-growth budget adds to those symbols' sizes (elf/codesize.h).
 *
 * The padding after a function is the gap the link leaves so that the
 * next function starts aligned: with every function aligned to 16 bytes
 * (GCC and Clang at -O2) it is its size's distance to a multiple of 16,
 * whatever follows it, so the gap measured after a symbol in the
 * all-candidates build is the one it gets in any build holding it - except
 * where it ends its section (no gap), which the run padding below bounds.
 *
 * Per function IDENT (summed over the TUs defining one of that name, as
 * code sizes are summed per name): the padding after each range of the
 * code fmvgen adds for it - its copies other than the default
 * (fmvgen_cp_IDENT_SLUG and their compiler pieces), its resolver
 * fmvgen_resolve_IDENT, and its trampoline: the FUNC symbol IDENT (local
 * to the TU, else global) with IDENT.fmvgen_init and IDENT.fmvgen_ctor,
 * one range since its .size spans them (only where such a piece exists: an
 * IFUNC-reached copy has no trampoline; its IFUNC symbol is its resolver's
 * address). The default copy's padding is the function's own: it had it
 * before.
 *
 * Per unit (a TU of the file holding fmvgen symbols; named as
 * elf/cpuidcode.h names units, "a.c#0"): the padding after its
 * fmvgen_cpu_levels, and the run padding of its fmvgen symbols (copies,
 * the default included, resolvers, trampolines, fmvgen_cpu_levels; not
 * those in fmvgen's own section ELF_FMV_SECTION, where no function of the
 * project comes before them):
 * elf_padding_run_end, the padding the function before them - or a default
 * copy among them, where that function was last - may need when they end
 * the file's .text (their alignment less one byte, whether padding before
 * them is told or not: GCC puts a function's copies before its trampoline,
 * so the copy of the function that was last is no longer last). The
 * linked file's fmvgen_cpu_levels (in no TU, elf/cpuidcode.h) is the unit
 * ELF_CPUID_LINKED_UNIT: the padding after it and its run padding. */
#ifndef FMVGEN_ELF_FMVPADDING_H
#define FMVGEN_ELF_FMVPADDING_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

struct elf_fmv_padding_function {
    char *name;               /* IDENT */
    uint64_t bytes;           /* after its non-default copies, resolver, trampoline */
};

struct elf_fmv_padding_unit {
    char *unit;               /* "a.c#0" (elf/cpuidcode.h), or ELF_CPUID_LINKED_UNIT */
    uint64_t levels;          /* after its fmvgen_cpu_levels */
    uint64_t run_end;         /* elf_padding_run_end of its fmvgen symbols */
};

struct elf_fmv_padding {
    struct elf_fmv_padding_function *functions;   /* in symbol-table order, one per name */
    size_t n_functions;
    struct elf_fmv_padding_unit *units;           /* in symbol-table order */
    size_t n_units;
};

/* Reads ef's .symtab into out (zeroed first). 0, or -1 when it has none
 * (stripped: nothing told; out is empty). Nothing is printed. */
int elf_fmv_padding(const struct elf_file *ef, struct elf_fmv_padding *out);

/* The function's padding (0 when out has none of that name). */
uint64_t elf_fmv_padding_of(const struct elf_fmv_padding *p, const char *name);
/* The unit's entry, or NULL. */
const struct elf_fmv_padding_unit *elf_fmv_padding_unit(const struct elf_fmv_padding *p, const char *unit);

void elf_fmv_padding_free(struct elf_fmv_padding *p);

#endif
