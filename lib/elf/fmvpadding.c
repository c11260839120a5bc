/* fmvpadding.c - see fmvpadding.h. One walk of the symbol table keeps the
 * function symbols with their TU; fmvgen's are then grouped per (TU,
 * IDENT) and per TU. */
#include "elf/fmvpadding.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/fmvnames.h"
#include "elf/padding.h"
#include "elf/symwalk.h"
#include "util/util.h"

struct sym {
    enum elf_fmv_role role;
    char *ident;          /* NULL for fmvgen_cpu_levels and plain symbols */
    int is_default;
    int is_func;          /* STT_FUNC (a trampoline can only be one) */
    size_t tu_index;      /* 0: global, or in no named TU */
    const char *tu;
    uint64_t value, size;
    const char *plain;    /* a plain symbol's name (valid while the file is open) */
};

struct walk {
    struct sym *v;
    size_t n, cap;
};

/* The symbols elf/cpuidcode.h keeps (so that units are named alike): FUNC
 * symbols, and plain IFUNC ones, but no renamed bodies or pointers. */
static int keep(const struct elf_walk_sym *s, void *ctx)
{
    struct walk *w = ctx;
    struct elf_fmv_name nm;
    enum elf_fmv_role role = elf_fmv_name(s->name, &nm);
    if (role == ELF_FMV_BODY || role == ELF_FMV_POINTER) return 0;
    if (s->type != STT_FUNC && role != ELF_FMV_NONE) return 0;
    if (w->n == w->cap) w->v = xrealloc(w->v, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->v);
    w->v[w->n++] = (struct sym){role,     nm.ident ? xstrndup(nm.ident, nm.ident_len) : NULL,
                                nm.is_default, s->type == STT_FUNC, s->tu_index, s->tu, s->value, s->size,
                                role == ELF_FMV_NONE ? s->name : NULL};
    return 0;
}

/* "a.c#k": which of the TUs named like tu_index's this one is (as
 * elf/cpuidcode.c counts them: the table keeps each TU's locals together,
 * in link order). */
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

struct ranges {
    uint64_t *v;
    size_t n, cap;
};

static void add_range(struct ranges *r, uint64_t value, uint64_t size)
{
    if (!size) return;
    if (2 * (r->n + 1) > r->cap) r->v = xrealloc(r->v, (r->cap = r->cap ? 2 * r->cap : 16) * sizeof *r->v);
    r->v[2 * r->n] = value;
    r->v[2 * r->n + 1] = size;
    r->n++;
}

static int is_code_role(enum elf_fmv_role role)
{
    return role == ELF_FMV_COPY || role == ELF_FMV_RESOLVER || role == ELF_FMV_TRAMPOLINE;
}

/* The trampoline IDENT of the TU: its local FUNC of that name, else the
 * global one; NULL when there is none. */
static const struct sym *trampoline(const struct walk *w, const char *ident, size_t tu_index)
{
    const struct sym *global = NULL;
    for (size_t i = 0; i < w->n; i++) {
        const struct sym *s = &w->v[i];
        if (!s->plain || !s->is_func || strcmp(s->plain, ident)) continue;
        if (s->tu_index == tu_index) return s;
        if (!s->tu_index && !global) global = s;
    }
    return global;
}

/* The code fmvgen adds for (TU, IDENT) into r: its non-default copies
 * (with_default: the default too), resolver and trampoline pieces, and the
 * trampoline IDENT when a piece says there is one. */
static void function_ranges(const struct walk *w, const char *ident, size_t tu_index, int with_default,
                            struct ranges *r)
{
    int pieces = 0;
    for (size_t i = 0; i < w->n; i++) {
        const struct sym *s = &w->v[i];
        if (!is_code_role(s->role) || s->tu_index != tu_index || strcmp(s->ident, ident)) continue;
        if (s->role == ELF_FMV_COPY && s->is_default && !with_default) continue;
        add_range(r, s->value, s->size);
        pieces += s->role == ELF_FMV_TRAMPOLINE;
    }
    const struct sym *t = pieces ? trampoline(w, ident, tu_index) : NULL;
    if (t) add_range(r, t->value, t->size);
}

/* The first symbol of w before i with (tu_index, ident) of fmvgen's code:
 * 1 when there is one (that group was counted). */
static int seen_before(const struct walk *w, size_t i)
{
    const struct sym *s = &w->v[i];
    for (size_t j = 0; j < i; j++) {
        const struct sym *o = &w->v[j];
        if (is_code_role(o->role) && o->tu_index == s->tu_index && !strcmp(o->ident, s->ident)) return 1;
    }
    return 0;
}

static void add_function(struct elf_fmv_padding *out, size_t *cap, const char *name, uint64_t bytes)
{
    for (size_t i = 0; i < out->n_functions; i++)
        if (!strcmp(out->functions[i].name, name)) {
            out->functions[i].bytes += bytes;
            return;
        }
    if (out->n_functions == *cap) out->functions = xrealloc(out->functions, (*cap = *cap ? 2 * *cap : 8) * sizeof *out->functions);
    out->functions[out->n_functions++] = (struct elf_fmv_padding_function){xstrdup(name), bytes};
}

/* The unit of TU tu_index: its fmvgen_cpu_levels' padding and the run
 * padding of all its fmvgen code. */
static void add_unit(struct elf_fmv_padding *out, size_t *cap, const struct elf_file *ef, const struct walk *w,
                     size_t tu_index, const char *tu)
{
    struct ranges levels = {NULL, 0, 0}, all = {NULL, 0, 0};
    for (size_t i = 0; i < w->n; i++) {
        const struct sym *s = &w->v[i];
        if (s->tu_index != tu_index) continue;
        if (s->role == ELF_FMV_LEVELS) {
            add_range(&levels, s->value, s->size);
            add_range(&all, s->value, s->size);
        } else if (is_code_role(s->role) && !seen_before(w, i))
            function_ranges(w, s->ident, tu_index, 1, &all);
    }
    if (out->n_units == *cap) out->units = xrealloc(out->units, (*cap = *cap ? 2 * *cap : 4) * sizeof *out->units);
    out->units[out->n_units++] = (struct elf_fmv_padding_unit){unit_name(w, tu_index, tu),
                                                               elf_padding_after_ranges(ef, levels.v, levels.n),
                                                               elf_padding_run_end(ef, all.v, all.n, 1)};
    free(levels.v);
    free(all.v);
}

int elf_fmv_padding(const struct elf_file *ef, struct elf_fmv_padding *out)
{
    memset(out, 0, sizeof *out);
    struct walk w = {NULL, 0, 0};
    int rc = elf_symtab_walk(ef->elf, 0, keep, &w);
    size_t cap_f = 0, cap_u = 0;
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        const struct sym *s = &w.v[i];
        if (!is_code_role(s->role) || seen_before(&w, i)) continue;
        struct ranges r = {NULL, 0, 0};
        function_ranges(&w, s->ident, s->tu_index, 0, &r);
        add_function(out, &cap_f, s->ident, elf_padding_after_ranges(ef, r.v, r.n));
        free(r.v);
    }
    /* units: each named TU with fmvgen code or fmvgen_cpu_levels, once */
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        const struct sym *s = &w.v[i];
        if (!s->tu_index || (!is_code_role(s->role) && s->role != ELF_FMV_LEVELS)) continue;
        int known = 0;
        for (size_t j = 0; j < i && !known; j++)
            known = w.v[j].tu_index == s->tu_index && (is_code_role(w.v[j].role) || w.v[j].role == ELF_FMV_LEVELS);
        if (!known) add_unit(out, &cap_u, ef, &w, s->tu_index, s->tu);
    }
    for (size_t i = 0; i < w.n; i++) free(w.v[i].ident);
    free(w.v);
    return rc;
}

uint64_t elf_fmv_padding_of(const struct elf_fmv_padding *p, const char *name)
{
    for (size_t i = 0; i < p->n_functions; i++)
        if (!strcmp(p->functions[i].name, name)) return p->functions[i].bytes;
    return 0;
}

const struct elf_fmv_padding_unit *elf_fmv_padding_unit(const struct elf_fmv_padding *p, const char *unit)
{
    for (size_t i = 0; i < p->n_units; i++)
        if (!strcmp(p->units[i].unit, unit)) return &p->units[i];
    return NULL;
}

void elf_fmv_padding_free(struct elf_fmv_padding *p)
{
    for (size_t i = 0; i < p->n_functions; i++) free(p->functions[i].name);
    for (size_t i = 0; i < p->n_units; i++) free(p->units[i].unit);
    free(p->functions);
    free(p->units);
    memset(p, 0, sizeof *p);
}
