/* clones_build.h - for lib/elf only: the pieces of clones.c that the
 * recognisers of fmvgen's own dispatch (cpuiddisp.c) share with it. A
 * builder of the list's functions, the code walk that finds the function
 * addresses a resolver loads, and the two facts every fmvgen trampoline
 * SYM has: what SYM.fmvgen_init calls, and how many bytes the trampoline
 * takes. */
#ifndef FMVGEN_ELF_CLONES_BUILD_H
#define FMVGEN_ELF_CLONES_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "elf/clones.h"

struct elf_file;
struct elf_sym;

struct fn_builder {
    struct elf_mv_function *fns;
    size_t n, cap;
};

/* A new zeroed function named name, appended to b (pointers into b->fns
 * are valid until the next call). */
struct elf_mv_function *elf_mv_new_function(struct fn_builder *b, const char *name, enum elf_mv_origin origin);
/* Adds a version to f, unless one with the same symbol and address is there. */
void elf_mv_add_clone(struct elf_mv_function *f, const char *symbol, const char *target, uint64_t addr,
                      uint64_t size, int is_default);

/* The code addresses the resolver at addr (size bytes; 0: unknown) loads on
 * any path, and those of a ".cold" part it jumps to. Caller frees *addrs. */
size_t elf_mv_resolver_loads(const struct elf_file *ef, uint64_t addr, uint64_t size, uint64_t **addrs);

#define ELF_MV_INIT_SUFFIX ".fmvgen_init"
/* The length of SYM when s is a FUNC symbol SYM.fmvgen_init, else 0. */
size_t elf_mv_init_sym_len(const struct elf_sym *s);
/* The address of the first direct call in the code of init (a FUNC symbol
 * SYM.fmvgen_init), or 0. */
uint64_t elf_mv_init_call(const struct elf_file *ef, const struct elf_sym *init);
/* The bytes of SYM's trampoline: the FUNC symbols SYM, SYM.fmvgen_init and
 * SYM.fmvgen_ctor around init (the one found by the same name nearest to
 * it: two static functions may share SYM), each byte counted once. */
uint64_t elf_mv_trampoline_size(const struct elf_file *ef, const struct elf_sym *init);

/* cpuiddisp.c: appends the functions of fmvgen's --dispatch cpuid. */
void elf_mv_cpuid_scan(const struct elf_file *ef, struct fn_builder *b);

#endif
