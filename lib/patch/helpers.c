/* helpers.c - see plan.h (patch_function_helpers) and plan_internal.h
 * (patch_add_helpers): the functions' inlined helpers
 * (candidates/helpers.h), read from their "inlined-helper" notes. */
#include "patch/plan_internal.h"
#include "store/notes.h"

#include <stdlib.h>
#include <string.h>

static int same_place(const struct patch_function *a, const char *file, size_t offset)
{
    return a->offset == offset && !strcmp(a->file, file);
}

/* One helper from a function's "inlined-helper" note: its file is the
 * function's (helpers.h), so is the scanned hash. NULL when the note is
 * not complete. */
static struct patch_function helper_from_note(const struct patch_function *f, json_t *h, int *ok)
{
    struct patch_function x;
    memset(&x, 0, sizeof x);
    json_t *off = json_object_get(h, "insert_offset");
    const char *name = json_string_value(json_object_get(h, "name"));
    *ok = name && json_is_integer(off) && json_integer_value(off) >= 0;
    if (!*ok) return x;
    const char *display = json_string_value(json_object_get(h, "display_name"));
    x.file = xstrdup(f->file);
    x.rel = xstrdup(f->rel);
    x.name = xstrdup(name);
    x.display_name = xstrdup(display ? display : name);
    x.offset = x.start = (size_t)json_integer_value(off);
    x.insert_line = (int)json_integer_value(json_object_get(h, "insert_line"));
    x.line = (int)json_integer_value(json_object_get(h, "line"));
    if (x.line <= 0) x.line = x.insert_line;
    x.source_hash = f->source_hash ? xstrdup(f->source_hash) : NULL;
    x.notes = json_array();
    x.set = f->set;
    x.linkage = PATCH_LINKAGE_STATIC;
    x.helper_of = xstrdup(f->display_name);
    x.declared_inline = json_is_true(json_object_get(h, "declared_inline"));
    return x;
}

/* The "inlined-helper" notes of f, each with its "helper" object (NULL
 * when the notes end): for (i = 0; (h = next_helper(f, &i));). */
static json_t *next_helper(const struct patch_function *f, size_t *i)
{
    /* A header function's helpers would get FMVGEN_CLONES_INLINE in every
     * TU that includes their file, switch or not: left as they are. */
    if (f->switch_tag) return NULL;
    for (; *i < json_array_size(f->notes); (*i)++) {
        json_t *note = json_array_get(f->notes, *i);
        json_t *h = json_object_get(note, "helper");
        if (note_kind_of(note) == NOTE_INLINED_HELPER && json_is_object(h)) {
            (*i)++;
            return h;
        }
    }
    return NULL;
}

void patch_function_helpers(const struct patch_function *f, struct strvec *names)
{
    json_t *h;
    for (size_t i = 0; (h = next_helper(f, &i));) {
        const char *name = json_string_value(json_object_get(h, "name"));
        if (name && !sv_contains(names, name)) sv_push(names, name);
    }
}

/* p->helpers: the helpers of the plan's functions, each once; one that is
 * a candidate of its own (compiled out of line by another TU) is patched as
 * that, and one already patched is left alone like a function. */
void patch_add_helpers(struct patch_plan *p)
{
    size_t cap = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct patch_function *f = &p->functions[i];
        json_t *h;
        for (size_t j = 0; (h = next_helper(f, &j));) {
            int ok;
            struct patch_function x = helper_from_note(f, h, &ok);
            if (!ok) continue;
            int known = 0;
            for (size_t k = 0; k < p->nfunctions && !known; k++) known = same_place(&p->functions[k], x.file, x.offset);
            for (size_t k = 0; k < p->nhelpers && !known; k++) known = same_place(&p->helpers[k], x.file, x.offset);
            if (known) {
                patch_function_free(&x);
                continue;
            }
            if (p->nhelpers == cap) p->helpers = xrealloc(p->helpers, (cap = cap ? 2 * cap : 8) * sizeof *p->helpers);
            p->helpers[p->nhelpers++] = x;
        }
    }
    /* a helper already patched is no function of the plan: not counted */
    patch_settle_in_files(p, p->helpers, &p->nhelpers, NULL);
    if (p->nhelpers) qsort(p->helpers, p->nhelpers, sizeof *p->helpers, patch_function_cmp);
}
