/* analyze_wanted.c - see analyze_internal.h: the functions of a compile to
 * analyze, from its loop records and its ISA comparison (isa.h). */
#include "candidates/analyze_internal.h"
#include "candidates/isa.h"
#include "candidates/query.h"
#include "capture/wrapper.h"
#include "elf/elffile.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static void wanted_push(struct wanted_list *w, const char *function, const char *file, int line)
{
    if (w->n == w->cap) w->v = xrealloc(w->v, (w->cap = w->cap ? w->cap * 2 : 16) * sizeof *w->v);
    w->v[w->n].function = function ? xstrdup(function) : NULL;
    w->v[w->n].file = file ? xstrdup(file) : NULL;
    w->v[w->n].line = line;
    w->v[w->n].positions = NULL;
    w->v[w->n].npositions = 0;
    w->v[w->n].files = (struct strvec)STRVEC_INIT;
    w->v[w->n].kind = KIND_VECTORIZED;
    w->v[w->n].score = w->v[w->n].fma_score = 0;
    w->v[w->n].evidence = NULL;
    w->v[w->n].dropped = (struct strvec)STRVEC_INIT;
    w->n++;
}

static void wanted_add_position(struct wanted *w, const char *file, int line)
{
    if (!file) return;
    sv_push(&w->files, file);
    w->positions = xrealloc(w->positions, (w->npositions + 1) * sizeof *w->positions);
    w->positions[w->npositions++] = (struct loop_position){NULL, line};
}

/* The positions' file pointers, once no more strings are pushed. */
static void wanted_settle_positions(struct wanted *w)
{
    for (size_t i = 0; i < w->npositions; i++) w->positions[i].file = w->files.v[i];
}

void wanted_free(struct wanted_list *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->v[i].function);
        free(w->v[i].file);
        free(w->v[i].positions);
        sv_free(&w->v[i].files);
        free(w->v[i].evidence);
        sv_free(&w->v[i].dropped);
    }
    free(w->v);
    sv_free(&w->object_functions);
    sv_free(&w->isa_notes);
    for (size_t i = 0; i < w->ninl; i++) {
        free(w->inl[i].name);
        free(w->inl[i].host);
        free(w->inl[i].evidence);
        sv_free(&w->inl[i].dropped);
    }
    free(w->inl);
    memset(w, 0, sizeof *w);
}

/* The ISA comparison of the compile (isa.h): its evidence on the loop
 * functions, and a wanted function of kind isa for each other one. */
static void add_isa_functions(struct store *st, const struct compile_row *c, struct wanted_list *out)
{
    struct isa_result r;
    isa_compare_compile(st, c, &r);
    size_t nloops = out->n;
    for (size_t i = 0; i < r.n; i++) {
        struct wanted *w = NULL;
        for (size_t k = 0; k < nloops && !w; k++)
            if (out->v[k].function && !strcmp(out->v[k].function, r.v[i].name)) w = &out->v[k];
        if (!w) {
            wanted_push(out, r.v[i].name, NULL, 0);
            w = &out->v[out->n - 1];
            w->kind = KIND_ISA;
        }
        w->score = r.v[i].score;
        w->fma_score = r.v[i].fma_score;
        w->evidence = xstrdup(r.v[i].evidence);
        sv_free(&w->dropped);
        sv_push_all(&w->dropped, r.v[i].dropped.v);
    }
    for (size_t i = 0; i < r.notes.n; i++) sv_push(&out->isa_notes, r.notes.v[i]);
    out->inl = r.inl;
    out->ninl = r.ninl;
    r.inl = NULL;
    r.ninl = 0;
    isa_result_free(&r);
}

static void push_loop_function(void *ctx, const char *function, const char *file, int line, int in_build)
{
    struct wanted_list *out = ctx;
    wanted_push(out, function, file, line);
    if (!in_build) out->v[out->n - 1].kind = KIND_TARGET_VECTORIZED;
}

static void add_loop_position(void *ctx, size_t i, const char *file, int line)
{
    struct wanted_list *out = ctx;
    wanted_add_position(&out->v[i], file, line);
}

/* The build's loops and the target probes' - not the -O3 comparison
 * (probe:O3) of a TU built at -O2: a loop that vectorizes only at -O3 is
 * not vectorized by any clone either (target_clones keeps the build's -O2),
 * so it makes no candidate; list reports it as the TU's o2-cheap-model note. */
int wanted_load(struct store *st, const struct compile_row *c, struct wanted_list *out)
{
    int64_t compile_id = c->id;
    if (candidates_query_loop_functions(st, compile_id, push_loop_function, out) != 0) return -1;
    add_isa_functions(st, c, out);
    /* Each function's loop positions: those in other definitions lead to
     * the helpers it inlined (helpers.h). */
    const char **functions = xcalloc(out->n ? out->n : 1, sizeof *functions);
    for (size_t i = 0; i < out->n; i++) functions[i] = out->v[i].function;
    int rc = candidates_query_loop_positions(st, compile_id, functions, out->n, add_loop_position, out);
    free(functions);
    if (rc != 0) return -1;
    for (size_t i = 0; i < out->n; i++)
        if (out->v[i].function) wanted_settle_positions(&out->v[i]);
    if (out->n) {
        out->object_known = store_object_functions(st, compile_id, &out->object_functions);
        if (!out->object_known && c->output) {
            char *object = path_absolute(c->output, c->directory);
            out->object_known = elf_object_functions(object, &out->object_functions) == 0;
            /* The build deleted it: the copy the wrapper kept (capture/wrapper.h). */
            char *kept = out->object_known ? NULL : wrapper_kept_object(store_path(st), c->source, object);
            if (kept) out->object_known = elf_object_functions(kept, &out->object_functions) == 0;
            free(kept);
            free(object);
        }
    }
    return 0;
}
