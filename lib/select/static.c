/* static.c - see static.h. What each candidate's clones need comes from
 * cloneisa.h (the linked files of the build's copy, inspected). */
#include "select/static.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/cloneisa.h"

void select_static(const char *build_dir, const struct patch_plan *candidates, int set_variant,
                   struct select_report *r)
{
    size_t n = candidates->nfunctions;
    const char **names = xcalloc(n + 1, sizeof *names);
    for (size_t f = 0; f < n; f++) names[f] = candidates->functions[f].name;
    struct clone_isa *isa = xcalloc(n + 1, sizeof *isa);
    size_t n_linked = clone_isa_of_dir(build_dir, names, n, isa);
    for (size_t f = 0; f < r->n_functions && f < n; f++) {
        const struct patch_function *pf = &candidates->functions[f];
        struct select_function *fn = &r->functions[f];
        int v = isa[f].found ? isa[f].useful : -1;
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
    if (!n_linked) sv_push(&r->notes, "the build produced no linked x86-64 program or library to inspect");
    free(isa);
    free(names);
}
