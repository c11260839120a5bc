/* cpukind.h - which kinds of CPU detection a linked ELF file holds, for
 * `fmvgen inspect`: the compiler runtime's (cpudetect.h counts its bytes:
 * libgcc's cpuinfo.o, compiler-rt's cpu_model.o, linked in with a file's
 * first IFUNC resolver) and fmvgen's own for --dispatch cpuid
 * (cpuiddisp.h, counted by cpuidcode.h): fmvgen_cpu_levels.v1, one per
 * linked file (patch/cpuid.h); an older fmvgen's fmvgen_cpu_levels, a
 * static function of each object file with such functions, or - where the
 * compiler inlined that into the file's one resolver - a resolver
 * fmvgen_resolve_IDENT holding the CPUID instruction itself. */
#ifndef FMVGEN_ELF_CPUKIND_H
#define FMVGEN_ELF_CPUKIND_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;

struct elf_cpu_kinds {
    const char *runtime;      /* "libgcc cpuinfo", "compiler-rt cpu_model",
                               * "__cpu_indicator_init" when only that name
                               * tells; NULL: none linked */
    uint64_t levels_bytes;    /* fmvgen_cpu_levels symbols, each address once */
    size_t n_levels;          /* how many addresses */
    size_t n_linked_levels;   /* of them, the linked file's (in no TU) */
    size_t n_inlined;         /* fmvgen_resolve_* functions holding CPUID */
};

/* Fills *out from ef's .symtab and returns 0; -1 when it has none
 * (stripped) or it cannot be read. Nothing is printed. */
int elf_cpu_kinds(const struct elf_file *ef, struct elf_cpu_kinds *out);

/* 1 when the code at addr (size bytes; 0: unknown) holds a CPUID
 * instruction on a path from its start. */
int elf_code_has_cpuid(const struct elf_file *ef, uint64_t addr, uint64_t size);

#endif
