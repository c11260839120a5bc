/* cloneisa.c - see cloneisa.h. */
#include "select/cloneisa.h"

#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/inspect.h"
#include "select/attribution.h"
#include "util/util.h"

static void add_function(const struct inspect_report *ir, size_t k, const char *const *names, size_t n,
                         struct clone_isa *out)
{
    const struct elf_mv_function *fn = &ir->list.functions[k];
    int useful = 0, others = 0, same = 1;
    isa_set needs = 0;
    for (size_t c = 0; c < fn->n_clones; c++) {
        const struct inspect_clone *ic = &ir->functions[k].clones[c];
        if (ic->verdict == VERDICT_USEFUL) useful = 1;
        if (!ic->clone->is_default) {
            others++;
            same &= ic->same_as_default;
        }
        if (ic->analyzed && ic->verdict != VERDICT_NONE) needs |= ic->isa.needs;
    }
    char *base = attribution_base_name(fn->name);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(base, names[i]) != 0) continue;
        out[i].same_code = (out[i].found ? out[i].same_code : 1) && others > 0 && same;
        out[i].found = 1;
        out[i].useful |= useful;
        out[i].needs |= needs;
    }
    free(base);
}

size_t clone_isa_of_dir(const char *build_dir, const char *const *names, size_t n, struct clone_isa *out)
{
    memset(out, 0, n * sizeof *out);
    struct strvec elves = STRVEC_INIT;
    elf_find_linked(build_dir, &elves);
    for (size_t i = 0; i < elves.n; i++) {
        struct inspect_report ir;
        if (inspect_file(elves.v[i], &ir) != 0) continue;
        for (size_t k = 0; k < ir.list.n_functions; k++) add_function(&ir, k, names, n, out);
        inspect_free(&ir);
    }
    size_t found = elves.n;
    sv_free(&elves);
    return found;
}

int clone_isa_uses_fma(const struct clone_isa *c)
{
    return (c->needs & (ISA_BIT(ISA_FMA) | ISA_BIT(ISA_FMA4))) != 0;
}
