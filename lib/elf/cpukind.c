/* cpukind.c - see cpukind.h. One walk of the .symtab for the runtime's
 * detection and the resolvers; fmvgen_cpu_levels is elf/cpuidcode.h's. */
#include "elf/cpukind.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpudetect.h"
#include "elf/cpuidcode.h"
#include "elf/disasm.h"
#include "elf/elffile.h"
#include "elf/fmvnames.h"
#include "elf/symwalk.h"
#include "util/util.h"

struct walk {
    const struct elf_file *ef;
    int cpuinfo, cpu_model, indicator;
    struct elf_cpu_kinds *out;
};

static int on_sym(const struct elf_walk_sym *s, void *ctx)
{
    struct walk *w = ctx;
    if (s->type != STT_FUNC || !s->size) return 0;
    struct elf_fmv_name nm;
    enum elf_fmv_role role = elf_fmv_name(s->name, &nm);
    if (role == ELF_FMV_LEVELS) return 0;   /* elf/cpuidcode.h counts them */
    if (role == ELF_FMV_RESOLVER) {
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
    struct walk w = {ef, 0, 0, 0, out};
    struct elf_cpuid_code cc;
    int rc = elf_symtab_walk(ef->elf, 0, on_sym, &w);
    if (rc == 0) rc = elf_cpuid_code(ef, &cc);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->levels_bytes = cc.levels_bytes;
    out->n_levels = cc.n_levels;
    out->n_linked_levels = cc.n_linked_levels;
    elf_cpuid_code_free(&cc);
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
