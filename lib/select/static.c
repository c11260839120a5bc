/* static.c - see static.h. Walks the build's copy for linked x86-64 ELF
 * files and asks inspect which clones use more than the default. */
#include "select/static.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/inspect.h"
#include "select/attribution.h"

/* Per candidate: useful (1) when some non-default clone needs more than the
 * default clone, useless (0) when its clones need nothing more, unknown (-1)
 * when no linked file of the build holds its clones. */
static int static_verdict(const struct strvec *elves, const char *name)
{
    int verdict = -1;
    for (size_t i = 0; i < elves->n; i++) {
        struct inspect_report ir;
        if (inspect_file(elves->v[i], &ir) != 0) continue;
        for (size_t k = 0; k < ir.list.n_functions; k++) {
            char *base = attribution_base_name(ir.list.functions[k].name);
            int match = !strcmp(base, name);
            free(base);
            if (!match) continue;
            if (verdict < 0) verdict = 0;
            for (size_t c = 0; c < ir.list.functions[k].n_clones; c++)
                if (ir.functions[k].clones[c].verdict == VERDICT_USEFUL) verdict = 1;
        }
        inspect_free(&ir);
    }
    return verdict;
}

void select_static(const char *build_dir, const struct patch_plan *candidates, int set_variant,
                   struct select_report *r)
{
    struct strvec elves = STRVEC_INIT;
    elf_find_linked(build_dir, &elves);
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &candidates->functions[f];
        struct select_function *fn = &r->functions[f];
        int v = static_verdict(&elves, pf->name);
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
    sv_free(&elves);
}
