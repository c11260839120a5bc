/* cpudetect.c - see cpudetect.h. */
#include "elf/cpudetect.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/padding.h"
#include "elf/symwalk.h"
#include "util/util.h"

int elf_cpu_detect_tu(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    static const char *const stems[] = {"cpuinfo", "cpu_model"};
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        size_t n = strlen(stems[i]);
        if (!strncmp(base, stems[i], n) && (!strcmp(base + n, ".c") || !strcmp(base + n, ".o"))) return 1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* pairs (address, size) of the symbols counted, deduplicated afterwards */
struct found {
    uint64_t *v;
    size_t n, cap;
};

static int count_sym(const struct elf_walk_sym *s, void *ctx)
{
    struct found *fd = ctx;
    if (s->type != STT_FUNC || !s->size) return 0;
    if (strcmp(s->name, "__cpu_indicator_init") && !(s->tu && elf_cpu_detect_tu(s->tu))) return 0;
    if (fd->n + 2 > fd->cap) fd->v = xrealloc(fd->v, (fd->cap = fd->cap ? 2 * fd->cap : 32) * sizeof *fd->v);
    fd->v[fd->n++] = s->value;
    fd->v[fd->n++] = s->size;
    return 0;
}

int elf_cpu_detect_functions(const struct elf_file *ef, uint64_t **pairs, size_t *n)
{
    struct found fd = {NULL, 0, 0};
    *pairs = NULL;
    *n = 0;
    if (elf_symtab_walk(ef->elf, 0, count_sym, &fd) != 0) {
        free(fd.v);
        return -1;
    }
    if (fd.n) qsort(fd.v, fd.n / 2, 2 * sizeof *fd.v, cmp_u64);
    size_t k = 0;   /* aliases (one address) once */
    for (size_t i = 0; i < fd.n; i += 2)
        if (!k || fd.v[i] != fd.v[k - 2]) fd.v[k++] = fd.v[i], fd.v[k++] = fd.v[i + 1];
    *pairs = fd.v;
    *n = k / 2;
    return 0;
}

int elf_cpu_detect_bytes(const struct elf_file *ef, uint64_t *bytes)
{
    *bytes = 0;
    uint64_t *v;
    size_t n;
    if (elf_cpu_detect_functions(ef, &v, &n) != 0) return -1;
    for (size_t i = 0; i < n; i++) *bytes += v[2 * i + 1] + elf_padding_after(ef, v[2 * i], v[2 * i + 1]);
    free(v);
    return 0;
}
