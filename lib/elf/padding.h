/* padding.h - the alignment padding around a function in a linked ELF
 * file: the bytes the link left between a function's code and the next
 * function so that the next one starts aligned (GCC and Clang align
 * functions to 16 bytes at -O2). A function added to a build (a clone, a
 * resolver, the runtime's CPU detection) costs its symbol's size plus that
 * padding; the code-growth budget counts both (select/budget.h).
 *
 * A gap counts as padding when it lies inside one allocated executable
 * section, is shorter than 64 bytes, and the function after it starts at a
 * multiple of a power of two above the gap's length (a 15-byte gap before
 * a 16-byte-aligned start). Any other gap (the end of a section, code no
 * symbol names, a gap of 64 bytes or more) counts 0: it is not padding that
 * can be told. Symbols are the file's FUNC and IFUNC symbols (elffile.h);
 * a stripped file has only its .dynsym, so most gaps are not told there.
 *
 * A function made of several symbols whose ranges overlap or touch (the
 * trampoline of fmvgen's pointer and cpuid dispatch: NAME's .size spans
 * NAME.fmvgen_init and NAME.fmvgen_ctor) is one range here: its padding is
 * the gap after its end, not after each piece. */
#ifndef FMVGEN_ELF_PADDING_H
#define FMVGEN_ELF_PADDING_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

/* The padding after the function at addr of size bytes: from addr + size
 * to the next function symbol's start. */
uint64_t elf_padding_after(const struct elf_file *ef, uint64_t addr, uint64_t size);

/* The padding before the function at addr: from the end of the function
 * symbol before it to addr. */
uint64_t elf_padding_before(const struct elf_file *ef, uint64_t addr);

/* 1 when a function symbol starts at end or after it in the section that
 * holds the byte before end: code that ends at end does not end its
 * section's functions. */
int elf_function_after(const struct elf_file *ef, uint64_t end);

/* The padding after the code the n ranges cover (pairs[2k] start,
 * pairs[2k + 1] size; sorted here, sizes 0 ignored): after the end of
 * each run of ranges that overlap or touch, that run taken as one
 * function. */
uint64_t elf_padding_after_ranges(const struct elf_file *ef, uint64_t *pairs, size_t n);

/* The padding the function before a run of added code may need in a build
 * where that run is gone or smaller: for each run of the n ranges (as
 * above, sorted here; consecutive when only padding lies between them)
 * that ends its section's functions and has padding before it, that
 * function was last in its section without the run and is not now. Which
 * function that is depends on what else was added, so the most it can
 * need is counted: the run's alignment less one byte (the alignment the
 * gap before it shows, at least 16, at most what its start is a multiple
 * of, up to 64). With any_before, a run that ends its section counts
 * whether padding before it is told or not: the function no longer last
 * may be inside the run (a function's default copy, where the function
 * was last before it was copied). */
uint64_t elf_padding_run_end(const struct elf_file *ef, uint64_t *pairs, size_t n, int any_before);

#endif
