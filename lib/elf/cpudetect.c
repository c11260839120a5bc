/* cpudetect.c - see cpudetect.h. */
#include "elf/cpudetect.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpuiddisp.h"
#include "elf/disasm.h"
#include "elf/elffile.h"
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

struct walk {
    struct found runtime, own;
    int cpuinfo, cpu_model;
};

static void push_pair(struct found *fd, uint64_t value, uint64_t size)
{
    if (fd->n + 2 > fd->cap) fd->v = xrealloc(fd->v, (fd->cap = fd->cap ? 2 * fd->cap : 32) * sizeof *fd->v);
    fd->v[fd->n++] = value;
    fd->v[fd->n++] = size;
}

static int count_sym(const struct elf_walk_sym *s, void *ctx)
{
    struct walk *w = ctx;
    if (s->type != STT_FUNC || !s->size) return 0;
    if (!strcmp(s->name, ELF_CPUID_LEVELS_SYMBOL) ||
        (!strncmp(s->name, ELF_CPUID_LEVELS_SYMBOL ".", sizeof ELF_CPUID_LEVELS_SYMBOL))) {
        push_pair(&w->own, s->value, s->size);
        return 0;
    }
    int tu = s->tu && elf_cpu_detect_tu(s->tu);
    if (strcmp(s->name, "__cpu_indicator_init") && !tu) return 0;
    if (tu && !strncmp(path_basename(s->tu), "cpuinfo", 7)) w->cpuinfo = 1;
    else if (tu) w->cpu_model = 1;
    push_pair(&w->runtime, s->value, s->size);
    return 0;
}

/* The bytes of the distinct pairs of fd, and how many there are. */
static uint64_t sum_distinct(struct found *fd, size_t *count)
{
    uint64_t bytes = 0;
    *count = 0;
    if (fd->n) qsort(fd->v, fd->n / 2, 2 * sizeof *fd->v, cmp_u64);
    for (size_t i = 0; i < fd->n; i += 2)
        if (i == 0 || fd->v[i] != fd->v[i - 2]) {
            bytes += fd->v[i + 1];
            ++*count;
        }
    free(fd->v);
    return bytes;
}

int elf_cpu_detect_parts(const struct elf_file *ef, struct elf_cpu_detect *out)
{
    memset(out, 0, sizeof *out);
    struct walk w;
    memset(&w, 0, sizeof w);
    if (elf_symtab_walk(ef->elf, 0, count_sym, &w) != 0) {
        free(w.runtime.v);
        free(w.own.v);
        return -1;
    }
    size_t n;
    out->runtime_bytes = sum_distinct(&w.runtime, &n);
    out->own_bytes = sum_distinct(&w.own, &out->own_copies);
    if (out->runtime_bytes)
        out->runtime = w.cpuinfo ? "libgcc cpuinfo" : w.cpu_model ? "compiler-rt cpu_model" : "__cpu_indicator_init";
    return 0;
}

int elf_cpu_detect_bytes(const struct elf_file *ef, uint64_t *bytes)
{
    struct elf_cpu_detect parts;
    *bytes = 0;
    if (elf_cpu_detect_parts(ef, &parts) != 0) return -1;
    *bytes = parts.runtime_bytes;
    return 0;
}

static int on_cpuid(const cs_insn *insn, void *ctx)
{
    int *found = ctx;
    if (insn->id == X86_INS_CPUID) *found = 1;
    return *found;
}

int elf_code_has_cpuid(const struct elf_file *ef, uint64_t addr, uint64_t size)
{
    uint64_t len = 0;
    const uint8_t *code = elf_file_window(ef, addr, size ? size : 4096, &len);
    int found = 0;
    if (code) disasm_walk_flow(code, len, addr, on_cpuid, &found, NULL);
    return found;
}
