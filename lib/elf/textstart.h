/* textstart.h - where a linked x86-64 ELF file's .text output section
 * starts, and what lies before it in its segment: what a selection's
 * added PLT entries move (select/textpad.h).
 *
 * GNU ld (-z separate-code, its x86-64 default) starts the text segment
 * on a page of its own with .init, then .plt (its .iplt entries, the ones
 * a local IFUNC is called through, included), .plt.got, .plt.sec, then
 * .text: each IFUNC a file starts calling through its PLT moves .text, and
 * every function in it, by one PLT entry (16 bytes), unless .text's own
 * alignment absorbs it. before_end tells the end of what precedes .text;
 * plt_bytes how much of the allocated sections below .text is PLT code
 * (.plt, .iplt, .plt.got, .plt.sec), so that two builds' difference can be
 * told to be the PLT's alone. */
#ifndef FMVGEN_ELF_TEXTSTART_H
#define FMVGEN_ELF_TEXTSTART_H

#include <stdint.h>

struct elf_file;

struct elf_text_start {
    uint64_t addr;         /* .text's address */
    uint64_t align;        /* its sh_addralign (1 when 0) */
    uint64_t before_end;   /* the end (address + size) of the allocated section
                            * ending last below .text, in its segment (0: none) */
    uint64_t plt_bytes;    /* the sizes of the PLT code sections below .text */
    uint64_t plt_after;    /* ... and of those above it (lld puts .plt after .text) */
};

/* Reads ef's .text (zeroes out first). Returns 0, or -1 when ef has no
 * allocated section named .text. Nothing is printed. */
int elf_text_start_read(const struct elf_file *ef, struct elf_text_start *out);

#endif
