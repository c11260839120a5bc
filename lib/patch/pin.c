/* pin.c - functions kept in place (plan.h's struct patch_pin): candidates
 * taken out of the plan's functions, functions that are no candidate added
 * as the caller located them, and the attribute line each gets. */
#include "patch/plan_internal.h"

#include <stdlib.h>
#include <string.h>

static struct patch_pin *new_pin(struct patch_assignments *a)
{
    if (a->n_pins == a->cap_pins) {
        a->cap_pins = a->cap_pins ? 2 * a->cap_pins : 8;
        a->pins = xrealloc(a->pins, a->cap_pins * sizeof *a->pins);
    }
    struct patch_pin *p = &a->pins[a->n_pins++];
    memset(p, 0, sizeof *p);
    return p;
}

void patch_pin_in(struct patch_assignments *a, const char *name, const char *rel, unsigned offset)
{
    struct patch_pin *p = new_pin(a);
    *p = (struct patch_pin){.name = xstrdup(name), .rel = xstrdup(rel), .offset = offset % 64};
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void patch_pin_at(struct patch_assignments *a, const char *name, const char *file, const char *rel,
                  size_t insert_offset, int line, const char *display_name, const char *source_hash, const char *note,
                  unsigned offset)
{
    struct patch_pin *p = new_pin(a);
    *p = (struct patch_pin){.name = xstrdup(name),
                            .rel = xstrdup(rel),
                            .offset = offset % 64,
                            .file = xstrdup(file),
                            .display_name = xstrdup(display_name ? display_name : name),
                            .source_hash = dup_or_null(source_hash),
                            .note = dup_or_null(note),
                            .insert_offset = insert_offset,
                            .line = line};
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

static void add_pinned(struct patch_plan *p, const struct patch_function *f)
{
    p->pinned = xrealloc(p->pinned, (p->npinned + 1) * sizeof *p->pinned);
    p->pinned[p->npinned++] = *f;
}

/* A candidate of the plan, or one already pinned, at pin's name and file. */
static int known(const struct patch_plan *p, const struct patch_pin *pin)
{
    for (size_t i = 0; i < p->nfunctions; i++)
        if (!strcmp(p->functions[i].name, pin->name) && !strcmp(p->functions[i].rel, pin->rel)) return 1;
    for (size_t i = 0; i < p->npinned; i++)
        if ((!strcmp(p->pinned[i].name, pin->name) && !strcmp(p->pinned[i].rel, pin->rel)) ||
            (!strcmp(p->pinned[i].file, pin->file) && p->pinned[i].offset == pin->insert_offset))
            return 1;
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
    p->text_pad = a->text_pad % 64;
    if (!a->n_pins) return;
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        const struct patch_pin *pin = NULL;
        for (size_t k = 0; k < a->n_pins && !pin; k++)
            if (!a->pins[k].file && !strcmp(a->pins[k].name, f->name) && !strcmp(a->pins[k].rel, f->rel))
                pin = &a->pins[k];
        if (!pin || assigned(a, f)) {
            p->functions[out++] = *f;
            continue;
        }
        f->pin = 1 + (int)pin->offset;
        add_pinned(p, f);
    }
    p->nfunctions = out;
    /* functions that are no candidate: as the caller located them */
    for (size_t k = 0; k < a->n_pins; k++) {
        const struct patch_pin *pin = &a->pins[k];
        if (!pin->file || known(p, pin)) continue;
        struct patch_function f;
        memset(&f, 0, sizeof f);
        f.file = xstrdup(pin->file);
        f.rel = xstrdup(pin->rel);
        f.name = xstrdup(pin->name);
        f.display_name = xstrdup(pin->display_name ? pin->display_name : pin->name);
        f.offset = f.start = pin->insert_offset;
        f.line = f.insert_line = pin->line;
        f.source_hash = dup_or_null(pin->source_hash);
        f.notes = json_array();
        f.pin = 1 + (int)pin->offset;
        f.pin_note = dup_or_null(pin->note);
        add_pinned(p, &f);
    }
    qsort(p->pinned, p->npinned, sizeof *p->pinned, patch_function_cmp);
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
