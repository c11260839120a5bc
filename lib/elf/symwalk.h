/* symwalk.h - the function symbols of a linked or object ELF file's symbol
 * table, in table order, each with the translation unit it belongs to.
 *
 * The .symtab keeps each TU's STB_LOCAL symbols right after that TU's
 * STT_FILE symbol (GCC and Clang write its basename: "a.c"); an STT_FILE
 * with an empty name closes the last TU (the linker's own locals follow it,
 * e.g. hidden symbols made local by the link). Global symbols come after
 * all locals and belong to no TU. */
#ifndef FMVGEN_ELF_SYMWALK_H
#define FMVGEN_ELF_SYMWALK_H

#include <stddef.h>
#include <stdint.h>

struct elf_walk_sym {
    const char *name;   /* never NULL or empty; valid while the file is open */
    const char *tu;     /* a local symbol's STT_FILE name, or NULL (a global
                         * symbol, or a local one in no named TU) */
    uint64_t value, size;
    int type;           /* STT_FUNC or STT_GNU_IFUNC */
    int bind;           /* STB_LOCAL / STB_GLOBAL / STB_WEAK */
    size_t tu_index;    /* with tu: the symbol-table index of that STT_FILE, which
                         * tells two TUs of one basename apart; else 0 */
};

/* Calls fn for each defined, named STT_FUNC and STT_GNU_IFUNC symbol of
 * elf's .symtab - or, with dynsym_fallback, of its .dynsym when it has no
 * .symtab (stripped) - in table order. elf is an Elf * (libelf). fn returns
 * nonzero to stop the walk. Returns 0, or -1 when there is no such table or
 * it cannot be read (nothing printed). */
int elf_symtab_walk(void *elf, int dynsym_fallback, int (*fn)(const struct elf_walk_sym *s, void *ctx), void *ctx);

#endif
