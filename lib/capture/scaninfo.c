/* scaninfo.c - see scaninfo.h. The notes come from compiler.c's reading of
 * each compile's flags; only the -O2/-O3 comparison needs the loops the
 * probes found, so it is counted here with SQL over the loops table. */
#include "capture/scaninfo.h"
#include "capture/compiler.h"
#include "store/notes.h"
#include "store/store.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static int count_query(struct store *st, const char *sql, int64_t id, int *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    if (strchr(sql, '?')) sqlite3_bind_int64(q, 1, id);
    int rc = sqlite3_step(q);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(q, 0) : 0;
    sqlite3_finalize(q);
    if (rc != SQLITE_ROW) return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    return 0;
}

static int exec_bound(struct store *st, const char *sql, int64_t id, const char *text)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    int k = 1;
    if (id >= 0) sqlite3_bind_int64(q, k++, id);
    if (text) sqlite3_bind_text(q, k, text, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    return 0;
}

int scaninfo_clear_tu_notes(struct store *st, const char *kind)
{
    return exec_bound(st, "DELETE FROM tu_notes WHERE kind=?", -1, kind);
}

/* Distinct vectorized places of one compile in one variant (counted as
 * `fmvgen list` counts them). */
#define LOOPS_OF(variant)                                                                                    \
    "SELECT count(*) FROM (SELECT DISTINCT file, line, col, kind FROM loops WHERE compile_id=? AND "       \
    "variant='" variant "')"

/* The o2-cheap-model note of a GCC compile at -O2, when its -O3 probe was
 * read and vectorized more loops. */
static int o2_note(struct store *st, const struct compile_row *c, struct strvec *notes)
{
    if (!c->compiler_kind || strcmp(c->compiler_kind, "gcc") != 0) return 0;
    struct compile_args args;
    compile_args_parse(c->argv, &args);
    char level = args.opt_level;
    compile_args_free(&args);
    if (level != '2') return 0;
    int probed = 0, at_o2 = 0, at_o3 = 0;
    if (count_query(st, "SELECT count(*) FROM record_files WHERE compile_id=? AND variant='probe:O3' AND status='read'",
                    c->id, &probed) != 0 ||
        count_query(st, LOOPS_OF("build"), c->id, &at_o2) != 0 || count_query(st, LOOPS_OF("probe:O3"), c->id, &at_o3) != 0)
        return -1;
    if (!probed || at_o3 <= at_o2) return 0;
    int major = c->compiler_version ? atoi(c->compiler_version) : 0;
    const char *why = major >= 12 ? "GCC's very-cheap cost model at -O2 vectorizes only loops that need no "
                                    "runtime checks or epilogues"
                                  : "GCC before 12 does not vectorize at -O2";
    sv_pushf(notes, "%s\t%d more loop%s vectorize%s at -O3 than at -O2 (%d vs %d): %s",
             tu_note_kind_name(TU_NOTE_O2_CHEAP_MODEL), at_o3 - at_o2, at_o3 - at_o2 == 1 ? "" : "s",
             at_o3 - at_o2 == 1 ? "s" : "", at_o3, at_o2, why);
    return 0;
}

int scaninfo_write_tu_notes(struct store *st)
{
    size_t n;
    struct compile_row *rows = store_list_compiles(st, &n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct strvec notes = STRVEC_INIT;
        compile_args_vectorization_notes(rows[i].argv, &notes);
        rc = o2_note(st, &rows[i], &notes);
        if (rc == 0 && store_begin(st) == 0) {
            static const enum tu_note_kind REPLACED[] = {TU_NOTE_NO_VECTORIZE_FLAG, TU_NOTE_LOW_OPT,
                                                         TU_NOTE_O2_CHEAP_MODEL};
            for (size_t k = 0; rc == 0 && k < sizeof REPLACED / sizeof *REPLACED; k++)
                rc = exec_bound(st, "DELETE FROM tu_notes WHERE compile_id=? AND kind=?", rows[i].id,
                                tu_note_kind_name(REPLACED[k]));
            for (size_t k = 0; rc == 0 && k < notes.n; k++) {
                char *tab = strchr(notes.v[k], '\t');
                if (!tab) continue;
                *tab = 0;
                rc = store_add_tu_note(st, rows[i].id, tu_note_kind_parse(notes.v[k]), tab + 1);
            }
            if (rc == 0) rc = store_commit(st);
            else store_rollback(st);
        } else if (rc == 0) {
            rc = -1;
        }
        sv_free(&notes);
    }
    compile_rows_free(rows, n);
    return rc;
}

int scaninfo_summarize(struct store *st, struct scan_summary *out)
{
    struct strvec *corrupt = out->corrupt, *no_records = out->no_records_sources;
    memset(out, 0, sizeof *out);
    out->corrupt = corrupt;
    out->no_records_sources = no_records;
    struct {
        const char *sql;
        int *dst;
    } counts[] = {
        {"SELECT count(*) FROM compiles", &out->compiles},
        {"SELECT count(*) FROM compiles WHERE exit_status<>0", &out->failed_compiles},
        {"SELECT count(*) FROM record_files WHERE status='read'", &out->record_files},
        {"SELECT count(*) FROM record_files WHERE status='corrupt'", &out->corrupt_files},
        {"SELECT count(*) FROM record_files WHERE status='pending'", &out->pending_files},
        {"SELECT count(*) FROM loops WHERE variant='build'", &out->build_loops},
        {"SELECT count(*) FROM (SELECT DISTINCT compile_id, function, file, line, kind FROM loops p "
         "WHERE variant LIKE 'probe:%' AND variant<>'probe:O3' AND NOT EXISTS (SELECT 1 FROM loops b "
         "WHERE b.compile_id=p.compile_id AND b.variant='build' AND b.function IS p.function "
         "AND b.file IS p.file AND b.line IS p.line AND b.kind=p.kind))",
         &out->probe_only_loops},
        /* per definition: a source compiled twice (static + PIC) is one function */
        {"SELECT count(*) FROM (SELECT DISTINCT file, line, name FROM functions WHERE status='candidate')",
         &out->candidates},
        {"SELECT count(*) FROM (SELECT DISTINCT file, line, name FROM functions WHERE status='excluded')",
         &out->exclusions},
        {"SELECT count(*) FROM tu_notes WHERE kind<>'probe-skipped'", &out->tu_notes},
        {"SELECT count(*) FROM tu_notes WHERE kind='probe-skipped'", &out->probe_skipped},
        {"SELECT count(*) FROM tu_notes WHERE kind='no-records'", &out->no_records},
    };
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (count_query(st, counts[i].sql, -1, counts[i].dst) != 0) return -1;
    if (corrupt) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(store_db(st), "SELECT path FROM record_files WHERE status='corrupt' ORDER BY path", -1,
                               &q, NULL) != SQLITE_OK)
            return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
        while (sqlite3_step(q) == SQLITE_ROW)
            if (sqlite3_column_text(q, 0)) sv_push(corrupt, (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    if (no_records) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(store_db(st),
                               "SELECT DISTINCT c.source FROM tu_notes n JOIN compiles c ON c.id=n.compile_id "
                               "WHERE n.kind='no-records' ORDER BY c.source",
                               -1, &q, NULL) != SQLITE_OK)
            return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
        while (sqlite3_step(q) == SQLITE_ROW)
            if (sqlite3_column_text(q, 0)) sv_push(no_records, (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    return 0;
}
