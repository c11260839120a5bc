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
 * the linker's own, unnamed STT_FILE, so it is found by name).
 *
 * fmvgen's --dispatch cpuid brings its own CPU detection instead:
 * fmvgen_cpu_levels (cpuiddisp.h), a static function of each object file
 * with such functions, about 200 bytes; the compiler may inline it into the
 * file's one resolver, and the resolver's code then holds the CPUID
 * instruction itself. elf_cpu_detect_parts tells the two kinds apart. */
#ifndef FMVGEN_ELF_CPUDETECT_H
#define FMVGEN_ELF_CPUDETECT_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

/* Sets *bytes to the CPU-detection code of ef (0 when it has none) and
 * returns 0; returns -1 when ef has no .symtab (stripped: cannot be told)
 * or it cannot be read. Nothing is printed. */
int elf_cpu_detect_bytes(const struct elf_file *ef, uint64_t *bytes);

/* Both kinds of CPU detection in a file. */
struct elf_cpu_detect {
    uint64_t runtime_bytes;   /* the compiler runtime's (what elf_cpu_detect_bytes counts) */
    const char *runtime;      /* "libgcc cpuinfo", "compiler-rt cpu_model", or
                               * "__cpu_indicator_init" when only that name
                               * tells; NULL when runtime_bytes is 0 */
    uint64_t own_bytes;       /* fmvgen_cpu_levels symbols, each address once */
    size_t own_copies;        /* how many of them (one per object file) */
};
/* Fills *out and returns 0; -1 when ef has no .symtab or it cannot be read.
 * Nothing is printed. */
int elf_cpu_detect_parts(const struct elf_file *ef, struct elf_cpu_detect *out);

/* 1 when the code at addr (size bytes) holds a CPUID instruction: a
 * resolver that detects the CPU itself (fmvgen_cpu_levels inlined). */
int elf_code_has_cpuid(const struct elf_file *ef, uint64_t addr, uint64_t size);

/* 1 when name is the basename of the runtime's CPU-detection source or
 * object ("cpuinfo.c", "cpuinfo.o", "cpu_model.c", "cpu_model.o"). */
int elf_cpu_detect_tu(const char *name);

#endif
