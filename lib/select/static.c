/* static.c - see static.h. Walks the build's copy for linked x86-64 ELF
 * files and asks inspect which clones use more than the default. */
#include "select/static.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/inspect.h"
#include "select/attribution.h"

/* Per candidate (verdicts[f], parallel to candidates->functions): useful
 * (1) when some non-default clone needs more than the default clone,
 * useless (0) when its clones need nothing more, unknown (-1) when no linked
 * file of the build holds its clones. Each file is inspected (disassembled)
 * once, whatever the number of candidates. */
static void static_verdicts(const struct strvec *elves, const struct patch_plan *candidates, int *verdicts)
{
    for (size_t f = 0; f < candidates->nfunctions; f++) verdicts[f] = -1;
    for (size_t i = 0; i < elves->n; i++) {
        struct inspect_report ir;
        if (inspect_file(elves->v[i], &ir) != 0) continue;
        for (size_t k = 0; k < ir.list.n_functions; k++) {
            int useful = 0;
            for (size_t c = 0; c < ir.list.functions[k].n_clones; c++)
                if (ir.functions[k].clones[c].verdict == VERDICT_USEFUL) useful = 1;
            char *base = attribution_base_name(ir.list.functions[k].name);
            for (size_t f = 0; f < candidates->nfunctions; f++) {
                if (strcmp(base, candidates->functions[f].name) != 0) continue;
                if (verdicts[f] < 0) verdicts[f] = 0;
                if (useful) verdicts[f] = 1;
            }
            free(base);
        }
        inspect_free(&ir);
    }
}

void select_static(const char *build_dir, const struct patch_plan *candidates, int set_variant,
                   struct select_report *r)
{
    struct strvec elves = STRVEC_INIT;
    elf_find_linked(build_dir, &elves);
    int *verdicts = xcalloc(candidates->nfunctions + 1, sizeof *verdicts);
    static_verdicts(&elves, candidates, verdicts);
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &candidates->functions[f];
        struct select_function *fn = &r->functions[f];
        int v = verdicts[f];
        if (v == 1) {
            fn->in_patch = 1;
            fn->set = set_variant;
            fn->note = xstrdup("its clones use instructions the default clone does not (inspect)");
        } else if (v == 0) {
            fn->note = xstrdup("dropped: its clones need nothing beyond the default clone (inspect)");
        } else if (pf->probe_bytes > pf->build_bytes) {
            fn->in_patch = 1;
            fn->set = set_variant;
            fn->note = xasprintf("no clones found in the build's programs; loop records: %d-byte vectors at the "
                                 "target vs %d in the build", pf->probe_bytes, pf->build_bytes);
        } else {
            fn->note = xstrdup("dropped: no clones found in the build's programs and no wider vectors at the target");
        }
        if (fn->in_patch) r->n_selected++;
    }
    if (!elves.n) sv_push(&r->notes, "the build produced no linked x86-64 program or library to inspect");
    free(verdicts);
    sv_free(&elves);
}
