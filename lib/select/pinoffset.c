/* pinoffset.c - see pinoffset.h. */
#include "select/pinoffset.h"

#include <string.h>

static int listed(const struct strvec *v, const char *path)
{
    for (size_t i = 0; v && i < v->n; i++)
        if (!strcmp(v->v[i], path)) return 1;
    return 0;
}

/* The offset over the files only (1) the listed ones or (0) all. */
static int offset_over(const struct elf_file *efs, const char *const *paths, size_t n, const char *name,
                       const struct strvec *only)
{
    int offset = PIN_OFFSET_NONE;
    for (size_t f = 0; f < n; f++) {
        if (!efs[f].elf || (only && !listed(only, paths[f]))) continue;
        const struct elf_sym *sym;
        size_t count = elf_file_syms_named(&efs[f], name, &sym);
        if (count > 1) return PIN_OFFSET_SEVERAL;
        if (!count) continue;
        int k = (int)(sym->value % 64);
        if (offset >= 0 && k != offset) return PIN_OFFSET_SEVERAL;
        offset = k;
    }
    return offset;
}

int pin_offset(const struct elf_file *efs, const char *const *paths, size_t n, const char *name,
               const struct strvec *ran_in, const struct strvec *running, int *disagree)
{
    int all = offset_over(efs, paths, n, name, NULL);
    if (disagree) *disagree = all == PIN_OFFSET_SEVERAL;
    int k = all;
    if (ran_in && ran_in->n) {
        int ran = offset_over(efs, paths, n, name, ran_in);
        if (ran != PIN_OFFSET_NONE) k = ran;
    }
    if (k >= 0 && running && running->n) {
        int run = offset_over(efs, paths, n, name, running);
        if (run != PIN_OFFSET_NONE && run != k) return PIN_OFFSET_SEVERAL;
    }
    return k;
}

size_t pin_linked_copies(const struct elf_file *efs, size_t n, const char *name)
{
    size_t copies = 0;
    for (size_t f = 0; f < n; f++) {
        if (!efs[f].elf) continue;
        const struct elf_sym *first;
        size_t count = elf_file_syms_named(&efs[f], name, &first);
        for (size_t i = 0; i < count; i++) {
            int dup = 0;
            for (size_t j = 0; j < i && !dup; j++) dup = first[j].value == first[i].value;
            copies += !dup;
        }
    }
    return copies;
}
