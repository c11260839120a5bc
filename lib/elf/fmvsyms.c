/* fmvsyms.c - see fmvsyms.h. */
#include "elf/fmvsyms.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/symwalk.h"
#include "util/util.h"

static int keep(const struct elf_walk_sym *s, void *ctx)
{
    struct elf_fmv_syms *w = ctx;
    struct elf_fmv_name nm;
    enum elf_fmv_role role = elf_fmv_name(s->name, &nm);
    if (role == ELF_FMV_BODY || role == ELF_FMV_POINTER) return 0;
    if (s->type != STT_FUNC && role != ELF_FMV_NONE) return 0;
    if (w->n == w->cap) w->v = xrealloc(w->v, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->v);
    w->v[w->n++] = (struct elf_fmv_sym){nm.ident ? xstrndup(nm.ident, nm.ident_len) : NULL,
                                        role,
                                        nm.is_default,
                                        elf_fmv_tail_is_rename(nm.tail),
                                        s->tu_index,
                                        s->tu,
                                        s->value,
                                        s->size,
                                        role == ELF_FMV_NONE ? xstrdup(s->name) : NULL,
                                        s->type,
                                        s->bind};
    return 0;
}

int elf_fmv_syms_read(const struct elf_file *ef, struct elf_fmv_syms *out)
{
    memset(out, 0, sizeof *out);
    return elf_symtab_walk(ef->elf, 0, keep, out);
}

char *elf_fmv_syms_unit_name(const struct elf_fmv_syms *w, size_t tu_index, const char *tu)
{
    size_t k = 0, last = 0;
    for (size_t i = 0; i < w->n && w->v[i].tu_index != tu_index; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (!s->tu_index || s->tu_index == last || strcmp(s->tu, tu)) continue;
        last = s->tu_index;
        k++;
    }
    return xasprintf("%s#%zu", tu, k);
}

const struct elf_fmv_sym *elf_fmv_syms_trampoline(const struct elf_fmv_syms *w, const char *ident, size_t tu_index)
{
    const struct elf_fmv_sym *global = NULL;
    for (size_t i = 0; i < w->n; i++) {
        const struct elf_fmv_sym *s = &w->v[i];
        if (!s->plain || s->type != STT_FUNC || strcmp(s->plain, ident)) continue;
        if (s->tu_index == tu_index) return s;
        if (!s->tu_index && !global) global = s;
    }
    return global;
}

void elf_fmv_syms_free(struct elf_fmv_syms *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->v[i].ident);
        free(w->v[i].plain);
    }
    free(w->v);
    memset(w, 0, sizeof *w);
}

void elf_fmv_ranges_add(struct elf_fmv_ranges *r, uint64_t value, uint64_t size)
{
    if (!size) return;
    if (2 * (r->n + 1) > r->cap) r->v = xrealloc(r->v, (r->cap = r->cap ? 2 * r->cap : 16) * sizeof *r->v);
    r->v[2 * r->n] = value;
    r->v[2 * r->n + 1] = size;
    r->n++;
}
