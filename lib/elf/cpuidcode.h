/* cpuidcode.h - the code fmvgen's --dispatch cpuid puts in a linked ELF
 * file, found by its fixed names (elf/fmvnames.h) in the .symtab: per
 * function and per object file (translation unit) of the link, what the
 * code-growth account of `fmvgen select` needs (elf/codesize.h).
 *
 * For a function IDENT of a TU (its symbols are locals after that TU's
 * STT_FILE; IDENT itself - the trampoline or the IFUNC symbol, elf/cpuiddisp.h
 * - is global unless IDENT is static):
 *   default_bytes    fmvgen_cp_IDENT_default (and its compiler pieces): the
 *                    function's own code, as a target_clones .default;
 *   copy_bytes       the other copies fmvgen_cp_IDENT_SLUG;
 *   dispatch_bytes   fmvgen_resolve_IDENT, and with pointer reach
 *                    IDENT.fmvgen_init, IDENT.fmvgen_ctor and the trampoline
 *                    IDENT (ifunc reach has no trampoline: its PLT slots are
 *                    elf/pltslots.h's, found from resolver_addr and ifunc);
 *   levels_bytes     the TU's own fmvgen_cpu_levels, where an older fmvgen
 *                    made it static: the CPU detection, once per TU however
 *                    many functions share it (0 when the compiler inlined
 *                    it into the TU's one resolver: its bytes are then in
 *                    dispatch_bytes);
 *   levels_linked    the TU has none of its own and the file has one in no
 *                    TU: fmvgen_cpu_levels.v1 (patch/cpuid.h), a weak hidden
 *                    COMDAT definition in every patched object file that
 *                    the link keeps once and makes local (after the
 *                    .symtab's empty STT_FILE, elf/symwalk.h) - the
 *                    function's resolver calls that one, the file's
 *                    linked_levels_bytes. A file's total is
 *                    elf/cpudetect.h and elf/cpukind.h.
 * inspect lists the same functions (elf/clones.h, dispatch cpuid) without
 * their TU; code size and the budget need it, so they read this.
 * Sizes are the symbols' (st_size); bytes two symbols share count once
 * (aliases; the trampoline IDENT, a naked function whose .size spans the
 * .fmvgen_init and .fmvgen_ctor code its asm puts right after it). */
#ifndef FMVGEN_ELF_CPUIDCODE_H
#define FMVGEN_ELF_CPUIDCODE_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

struct elf_cpuid_function {
    char *name;               /* IDENT */
    char *unit;               /* its TU in this file: "a.c#0" - the STT_FILE name and
                               * which of the TUs of that name (0: the first) */
    int n_copies;             /* the default included */
    uint64_t default_bytes, copy_bytes, dispatch_bytes;
    uint64_t levels_bytes;    /* the unit's own fmvgen_cpu_levels (an older fmvgen's) */
    int levels_linked;        /* it uses the file's one (no TU's; linked_levels_bytes) */
    uint64_t resolver_addr;   /* its fmvgen_resolve_IDENT (0: none in the unit) */
    char *ifunc;              /* ifunc reach: the IFUNC symbol at resolver_addr;
                               * NULL: pointer reach */
    int ifunc_global;         /* that symbol is global or weak (a JUMP_SLOT may
                               * name it), not local to the unit */
};

struct elf_cpuid_code {
    struct elf_cpuid_function *functions;   /* in symbol-table order of their units */
    size_t n_functions;
    uint64_t levels_bytes;    /* every fmvgen_cpu_levels of the file (with a
                               * size), each address once */
    size_t n_levels;          /* how many addresses */
    uint64_t linked_levels_bytes;   /* of them, those in no TU: the one a link
                                     * keeps of the COMDAT definitions (more
                                     * than one only with two versions' .vN) */
    size_t n_linked_levels;
};

/* The unit name that stands for a linked file's one fmvgen_cpu_levels (in
 * no TU) where unit names are keys: elf/fmvpadding.h's units,
 * elf/codesize.h's code_size_unit, select's fixed parts. No TU's name
 * ("a.c#0") is ever this. */
#define ELF_CPUID_LINKED_UNIT "*"

/* Reads ef's .symtab. 0, or -1 when it has none (stripped: nothing can be
 * told; out is then empty). Nothing is printed. */
int elf_cpuid_code(const struct elf_file *ef, struct elf_cpuid_code *out);
void elf_cpuid_code_free(struct elf_cpuid_code *c);

/* The bytes the n ranges (pairs[2k] start, pairs[2k + 1] size) cover,
 * overlaps counted once. Sorts pairs. */
uint64_t elf_ranges_bytes(uint64_t *pairs, size_t n);

#endif
