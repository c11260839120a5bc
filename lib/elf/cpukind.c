/* cpukind.c - see cpukind.h. One walk of the .symtab. */
#include "elf/cpukind.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpudetect.h"
#include "elf/cpuiddisp.h"
#include "elf/disasm.h"
#include "elf/elffile.h"
#include "elf/symwalk.h"
#include "util/util.h"

struct walk {
    const struct elf_file *ef;
    int cpuinfo, cpu_model, indicator;
    uint64_t *levels;    /* addresses of fmvgen_cpu_levels seen */
    size_t n_levels;
    struct elf_cpu_kinds *out;
};

/* name, or name with a compiler's tail (".lto_priv.0", ".part.0") */
static int named(const char *symbol, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(symbol, name, n) && (!symbol[n] || symbol[n] == '.');
}

static int on_sym(const struct elf_walk_sym *s, void *ctx)
{
    struct walk *w = ctx;
    if (s->type != STT_FUNC || !s->size) return 0;
    if (named(s->name, ELF_CPUID_LEVELS_SYMBOL)) {
        for (size_t i = 0; i < w->n_levels; i++)
            if (w->levels[i] == s->value) return 0;
        w->levels = xrealloc(w->levels, (w->n_levels + 1) * sizeof *w->levels);
        w->levels[w->n_levels++] = s->value;
        w->out->levels_bytes += s->size;
    } else if (!strncmp(s->name, ELF_CPUID_RESOLVER_PREFIX, sizeof ELF_CPUID_RESOLVER_PREFIX - 1)) {
        w->out->n_inlined += elf_code_has_cpuid(w->ef, s->value, s->size);
    } else if (s->tu && elf_cpu_detect_tu(s->tu)) {
        if (!strncmp(s->tu, "cpuinfo", 7)) w->cpuinfo = 1;
        else w->cpu_model = 1;
    } else if (!strcmp(s->name, "__cpu_indicator_init")) {
        w->indicator = 1;
    }
    return 0;
}

int elf_cpu_kinds(const struct elf_file *ef, struct elf_cpu_kinds *out)
{
    memset(out, 0, sizeof *out);
    struct walk w = {ef, 0, 0, 0, NULL, 0, out};
    int rc = elf_symtab_walk(ef->elf, 0, on_sym, &w);
    free(w.levels);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->n_levels = w.n_levels;
    out->runtime = w.cpuinfo ? "libgcc cpuinfo" : w.cpu_model ? "compiler-rt cpu_model"
                                                                : w.indicator ? "__cpu_indicator_init" : NULL;
    return 0;
}

static int on_insn(const cs_insn *insn, void *ctx)
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
    if (code) disasm_walk_flow(code, len, addr, on_insn, &found, NULL);
    return found;
}
