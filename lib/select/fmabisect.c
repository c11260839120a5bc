/* fmabisect.c - see fmabisect.h. */
#include "select/fmabisect.h"
#include "select/session_phases.h"

#include <stdlib.h>
#include <string.h>

#include "select/assign.h"
#include "select/cloneisa.h"
#include "select/decision_confirm.h"
#include "select/fmagroup.h"
#include "targets/targets.h"

struct bisect_ctx {
    struct select_session *s;
    size_t v, e;           /* the FMA variant, the FMA-free one */
    const size_t *fns;     /* the searched functions' indices */
};

/* Every candidate at e's targets but those at_fma, at v's. */
static int assignments(struct bisect_ctx *c, const int *at_fma, size_t n, struct patch_assignments *a)
{
    struct select_report *r = &c->s->rep;
    struct strvec fma = STRVEC_INIT, exact = STRVEC_INIT;
    int rc = targets_parse(r->variants[c->v].targets, &fma);
    if (rc == 0) rc = targets_parse(r->variants[c->e].targets, &exact);
    int *in_fma = xcalloc(r->n_functions + 1, sizeof *in_fma);
    for (size_t i = 0; i < n; i++) in_fma[c->fns[i]] = at_fma[i];
    for (size_t f = 0; f < r->n_functions && rc == 0; f++)
        patch_assign_in(a, r->functions[f].name, select_name_count(r, f) > 1 ? r->functions[f].file : NULL,
                        in_fma[f] ? &fma : &exact);
    free(in_fma);
    sv_free(&fma);
    sv_free(&exact);
    return rc;
}

/* The build slot the selected build takes later: free until then. */
static void clear_slot(struct select_session *s, size_t index)
{
    struct variant_build *b = &s->builds[index];
    if (s->sources[index]) remove_tree(s->sources[index]);
    if (b->dir) remove_tree(b->dir);
    variant_build_free(b);
    free(s->sources[index]);
    s->sources[index] = NULL;
    if (s->clone_isa) {
        free(s->clone_isa[index]);
        s->clone_isa[index] = NULL;
    }
}

static int one_test(void *ctx, const int *at_fma, size_t n, char **why)
{
    struct bisect_ctx *c = ctx;
    struct select_session *s = c->s;
    struct select_report *r = &s->rep;
    struct select_fma_bisect *b = &r->fma_bisect;
    size_t index = r->n_variants, k = b->n_builds + 1;
    if (session_interrupted()) return -1;
    struct strbuf names = STRBUF_INIT;
    size_t n_at = 0;
    for (size_t i = 0; i < n; i++) {
        if (!at_fma[i]) continue;
        if (n_at < 6) sb_addf(&names, "%s%s", n_at ? ", " : "", r->functions[c->fns[i]].display_name);
        n_at++;
    }
    if (n_at > 6) sb_addf(&names, ", ... (%zu)", n_at);
    session_step(k, (size_t)b->limit, "FMA bisection: building %s at %s, the rest at %s", sb_str(&names),
                 r->variants[c->v].name, r->variants[c->e].name);
    struct patch_assignments a = {0};
    struct patch_plan plan;
    memset(&plan, 0, sizeof plan);
    int rc = assignments(c, at_fma, n, &a) == 0 &&
                     patch_plan_build_assigned_dispatch(s->st, &a, s->o->dispatch, &plan) == 0
                 ? 0
                 : -1;
    patch_assignments_free(&a);
    char *name = xasprintf("fma-bisect-%zu", k);
    if (rc == 0) {
        clear_slot(s, index);
        b->n_builds++;
        r->n_builds++;
        if (session_build_variant(s, index, name, &plan) != 0) {
            *why = xasprintf("%s did not build (%s)", name,
                             s->builds[index].failure ? s->builds[index].failure : "?");
            rc = -1;
        }
    } else {
        *why = xasprintf("the patch of %s could not be made", name);
    }
    if (rc == 0) {
        struct select_variant var = {0};
        session_check_variant(s, index, &var);
        if (var.failure) *why = xstrdup(var.failure);
        rc = var.failure ? 0 : 1;
        free(var.failure);
        free(var.output_match);
    }
    sv_pushf(&b->tests, "%s: %s at %s, the other candidates at %s: %s", name, sb_str(&names),
             r->variants[c->v].name, r->variants[c->e].name,
             rc > 0 ? "every output kept" : *why ? *why : "failed");
    session_say("%s", b->tests.v[b->tests.n - 1]);
    clear_slot(s, index);
    patch_plan_free(&plan);
    free(name);
    sb_free(&names);
    return rc;
}

/* The FMA variant to search (its only failure a differing output) and an
 * eligible FMA-free one; 0 when there is none. */
static int find_sets(const struct select_session *s, size_t *v_out, size_t *e_out)
{
    const struct select_report *r = &s->rep;
    size_t v = 0, e = 0;
    for (size_t u = 1; u < r->n_variants; u++) {
        const struct select_variant *x = &r->variants[u];
        if (!e && s->sets[u - 1].exact && x->eligible && !x->fma) e = u;
        if (!v && x->fma && x->built && !x->eligible && x->failure && !strncmp(x->failure, "output", 6)) v = u;
    }
    *v_out = v;
    *e_out = e;
    return v && e;
}

int session_fma_bisect(struct select_session *s, const struct decision_input *in, int **eligible)
{
    struct select_report *r = &s->rep;
    struct select_fma_bisect *b = &r->fma_bisect;
    size_t nf = r->n_functions, nv = r->n_variants, v, e;
    b->limit = s->o->fma_bisect;
    b->variant = -1;
    if (!find_sets(s, &v, &e)) return 0;
    const struct clone_isa *isa = session_clone_isa(s, v);
    /* who would take v's clones were v eligible for every function with FMA clones */
    int *what_if = xcalloc(nf * nv + 1, sizeof *what_if);
    for (size_t f = 0; f < nf; f++)
        for (size_t u = 0; u < nv; u++) {
            what_if[f * nv + u] = *eligible ? (*eligible)[f * nv + u] : r->variants[u].eligible;
            if (u == v && isa[f].found) what_if[f * nv + u] = 1;
        }
    struct decision_input w = *in;
    w.function_eligible = what_if;
    struct decision d;
    decide(&w, &d);
    /* and who the confirmation would retest with v (decision_confirm.h) */
    int confirm_runs = s->o->confirm_runs < 0 ? s->o->runs : s->o->confirm_runs;
    if (confirm_runs >= 2) decision_confirm_near(&w, &d);
    size_t *fns = xcalloc(nf + 1, sizeof *fns), n = 0;
    for (size_t f = 0; f < nf; f++) {
        int now = *eligible ? (*eligible)[f * nv + v] : 0;
        const struct decision_function *df = &d.functions[f];
        int retest = confirm_runs >= 2 && (df->near_set == (int)v ||
                                           (df->reason == DECISION_MULTIPLE_TESTS && df->held && df->held[v]));
        int wanted = s->o->fma_bisect_all || df->chosen == (int)v || retest;
        if (wanted && !now && clone_isa_uses_fma(&isa[f])) fns[n++] = f;
    }
    decision_free(&d);
    free(what_if);
    b->variant = (int)v;
    b->exact = (int)e;
    int changed = 0;
    if (!n) {
        b->why = xasprintf("%s changed an output, but no function whose clones there hold FMA instructions would "
                           "have taken them: no build was needed", r->variants[v].name);
    } else if (b->limit <= 0) {
        b->why = xasprintf("%s changed an output; %zu function%s with FMA clones %s, but --fma-bisect 0 makes no "
                           "build to tell which function's FMA changes it", r->variants[v].name, n, n == 1 ? "" : "s",
                           s->o->fma_bisect_all ? "(--fma-bisect-all)" : "would have taken it");
        for (size_t i = 0; i < n; i++) r->functions[fns[i]].fma_verdict = FMA_VERDICT_UNRESOLVED;
    } else {
        b->why = xasprintf("%s changed an output and %s kept them all; %zu function%s whose clones at %s hold FMA "
                           "instructions %s: bisected with builds that put some at %s and every other candidate at "
                           "%s, outputs checked", r->variants[v].name, r->variants[e].name, n, n == 1 ? "" : "s",
                           r->variants[v].name, s->o->fma_bisect_all ? "(--fma-bisect-all: every one)"
                                                                     : "would have taken that set",
                           r->variants[v].name, r->variants[e].name);
        session_say("%s", b->why);
        struct bisect_ctx c = {.s = s, .v = v, .e = e, .fns = fns};
        enum fma_verdict *verdict = xcalloc(n + 1, sizeof *verdict);
        char **why = xcalloc(n + 1, sizeof *why);
        int stopped = 0;
        fma_group_search(n, NULL, (size_t)b->limit, one_test, &c, verdict, why, &stopped);
        if (session_was_interrupted()) changed = -1;
        if (!*eligible && changed == 0) {
            *eligible = xcalloc(nf * nv + 1, sizeof **eligible);
            for (size_t f = 0; f < nf; f++)
                for (size_t u = 0; u < nv; u++) (*eligible)[f * nv + u] = r->variants[u].eligible;
        }
        for (size_t i = 0; i < n; i++) {
            struct select_function *fn = &r->functions[fns[i]];
            fn->fma_verdict = verdict[i];
            fn->fma_why = why[i];
            if (verdict[i] == FMA_VERDICT_CLEARED && changed == 0) {
                (*eligible)[fns[i] * nv + v] = 1;
                changed = 1;
            }
            b->n_cleared += verdict[i] == FMA_VERDICT_CLEARED;
            b->n_culprits += verdict[i] == FMA_VERDICT_CHANGES_OUTPUT;
            b->n_unresolved += verdict[i] == FMA_VERDICT_UNRESOLVED;
        }
        if (b->n_unresolved)
            sv_pushf(&r->notes, "FMA bisection left %zu function%s undecided (%s): %s stay%s without %s clones; "
                                "raise --fma-bisect (now %d) to decide more", b->n_unresolved,
                     b->n_unresolved == 1 ? "" : "s", stopped && b->n_builds < (size_t)b->limit
                         ? "a build failed or was interrupted" : "the build limit was reached",
                     b->n_unresolved == 1 ? "it" : "they", b->n_unresolved == 1 ? "s" : "", r->variants[v].name,
                     b->limit);
        free(verdict);
        free(why);
    }
    free(fns);
    return changed;
}

int session_fma_fallback(struct select_session *s, const char *failure, struct patch_assignments *retry)
{
    struct select_report *r = &s->rep;
    const struct select_fma_bisect *b = &r->fma_bisect;
    if (b->variant < 1) return 0;
    size_t dropped = 0, left = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        if (!fn->in_patch) continue;
        if (fn->fma_verdict == FMA_VERDICT_CLEARED && fn->set == b->variant) dropped++;
        else left++;
    }
    if (!dropped || !left) return 0;
    struct strbuf names = STRBUF_INIT;
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (!fn->in_patch || fn->fma_verdict != FMA_VERDICT_CLEARED || fn->set != b->variant) continue;
        fn->in_patch = 0;
        fn->fma_verdict = FMA_VERDICT_CHANGES_OUTPUT;   /* with the others selected */
        free(fn->note);
        fn->note = xasprintf("fma-changes-output: withdrawn: cleared by the FMA bisection, but the selected build with "
                             "its %s clones failed a check (%s)", r->variants[b->variant].name, failure);
        sb_addf(&names, "%s%s", names.len ? ", " : "", fn->display_name);
    }
    sv_pushf(&r->notes, "the selected build fails a check (%s) with the %s clones of %s, which the FMA bisection "
                        "cleared (each build it made kept the outputs): their FMA changes an output together with "
                        "this selection, so they were dropped and the rest built and checked once more",
             failure, r->variants[b->variant].name, sb_str(&names));
    session_say("%s", r->notes.v[r->notes.n - 1]);
    sb_free(&names);
    patch_assignments_free(retry);
    clear_slot(s, r->n_variants);
    if (select_patch_assignments(r, retry) != 0) return 0;
    return 1;
}

void session_note_fma_bisect(struct select_session *s)
{
    struct select_report *r = &s->rep;
    const struct select_fma_bisect *b = &r->fma_bisect;
    if (b->variant < 1) return;
    const char *vname = r->variants[b->variant].name;
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (fn->fma_verdict == FMA_VERDICT_CLEARED && fn->in_patch && fn->set == b->variant) {
            free(fn->note);
            fn->note = xasprintf("selected with %s, whose all-candidates outputs differ: a build with its FMA "
                                 "clones (and every function cleared with it) kept every output (FMA bisection)",
                                 vname);
        } else if (fn->fma_verdict == FMA_VERDICT_CHANGES_OUTPUT && !fn->in_patch && f < r->decision.n_functions &&
                   r->decision.functions[f].reason == DECISION_INELIGIBLE &&
                   r->decision.functions[f].best_ineligible == b->variant) {
            /* held back for that set: the reason is its FMA, not the set's */
            free(fn->note);
            fn->note = xasprintf("fma-changes-output: its %s clones change an output: %s", vname,
                                 fn->fma_why ? fn->fma_why : "(known from the build holding it with others)");
            sv_pushf(&r->notes, "%s was held back from %s: %s", fn->display_name, vname, fn->note);
        }
    }
}
