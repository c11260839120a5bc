/* codesize.h - how much code a build is, and how much of it its clones
 * are, measured in its linked ELF files the way `fmvgen inspect` measures
 * one file (inspect.h), so that the two commands never disagree:
 *
 *   code bytes      the allocated executable sections (.text, .init, .fini,
 *                   .plt, .plt.got, .plt.sec, ...) of every x86-64
 *                   executable and shared library of the build, summed
 *                   (not the build system's own checks: the programs
 *                   under CMakeFiles/ and meson-private/);
 *   a function's    its non-default clones plus its resolver, summed over
 *   added bytes     the files holding it - what target_clones added for it
 *                   (the default clone is the code the function had anyway)
 *                   - with the alignment padding after each of them
 *                   (elf/padding.h) and the PLT entries its resolver fills
 *                   (elf/pltslots.h). Only inspect's "counted" functions:
 *                   the compiler-made ones with a known default clone.
 *                   inspect's own account counts symbol sizes only. With
 *                   fmvgen's pointer dispatch the trampoline's code (NAME,
 *                   NAME.fmvgen_init, NAME.fmvgen_ctor) counts as resolver
 *                   bytes too; with its cpuid dispatch (elf/cpuidcode.h)
 *                   the copies other than fmvgen_cp_NAME_default are clone
 *                   bytes, the resolver and trampoline resolver bytes, and
 *                   fmvgen_cpu_levels is the CPU detection (a fixed part:
 *                   one per linked file, the unit ELF_CPUID_LINKED_UNIT;
 *                   an older fmvgen's, one per object file). The padding after
 *                   fmvgen's own code (trampolines, cpuid copies and
 *                   resolvers, fmvgen_cpu_levels) is elf/fmvpadding.h's:
 *                   a function's with its padding_bytes, a unit's with
 *                   its levels_bytes. PLT entries are predicted for
 *                   compiler-made resolvers and for cpuid's ifunc reach (its
 *                   IRELATIVE slot, or a JUMP_SLOT naming its exported IFUNC).
 *
 * `fmvgen select` compares builds with it: the all-candidates variants, the
 * selected one, and a whole-program -march=x86-64-v3 build. The code hash
 * tells whether two builds' code is the same (e.g. a build that ignored the
 * flags it was given). */
#ifndef FMVGEN_ELF_CODESIZE_H
#define FMVGEN_ELF_CODESIZE_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* 1 when path is a regular x86-64 ELF executable or shared library (not an
 * object file, archive or core). Reads only the ELF header. */
int elf_is_linked_x86_64(const char *path);

/* Appends the paths of the linked x86-64 ELF files under dir (recursively;
 * symbolic links are not followed; .fmvgen/, CMakeFiles/ and meson-private/
 * are skipped: fmvgen's files, the build system's compiler checks), sorted, so that two
 * builds of one project list their files in the same order. */
void elf_find_linked(const char *dir, struct strvec *out);

struct code_size_function {
    char *name;                /* as in the files (elf_mv_function.name) */
    int n_versions;            /* versions, default included (the largest seen) */
    uint64_t clone_bytes;      /* non-default clones, summed over the files */
    uint64_t resolver_bytes;   /* resolvers, summed over the files */
    uint64_t default_bytes;    /* default clones, summed over the files */
    int estimated;             /* a clone's size was estimated from its code
                                * (no symbol size: a stripped file) */
    size_t *files;             /* the files holding its clones reached through a
                                * compiler-made resolver (IFUNC, pointer), which
                                * links the runtime's CPU detection: indices into
                                * code_size.files, ascending */
    size_t n_files;
    uint64_t padding_bytes;    /* alignment padding after its non-default
                                * clones and resolvers (fmvgen's trampolines,
                                * cpuid copies and resolvers included:
                                * elf/fmvpadding.h), summed over the files */
    struct code_size_plt {
        size_t file;           /* index into code_size.files */
        uint64_t bytes;        /* PLT entries its resolver fills there */
    } *plt;                    /* one per file where it has such entries */
    size_t n_plt;
    struct code_size_unit *units;   /* the object files holding its cpuid copies */
    size_t n_units;
    /* Each non-default copy by symbol (target_clones' NAME.arch_x86_64_v4.0,
     * cpuid's fmvgen_cp_NAME_x86_64_v4): its symbol's size and the
     * alignment padding after it, summed over the files (static namesakes
     * of one symbol name counted together): what leaving that one copy out
     * saves (select/trimcopies.h). */
    struct code_size_copy {
        char *symbol;
        uint64_t bytes;
    } *copies;
    size_t n_copies;
};

/* An object file of a link that holds cpuid-dispatched copies, or the
 * linked file's fmvgen_cpu_levels those copies' resolvers call. */
struct code_size_unit {
    size_t file;               /* index into code_size.files */
    char *unit;                /* elf_cpuid_function.unit: "a.c#0"; or
                                * ELF_CPUID_LINKED_UNIT: the file's one
                                * fmvgen_cpu_levels (elf/cpuidcode.h) */
    uint64_t levels_bytes;     /* its fmvgen_cpu_levels (once per unit: an
                                * older fmvgen's own, or the linked file's;
                                * 0 for a TU that has none), with the padding
                                * after it and before a run of the unit's
                                * fmvgen code that ends its section
                                * (elf/fmvpadding.h: levels + run_end) */
};

/* One linked file measured. */
struct code_size_file {
    char *path;                /* as given to code_size_measure */
    uint64_t code_bytes;       /* its allocated executable sections */
    int64_t cpu_detect_bytes;  /* the compiler runtime's CPU-detection code in
                                * it (elf/cpudetect.h); -1: no .symtab to tell */
    uint64_t plt_entry_bytes;  /* code bytes of one PLT entry (0: no PLT) */
    uint64_t run_padding;      /* the alignment padding before each run of
                                * added code (non-default clones and
                                * resolvers of the counted functions, the CPU
                                * detection) that ends its section's
                                * functions: what the function before it
                                * may need now that it is no longer last (at
                                * most the run's alignment less one byte:
                                * counted so) */
    struct strvec jump_slots;  /* the symbols its JUMP_SLOT relocations name,
                                * sorted: the functions it already called
                                * through the PLT (elf/pltslots.h) */
    int64_t cpu_levels_bytes;  /* fmvgen's own (cpuid dispatch: every
                                * fmvgen_cpu_levels); -1: no .symtab to tell */
};

struct code_size {
    size_t n_files;            /* files measured */
    size_t n_unreadable;       /* files that could not be read (an error line each) */
    uint64_t code_bytes;       /* allocated executable sections of all files */
    uint64_t clone_bytes;      /* non-default clones of the counted functions */
    uint64_t resolver_bytes;   /* their resolvers */
    uint32_t code_crc;         /* CRC-32 of those sections' bytes, file after file */
    struct code_size_function *functions;   /* counted functions, sorted by name */
    size_t n_functions;
    struct code_size_file *files;           /* [n_files], in the order measured */
};

/* Measures the files (in the given order). A file that cannot be read gets
 * one error line and is left out (n_unreadable). Returns 0 when every file
 * was read, else -1; out is filled either way (free with code_size_free). */
int code_size_measure(char *const *files, size_t n, struct code_size *out);
/* The same on elf_find_linked(dir). */
int code_size_of_dir(const char *dir, struct code_size *out);

/* The function named name, or NULL. */
const struct code_size_function *code_size_find(const struct code_size *cs, const char *name);
/* The PLT entries its resolvers fill, summed over the files. */
uint64_t code_size_plt_bytes(const struct code_size_function *f);
/* Its added bytes: clone_bytes + resolver_bytes + padding_bytes + its PLT
 * entries (all of them: a JUMP_SLOT entry the file had before the function
 * was cloned adds nothing; select/codecost.c tells that against the
 * baseline). */
uint64_t code_size_added(const struct code_size_function *f);

void code_size_free(struct code_size *cs);

#endif
