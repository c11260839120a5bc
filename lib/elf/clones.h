/* clones.h - which functions of an ELF file are multiversioned, and where
 * each version lives. Used by `fmvgen inspect` (sizes, ISA verdicts) and by
 * `fmvgen verify` (its preloaded helper calls each resolver and maps the
 * returned address back to a clone name with elf_mv_clone_at).
 *
 * What is recognised, from the symbol tables (.symtab, else .dynsym):
 *   GCC target_clones:   foo (IFUNC), foo.resolver, foo.default, foo.avx2,
 *                        foo.arch_x86_64_v3, older foo.avx2.0
 *   GCC target() overloads (C++): the default version keeps the plain name
 *   Clang target_clones: foo.ifunc (+ foo with clang >= 15), foo.resolver,
 *                        foo.avx2.0, foo.arch_x86-64-v3.1, foo.default.2
 *   Any other STT_GNU_IFUNC symbol (hand-written ifunc, glibc's memcpy, ...):
 *   its resolver is the FUNC symbol at the IFUNC's address; its versions are
 *   the functions whose addresses the resolver's code loads (found by
 *   disassembling the resolver), with an empty target.
 *   Clones without a dispatcher: FUNC symbols foo.default (+ foo.avx2, ...)
 *   where no resolver or IFUNC of foo exists.
 *   An R_X86_64_IRELATIVE relocation that no symbol explains (a stripped
 *   file): its addend is a resolver; the function is named "ifunc@0xADDR"
 *   and its versions are found from the resolver's code as above (when
 *   none is found, it is not listed: see n_irelative_unlisted).
 *   fmvgen's pointer dispatch (patch --dispatch pointer): the clones of
 *   fmvgen_mv_NAME (GCC or Clang as above; its IFUNC, if any, unreferenced)
 *   whose resolver the FUNC symbol SYM.fmvgen_init calls: the function is
 *   named SYM (the user's symbol), dispatch pointer.
 *   fmvgen's cpuid dispatch (patch --dispatch cpuid, cpuiddisp.h): an
 *   IFUNC symbol SYM at fmvgen_resolve_IDENT, or a FUNC symbol
 *   SYM.fmvgen_init calling it; the resolver returns one of the copies
 *   fmvgen_cp_IDENT_SLUG: the function is named SYM, origin fmvgen,
 *   dispatch cpuid, its versions are those copies.
 * Compiler-made pieces of a version (foo.avx2.cold, foo.default.constprop.0,
 * .isra/.part/.lto_priv) are not versions.
 *
 * Addresses are as written in the file (st_value): for ET_DYN files (PIE
 * and shared libraries) add the load bias to get a run-time address.
 * Only x86-64 ELF files are accepted; anything else is an error naming the
 * file. */
#ifndef FMVGEN_ELF_CLONES_H
#define FMVGEN_ELF_CLONES_H

#include <stddef.h>
#include <stdint.h>

enum elf_mv_origin {
    ELF_MV_GCC,      /* GCC target_clones / target() overloads */
    ELF_MV_CLANG,    /* Clang target_clones (foo.ifunc, foo.x.N) */
    ELF_MV_IFUNC,    /* another STT_GNU_IFUNC: a hand-written dispatcher */
    ELF_MV_FMVGEN,   /* fmvgen's own copies (--dispatch cpuid):
                      * fmvgen_cp_IDENT_SLUG, resolver fmvgen_resolve_IDENT */
};

/* How calls reach a function's versions. */
enum elf_mv_dispatch {
    ELF_MV_DISPATCH_IFUNC,   /* an STT_GNU_IFUNC symbol, or an IRELATIVE
                              * relocation whose addend is its resolver: the
                              * C library's loader (or static startup code)
                              * calls the resolver and binds the result */
    ELF_MV_DISPATCH_POINTER, /* fmvgen's --dispatch pointer: the resolver is
                              * called by NAME.fmvgen_init on the first call
                              * of NAME, which jumps through NAME.fmvgen_ptr
                              * (patch/pointer.h); no loader is involved */
    ELF_MV_DISPATCH_CPUID,   /* fmvgen's --dispatch cpuid: a resolver
                              * fmvgen_resolve_IDENT that asks CPUID itself
                              * (fmvgen_cpu_levels, no libgcc) and returns
                              * one of the copies fmvgen_cp_IDENT_SLUG,
                              * reached through an IFUNC symbol NAME (ifunc
                              * set: the loader calls it) or the pointer and
                              * NAME.fmvgen_init as above
                              * (elf_mv_reach_name) */
    ELF_MV_DISPATCH_NONE,    /* versions, maybe a resolver, but neither: no
                              * loader ever picks among them (clones whose
                              * dispatcher is gone, foo.default alone); or
                              * ifuncs in a program whose C library never
                              * resolves them (ifunc_unresolved: musl) */
};

struct elf_clone {
    char *symbol;        /* as in the symbol table: "add.avx2.0", "_Z3fooi";
                          * "0x1234" when no symbol names the address (a
                          * version found only through its resolver's code
                          * in a stripped file; size is then 0) */
    char *target;        /* suffix as written, without Clang's ".N":
                          * "avx2", "arch_x86_64_v3", "arch_x86-64-v3",
                          * "sse4_2", "sse4.2", "default"; "" when unknown
                          * (hand-written ifunc versions) */
    uint64_t addr;       /* st_value */
    uint64_t size;       /* st_size, bytes of code of this version's symbol */
    int is_default;      /* the version chosen when no feature matches */
};

struct elf_mv_function {
    char *name;              /* base name, mangled as in the file: "add", "_Z3sumPKii";
                              * "ifunc@0x2770" when only a relocation tells */
    enum elf_mv_origin origin;
    char *resolver;          /* "add.resolver", or the FUNC symbol at the
                              * IFUNC's address; NULL if none is named */
    uint64_t resolver_addr;  /* 0 when unknown */
    uint64_t resolver_size;
    char *ifunc;             /* the STT_GNU_IFUNC symbol ("add" or
                              * "add.ifunc"); NULL when none is in the tables */
    uint64_t ifunc_addr;
    struct elf_clone *clones;  /* sorted: default first, then by symbol */
    size_t n_clones;
    enum elf_mv_dispatch dispatch;
    uint64_t trampoline_size;  /* pointer and cpuid dispatch: the bytes of
                              * NAME, NAME.fmvgen_init and NAME.fmvgen_ctor
                              * (the code every call goes through), each
                              * byte once; 0 for the others */
};

struct elf_mv_list {
    char *path;
    int elf_type;            /* ET_EXEC or ET_DYN (PIE executable or .so) */
    int is_static;           /* no PT_INTERP and no PT_DYNAMIC */
    int has_symtab;          /* 0: stripped, only .dynsym was read */
    size_t n_irelative;      /* R_X86_64_IRELATIVE relocations: one per
                              * ifunc the loader resolves (also counts the
                              * ifuncs of a stripped file) */
    size_t n_ifunc_symbols;  /* STT_GNU_IFUNC symbols seen */
    char *ifunc_unresolved;  /* why nothing resolves this file's IFUNCs at
                              * run time (a musl program: every function's
                              * dispatch is then none), or NULL: resolved or
                              * not known (a shared library: its loader) */
    size_t n_irelative_unlisted;  /* IRELATIVE relocations left out of
                              * functions: no symbol names them and their
                              * resolver returns no code address of this
                              * file (glibc runs init code that way) */
    struct elf_mv_function *functions;  /* sorted by name */
    size_t n_functions;
};

/* Reads the file. Returns 0, or -1 after printing one line
 * "fmvgen: FILE: what is wrong" (missing, not ELF, not x86-64, corrupt).
 * A stripped file is not an error: has_symtab is 0 and the list holds what
 * .dynsym still tells. */
int elf_mv_read(const char *path, struct elf_mv_list *out);
/* The same on a file already open (inspect reads clone bytes from it). */
struct elf_file;
int elf_mv_scan(const struct elf_file *ef, struct elf_mv_list *out);
void elf_mv_list_free(struct elf_mv_list *list);

/* The clone of f whose symbol starts at file address addr (run-time address
 * minus the load bias), or NULL. */
const struct elf_clone *elf_mv_clone_at(const struct elf_mv_function *f, uint64_t addr);

/* The default clone of f, or NULL when none is known. */
const struct elf_clone *elf_mv_default(const struct elf_mv_function *f);

/* "gcc", "clang", "ifunc", "fmvgen". */
const char *elf_mv_origin_name(enum elf_mv_origin origin);

/* How calls reach f's versions: "ifunc" (the loader binds the resolver's
 * answer: dispatch ifunc, or cpuid with an IFUNC symbol), "pointer" (a
 * trampoline's pointer set by fmvgen's init code: dispatch pointer, or
 * cpuid without one); NULL for dispatch none. */
const char *elf_mv_reach_name(const struct elf_mv_function *f);

/* "ifunc", "pointer", "cpuid", "none". */
const char *elf_mv_dispatch_name(enum elf_mv_dispatch dispatch);

#endif
