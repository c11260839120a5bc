/* pltslots.h - the PLT entries of a linked x86-64 ELF file that the
 * loader fills from an IFUNC resolver, and the symbols its jump slots
 * name.
 *
 * A multiversioned function that is called from inside its own file (a
 * program, or a library calling its own function) is called through a PLT
 * entry:
 *   - one whose GOT slot the loader fills by calling the resolver, when
 *     the ifunc is local to the file: an R_X86_64_IRELATIVE relocation
 *     with the resolver's address as addend, in the PLT's relocation
 *     section (.rela.plt; .rela.iplt in a static program);
 *   - one bound by name, when the ifunc symbol is exported: an
 *     R_X86_64_JUMP_SLOT relocation naming the function or its ifunc
 *     symbol (Clang's "f.ifunc"). GCC 12 exports the ifunc of a hidden
 *     function; a library built without semantic interposition (Clang)
 *     called its exported function directly before.
 * Each is an entry of the PLT's code: its entry size (.iplt's when the file
 * has one, else .plt's; 16 bytes when the section gives none), plus
 * .plt.sec's when the file has one (IBT).
 *
 * A JUMP_SLOT entry may have been there before the function was cloned (an
 * exported function GCC called through its PLT already): the names jump
 * slots refer to tell that, against the same file of a build without
 * clones (select/codecost.c). */
#ifndef FMVGEN_ELF_PLTSLOTS_H
#define FMVGEN_ELF_PLTSLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct elf_file;

struct elf_plt_slots {
    uint64_t entry_bytes;       /* code bytes of one PLT entry (0: the file has no PLT) */
    uint64_t *resolvers;        /* addends of the IRELATIVE relocations of the
                                 * PLT's relocation section, sorted */
    size_t n_resolvers;
    struct strvec jump_slots;   /* the symbols JUMP_SLOT relocations name,
                                 * sorted (one per relocation) */
};

/* Reads ef's PLT relocations into out (zeroed first). A file without a PLT
 * has none: entry_bytes 0, both lists empty. Nothing is printed. */
void elf_plt_slots_read(const struct elf_file *ef, struct elf_plt_slots *out);

/* The code bytes of the PLT entries that reach a multiversioned function:
 * those filled by its resolver (at resolver; 0: none known) and those whose
 * JUMP_SLOT names name or ifunc (each may be NULL). */
uint64_t elf_plt_bytes_for(const struct elf_plt_slots *p, uint64_t resolver, const char *name, const char *ifunc);

/* 1 when jump_slots (an elf_plt_slots' sorted list) holds name. */
int elf_plt_jump_slot_named(const struct strvec *jump_slots, const char *name);

void elf_plt_slots_free(struct elf_plt_slots *p);

#endif
