/* dispatch.c - see dispatch.h. */
#include "select/dispatch.h"

#include <string.h>

#include "util/util.h"

/* f is reached as p's dispatch says (not by an IFUNC fallback). */
static int reached_by_dispatch(const struct patch_plan *p, const struct patch_function *f)
{
    return p->dispatch == PATCH_DISPATCH_IFUNC || f->pointer;
}

void select_dispatch_record(struct select_report *r, const struct patch_plan *p)
{
    r->dispatch = patch_dispatch_name(p->dispatch);
    for (size_t i = 0; i < p->ifunc_fallback.n; i++)
        if (!sv_contains(&r->ifunc_fallback, p->ifunc_fallback.v[i])) sv_push(&r->ifunc_fallback, p->ifunc_fallback.v[i]);
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct patch_function *pf = &p->functions[i];
        if (pf->helper_of || reached_by_dispatch(p, pf)) continue;
        for (size_t f = 0; f < r->n_functions; f++)
            if (!strcmp(r->functions[f].name, pf->name) && !strcmp(r->functions[f].file, pf->rel))
                r->functions[f].ifunc_fallback = 1;
    }
}

json_t *select_dispatch_json(const struct select_report *r)
{
    if (!r->dispatch) return json_null();
    json_t *o = json_object(), *fb = json_array();
    json_object_set_new(o, "mode", json_string(r->dispatch));
    for (size_t i = 0; i < r->ifunc_fallback.n; i++) json_array_append_new(fb, json_string(r->ifunc_fallback.v[i]));
    json_object_set_new(o, "ifunc_fallback", fb);
    return o;
}

char *select_dispatch_sentence(const struct select_report *r)
{
    if (!r->dispatch) return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "dispatch: %s (every build measured and selected.patch)", r->dispatch);
    if (r->ifunc_fallback.n) {
        sb_addf(&sb, "; dispatched by IFUNC instead (%zu): ", r->ifunc_fallback.n);
        for (size_t i = 0; i < r->ifunc_fallback.n; i++)
            sb_addf(&sb, "%s%s", i ? "; " : "", r->ifunc_fallback.v[i]);
    }
    return sb_detach(&sb);
}
