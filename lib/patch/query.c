/* query.c - see query.h. */
#include "patch/query.h"
#include "patch/plan.h"
#include "store/store.h"
#include "util/util.h"

#include <sqlite3.h>
#include <stdlib.h>

static int store_error(struct store *st)
{
    return fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
}

struct patch_candidates {
    sqlite3_stmt *q;
};

struct patch_candidates *patch_candidates_open(struct store *st)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT compile_id, name, display_name, file, line, insert_offset, insert_line, "
                           "source_hash, notes, kind, score, evidence, fma_score, end_line, end_col, dropped_calls "
                           "FROM functions WHERE status = 'candidate' "
                           "ORDER BY file, insert_offset, id",
                           -1, &q, NULL) != SQLITE_OK) {
        store_error(st);
        return NULL;
    }
    struct patch_candidates *c = xcalloc(1, sizeof *c);
    c->q = q;
    return c;
}

static const char *text(sqlite3_stmt *q, int i)
{
    return (const char *)sqlite3_column_text(q, i);
}

int patch_candidates_next(struct patch_candidates *c, struct patch_candidate_row *r)
{
    sqlite3_stmt *q = c->q;
    if (sqlite3_step(q) != SQLITE_ROW) return 0;
    r->compile_id = sqlite3_column_int64(q, 0);
    r->name = text(q, 1);
    r->display_name = text(q, 2);
    r->file = text(q, 3);
    r->line = sqlite3_column_int(q, 4);
    r->located = sqlite3_column_type(q, 5) != SQLITE_NULL && sqlite3_column_int64(q, 5) >= 0;
    r->insert_offset = sqlite3_column_int64(q, 5);
    r->insert_line = sqlite3_column_int(q, 6);
    r->source_hash = text(q, 7);
    r->notes = text(q, 8);
    r->kind = text(q, 9);
    r->score = sqlite3_column_int(q, 10);
    r->evidence = text(q, 11);
    r->fma_score = sqlite3_column_int(q, 12);
    r->end_line = sqlite3_column_int(q, 13);
    r->end_col = sqlite3_column_int(q, 14);
    r->dropped_calls = text(q, 15);
    return 1;
}

void patch_candidates_close(struct patch_candidates *c)
{
    if (!c) return;
    sqlite3_finalize(c->q);
    free(c);
}

void patch_query_loop_counts(struct store *st, int64_t compile_id, const char *function, patch_loop_count_fn *each,
                             void *ctx)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT variant, COUNT(*), MAX(COALESCE(vector_bytes, 0)) FROM loops "
                           "WHERE compile_id = ? AND function = ? GROUP BY variant ORDER BY variant",
                           -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, compile_id);
    sqlite3_bind_text(q, 2, function, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(q) == SQLITE_ROW) each(ctx, text(q, 0), sqlite3_column_int(q, 1), sqlite3_column_int(q, 2));
    sqlite3_finalize(q);
}

int patch_query_candidate_compilers(struct store *st, patch_compiler_fn *each, void *ctx)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT DISTINCT c.compiler, c.compiler_kind, c.compiler_version FROM compiles c "
                           "JOIN functions f ON f.compile_id = c.id WHERE f.status = 'candidate' ORDER BY 1",
                           -1, &q, NULL) != SQLITE_OK)
        return store_error(st);
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) rc = each(ctx, text(q, 0), text(q, 1), text(q, 2));
    sqlite3_finalize(q);
    return rc;
}

int patch_query_functions_compiled_with(struct store *st, const struct patch_plan *p, const unsigned char *want,
                                        patch_argv_match_fn *match, struct strvec *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT c.argv FROM functions f JOIN compiles c ON c.id = f.compile_id "
                           "WHERE f.status = 'candidate' AND f.name = ? AND f.file = ?",
                           -1, &q, NULL) != SQLITE_OK)
        return store_error(st);
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct patch_function *f = &p->functions[i];
        if (want && !want[i]) continue;
        sqlite3_reset(q);
        sqlite3_bind_text(q, 1, f->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(q, 2, f->file, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(q) == SQLITE_ROW) {
            if (match(text(q, 0))) {
                sv_pushf(out, "%s:%d %s", f->rel, f->line, f->display_name);
                break;
            }
        }
    }
    sqlite3_finalize(q);
    return 0;
}
