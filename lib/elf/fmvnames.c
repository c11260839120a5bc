/* fmvnames.c - see fmvnames.h. */
#include "elf/fmvnames.h"
#include "util/util.h"

#include <string.h>

static const char *const slugs[][2] = {
    {"default", "default"},
    {"x86_64_v2", "arch=x86-64-v2"},
    {"x86_64_v3", "arch=x86-64-v3"},
    {"x86_64_v4", "arch=x86-64-v4"},
    {"avx2", "avx2"},
};
#define N_SLUGS (sizeof slugs / sizeof *slugs)

static int has_prefix(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

const char *elf_fmv_slug_target(const char *slug)
{
    for (size_t i = 0; i < N_SLUGS; i++)
        if (!strcmp(slug, slugs[i][0])) return slugs[i][1];
    return NULL;
}

/* ".N": clang's LTO tells two files' static symbols of one name apart so */
static int is_number_tail(const char *tail)
{
    if (tail[0] != '.' || !tail[1]) return 0;
    for (const char *c = tail + 1; *c; c++)
        if (*c < '0' || *c > '9') return 0;
    return 1;
}

int elf_fmv_tail_is_rename(const char *tail)
{
    return tail && (!*tail || has_prefix(tail, ".lto_priv.") || has_prefix(tail, ".llvm.") || is_number_tail(tail));
}

enum elf_fmv_role elf_fmv_name(const char *symbol, struct elf_fmv_name *out)
{
    memset(out, 0, sizeof *out);
    size_t n = strcspn(symbol, ".");   /* a compiler piece's tail (.cold, .constprop.0) is not the name */
    if (n == sizeof ELF_FMV_LEVELS_SYMBOL - 1 && has_prefix(symbol, ELF_FMV_LEVELS_SYMBOL)) {
        out->role = ELF_FMV_LEVELS;
        out->tail = symbol + n;
        return out->role;
    }
    if (has_prefix(symbol, ELF_FMV_COPY_PREFIX)) {
        size_t p = sizeof ELF_FMV_COPY_PREFIX - 1;
        for (size_t i = 0; i < N_SLUGS; i++) {
            size_t k = strlen(slugs[i][0]);
            /* fmvgen_cp_ IDENT _ SLUG, IDENT not empty */
            if (n < p + 2 + k || symbol[n - k - 1] != '_' || strncmp(symbol + n - k, slugs[i][0], k)) continue;
            *out = (struct elf_fmv_name){ELF_FMV_COPY, symbol + p, n - k - 1 - p, slugs[i][0], slugs[i][1], i == 0,
                                         symbol + n};
            return out->role;
        }
        return ELF_FMV_NONE;
    }
    if (has_prefix(symbol, ELF_FMV_RESOLVER_PREFIX) && n > sizeof ELF_FMV_RESOLVER_PREFIX - 1) {
        size_t p = sizeof ELF_FMV_RESOLVER_PREFIX - 1;
        *out = (struct elf_fmv_name){ELF_FMV_RESOLVER, symbol + p, n - p, NULL, NULL, 0, symbol + n};
        return out->role;
    }
    if (has_prefix(symbol, "fmvgen_mv_") && n > sizeof "fmvgen_mv_" - 1) {
        size_t p = sizeof "fmvgen_mv_" - 1;
        *out = (struct elf_fmv_name){ELF_FMV_BODY, symbol + p, n - p, NULL, NULL, 0, NULL};
        return out->role;
    }
    if (n && symbol[n] == '.') {
        const char *tail = symbol + n + 1;
        if (!strcmp(tail, "fmvgen_init") || !strcmp(tail, "fmvgen_ctor"))
            *out = (struct elf_fmv_name){ELF_FMV_TRAMPOLINE, symbol, n, NULL, NULL, 0, NULL};
        else if (!strcmp(tail, "fmvgen_ptr"))
            *out = (struct elf_fmv_name){ELF_FMV_POINTER, symbol, n, NULL, NULL, 0, NULL};
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

char *elf_fmv_lambda_host(const char *symbol)
{
    if (!symbol || strncmp(symbol, "_ZZ", 3) != 0) return NULL;
    size_t len = strcspn(symbol, ".");
    /* the last "EN" whose nested name is a closure's: the host's encoding ends there */
    for (size_t i = len; i-- > 3;) {
        if (symbol[i] != 'E' || symbol[i + 1] != 'N') continue;
        const char *c = symbol + i + 2;
        if (*c == 'K') c++;
        if (strncmp(c, "Ul", 2) != 0 && strncmp(c, "3$_", 3) != 0) continue;
        if (!memmem(c, len - (size_t)(c - symbol), "clE", 3)) return NULL;
        return xasprintf("_Z%.*s", (int)(i - 3), symbol + 3);
    }
    return NULL;
}
