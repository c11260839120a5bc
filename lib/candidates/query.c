/* query.c - see query.h. */
#include "candidates/query.h"
#include "candidates/analyze_internal.h"
#include "candidates/isa.h"
#include "store/dropped.h"
#include "store/reasons.h"
#include "store/store.h"
#include "util/util.h"

#include <sqlite3.h>
#include <stdlib.h>

static int store_error(struct store *st)
{
    return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
}

int candidates_query_loop_functions(struct store *st, int64_t compile_id, candidates_loop_fn *each, void *ctx)
{
    static const char *const SQL =
        "SELECT function, MIN(file), MIN(line), MIN(id) AS first, MAX(variant='build') FROM loops"
        " WHERE compile_id=?1 AND variant<>'probe:O3' AND function IS NOT NULL GROUP BY function"
        " UNION ALL"
        " SELECT NULL, file, line, MIN(id), 1 FROM loops"
        " WHERE compile_id=?1 AND variant<>'probe:O3' AND function IS NULL GROUP BY file, line"
        " ORDER BY first";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st), SQL, -1, &q, NULL) != SQLITE_OK) return store_error(st);
    sqlite3_bind_int64(q, 1, compile_id);
    while (sqlite3_step(q) == SQLITE_ROW)
        each(ctx, (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1),
             sqlite3_column_int(q, 2), sqlite3_column_int(q, 4));
    sqlite3_finalize(q);
    return 0;
}

int candidates_query_loop_positions(struct store *st, int64_t compile_id, const char *const *functions, size_t n,
                                    candidates_position_fn *each, void *ctx)
{
    static const char *const SQL =
        "SELECT DISTINCT file, line FROM loops"
        " WHERE compile_id=?1 AND variant<>'probe:O3' AND function=?2 AND file IS NOT NULL ORDER BY file, line";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st), SQL, -1, &q, NULL) != SQLITE_OK) return store_error(st);
    for (size_t i = 0; i < n; i++) {
        if (!functions[i]) continue;
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, compile_id);
        sqlite3_bind_text(q, 2, functions[i], -1, SQLITE_TRANSIENT);
        while (sqlite3_step(q) == SQLITE_ROW)
            each(ctx, i, (const char *)sqlite3_column_text(q, 0), sqlite3_column_int(q, 1));
    }
    sqlite3_finalize(q);
    return 0;
}

char *candidates_query_profile_variant(struct store *st, int64_t compile_id)
{
    sqlite3_stmt *q;
    char *v = NULL;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT DISTINCT variant FROM function_profiles WHERE compile_id=? AND variant LIKE "
                           "'probe:%' ORDER BY variant LIMIT 1",
                           -1, &q, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int64(q, 1, compile_id);
    if (sqlite3_step(q) == SQLITE_ROW) v = xstrdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    return v;
}

int candidates_query_store_rows(struct store *st, int64_t compile_id, const struct row_list *rows)
{
    sqlite3 *db = store_db(st);
    if (store_begin(st) != 0) return -1;
    sqlite3_stmt *del = NULL, *ins = NULL;
    int ok = sqlite3_prepare_v2(db, "DELETE FROM functions WHERE compile_id=?", -1, &del, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db,
                                "INSERT INTO functions(compile_id,name,display_name,file,line,col,end_line,end_col,"
                                "insert_offset,insert_line,status,reason,detail,notes,source_hash,kind,score,evidence,"
                                "fma_score,dropped_calls) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                -1, &ins, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(del, 1, compile_id);
        ok = sqlite3_step(del) == SQLITE_DONE;
    }
    for (size_t i = 0; ok && i < rows->n; i++) {
        const struct fn_row *r = &rows->v[i];
        sqlite3_reset(ins);
        sqlite3_clear_bindings(ins);
        sqlite3_bind_int64(ins, 1, compile_id);
        sqlite3_bind_text(ins, 2, r->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 3, r->display_name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 4, r->file, -1, SQLITE_TRANSIENT);
        if (r->line) sqlite3_bind_int(ins, 5, (int)r->line);
        if (r->located) {
            sqlite3_bind_int(ins, 6, (int)r->col);
            sqlite3_bind_int(ins, 7, (int)r->end_line);
            sqlite3_bind_int(ins, 8, (int)r->end_col);
            sqlite3_bind_int64(ins, 9, r->insert_offset);
            sqlite3_bind_int(ins, 10, (int)r->insert_line);
        } else if (r->end_line) {
            sqlite3_bind_int(ins, 7, (int)r->end_line);
        }
        sqlite3_bind_text(ins, 11, r->reason ? "excluded" : "candidate", -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 12, reason_name(r->reason), -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 13, r->detail, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 14, r->notes ? r->notes : "[]", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 15, r->source_hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 16, candidate_kind_name(r->kind ? r->kind : KIND_VECTORIZED), -1, SQLITE_STATIC);
        sqlite3_bind_int(ins, 17, r->score);
        sqlite3_bind_text(ins, 18, r->evidence, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(ins, 19, r->fma_score);
        char *dropped = dropped_calls_encode(&r->dropped);
        sqlite3_bind_text(ins, 20, dropped, -1, SQLITE_TRANSIENT);
        free(dropped);
        ok = sqlite3_step(ins) == SQLITE_DONE;
    }
    if (!ok) fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(db));
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    /* the functions' "visibility" notes are there: one missing means default */
    if (ok && store_meta_set(st, "visibility_notes", "1") != 0) ok = 0;
    if (!ok) {
        store_rollback(st);
        return -1;
    }
    return store_commit(st);
}

int candidates_query_drop_failed(struct store *st)
{
    char *err = NULL;
    if (sqlite3_exec(store_db(st),
                     "DELETE FROM functions WHERE compile_id NOT IN (SELECT id FROM compiles WHERE exit_status=0)",
                     NULL, NULL, &err) != SQLITE_OK) {
        fmv_error("%s/store.sqlite: %s", store_path(st), err ? err : "SQL error");
        sqlite3_free(err);
        return -1;
    }
    return 0;
}
