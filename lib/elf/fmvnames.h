/* fmvnames.h - the symbol names fmvgen's own dispatch code gets in an ELF
 * file (patch --dispatch pointer and cpuid; fixed names, see
 * docs/DESIGN.md "Patch contract"), told apart so that a symbol can be
 * credited to the function it serves. The one parser of these names: the
 * recognisers (cpuiddisp.c, cpuidcode.c, cpukind.c) and select's crediting
 * all read names through it. For a C function with identifier IDENT:
 *
 *   fmvgen_cp_IDENT_SLUG      a copy (cpuid), SLUG one of default,
 *                             x86_64_v2, x86_64_v3, x86_64_v4, avx2
 *   fmvgen_resolve_IDENT      its resolver (cpuid); IDENT itself is either
 *                             the trampoline below or an STT_GNU_IFUNC
 *                             symbol at the resolver's address
 *   fmvgen_mv_IDENT[.SUFFIX]  the renamed definition and its target_clones
 *                             clones (pointer: fmvgen_mv_f.arch_x86_64_v3)
 *   IDENT.fmvgen_init, IDENT.fmvgen_ctor   the trampoline's code (both)
 *   IDENT.fmvgen_ptr          the trampoline's pointer (data)
 *   fmvgen_cpu_levels.v1      the CPU detection, once per linked file with
 *                             cpuid-dispatched functions (a weak hidden
 *                             COMDAT definition, local once linked; .v1 its
 *                             contract's version, read as a tail); an older
 *                             fmvgen's fmvgen_cpu_levels, once per object
 *                             file (static); no function's
 *
 * A compiler's tail after the name (".cold", ".constprop.0", ".lto_priv.0",
 * ".llvm.123") keeps the role and IDENT; out->tail tells it, and
 * elf_fmv_tail_is_rename tells a rename (the symbol is still the whole
 * function) from a piece. IDENT itself (the trampoline: a jump through the
 * pointer, or the IFUNC) carries no mark. Names are only read, never
 * checked against a patch. */
#ifndef FMVGEN_ELF_FMVNAMES_H
#define FMVGEN_ELF_FMVNAMES_H

#include <stddef.h>

#define ELF_FMV_COPY_PREFIX "fmvgen_cp_"
#define ELF_FMV_RESOLVER_PREFIX "fmvgen_resolve_"
#define ELF_FMV_LEVELS_SYMBOL "fmvgen_cpu_levels"
/* The section of --dispatch cpuid's target copies and resolvers
 * (patch/cpuid.h: PATCH_CPUID_SECTION, the same name). */
#define ELF_FMV_SECTION "fmvgen_text"

enum elf_fmv_role {
    ELF_FMV_NONE = 0,     /* not one of fmvgen's names */
    ELF_FMV_COPY,         /* fmvgen_cp_IDENT_SLUG */
    ELF_FMV_RESOLVER,     /* fmvgen_resolve_IDENT */
    ELF_FMV_BODY,         /* fmvgen_mv_IDENT, or one of its clones (suffix) */
    ELF_FMV_TRAMPOLINE,   /* IDENT.fmvgen_init, IDENT.fmvgen_ctor */
    ELF_FMV_POINTER,      /* IDENT.fmvgen_ptr */
    ELF_FMV_LEVELS,       /* fmvgen_cpu_levels */
};

struct elf_fmv_name {
    enum elf_fmv_role role;
    const char *ident;    /* points into the symbol (ident_len bytes); NULL for
                           * NONE and LEVELS */
    size_t ident_len;
    const char *slug;     /* COPY: "default", "x86_64_v3", ... (static) */
    const char *target;   /* COPY: the target its slug stands for (static):
                           * "default", "arch=x86-64-v2", "arch=x86-64-v3",
                           * "arch=x86-64-v4", "avx2" */
    int is_default;       /* COPY with slug default */
    const char *tail;     /* COPY, RESOLVER, LEVELS: what follows the name
                           * (".cold", ".lto_priv.0"), "" for none; else NULL */
};

/* What symbol is; out->role ELF_FMV_NONE when none of the above. Returns
 * out->role. */
enum elf_fmv_role elf_fmv_name(const char *symbol, struct elf_fmv_name *out);

/* 1 when tail ("" or one elf_fmv_name gave) leaves the symbol the whole
 * function: none, or a link's rename (".lto_priv.N", ".llvm.N", clang LTO's
 * ".N"); 0 for a
 * piece the compiler split or specialised (".cold", ".constprop.0"). */
int elf_fmv_tail_is_rename(const char *tail);

/* The target a copy's SLUG stands for (as out->target above), NULL for any
 * other slug. */
const char *elf_fmv_slug_target(const char *slug);

/* The length of the name of the function symbol belongs to: IDENT for
 * fmvgen's names above, else everything before the first '.' ("foo" of
 * "foo.avx2.0"); *start gets where that name begins in symbol. */
size_t elf_fmv_base(const char *symbol, const char **start);

/* The host of a lambda's call operator, a local entity of a C++ function
 * (patch/lambda.h: lambda dispatch of a virtual function): "_Z<enc>" for
 * "_ZZ<enc>E" followed by the closure's nested name "N[K]Ul..." (GCC) or
 * "N[K]3$_<n>" (clang) ending in "clE..." (suffixes after a '.' allowed);
 * NULL for any other symbol. Caller frees. */
char *elf_fmv_lambda_host(const char *symbol);

#endif
