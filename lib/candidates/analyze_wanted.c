/* analyze_wanted.c - see analyze_internal.h: the functions of a compile to
 * analyze, from its loop records and its ISA comparison (isa.h). */
#include "candidates/analyze_internal.h"
#include "candidates/isa.h"
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
    }
    free(w->v);
    sv_free(&w->object_functions);
    sv_free(&w->isa_notes);
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
    }
    for (size_t i = 0; i < r.notes.n; i++) sv_push(&out->isa_notes, r.notes.v[i]);
    isa_result_free(&r);
}

/* The build's loops and the target probes' - not the -O3 comparison
 * (probe:O3) of a TU built at -O2: a loop that vectorizes only at -O3 is
 * not vectorized by any clone either (target_clones keeps the build's -O2),
 * so it makes no candidate; list reports it as the TU's o2-cheap-model note. */
int wanted_load(struct store *st, const struct compile_row *c, struct wanted_list *out)
{
    int64_t compile_id = c->id;
    static const char *const SQL =
        "SELECT function, MIN(file), MIN(line), MIN(id) AS first, MAX(variant='build') FROM loops"
        " WHERE compile_id=?1 AND variant<>'probe:O3' AND function IS NOT NULL GROUP BY function"
        " UNION ALL"
        " SELECT NULL, file, line, MIN(id), 1 FROM loops"
        " WHERE compile_id=?1 AND variant<>'probe:O3' AND function IS NULL GROUP BY file, line"
        " ORDER BY first";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st), SQL, -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    sqlite3_bind_int64(q, 1, compile_id);
    while (sqlite3_step(q) == SQLITE_ROW) {
        wanted_push(out, (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1),
                    sqlite3_column_int(q, 2));
        if (!sqlite3_column_int(q, 4)) out->v[out->n - 1].kind = KIND_TARGET_VECTORIZED;
    }
    sqlite3_finalize(q);
    add_isa_functions(st, c, out);
    /* Each function's loop positions: those in other definitions lead to
     * the helpers it inlined (helpers.h). */
    static const char *const POSITIONS =
        "SELECT DISTINCT file, line FROM loops"
        " WHERE compile_id=?1 AND variant<>'probe:O3' AND function=?2 AND file IS NOT NULL ORDER BY file, line";
    if (sqlite3_prepare_v2(store_db(st), POSITIONS, -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    for (size_t i = 0; i < out->n; i++) {
        struct wanted *w = &out->v[i];
        if (!w->function) continue;
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, compile_id);
        sqlite3_bind_text(q, 2, w->function, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(q) == SQLITE_ROW)
            wanted_add_position(w, (const char *)sqlite3_column_text(q, 0), sqlite3_column_int(q, 1));
        wanted_settle_positions(w);
    }
    sqlite3_finalize(q);
    if (out->n) {
        out->object_known = store_object_functions(st, compile_id, &out->object_functions);
        if (!out->object_known && c->output) {
            char *object = path_absolute(c->output, c->directory);
            out->object_known = elf_object_functions(object, &out->object_functions) == 0;
            free(object);
        }
    }
    return 0;
}
