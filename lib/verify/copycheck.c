/* copycheck.c - see copycheck.h. */
#include "verify/copycheck.h"

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpuiddisp.h"
#include "elf/elffile.h"
#include "util/util.h"

const struct elf_clone *copycheck_expected(const struct elf_mv_function *fn, int level, const struct elf_clone **alt)
{
    const struct elf_clone *best = NULL;
    int best_level = 0;
    *alt = NULL;
    for (size_t i = 0; i < fn->n_clones; i++) {
        int need = elf_cpuid_target_level(fn->clones[i].target);
        if (!need || need > level || need < best_level) continue;
        if (need == best_level) {
            *alt = &fn->clones[i];
            continue;
        }
        best = &fn->clones[i];
        best_level = need;
        *alt = NULL;
    }
    return best;
}

static void list_copies(struct strbuf *sb, const struct elf_mv_function *fn)
{
    for (size_t i = 0; i < fn->n_clones; i++) sb_addf(sb, "%s%s", i ? ", " : "", fn->clones[i].symbol);
}

/* What the answer at file address addr of object path is: the function
 * symbol there ("kern_reference (0x17e0)"), or the address alone. */
static char *describe_address(const char *path, uint64_t addr)
{
    struct elf_file ef;
    char *what = NULL;
    fmv_set_quiet(1);   /* read once already by the plan */
    if (elf_file_open(path, &ef) == 0) {
        const struct elf_sym *s = elf_file_func_at(&ef, addr);
        if (s && s->value == addr) what = xasprintf("%s (0x%" PRIx64 ")", s->name, addr);
        elf_file_close(&ef);
    }
    fmv_set_quiet(0);
    return what ? what : xasprintf("0x%" PRIx64 ", no function's start", addr);
}

char *copycheck_error(const struct dispatch_plan *plan, size_t e, const struct dispatch_result *d,
                      const char *cpu_level)
{
    const struct dispatch_entry *en = &plan->entries[e];
    const struct elf_mv_function *fn = en->fn;
    if (fn->dispatch != ELF_MV_DISPATCH_CPUID || !d->answered || !d->answered[e]) return NULL;
    const char *resolver = fn->resolver ? fn->resolver : "its resolver";
    const struct elf_clone *got = d->picks[e];
    if (!got) {
        char *what = d->other[e] && strstr(d->other[e], "(not a known clone)")
                         ? describe_address(plan->objects[en->object].path, d->offsets[e])
                         : xstrdup(d->other[e] ? d->other[e] : "nothing");
        struct strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "%s: %s returned %s, not one of its copies (", fn->name, resolver, what);
        list_copies(&sb, fn);
        sb_adds(&sb, ")");
        free(what);
        return sb_detach(&sb);
    }
    int level = elf_cpuid_cpu_level(cpu_level);
    if (!level) return NULL;
    const struct elf_clone *alt, *want = copycheck_expected(fn, level, &alt);
    if (got == want || (alt && got == alt)) return NULL;
    int need = elf_cpuid_target_level(got->target);
    if (!want)
        return xasprintf("%s: %s returned %s (%s) on an %s CPU, and the function has no copy for it (no default)",
                         fn->name, resolver, got->symbol, got->target, cpu_level);
    return xasprintf("%s: %s returned %s (%s) on an %s CPU, which must get %s (%s): %s", fn->name, resolver,
                     got->symbol, got->target, cpu_level, want->symbol, want->target,
                     need > level ? "that copy needs more than the CPU has (SIGILL at its first such instruction)"
                                  : "fmvgen_cpu_levels read the CPU as a lower level than it is");
}
