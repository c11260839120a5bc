/* plan.c - see plan.h. The assembler: builds a plan from its pieces
 * (plan_internal.h) - the candidates loaded (load.c), placed and settled
 * (place.c), filtered (only, min_score) and given their sets (assign.c),
 * their helpers added (helpers.c), each file's new content and diff
 * (place.c), then the header (header.c) above the diff. Nothing is written
 * here: the CLI prints the text or hands the new contents to apply.c. */
#include "patch/ltexports.h"
#include "patch/fastmath.h"
#include "patch/plan_internal.h"
#include "patch/threshold.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

void patch_function_free(struct patch_function *f)
{
    free(f->file);
    free(f->rel);
    free(f->name);
    free(f->display_name);
    free(f->source_hash);
    free(f->probe_target);
    free(f->evidence);
    sv_free(&f->dropped_calls);
    free(f->clones_arg);
    free(f->helper_of);
    free(f->switch_tag);
    free(f->switch_of);
    free(f->switch_header);
    sv_free(&f->switch_sources);
    free(f->expansion_spelled);
    free(f->expansion_place);
    sv_free(&f->expansion_symbols);
    sv_free(&f->symbols);
    free(f->pin_note);
    sv_free(&f->copy_pins);
    json_decref(f->notes);
}

/* Keeps only the candidates named in only (patch_plan_build_only). */
static void keep_only(struct patch_plan *p, const struct strvec *only)
{
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        if (!sv_contains(only, f->name)) {
            patch_function_free(f);
            continue;
        }
        p->functions[out++] = *f;
    }
    p->nfunctions = out;
}

/* Drops the candidates patch_below_threshold leaves out, said why. */
static void keep_scored(struct patch_plan *p, int min_score)
{
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        char *why = patch_below_threshold(f, min_score, p->exact);
        if (why) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, why);
            fmv_note("%s:%d: %s not patched: %s", f->rel, f->line, f->display_name, why);
            free(why);
            patch_function_free(f);
            continue;
        }
        p->functions[out++] = *f;
    }
    p->nfunctions = out;
}

/* Edit order: by file, offset; at one offset functions (and pinned ones)
 * before helpers before switch lines, these by tag. */
static int edit_cmp(const void *a, const void *b)
{
    const struct patch_function *x = *(const struct patch_function *const *)a,
                                *y = *(const struct patch_function *const *)b;
    int c = patch_function_cmp(x, y);
    if (c) return c;
    int kx = x->switch_of ? 2 : x->helper_of ? 1 : 0, ky = y->switch_of ? 2 : y->helper_of ? 1 : 0;
    if (kx != ky) return kx - ky;
    return kx == 2 ? strcmp(x->switch_of, y->switch_of) : 0;
}

/* Functions, helpers, pinned functions and switch lines together, by file
 * then offset: what patch_build_file edits. Caller frees the array (not
 * the functions). */
static struct patch_function **edits_in_order(struct patch_plan *p, size_t *n)
{
    *n = p->nfunctions + p->nhelpers + p->npinned + p->nswitches;
    struct patch_function **v = xcalloc(*n ? *n : 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < p->nfunctions; i++) v[k++] = &p->functions[i];
    for (size_t i = 0; i < p->nhelpers; i++) v[k++] = &p->helpers[i];
    for (size_t i = 0; i < p->npinned; i++) v[k++] = &p->pinned[i];
    for (size_t i = 0; i < p->nswitches; i++) v[k++] = &p->switches[i];
    qsort(v, k, sizeof *v, edit_cmp);
    return v;
}

/* The common part of the builders: functions loaded, already patched ones
 * and those not in only (when given) dropped, each function's set given by
 * assigned (by name, and file when it gives one) or else set 0; then the
 * files and the text. */
static int build_plan(struct store *st, const struct strvec *targets, int exact, const struct strvec *only,
                      const struct patch_assignments *assigned, int min_score, enum patch_dispatch dispatch,
                      struct patch_plan *p)
{
    memset(p, 0, sizeof *p);
    p->exact = exact;
    p->dispatch = dispatch;
    if (targets) patch_plan_set(p, targets);
    p->root = store_meta_get(st, "root");
    if (!p->root) return fmv_error("%s: no project root recorded; run 'fmvgen scan' first", store_path(st));
    if (patch_load_functions(st, p->root, p) != 0) return -1;
    char *build_dir = path_dirname(store_path(st));
    patch_libtool_exports(build_dir, &p->lt_exports);
    free(build_dir);
    patch_settle_in_files(p, p->functions, &p->nfunctions, &p->already);
    if (only) keep_only(p, only);
    if (min_score > 0) keep_scored(p, min_score);
    if (assigned) patch_take_pins(p, assigned);
    if (assigned) patch_keep_assigned(p, assigned);
    patch_name_sets(p);
    if (assigned) p->exact = !p->fma;
    if (p->nfunctions == 0) {
        p->text = xstrdup("");
        return 0;
    }
    patch_add_helpers(p);
    patch_add_switches(p);
    if (p->nfunctions == 0) {   /* every function dropped by its switch */
        p->text = xstrdup("");
        return 0;
    }
    size_t n;
    struct patch_function **edits = edits_in_order(p, &n);
    p->files = xcalloc(n, sizeof *p->files);
    struct strbuf diff = STRBUF_INIT;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !strcmp(edits[j]->file, edits[i]->file)) j++;
        struct patch_file *pf = &p->files[p->nfiles++];
        if (patch_build_file(pf, &edits[i], j - i, p, &diff) != 0) {
            sb_free(&diff);
            free(edits);
            return -1;
        }
        for (size_t k = i; k < j; k++)
            if (edits[k]->line <= 0) edits[k]->line = (int)patch_line_of_offset(pf->old, edits[k]->offset);
        i = j;
    }
    free(edits);
    if (patch_reassoc_functions(st, p, &p->reassoc) != 0) {
        sb_free(&diff);
        return -1;
    }
    char *header = patch_render_header(p);
    struct strbuf text = STRBUF_INIT;
    sb_adds(&text, header);
    sb_add(&text, diff.buf ? diff.buf : "", diff.len);
    free(header);
    sb_free(&diff);
    p->text = sb_detach(&text);
    return 0;
}

int patch_plan_build(struct store *st, const struct strvec *targets, int exact, struct patch_plan *p)
{
    return build_plan(st, targets, exact, NULL, NULL, 0, PATCH_DISPATCH_IFUNC, p);
}

int patch_plan_build_scored(struct store *st, const struct strvec *targets, int exact, int min_score,
                            struct patch_plan *p)
{
    return build_plan(st, targets, exact, NULL, NULL, min_score, PATCH_DISPATCH_IFUNC, p);
}

int patch_plan_build_dispatch(struct store *st, const struct strvec *targets, int exact, int min_score,
                              enum patch_dispatch dispatch, struct patch_plan *p)
{
    return build_plan(st, targets, exact, NULL, NULL, min_score, dispatch, p);
}

int patch_plan_build_only(struct store *st, const struct strvec *targets, int exact, const struct strvec *only,
                          struct patch_plan *p)
{
    return build_plan(st, targets, exact, only, NULL, 0, PATCH_DISPATCH_IFUNC, p);
}

int patch_plan_build_assigned(struct store *st, const struct patch_assignments *a, struct patch_plan *p)
{
    return patch_plan_build_assigned_dispatch(st, a, PATCH_DISPATCH_IFUNC, p);
}

int patch_plan_build_assigned_dispatch(struct store *st, const struct patch_assignments *a, enum patch_dispatch dispatch,
                                       struct patch_plan *p)
{
    for (size_t i = 0; i < a->n; i++) {
        if (!a->v[i].targets.n) {
            memset(p, 0, sizeof *p);
            return fmv_error("%s: no targets given for it", a->v[i].name);
        }
    }
    return build_plan(st, NULL, 0, NULL, a, 0, dispatch, p);
}

void patch_plan_free(struct patch_plan *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nfunctions; i++) patch_function_free(&p->functions[i]);
    free(p->functions);
    for (size_t i = 0; i < p->nhelpers; i++) patch_function_free(&p->helpers[i]);
    free(p->helpers);
    for (size_t i = 0; i < p->npinned; i++) patch_function_free(&p->pinned[i]);
    free(p->pinned);
    for (size_t i = 0; i < p->nswitches; i++) patch_function_free(&p->switches[i]);
    free(p->switches);
    for (size_t i = 0; i < p->nfiles; i++) {
        free(p->files[i].path);
        free(p->files[i].rel);
        free(p->files[i].hash);
        free(p->files[i].old);
        free(p->files[i].new_data);
    }
    free(p->files);
    for (size_t s = 0; s < p->nsets; s++) {
        sv_free(&p->sets[s].targets);
        free(p->sets[s].macro);
    }
    free(p->sets);
    free(p->root);
    free(p->text);
    sv_free(&p->targets);
    sv_free(&p->skipped);
    sv_free(&p->reassoc);
    sv_free(&p->ifunc_fallback);
    sv_free(&p->lt_exports);
    sv_free(&p->plain_symbol);
    memset(p, 0, sizeof *p);
}
