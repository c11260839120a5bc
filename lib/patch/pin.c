/* pin.c - candidates kept in place (plan.h's struct patch_pin): taken out
 * of the plan's functions, and the attribute line each gets. */
#include "patch/plan_internal.h"

#include <stdlib.h>
#include <string.h>

void patch_pin_in(struct patch_assignments *a, const char *name, const char *rel, unsigned offset)
{
    if (a->n_pins == a->cap_pins) {
        a->cap_pins = a->cap_pins ? 2 * a->cap_pins : 8;
        a->pins = xrealloc(a->pins, a->cap_pins * sizeof *a->pins);
    }
    a->pins[a->n_pins++] = (struct patch_pin){xstrdup(name), xstrdup(rel), offset % 64};
}

void patch_copy_pin_in(struct patch_assignments *a, const char *name, const char *rel, const char *slug,
                       unsigned offset)
{
    if (a->n_copy_pins == a->cap_copy_pins) {
        a->cap_copy_pins = a->cap_copy_pins ? 2 * a->cap_copy_pins : 8;
        a->copy_pins = xrealloc(a->copy_pins, a->cap_copy_pins * sizeof *a->copy_pins);
    }
    a->copy_pins[a->n_copy_pins++] = (struct patch_copy_pin){xstrdup(name), xstrdup(rel), xstrdup(slug), offset % 64};
}

static int assigned(const struct patch_assignments *a, const struct patch_function *f)
{
    for (size_t k = 0; k < a->n; k++)
        if (!strcmp(a->v[k].name, f->name) && (!a->v[k].rel || !strcmp(a->v[k].rel, f->rel))) return 1;
    return 0;
}

/* Gives the assigned functions their copies' pins ("SLUG=K"). */
static void take_copy_pins(struct patch_plan *p, const struct patch_assignments *a)
{
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        for (size_t k = 0; k < a->n_copy_pins; k++)
            if (!strcmp(a->copy_pins[k].name, f->name) && !strcmp(a->copy_pins[k].rel, f->rel) && assigned(a, f))
                sv_pushf(&f->copy_pins, "%s=%u", a->copy_pins[k].slug, a->copy_pins[k].offset);
    }
}

void patch_take_pins(struct patch_plan *p, const struct patch_assignments *a)
{
    take_copy_pins(p, a);
    if (!a->n_pins) return;
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        const struct patch_pin *pin = NULL;
        for (size_t k = 0; k < a->n_pins && !pin; k++)
            if (!strcmp(a->pins[k].name, f->name) && !strcmp(a->pins[k].rel, f->rel)) pin = &a->pins[k];
        if (!pin || assigned(a, f)) {
            p->functions[out++] = *f;
            continue;
        }
        p->pinned = xrealloc(p->pinned, (p->npinned + 1) * sizeof *p->pinned);
        f->pin = 1 + (int)pin->offset;
        p->pinned[p->npinned++] = *f;
    }
    p->nfunctions = out;
}

char *patch_pin_attribute(int k)
{
    if (k <= 0) return xstrdup("__attribute__((__aligned__(64)))");
    return xasprintf("__attribute__((__aligned__(64), __patchable_function_entry__(%d, %d)))", k, k);
}

int patch_copy_pin_of(const struct patch_function *f, const char *slug)
{
    size_t n = strlen(slug);
    for (size_t i = 0; i < f->copy_pins.n; i++)
        if (!strncmp(f->copy_pins.v[i], slug, n) && f->copy_pins.v[i][n] == '=') return atoi(f->copy_pins.v[i] + n + 1);
    return -1;
}

char *patch_pin_line(const struct patch_function *f, const char *indent, const char *eol)
{
    int k = f->pin - 1;
    if (k <= 0) return xasprintf("%s__attribute__((__aligned__(64)))%s", indent, eol);
    return xasprintf("%s__attribute__((__aligned__(64), __patchable_function_entry__(%d, %d)))%s", indent, k, k, eol);
}
