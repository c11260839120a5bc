/* codecost.c - see codecost.h. */
#include "select/codecost.h"

#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "select/attribution.h"

/* Measures dir into c; the per-function sizes are kept in cs for the
 * caller (freed by it). 0 when dir was measured. */
static int measure(struct select_report *r, const char *what, const char *dir, struct select_code *c,
                   struct code_size *cs)
{
    memset(cs, 0, sizeof *cs);
    if (!dir) return -1;
    if (code_size_of_dir(dir, cs) != 0)
        sv_pushf(&r->notes, "%zu linked file%s of the %s build could not be read: its code size leaves %s out",
                 cs->n_unreadable, cs->n_unreadable == 1 ? "" : "s", what, cs->n_unreadable == 1 ? "it" : "them");
    c->measured = 1;
    c->n_files = cs->n_files;
    c->code_bytes = cs->code_bytes;
    c->clone_bytes = cs->clone_bytes;
    c->resolver_bytes = cs->resolver_bytes;
    c->code_crc = cs->code_crc;
    return 0;
}

/* Bytes the clones of function name add in cs (summed over its multiversioned
 * functions whose base name is name), -1 when it has none there. */
static int64_t added_bytes(const struct code_size *cs, const char *name)
{
    int64_t total = -1;
    for (size_t i = 0; i < cs->n_functions; i++) {
        char *base = attribution_base_name(cs->functions[i].name);
        if (!strcmp(base, name)) total = (total < 0 ? 0 : total) + (int64_t)code_size_added(&cs->functions[i]);
        free(base);
    }
    return total;
}

static void fill_functions(struct select_report *r, size_t index, const struct code_size *cs)
{
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (!fn->bytes_added) {
            fn->bytes_added = xcalloc(r->n_variants + 1, sizeof *fn->bytes_added);
            for (size_t v = 0; v <= r->n_variants; v++) fn->bytes_added[v] = -1;
        }
        fn->bytes_added[index] = added_bytes(cs, fn->name);
    }
}

void select_measure_code(struct select_report *r, const struct select_build_dirs *dirs)
{
    struct code_size cs;
    for (size_t v = 0; v < r->n_variants; v++) {
        if (measure(r, r->variants[v].name, dirs->variants ? dirs->variants[v] : NULL, &r->variants[v].code, &cs) == 0)
            fill_functions(r, v, &cs);
        code_size_free(&cs);
    }
    if (measure(r, "selected", dirs->selected, &r->selected_code, &cs) == 0) fill_functions(r, r->n_variants, &cs);
    code_size_free(&cs);

    struct select_march *refs[2] = {&r->march, &r->march_nofma};
    const char *ref_dirs[2] = {dirs->march, dirs->march_nofma};
    for (int i = 0; i < 2; i++) {
        struct select_march *m = refs[i];
        if (measure(r, m->title ? m->title : "reference", ref_dirs[i], &m->code, &cs) == 0 && !m->failure) {
            const struct select_code *base = r->n_variants ? &r->variants[0].code : NULL;
            if (!m->code.n_files)
                m->failure = xstrdup("it produced no linked x86-64 program or library");
            else if (base && base->measured && base->n_files == m->code.n_files &&
                     base->code_crc == m->code.code_crc && base->code_bytes == m->code.code_bytes)
                m->failure = xasprintf("its code is identical to the baseline's: %s reached no compile that made "
                                       "the linked files", m->flags ? m->flags : "its flags");
        }
        code_size_free(&cs);
    }
}
