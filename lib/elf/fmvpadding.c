/* fmvpadding.c - see fmvpadding.h. The symbols of elf/fmvsyms.h, fmvgen's
 * grouped per (TU, IDENT) and per TU. */
#include "elf/fmvpadding.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpuidcode.h"
#include "elf/elffile.h"
#include "elf/fmvsyms.h"
#include "elf/padding.h"
#include "util/util.h"

static int is_code_role(enum elf_fmv_role role)
{
    return role == ELF_FMV_COPY || role == ELF_FMV_RESOLVER || role == ELF_FMV_TRAMPOLINE;
}


/* The code fmvgen adds for (TU, IDENT) into r: its non-default copies
 * (with_default: the default too), resolver and trampoline pieces, and the
 * trampoline IDENT when a piece says there is one. */
static void function_ranges(const struct elf_fmv_syms *w, const char *ident, size_t tu_index, int with_default,
                            struct elf_fmv_ranges *r)
{
    int pieces = 0;
    for (size_t i = 0; i < w->n; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (!is_code_role(s->role) || s->tu_index != tu_index || strcmp(s->ident, ident)) continue;
        if (s->role == ELF_FMV_COPY && s->is_default && !with_default) continue;
        elf_fmv_ranges_add(r, s->value, s->size);
        pieces += s->role == ELF_FMV_TRAMPOLINE;
    }
    const struct elf_fmv_sym *t = pieces ? elf_fmv_syms_trampoline(w, ident, tu_index) : NULL;
    if (t) elf_fmv_ranges_add(r, t->value, t->size);
}

/* The first symbol of w before i with (tu_index, ident) of fmvgen's code:
 * 1 when there is one (that group was counted). */
static int seen_before(const struct elf_fmv_syms *w, size_t i)
{
    const struct elf_fmv_sym *s = &w->v[i];
    for (size_t j = 0; j < i; j++) {
        const struct elf_fmv_sym *o = &w->v[j];
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
 * padding of all its fmvgen code; tu_index 0: the linked file's
 * fmvgen_cpu_levels (in no TU) alone. */
static void add_unit(struct elf_fmv_padding *out, size_t *cap, const struct elf_file *ef, const struct elf_fmv_syms *w,
                     size_t tu_index, const char *tu)
{
    struct elf_fmv_ranges levels = {NULL, 0, 0}, all = {NULL, 0, 0};
    for (size_t i = 0; i < w->n; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (s->tu_index != tu_index) continue;
        if (s->role == ELF_FMV_LEVELS) {
            elf_fmv_ranges_add(&levels, s->value, s->size);
            /* in fmvgen's own section (patch/cpuid.h) no project function
             * comes before it */
            if (!elf_file_addr_in_section(ef, s->value, ELF_FMV_SECTION)) elf_fmv_ranges_add(&all, s->value, s->size);
        } else if (tu_index && is_code_role(s->role) && !seen_before(w, i)) {
            struct elf_fmv_ranges r = {NULL, 0, 0};
            function_ranges(w, s->ident, tu_index, 1, &r);
            /* in fmvgen's own section no function of the project comes
             * before a run: only the runs in .text count */
            for (size_t k = 0; k < r.n; k++)
                if (!elf_file_addr_in_section(ef, r.v[2 * k], ELF_FMV_SECTION)) elf_fmv_ranges_add(&all, r.v[2 * k], r.v[2 * k + 1]);
            free(r.v);
        }
    }
    if (out->n_units == *cap) out->units = xrealloc(out->units, (*cap = *cap ? 2 * *cap : 4) * sizeof *out->units);
    out->units[out->n_units++] = (struct elf_fmv_padding_unit){tu_index ? elf_fmv_syms_unit_name(w, tu_index, tu)
                                                                         : xstrdup(ELF_CPUID_LINKED_UNIT),
                                                               elf_padding_after_ranges(ef, levels.v, levels.n),
                                                               elf_padding_run_end(ef, all.v, all.n, 1)};
    free(levels.v);
    free(all.v);
}

int elf_fmv_padding(const struct elf_file *ef, struct elf_fmv_padding *out)
{
    memset(out, 0, sizeof *out);
    struct elf_fmv_syms w;
    int rc = elf_fmv_syms_read(ef, &w);
    size_t cap_f = 0, cap_u = 0;
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        const struct elf_fmv_sym *s = &w.v[i];
        if (!is_code_role(s->role) || seen_before(&w, i)) continue;
        struct elf_fmv_ranges r = {NULL, 0, 0};
        function_ranges(&w, s->ident, s->tu_index, 0, &r);
        add_function(out, &cap_f, s->ident, elf_padding_after_ranges(ef, r.v, r.n));
        free(r.v);
    }
    /* units: each named TU with fmvgen code or fmvgen_cpu_levels, once */
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        const struct elf_fmv_sym *s = &w.v[i];
        if (!s->tu_index || (!is_code_role(s->role) && s->role != ELF_FMV_LEVELS)) continue;
        int known = 0;
        for (size_t j = 0; j < i && !known; j++)
            known = w.v[j].tu_index == s->tu_index && (is_code_role(w.v[j].role) || w.v[j].role == ELF_FMV_LEVELS);
        if (!known) add_unit(out, &cap_u, ef, &w, s->tu_index, s->tu);
    }
    /* the linked file's fmvgen_cpu_levels, in no TU */
    for (size_t i = 0; rc == 0 && i < w.n; i++)
        if (!w.v[i].tu_index && w.v[i].role == ELF_FMV_LEVELS) {
            add_unit(out, &cap_u, ef, &w, 0, NULL);
            break;
        }
    elf_fmv_syms_free(&w);
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
