/* cpuidcode.c - see cpuidcode.h. The symbols of elf/fmvsyms.h, fmvgen's
 * grouped per (TU, IDENT). */
#include "elf/cpuidcode.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/fmvsyms.h"
#include "util/util.h"

static int cmp_range(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

uint64_t elf_ranges_bytes(uint64_t *pairs, size_t n)
{
    if (n) qsort(pairs, n, 2 * sizeof *pairs, cmp_range);
    uint64_t sum = 0, end = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t start = pairs[2 * i], stop = start + pairs[2 * i + 1];
        if (start < end) start = end;   /* the part an earlier range covered */
        if (stop > start) sum += stop - start;
        if (stop > end) end = stop;
    }
    return sum;
}

/* The ranges of the symbols of w matching (role, ident, tu_index) - and
 * is_default for copies (-1: any) - into r; *count (may be NULL) gets one
 * more per symbol. */
static void ranges_of(const struct elf_fmv_syms *w, enum elf_fmv_role role, const char *ident, size_t tu_index,
                      int is_default, struct elf_fmv_ranges *r, int *count)
{
    for (size_t i = 0; i < w->n; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (s->role != role || s->tu_index != tu_index || (ident && (!s->ident || strcmp(s->ident, ident))) ||
            (is_default >= 0 && s->is_default != is_default))
            continue;
        elf_fmv_ranges_add(r, s->value, s->size);
        if (count) ++*count;
    }
}

/* The bytes of those symbols, shared bytes once. */
static uint64_t bytes_of(const struct elf_fmv_syms *w, enum elf_fmv_role role, const char *ident, size_t tu_index,
                         int is_default, int *count)
{
    struct elf_fmv_ranges r = {NULL, 0, 0};
    ranges_of(w, role, ident, tu_index, is_default, &r, count);
    uint64_t b = elf_ranges_bytes(r.v, r.n);
    free(r.v);
    return b;
}


/* Resolver, .fmvgen_init, .fmvgen_ctor and the trampoline: the bytes they
 * cover together. */
static uint64_t dispatch_bytes(const struct elf_fmv_syms *w, const char *ident, size_t tu_index)
{
    struct elf_fmv_ranges r = {NULL, 0, 0};
    int n_tramp = 0;
    ranges_of(w, ELF_FMV_RESOLVER, ident, tu_index, -1, &r, NULL);
    ranges_of(w, ELF_FMV_TRAMPOLINE, ident, tu_index, -1, &r, &n_tramp);
    const struct elf_fmv_sym *t = n_tramp ? elf_fmv_syms_trampoline(w, ident, tu_index) : NULL;
    if (t) elf_fmv_ranges_add(&r, t->value, t->size);
    uint64_t b = elf_ranges_bytes(r.v, r.n);
    free(r.v);
    return b;
}

/* Its resolver's address (the first whole fmvgen_resolve_IDENT of the
 * unit) and the IFUNC symbol there, if any. */
static void reach_of(const struct elf_fmv_syms *w, const char *ident, size_t tu_index, struct elf_cpuid_function *f)
{
    for (size_t i = 0; i < w->n && !f->resolver_addr; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (s->role == ELF_FMV_RESOLVER && s->whole && s->tu_index == tu_index && !strcmp(s->ident, ident))
            f->resolver_addr = s->value;
    }
    for (size_t i = 0; i < w->n && f->resolver_addr && !f->ifunc; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (s->type != STT_GNU_IFUNC || s->value != f->resolver_addr) continue;
        f->ifunc = xstrdup(s->plain);
        f->ifunc_global = s->bind != STB_LOCAL;
    }
}

/* Every fmvgen_cpu_levels of the file, each address once; apart, those in
 * no TU (the linked file's one). */
static void levels_total(const struct elf_fmv_syms *w, struct elf_cpuid_code *out)
{
    for (size_t i = 0; i < w->n; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (s->role != ELF_FMV_LEVELS || !s->size) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = w->v[j].role == ELF_FMV_LEVELS && w->v[j].value == s->value;
        if (seen) continue;
        out->levels_bytes += s->size;
        out->n_levels++;
        if (!s->tu_index) {
            out->linked_levels_bytes += s->size;
            out->n_linked_levels++;
        }
    }
}

/* 1 when TU tu_index holds a fmvgen_cpu_levels symbol of its own. */
static int unit_has_levels(const struct elf_fmv_syms *w, size_t tu_index)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].role == ELF_FMV_LEVELS && w->v[i].tu_index == tu_index) return 1;
    return 0;
}

int elf_cpuid_code(const struct elf_file *ef, struct elf_cpuid_code *out)
{
    memset(out, 0, sizeof *out);
    struct elf_fmv_syms w;
    int rc = elf_fmv_syms_read(ef, &w);
    size_t cap = 0;
    if (rc == 0) levels_total(&w, out);
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        const struct elf_fmv_sym *s = &w.v[i];
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
        f->unit = elf_fmv_syms_unit_name(&w, s->tu_index, s->tu);
        f->default_bytes = bytes_of(&w, ELF_FMV_COPY, s->ident, s->tu_index, 1, &f->n_copies);
        f->copy_bytes = bytes_of(&w, ELF_FMV_COPY, s->ident, s->tu_index, 0, &f->n_copies);
        f->dispatch_bytes = dispatch_bytes(&w, s->ident, s->tu_index);
        f->levels_bytes = bytes_of(&w, ELF_FMV_LEVELS, NULL, s->tu_index, -1, NULL);
        f->levels_linked = out->n_linked_levels && !unit_has_levels(&w, s->tu_index);
        reach_of(&w, s->ident, s->tu_index, f);
    }
    elf_fmv_syms_free(&w);
    return rc;
}

void elf_cpuid_code_free(struct elf_cpuid_code *c)
{
    for (size_t i = 0; i < c->n_functions; i++) {
        free(c->functions[i].name);
        free(c->functions[i].unit);
        free(c->functions[i].ifunc);
    }
    free(c->functions);
    memset(c, 0, sizeof *c);
}
