/* fmvnames.c - see fmvnames.h. */
#include "elf/fmvnames.h"

#include <string.h>

static const char *const slugs[] = {"default", "x86_64_v2", "x86_64_v3", "x86_64_v4", "avx2", NULL};

static int has_prefix(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

enum elf_fmv_role elf_fmv_name(const char *symbol, struct elf_fmv_name *out)
{
    memset(out, 0, sizeof *out);
    size_t n = strcspn(symbol, ".");   /* a compiler piece's tail (.cold, .constprop.0) is not the name */
    if (n == sizeof "fmvgen_cpu_levels" - 1 && has_prefix(symbol, "fmvgen_cpu_levels")) {
        out->role = ELF_FMV_LEVELS;
        return out->role;
    }
    if (has_prefix(symbol, "fmvgen_cp_")) {
        size_t p = sizeof "fmvgen_cp_" - 1;
        for (int i = 0; slugs[i]; i++) {
            size_t k = strlen(slugs[i]);
            /* fmvgen_cp_ IDENT _ SLUG, IDENT not empty */
            if (n < p + 2 + k || symbol[n - k - 1] != '_' || strncmp(symbol + n - k, slugs[i], k)) continue;
            *out = (struct elf_fmv_name){ELF_FMV_COPY, symbol + p, n - k - 1 - p, slugs[i], i == 0};
            return out->role;
        }
        return ELF_FMV_NONE;
    }
    if (has_prefix(symbol, "fmvgen_resolve_") && n > sizeof "fmvgen_resolve_" - 1 && !symbol[n]) {
        size_t p = sizeof "fmvgen_resolve_" - 1;
        *out = (struct elf_fmv_name){ELF_FMV_RESOLVER, symbol + p, n - p, NULL, 0};
        return out->role;
    }
    if (has_prefix(symbol, "fmvgen_mv_") && n > sizeof "fmvgen_mv_" - 1) {
        size_t p = sizeof "fmvgen_mv_" - 1;
        *out = (struct elf_fmv_name){ELF_FMV_BODY, symbol + p, n - p, NULL, 0};
        return out->role;
    }
    if (n && symbol[n] == '.') {
        const char *tail = symbol + n + 1;
        if (!strcmp(tail, "fmvgen_init") || !strcmp(tail, "fmvgen_ctor"))
            *out = (struct elf_fmv_name){ELF_FMV_TRAMPOLINE, symbol, n, NULL, 0};
        else if (!strcmp(tail, "fmvgen_ptr"))
            *out = (struct elf_fmv_name){ELF_FMV_POINTER, symbol, n, NULL, 0};
    }
    return out->role;
}

size_t elf_fmv_base(const char *symbol, const char **start)
{
    struct elf_fmv_name nm;
    if (elf_fmv_name(symbol, &nm) != ELF_FMV_NONE && nm.ident) {
        *start = nm.ident;
        return nm.ident_len;
    }
    *start = symbol;
    return strcspn(symbol, ".");
}
