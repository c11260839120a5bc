/* assign.c - see assign.h. */
#include "select/assign.h"

#include <stdlib.h>
#include <string.h>

#include "targets/targets.h"
#include "util/util.h"

/* The first target set whose build never ran the workloads (not built, or
 * its --test failed: profiling.c profiles a variant whose outputs alone
 * differ) when no set's build ran them; 0 when one did. */
static size_t no_set_measured(const struct select_report *r)
{
    size_t first = 0;
    for (size_t v = 1; v < r->n_variants; v++) {
        const struct select_variant *x = &r->variants[v];
        if (x->built && (!x->failure || !strncmp(x->failure, "output", 6))) return 0;
        if (!first) first = v;
    }
    return first;
}

void select_apply_decision(struct select_report *r)
{
    const struct decision *d = &r->decision;
    size_t unmeasured = no_set_measured(r);
    for (size_t f = 0; f < d->n_functions && f < r->n_functions; f++) {
        const struct decision_function *df = &d->functions[f];
        struct select_function *fn = &r->functions[f];
        if (df->chosen >= 1 && (size_t)df->chosen < r->n_variants && select_name_ambiguous(r, f)) {
            /* its samples are its namesakes' too (report.h): not selected on them */
            free(fn->note);
            fn->note = xasprintf("not selected, ambiguous name: %zu candidates are named %s, and the profile "
                                 "credits each with the samples of all", select_name_count(r, f), fn->name);
            sv_pushf(&r->notes, "%s (%s:%d) was not selected: its name is not unique among the candidates, so its "
                                "samples cannot be told from its namesakes'", fn->display_name, fn->file, fn->line);
        } else if (df->chosen >= 1 && (size_t)df->chosen < r->n_variants) {
            fn->in_patch = 1;
            fn->set = df->chosen;
            if (fn->helpers.n) {
                struct strbuf names = STRBUF_INIT;
                sb_add_joined(&names, &fn->helpers, ", ");
                sv_pushf(&r->notes, "%s: its helpers %s are inlined into its clones (always_inline), as the "
                                    "build inlined them into it; their time was its time in every variant",
                         fn->display_name, sb_str(&names));
                sb_free(&names);
            }
        } else if (df->reason == DECISION_NO_GAIN && unmeasured >= 1) {
            /* no set's build ran its workloads: nothing was compared */
            const struct select_variant *v = &r->variants[unmeasured];
            free(fn->note);
            fn->note = xasprintf("not measured: no target set's build ran the workloads (%s: %s)", v->name,
                                 v->failure ? v->failure : "not built");
        } else if (df->reason == DECISION_INELIGIBLE && df->best_ineligible >= 1) {
            /* the variant's own failure says what differed, and suggests
             * --tolerance only when floats alone differed (FMA's last bits) */
            const struct select_variant *v = &r->variants[df->best_ineligible];
            free(fn->note);
            fn->note = xasprintf("gained only with %s, which is not eligible: %s", v->name,
                                 v->failure ? v->failure : "its outputs or tests differ from the baseline's");
            sv_pushf(&r->notes, "%s was held back: it gained with %s, which is not eligible: %s", fn->display_name,
                     v->name, v->failure ? v->failure : "its outputs or tests differ from the baseline's");
        }
    }
}

int select_patch_assignments(struct select_report *r, struct patch_assignments *out)
{
    int *used = xcalloc(r->n_variants + 1, sizeof *used);
    int rc = 0;
    r->n_selected = 0;
    for (size_t f = 0; f < r->n_functions && rc == 0; f++) {
        const struct select_function *fn = &r->functions[f];
        if (!fn->in_patch) continue;
        struct strvec targets = STRVEC_INIT;
        if (fn->set < 1 || (size_t)fn->set >= r->n_variants) {
            rc = fmv_error("%s: no target set chosen", fn->display_name);
        } else if (targets_parse(fn->copy_only ? fn->copy_only : r->variants[fn->set].targets, &targets) == 0) {
            /* copy_only: the budget kept the copy that ran alone (trimcopies.h) */
            /* a shared name by file too: a static namesake in another
             * file is another function, not selected with it */
            patch_assign_in(out, fn->name, select_name_count(r, f) > 1 ? fn->file : NULL, &targets);
            used[fn->set] = 1;
            r->n_selected++;
        } else {
            rc = -1;
        }
        sv_free(&targets);
    }
    free(r->patch_targets);
    r->patch_targets = NULL;
    struct strbuf sb = STRBUF_INIT;
    for (size_t v = 1; v < r->n_variants; v++) {
        if (!used[v]) continue;
        if (sb.len) sb_adds(&sb, "; ");
        sb_adds(&sb, r->variants[v].targets);
    }
    if (sb.len) r->patch_targets = sb_detach(&sb);
    sb_free(&sb);
    free(used);
    return rc;
}
