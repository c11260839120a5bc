/* cpuiddisp.c - see cpuiddisp.h. Found from each trampoline's init code:
 * the resolver it calls names the function's IDENT, whose copies are then
 * found by name. */
#include "elf/cpuiddisp.h"
#include "elf/clones_build.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "util/util.h"

static const char *const slugs[][2] = {
    {"default", "default"},
    {"x86_64_v2", "arch=x86-64-v2"},
    {"x86_64_v3", "arch=x86-64-v3"},
    {"x86_64_v4", "arch=x86-64-v4"},
    {"avx2", "avx2"},
};
#define N_SLUGS (sizeof slugs / sizeof *slugs)

const char *elf_cpuid_slug_target(const char *slug)
{
    for (size_t i = 0; i < N_SLUGS; i++)
        if (!strcmp(slug, slugs[i][0])) return slugs[i][1];
    return NULL;
}

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

/* The length of a symbol's name without a tail the compiler or linker
 * appends to a local symbol (".lto_priv.0", ".llvm.123", ".isra.0"). */
static size_t plain_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}

/* How many FUNC symbols are named name, tails aside (statics of two
 * files; in an LTO link "name.lto_priv.0" and "name.lto_priv.1"). */
static size_t count_named(const struct elf_file *ef, const char *name)
{
    size_t n = 0, len = strlen(name);
    for (size_t i = elf_file_sym_lower_bound(ef, name); i < ef->n_syms && !strncmp(ef->syms[i].name, name, len); i++)
        n += ef->syms[i].type == STT_FUNC && plain_len(ef->syms[i].name) == len;
    return n;
}

/* The copies of ident: FUNC symbols fmvgen_cp_IDENT_SLUG with a known
 * SLUG; when only is given (n_only addresses), those at one of them. */
static void collect_copies(const struct elf_file *ef, struct elf_mv_function *f, const char *ident,
                           const uint64_t *only, size_t n_only, int filter)
{
    char *prefix = xasprintf("%s%s_", ELF_CPUID_COPY_PREFIX, ident);
    size_t plen = strlen(prefix);
    for (size_t i = elf_file_sym_lower_bound(ef, prefix); i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        if (strncmp(s->name, prefix, plen)) break;
        if (s->type != STT_FUNC) continue;
        char *slug = xstrndup(s->name + plen, plain_len(s->name + plen));
        const char *target = elf_cpuid_slug_target(slug);
        free(slug);
        int mine = !filter;
        for (size_t a = 0; a < n_only && !mine; a++) mine = only[a] == s->value;
        if (target && mine) elf_mv_add_clone(f, s->name, target, s->value, s->size, !strcmp(target, "default"));
    }
    free(prefix);
}

void elf_mv_cpuid_scan(const struct elf_file *ef, struct fn_builder *b)
{
    size_t rlen = sizeof ELF_CPUID_RESOLVER_PREFIX - 1;
    for (size_t i = 0; i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        size_t n = elf_mv_init_sym_len(s);
        uint64_t target = n ? elf_mv_init_call(ef, s) : 0;
        const struct elf_sym *r = target ? elf_file_func_at(ef, target) : NULL;
        if (!r || r->value != target || strncmp(r->name, ELF_CPUID_RESOLVER_PREFIX, rlen) || !r->name[rlen]) continue;
        char *sym = xstrndup(s->name, n);
        struct elf_mv_function *f = elf_mv_new_function(b, sym, ELF_MV_FMVGEN);
        free(sym);
        f->dispatch = ELF_MV_DISPATCH_CPUID;
        f->resolver = xstrdup(r->name);
        f->resolver_addr = r->value;
        f->resolver_size = r->size;
        f->trampoline_size = elf_mv_trampoline_size(ef, s);
        char *ident = xstrndup(r->name + rlen, plain_len(r->name + rlen));
        char *plain = xasprintf("%s%s", ELF_CPUID_RESOLVER_PREFIX, ident);
        /* Two files' static functions of one name: each resolver keeps
         * the copies it loads. */
        uint64_t *loads = NULL;
        size_t n_loads = 0;
        int shared = count_named(ef, plain) > 1;
        free(plain);
        if (shared) n_loads = elf_mv_resolver_loads(ef, r->value, r->size, &loads);
        collect_copies(ef, f, ident, loads, n_loads, shared);
        free(loads);
        free(ident);
    }
}
