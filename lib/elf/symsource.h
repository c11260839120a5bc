/* symsource.h - which function symbol of an ELF file lies at an address a
 * profiler reported, and which source file it came from. `fmvgen select`
 * uses it to tell apart static functions of one name in different files
 * (libjpeg-turbo's three `start_pass`): perf names a sample by its symbol
 * only, but also gives the DSO and an address inside the symbol
 * (lib/measure/profile.h).
 *
 * Source files come from the .symtab's STT_FILE symbols: GCC and Clang emit
 * one per translation unit, and the linker keeps each TU's STB_LOCAL symbols
 * right after it, so the nearest STT_FILE before a local symbol names its
 * TU (GCC and Clang write its basename: "a.c" for ../src/a.c). Global
 * symbols come after all locals and have no such file. A stripped file (no
 * .symtab) still has its .dynsym: its exported (global) symbols are found,
 * and a lookup of any other name there fails (a local symbol perf named
 * from separate debug info: its file cannot be told).
 *
 * Addresses are FILE OFFSETS, as perf reports them (docs/FINDINGS.md,
 * "Profiles"), not symbol values: they are mapped to addresses through the
 * PT_LOAD program headers.
 *
 * Files are read once per cache (a selection's profiles name the same few
 * files over and over) and closed again: the cache holds copies, no file
 * descriptors. Nothing is printed: a file that cannot be read (gone, not
 * x86-64 ELF, corrupt) only makes its lookups fail, and the caller falls
 * back to names. */
#ifndef FMVGEN_ELF_SYMSOURCE_H
#define FMVGEN_ELF_SYMSOURCE_H

#include <stdint.h>

struct elf_symsource_cache;

struct elf_symsource {
    const char *symbol;   /* the function symbol there (points into the cache) */
    int local;            /* STB_LOCAL */
    const char *file;     /* a local symbol's STT_FILE name as written, or NULL
                           * (a global symbol, or a local one before any STT_FILE) */
};

struct elf_symsource_cache *elf_symsource_cache_new(void);
void elf_symsource_cache_free(struct elf_symsource_cache *c);

/* The FUNC or IFUNC symbol of ELF file path whose code holds file offset
 * offset. With name, only a symbol of that name (aliases share an address:
 * GCC's foo IFUNC and foo.resolver) - a different name at that address means
 * the address was not understood, and the lookup fails. Returns 0 with out
 * filled, -1 when the file cannot be read or holds no such symbol there. */
int elf_symsource_lookup(struct elf_symsource_cache *c, const char *path, uint64_t offset, const char *name,
                         struct elf_symsource *out);

#endif
