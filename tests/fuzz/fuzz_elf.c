/* fuzz_elf.c - the ELF reader behind `inspect` (elf_file_open_buffer), and
 * what inspect does with an open file: find the multiversioned functions
 * (elf_mv_scan, which disassembles resolvers) and analyse each clone's
 * code (isa_analyze, isa_analyze_reachable), and the CPU-detection bytes
 * (elf_cpu_detect_bytes: the symbol table walk), the padding after each
 * clone and the PLT entries that reach each function (elf/padding.h,
 * elf/pltslots.h), and fmvgen's --dispatch cpuid code by unit
 * (elf/cpuidcode.h, both reaches). The input is the file. */
#include "fuzz_common.h"

#include "elf/clones.h"
#include "elf/cpudetect.h"
#include "elf/cpuidcode.h"
#include "elf/cpukind.h"
#include "elf/elffile.h"
#include "elf/isa.h"
#include "elf/padding.h"
#include "elf/pltslots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    struct elf_file ef;
    if (elf_file_open_buffer("fuzz.elf", data, size, &ef) != 0) return 0;
    /* the kinds of CPU detection (elf/cpukind.h: a symbol-table walk that
     * disassembles each fmvgen_resolve_* resolver); elf_mv_scan below finds
     * --dispatch cpuid functions (elf/cpuiddisp.h) */
    struct elf_cpu_kinds kinds;
    (void)elf_cpu_kinds(&ef, &kinds);
    for (size_t i = 0; i < ef.n_syms; i++) {
        const struct elf_sym *s = &ef.syms[i];
        if (elf_file_sym_named(&ef, s->name) == NULL) abort();   /* sorted by name */
        (void)elf_file_func_at(&ef, s->value);
        (void)elf_file_ifunc_at(&ef, s->value, s->name);
        (void)elf_file_addr_is_code(&ef, s->value);
    }
    uint64_t cpu;
    (void)elf_cpu_detect_bytes(&ef, &cpu);
    struct elf_cpuid_code cc;
    if (elf_cpuid_code(&ef, &cc) == 0)
        for (size_t i = 0; i < cc.n_functions; i++)
            if (cc.functions[i].ifunc && !cc.functions[i].resolver_addr) abort();   /* found at its resolver */
    elf_cpuid_code_free(&cc);
    struct elf_plt_slots plt;
    elf_plt_slots_read(&ef, &plt);
    struct elf_mv_list mv;
    if (elf_mv_scan(&ef, &mv) == 0) {
        for (size_t i = 0; i < mv.n_functions; i++) {
            const struct elf_mv_function *f = &mv.functions[i];
            (void)elf_mv_default(f);
            (void)elf_mv_reach_name(f);
            (void)elf_plt_bytes_for(&plt, f->resolver_addr, f->name, f->ifunc);
            (void)elf_plt_jump_slot_named(&plt.jump_slots, f->name);
            (void)elf_padding_before(&ef, f->resolver_addr);
            for (size_t k = 0; k < f->n_clones; k++) {
                const struct elf_clone *c = &f->clones[k];
                struct isa_usage u;
                if (elf_mv_clone_at(f, c->addr) == NULL) abort();
                (void)elf_padding_after(&ef, c->addr, c->size);
                (void)elf_function_after(&ef, c->addr + c->size);
                if (c->size) {
                    const uint8_t *code = elf_file_bytes(&ef, c->addr, c->size);
                    if (code) isa_analyze(code, c->size < 65536 ? c->size : 65536, c->addr, &u);
                } else {
                    uint64_t len = 0, extent = 0;
                    const uint8_t *code = elf_file_window(&ef, c->addr, 4096, &len);
                    if (code) isa_analyze_reachable(code, len, c->addr, &u, &extent);
                }
            }
        }
        elf_mv_list_free(&mv);
    }
    elf_plt_slots_free(&plt);
    elf_file_close(&ef);
    return 0;
}
