/* cpuidcode.c - see cpuidcode.h. One walk of the symbol table collects the
 * symbols of fmvgen's names with their TU; they are then grouped per (TU,
 * IDENT). */
#include "elf/cpuidcode.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/fmvnames.h"
#include "elf/symwalk.h"
#include "util/util.h"

struct sym {
    char *ident;          /* NULL for fmvgen_cpu_levels and plain symbols */
    enum elf_fmv_role role;
    int is_default;
    size_t tu_index;      /* 0: global, or in no named TU */
    const char *tu;
    uint64_t value, size;
    char *plain;          /* a plain FUNC symbol's name (a trampoline candidate) */
};

struct walk {
    struct sym *v;
    size_t n, cap;
};

static int keep(const struct elf_walk_sym *s, void *ctx)
{
    struct walk *w = ctx;
    if (s->type != STT_FUNC) return 0;
    struct elf_fmv_name nm;
    enum elf_fmv_role role = elf_fmv_name(s->name, &nm);
    if (role == ELF_FMV_BODY || role == ELF_FMV_POINTER) return 0;
    if (w->n == w->cap) w->v = xrealloc(w->v, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->v);
    w->v[w->n++] = (struct sym){nm.ident ? xstrndup(nm.ident, nm.ident_len) : NULL, role, nm.is_default, s->tu_index,
                                s->tu, s->value, s->size, role == ELF_FMV_NONE ? xstrdup(s->name) : NULL};
    return 0;
}

/* "a.c#k": which of the TUs named like tu_index's this one is (the table
 * keeps each TU's locals together, in link order). */
static char *unit_name(const struct walk *w, size_t tu_index, const char *tu)
{
    size_t k = 0, last = 0;
    for (size_t i = 0; i < w->n && w->v[i].tu_index != tu_index; i++) {
        const struct sym *s = &w->v[i];
        if (!s->tu_index || s->tu_index == last || strcmp(s->tu, tu)) continue;
        last = s->tu_index;
        k++;
    }
    return xasprintf("%s#%zu", tu, k);
}

/* Sums the sizes of the symbols i of w matching (role, ident, tu_index)
 * - is_default too for copies (-1: any) - counting an address once. */
static uint64_t bytes_of(const struct walk *w, enum elf_fmv_role role, const char *ident, size_t tu_index,
                         int is_default, int *count)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < w->n; i++) {
        const struct sym *s = &w->v[i];
        if (s->role != role || s->tu_index != tu_index || (ident && (!s->ident || strcmp(s->ident, ident))) ||
            (is_default >= 0 && s->is_default != is_default))
            continue;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = w->v[j].value == s->value && w->v[j].role == role && w->v[j].tu_index == tu_index;
        if (dup) continue;
        sum += s->size;
        if (count) ++*count;
    }
    return sum;
}

/* The trampoline IDENT: the local FUNC of that name in the TU, else the
 * global one. */
static uint64_t trampoline_bytes(const struct walk *w, const char *ident, size_t tu_index)
{
    const struct sym *global = NULL;
    for (size_t i = 0; i < w->n; i++) {
        const struct sym *s = &w->v[i];
        if (!s->plain || strcmp(s->plain, ident)) continue;
        if (s->tu_index == tu_index) return s->size;
        if (!s->tu_index && !global) global = s;
    }
    return global ? global->size : 0;
}

int elf_cpuid_code(const struct elf_file *ef, struct elf_cpuid_code *out)
{
    memset(out, 0, sizeof *out);
    struct walk w = {NULL, 0, 0};
    int rc = elf_symtab_walk(ef->elf, 0, keep, &w);
    size_t cap = 0;
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        const struct sym *s = &w.v[i];
        if (s->role == ELF_FMV_LEVELS) {
            int dup = 0;
            for (size_t j = 0; j < i && !dup; j++) dup = w.v[j].role == ELF_FMV_LEVELS && w.v[j].value == s->value;
            if (!dup) out->levels_bytes += s->size, out->n_levels++;
        }
        if (s->role != ELF_FMV_COPY || !s->tu_index) continue;
        int known = 0;   /* the first copy of (TU, IDENT) makes the function */
        for (size_t j = 0; j < i && !known; j++)
            known = w.v[j].role == ELF_FMV_COPY && w.v[j].tu_index == s->tu_index && !strcmp(w.v[j].ident, s->ident);
        if (known) continue;
        if (out->n_functions == cap)
            out->functions = xrealloc(out->functions, (cap = cap ? 2 * cap : 8) * sizeof *out->functions);
        struct elf_cpuid_function *f = &out->functions[out->n_functions++];
        memset(f, 0, sizeof *f);
        f->name = xstrdup(s->ident);
        f->unit = unit_name(&w, s->tu_index, s->tu);
        f->default_bytes = bytes_of(&w, ELF_FMV_COPY, s->ident, s->tu_index, 1, &f->n_copies);
        f->copy_bytes = bytes_of(&w, ELF_FMV_COPY, s->ident, s->tu_index, 0, &f->n_copies);
        int n_tramp = 0;
        f->dispatch_bytes = bytes_of(&w, ELF_FMV_RESOLVER, s->ident, s->tu_index, -1, NULL) +
                            bytes_of(&w, ELF_FMV_TRAMPOLINE, s->ident, s->tu_index, -1, &n_tramp);
        if (n_tramp) f->dispatch_bytes += trampoline_bytes(&w, s->ident, s->tu_index);
        f->levels_bytes = bytes_of(&w, ELF_FMV_LEVELS, NULL, s->tu_index, -1, NULL);
    }
    for (size_t i = 0; i < w.n; i++) {
        free(w.v[i].ident);
        free(w.v[i].plain);
    }
    free(w.v);
    return rc;
}

void elf_cpuid_code_free(struct elf_cpuid_code *c)
{
    for (size_t i = 0; i < c->n_functions; i++) {
        free(c->functions[i].name);
        free(c->functions[i].unit);
    }
    free(c->functions);
    memset(c, 0, sizeof *c);
}
