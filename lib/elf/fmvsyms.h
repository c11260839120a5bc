/* fmvsyms.h - the symbols of fmvgen's own dispatch code in an ELF file,
 * read in one walk of its symbol table, each with the TU it belongs to:
 * what elf/cpuidcode.h (bytes per function and unit) and elf/fmvpadding.h
 * (the padding after that code) group per (TU, IDENT), so that both name
 * units alike.
 *
 * Kept: every FUNC symbol (fmvgen's names, elf/fmvnames.h, and plain ones:
 * a plain FUNC may be a trampoline) and plain IFUNC symbols (the IFUNC
 * reach); not the renamed bodies (fmvgen_mv_*) or the pointers
 * (IDENT.fmvgen_ptr). Symbols come in symbol-table order, which keeps each
 * TU's locals together, in link order. */
#ifndef FMVGEN_ELF_FMVSYMS_H
#define FMVGEN_ELF_FMVSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "elf/fmvnames.h"

struct elf_file;

struct elf_fmv_sym {
    char *ident;          /* IDENT of fmvgen's names; NULL for fmvgen_cpu_levels
                           * and plain symbols */
    enum elf_fmv_role role;   /* ELF_FMV_NONE for a plain symbol */
    int is_default;       /* a default copy */
    int whole;            /* no piece's tail (elf_fmv_tail_is_rename) */
    size_t tu_index;      /* 0: global, or in no named TU */
    const char *tu;       /* valid while the file is open */
    uint64_t value, size;
    char *plain;          /* a plain symbol's name; NULL for fmvgen's names */
    int type, bind;       /* STT_*, STB_* */
};

struct elf_fmv_syms {
    struct elf_fmv_sym *v;
    size_t n, cap;
};

/* Reads ef's symbols into out (emptied first). 0, or -1 when the symbol
 * table cannot be read (out then holds what was read; free it). */
int elf_fmv_syms_read(const struct elf_file *ef, struct elf_fmv_syms *out);

/* "a.c#k": which of the TUs named tu this one (tu_index) is, counted in
 * symbol-table order: two files of one name (a.c in two directories) are
 * told apart, and every reader of this table names a unit alike. */
char *elf_fmv_syms_unit_name(const struct elf_fmv_syms *w, size_t tu_index, const char *tu);

/* The trampoline IDENT of the TU: its local FUNC of that name, else the
 * global one; NULL when there is none. */
const struct elf_fmv_sym *elf_fmv_syms_trampoline(const struct elf_fmv_syms *w, const char *ident, size_t tu_index);

void elf_fmv_syms_free(struct elf_fmv_syms *w);

/* Address ranges, as pairs: v[2k] start, v[2k + 1] size (what
 * elf_ranges_bytes and elf/padding.h take); free(v) when done. */
struct elf_fmv_ranges {
    uint64_t *v;
    size_t n, cap;        /* n pairs; cap counts uint64_t */
};

/* Appends [value, value + size) to r; a size of 0 adds nothing. */
void elf_fmv_ranges_add(struct elf_fmv_ranges *r, uint64_t value, uint64_t size);

#endif
