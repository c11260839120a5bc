/* assign.c - see plan.h (patch_assign, patch_validate_assignments) and
 * plan_internal.h (patch_plan_set, patch_name_sets, patch_keep_assigned):
 * which targets each function gets, and the macros naming each set. */
#include "patch/plan_internal.h"
#include "targets/targets.h"

#include <string.h>

#define DEFAULT_MACRO PATCH_DEFAULT_MACRO

static int same_targets(const struct strvec *a, const struct strvec *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0) return 0;
    return 1;
}

static void copy_targets(struct strvec *dst, const struct strvec *src)
{
    for (size_t i = 0; i < src->n; i++) sv_push(dst, src->v[i]);
}

void patch_assign(struct patch_assignments *a, const char *name, const struct strvec *targets)
{
    patch_assign_in(a, name, NULL, targets);
}

static int same_rel(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

void patch_assign_in(struct patch_assignments *a, const char *name, const char *rel, const struct strvec *targets)
{
    struct patch_assignment *x = NULL;
    for (size_t i = 0; i < a->n && !x; i++)
        if (!strcmp(a->v[i].name, name) && same_rel(a->v[i].rel, rel)) x = &a->v[i];
    if (x) {
        sv_free(&x->targets);
    } else {
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 8;
            a->v = xrealloc(a->v, a->cap * sizeof *a->v);
        }
        x = &a->v[a->n++];
        x->name = xstrdup(name);
        x->rel = rel ? xstrdup(rel) : NULL;
    }
    x->targets = (struct strvec)STRVEC_INIT;
    copy_targets(&x->targets, targets);
}

void patch_assignments_free(struct patch_assignments *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].name);
        free(a->v[i].rel);
        sv_free(&a->v[i].targets);
    }
    free(a->v);
    for (size_t i = 0; i < a->n_pins; i++) {
        free(a->pins[i].name);
        free(a->pins[i].rel);
        free(a->pins[i].file);
        free(a->pins[i].display_name);
        free(a->pins[i].source_hash);
        free(a->pins[i].note);
    }
    free(a->pins);
    for (size_t i = 0; i < a->n_copy_pins; i++) {
        free(a->copy_pins[i].name);
        free(a->copy_pins[i].rel);
        free(a->copy_pins[i].slug);
    }
    free(a->copy_pins);
    memset(a, 0, sizeof *a);
}

int patch_validate_assignments(struct store *st, const struct patch_assignments *a)
{
    for (size_t i = 0; i < a->n; i++) {
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = same_targets(&a->v[k].targets, &a->v[i].targets);
        if (!seen && patch_validate_targets(st, &a->v[i].targets, NULL, NULL, 0) != 0) return -1;
    }
    return 0;
}

/* The index of targets in p->sets, added when new. */
size_t patch_plan_set(struct patch_plan *p, const struct strvec *targets)
{
    for (size_t s = 0; s < p->nsets; s++)
        if (same_targets(&p->sets[s].targets, targets)) return s;
    p->sets = xrealloc(p->sets, (p->nsets + 1) * sizeof *p->sets);
    struct patch_target_set *set = &p->sets[p->nsets];
    memset(set, 0, sizeof *set);
    copy_targets(&set->targets, targets);
    set->fma = targets_enable_fma(targets);
    return p->nsets++;
}

/* Names the sets' macros (FMVGEN_CLONES when there is one; distinct names
 * from the targets otherwise), and fills p->targets (the union) and
 * p->fma. */
void patch_name_sets(struct patch_plan *p)
{
    for (size_t s = 0; s < p->nsets; s++) {
        struct patch_target_set *set = &p->sets[s];
        if (p->nsets == 1) {
            set->macro = xstrdup(DEFAULT_MACRO);
        } else {
            char *base = patch_macro_name(&set->targets);
            set->macro = xstrdup(base);
            for (int k = 2;; k++) {   /* two sets spelled alike ("a-b" / "a_b"): numbered */
                int taken = 0;
                for (size_t o = 0; o < s && !taken; o++) taken = !strcmp(p->sets[o].macro, set->macro);
                if (!taken) break;
                free(set->macro);
                set->macro = xasprintf("%s_%d", base, k);
            }
            free(base);
        }
        for (size_t i = 0; i < set->targets.n; i++)
            if (!sv_contains(&p->targets, set->targets.v[i])) sv_push(&p->targets, set->targets.v[i]);
        if (set->fma) p->fma = 1;
    }
}

/* Keeps the functions an assignment names (by name, and by file when it
 * gives one), each with its assignment's set. */
void patch_keep_assigned(struct patch_plan *p, const struct patch_assignments *a)
{
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        const struct patch_assignment *x = NULL;
        for (size_t k = 0; k < a->n && !x; k++)
            if (!strcmp(a->v[k].name, f->name) && (!a->v[k].rel || !strcmp(a->v[k].rel, f->rel))) x = &a->v[k];
        if (!x) {
            patch_function_free(f);
            continue;
        }
        f->set = patch_plan_set(p, &x->targets);
        p->functions[out++] = *f;
    }
    p->nfunctions = out;
}
