/* cpuiddisp.c - see cpuiddisp.h. Found from each IFUNC symbol at a
 * resolver fmvgen_resolve_IDENT, and from each trampoline's init code that
 * calls one: the resolver names the function's IDENT, whose copies are then
 * found by name (elf/fmvnames.h). */
#include "elf/cpuiddisp.h"
#include "elf/clones_build.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/fmvnames.h"
#include "util/util.h"

int elf_cpuid_target_level(const char *target)
{
    static const char *const by_level[] = {"default", "arch=x86-64-v2", "arch=x86-64-v3", "arch=x86-64-v4"};
    if (!strcmp(target, "avx2")) return 3;
    for (int i = 0; i < 4; i++)
        if (!strcmp(target, by_level[i])) return i + 1;
    return 0;
}

int elf_cpuid_cpu_level(const char *level)
{
    static const char *const names[] = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
    for (int i = 0; level && i < 4; i++)
        if (!strcmp(level, names[i])) return i + 1;
    return 0;
}

/* 1 when name is one of fmvgen's of role for ident (ident_len bytes), the
 * whole function (no piece's tail); nm gets the parse. */
static int names_whole(const char *name, enum elf_fmv_role role, const char *ident, size_t ident_len,
                       struct elf_fmv_name *nm)
{
    return elf_fmv_name(name, nm) == role && nm->ident_len == ident_len && !strncmp(nm->ident, ident, ident_len) &&
           elf_fmv_tail_is_rename(nm->tail);
}

/* How many FUNC resolvers of ident there are (statics of two files; in an
 * LTO link "fmvgen_resolve_f.lto_priv.0" and ".lto_priv.1"). */
static size_t count_resolvers(const struct elf_file *ef, const struct elf_fmv_name *r)
{
    char *prefix = xasprintf("%s%.*s", ELF_FMV_RESOLVER_PREFIX, (int)r->ident_len, r->ident);
    size_t n = 0, len = strlen(prefix);
    struct elf_fmv_name nm;
    for (size_t i = elf_file_sym_lower_bound(ef, prefix); i < ef->n_syms && !strncmp(ef->syms[i].name, prefix, len); i++)
        n += ef->syms[i].type == STT_FUNC && names_whole(ef->syms[i].name, ELF_FMV_RESOLVER, r->ident, r->ident_len, &nm);
    free(prefix);
    return n;
}

/* The copies of the resolver's IDENT: FUNC symbols fmvgen_cp_IDENT_SLUG;
 * when filter, only those at one of the n_only addresses. */
static void collect_copies(const struct elf_file *ef, struct elf_mv_function *f, const struct elf_fmv_name *r,
                           const uint64_t *only, size_t n_only, int filter)
{
    char *prefix = xasprintf("%s%.*s_", ELF_FMV_COPY_PREFIX, (int)r->ident_len, r->ident);
    size_t plen = strlen(prefix);
    for (size_t i = elf_file_sym_lower_bound(ef, prefix); i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        if (strncmp(s->name, prefix, plen)) break;
        struct elf_fmv_name nm;
        if (s->type != STT_FUNC || !names_whole(s->name, ELF_FMV_COPY, r->ident, r->ident_len, &nm)) continue;
        int mine = !filter;
        for (size_t a = 0; a < n_only && !mine; a++) mine = only[a] == s->value;
        if (mine) elf_mv_add_clone(f, s->name, nm.target, s->value, s->size, nm.is_default);
    }
    free(prefix);
}

/* A new cpuid function sym of b with resolver r (a FUNC fmvgen_resolve_*)
 * and its copies. */
static struct elf_mv_function *add_function(const struct elf_file *ef, struct fn_builder *b, const char *sym,
                                            const struct elf_sym *r, const struct elf_fmv_name *rn)
{
    struct elf_mv_function *f = elf_mv_new_function(b, sym, ELF_MV_FMVGEN);
    f->dispatch = ELF_MV_DISPATCH_CPUID;
    f->resolver = xstrdup(r->name);
    f->resolver_addr = r->value;
    f->resolver_size = r->size;
    /* Two files' static functions of one name: each resolver keeps the
     * copies it loads. */
    uint64_t *loads = NULL;
    size_t n_loads = 0;
    int shared = count_resolvers(ef, rn) > 1;
    if (shared) n_loads = elf_mv_resolver_loads(ef, r->value, r->size, &loads);
    collect_copies(ef, f, rn, loads, n_loads, shared);
    free(loads);
    return f;
}

/* The FUNC resolver fmvgen_resolve_IDENT starting at addr, or NULL. */
static const struct elf_sym *resolver_at(const struct elf_file *ef, uint64_t addr, struct elf_fmv_name *rn)
{
    if (!addr) return NULL;
    /* every symbol there: the IFUNC SYM and aliases share the address */
    for (size_t i = elf_file_addr_lower_bound(ef, addr); i < ef->n_syms && ef->by_addr[i]->value == addr; i++) {
        const struct elf_sym *s = ef->by_addr[i];
        if (s->type == STT_FUNC && elf_fmv_name(s->name, rn) == ELF_FMV_RESOLVER && elf_fmv_tail_is_rename(rn->tail))
            return s;
    }
    return NULL;
}

void elf_mv_cpuid_scan(const struct elf_file *ef, struct fn_builder *b)
{
    for (size_t i = 0; i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        struct elf_fmv_name rn;
        if (s->type == STT_GNU_IFUNC) {
            /* ifunc reach: SYM is the IFUNC at the resolver's address */
            const struct elf_sym *r = resolver_at(ef, s->value, &rn);
            if (!r) continue;
            struct elf_mv_function *f = add_function(ef, b, s->name, r, &rn);
            f->ifunc = xstrdup(s->name);
            f->ifunc_addr = s->value;
            continue;
        }
        /* pointer reach: SYM.fmvgen_init calls the resolver */
        size_t n = elf_mv_init_sym_len(s);
        const struct elf_sym *r = n ? resolver_at(ef, elf_mv_init_call(ef, s), &rn) : NULL;
        if (!r) continue;
        char *sym = xstrndup(s->name, n);
        struct elf_mv_function *f = add_function(ef, b, sym, r, &rn);
        free(sym);
        f->trampoline_size = elf_mv_trampoline_size(ef, s);
    }
}
