/* cpudetect.h - how many bytes of a linked ELF file's code are the
 * compiler runtime's CPU detection: what the first resolver of a file
 * brings with it, and what a code-growth budget must count once per file.
 *
 * A GCC or Clang IFUNC resolver (target_clones, target() versions,
 * __builtin_cpu_supports) calls __cpu_indicator_init, and the link then
 * pulls libgcc's cpuinfo.o (compiler-rt's cpu_model.o with
 * --rtlib=compiler-rt) into the file: __cpu_indicator_init and the static
 * helpers of that object (get_available_features, get_intel_cpu, ...),
 * about 4.6 KB of code with gcc 12's libgcc.
 *
 * The bytes counted are the sizes of the distinct function symbols (by
 * address: aliases count once) that are either named __cpu_indicator_init
 * or local to a translation unit whose STT_FILE is cpuinfo.* or
 * cpu_model.* (the .symtab keeps each TU's locals after its STT_FILE; a
 * linked hidden symbol such as __cpu_indicator_init becomes local under
 * the linker's own, unnamed STT_FILE, so it is found by name), each with
 * the alignment padding after it (elf/padding.h). The padding a function
 * before them needs when they end their section is counted with the
 * clones' (elf/codesize.h, run_padding). */
#ifndef FMVGEN_ELF_CPUDETECT_H
#define FMVGEN_ELF_CPUDETECT_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

/* Sets *bytes to the CPU-detection code of ef (0 when it has none) and
 * returns 0; returns -1 when ef has no .symtab (stripped: cannot be told)
 * or it cannot be read. Nothing is printed. */
int elf_cpu_detect_bytes(const struct elf_file *ef, uint64_t *bytes);

/* The same functions as (address, size) pairs, sorted by address, one per
 * address, into *pairs (n pairs; caller frees). Returns 0, or -1 as
 * elf_cpu_detect_bytes. */
int elf_cpu_detect_functions(const struct elf_file *ef, uint64_t **pairs, size_t *n);

/* 1 when name is the basename of the runtime's CPU-detection source or
 * object ("cpuinfo.c", "cpuinfo.o", "cpu_model.c", "cpu_model.o"). */
int elf_cpu_detect_tu(const char *name);

#endif
