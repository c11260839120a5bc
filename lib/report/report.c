/* report.c - see report.h. Reads only; every number is derived from the
 * stored rows, so `list` never disagrees with what scan collected. */
#include "report/report.h"
#include "store/dropped.h"
#include "store/kinds.h"
#include "store/store.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static char *col_text(sqlite3_stmt *q, int i)
{
    const unsigned char *s = sqlite3_column_text(q, i);
    return s ? xstrdup((const char *)s) : NULL;
}

/* Paths are shown relative to the project root, as in the patch. */
static char *display_path(const char *root, const char *path)
{
    if (!path) return xstrdup("?");
    char *rel = root ? path_relative_to(path, root) : NULL;
    return rel ? rel : xstrdup(path);
}

static sqlite3_stmt *prepare(struct store *st, const char *sql)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) != SQLITE_OK) {
        fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
        return NULL;
    }
    return q;
}

static int count_query(struct store *st, const char *sql)
{
    sqlite3_stmt *q = prepare(st, sql);
    int n = 0;
    if (q && sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    return n;
}

static json_t *notes_from_text(const char *text)
{
    json_error_t e;
    json_t *j = text ? json_loads(text, 0, &e) : NULL;
    if (!json_is_array(j)) {
        json_decref(j);
        j = json_array();
    }
    return j;
}

/* The loops of one function in one compile, matched across the build and
 * the probe by their source position, merged into f->loops (a position
 * already there from another compile of the same source keeps the widest
 * width of each variant). A record without a function (from a plain log)
 * is matched by the lines of the definition. */
static int load_loops(struct store *st, const struct report *r, struct report_function *f, int64_t compile_id,
                      int end_line)
{
    sqlite3_stmt *q = prepare(st,
        "SELECT file, line, col, kind,"
        "  MAX(CASE WHEN variant='build' THEN vector_bytes END),"
        "  MAX(CASE WHEN variant=?2 THEN vector_bytes END),"
        "  SUM(variant='build'), SUM(variant=?2),"
        "  MAX(CASE WHEN variant='build' THEN vector_lanes END),"
        "  MAX(CASE WHEN variant=?2 THEN vector_lanes END)"
        " FROM loops WHERE compile_id=?1"
        "  AND (function=?3 OR (function IS NULL AND line BETWEEN ?4 AND ?5))"
        "  AND (variant='build' OR variant=?2)"
        " GROUP BY file, line, col, kind ORDER BY file, line, col");
    if (!q) return -1;
    sqlite3_bind_int64(q, 1, compile_id);
    sqlite3_bind_text(q, 2, r->probe_variant ? r->probe_variant : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 3, f->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(q, 4, f->line);
    sqlite3_bind_int(q, 5, end_line);
    while (sqlite3_step(q) == SQLITE_ROW) {
        struct report_loop l;
        const char *file = (const char *)sqlite3_column_text(q, 0);
        l.file = file ? display_path(r->root, file) : xstrdup("(no location)");
        l.line = sqlite3_column_int(q, 1);
        l.column = sqlite3_column_int(q, 2);
        l.kind = col_text(q, 3);
        l.build_bytes = sqlite3_column_int(q, 6) ? sqlite3_column_int(q, 4) : -1;
        l.target_bytes = sqlite3_column_int(q, 7) ? sqlite3_column_int(q, 5) : -1;
        l.build_lanes = sqlite3_column_int(q, 6) ? sqlite3_column_int(q, 8) : -1;
        l.target_lanes = sqlite3_column_int(q, 7) ? sqlite3_column_int(q, 9) : -1;
        struct report_loop *same = NULL;
        for (size_t i = 0; i < f->nloops && !same; i++)
            if (f->loops[i].line == l.line && f->loops[i].column == l.column && !strcmp(f->loops[i].file, l.file) &&
                !strcmp(f->loops[i].kind, l.kind ? l.kind : ""))
                same = &f->loops[i];
        if (same) {
#define WIDEST(field) if (l.field > same->field) same->field = l.field
            WIDEST(build_bytes);
            WIDEST(target_bytes);
            WIDEST(build_lanes);
            WIDEST(target_lanes);
#undef WIDEST
            free(l.file);
            free(l.kind);
            continue;
        }
        if (!l.kind) l.kind = xstrdup("");
        f->loops = xrealloc(f->loops, (f->nloops + 1) * sizeof *f->loops);
        f->loops[f->nloops++] = l;
    }
    sqlite3_finalize(q);
    int in_build = 0;
    for (size_t i = 0; i < f->nloops; i++) in_build |= f->loops[i].build_bytes >= 0 || f->loops[i].build_lanes >= 0;
    f->only_at_target = f->nloops > 0 && !in_build;
    return 0;
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int load_functions(struct store *st, struct report *r)
{
    /* Ordered so that the rows of one definition (one source compiled
     * into several objects) follow each other. */
    sqlite3_stmt *q = prepare(st,
        "SELECT f.id, f.name, f.display_name, f.file, f.line, f.status, f.reason, f.detail, f.notes,"
        "  c.source, f.compile_id, COALESCE(f.end_line, f.line), c.output, f.kind, f.score, f.evidence,"
        "  f.dropped_calls"
        " FROM functions f JOIN compiles c ON c.id=f.compile_id"
        " ORDER BY f.status, f.file, f.line, f.name, c.output, f.id");
    if (!q) return -1;
    size_t cap = 0;
    char *last_file = NULL;   /* absolute definition file of the previous row */
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 1);
        const char *file = (const char *)sqlite3_column_text(q, 3);
        const char *status = (const char *)sqlite3_column_text(q, 5);
        int line = sqlite3_column_int(q, 4);
        struct report_function *f = r->nfunctions ? &r->functions[r->nfunctions - 1] : NULL;
        int same = f && file && same_text(last_file, file) && f->line == line && same_text(f->name, name) &&
                   same_text(f->status, status);
        if (!same) {
            if (r->nfunctions == cap)
                r->functions = xrealloc(r->functions, (cap = cap ? cap * 2 : 16) * sizeof *r->functions);
            f = &r->functions[r->nfunctions++];
            memset(f, 0, sizeof *f);
            f->id = sqlite3_column_int64(q, 0);
            f->name = col_text(q, 1);
            f->display_name = col_text(q, 2);
            if (!f->display_name) f->display_name = xstrdup(f->name);
            f->file = display_path(r->root, file);
            f->line = line;
            f->status = col_text(q, 5);
            f->reason = col_text(q, 6);
            f->detail = col_text(q, 7);
            f->notes = notes_from_text((const char *)sqlite3_column_text(q, 8));
            f->tu = display_path(r->root, (const char *)sqlite3_column_text(q, 9));
            if (!strcmp(f->status, "candidate")) r->ncandidates++;
            else r->nexcluded++;
            free(last_file);
            last_file = file ? xstrdup(file) : NULL;
        }
        f->kind = candidate_kind_max(f->kind, candidate_kind_parse((const char *)sqlite3_column_text(q, 13)));
        if (sqlite3_column_int(q, 14) > f->score || (!f->evidence && sqlite3_column_text(q, 15))) {
            if (sqlite3_column_int(q, 14) > f->score) f->score = sqlite3_column_int(q, 14);
            free(f->evidence);
            f->evidence = col_text(q, 15);
            free(f->dropped_calls);
            f->dropped_calls = col_text(q, 16);
        }
        f->outputs = xrealloc(f->outputs, (f->ncompiles + 1) * sizeof *f->outputs);
        f->outputs[f->ncompiles++] = display_path(r->root, (const char *)sqlite3_column_text(q, 12));
        if (load_loops(st, r, f, sqlite3_column_int64(q, 10), sqlite3_column_int(q, 11)) != 0) {
            sqlite3_finalize(q);
            free(last_file);
            return -1;
        }
    }
    sqlite3_finalize(q);
    free(last_file);
    return 0;
}

/* Distinct vectorized positions of a compile in one variant. */
static const char *const DISTINCT_LOOPS =
    "SELECT COUNT(*) FROM (SELECT DISTINCT file, line, col, kind FROM loops WHERE compile_id=? AND variant=?)";

static int loops_in_variant(struct store *st, int64_t compile_id, const char *variant)
{
    sqlite3_stmt *q = prepare(st, DISTINCT_LOOPS);
    if (!q) return 0;
    sqlite3_bind_int64(q, 1, compile_id);
    sqlite3_bind_text(q, 2, variant, -1, SQLITE_TRANSIENT);
    int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : 0;
    sqlite3_finalize(q);
    return n;
}

/* TUs worth a line: those with notes, or with an -O3 probe. A TU the
 * target probe left out ('probe-skipped': no code that could differ) is no
 * news here: the scan's summary counts them. */
static int load_tus(struct store *st, struct report *r)
{
    sqlite3_stmt *q = prepare(st,
        "SELECT c.id, c.source,"
        "  (SELECT COUNT(*) FROM record_files rf WHERE rf.compile_id=c.id AND rf.variant='probe:O3'"
        "     AND rf.status='read'),"
        "  c.compiler_kind, c.compiler_version"
        " FROM compiles c WHERE c.exit_status=0"
        "  AND (EXISTS(SELECT 1 FROM tu_notes n WHERE n.compile_id=c.id AND n.kind<>'probe-skipped')"
        "       OR EXISTS(SELECT 1 FROM record_files rf WHERE rf.compile_id=c.id AND rf.variant='probe:O3'))"
        " ORDER BY c.source");
    if (!q) return -1;
    size_t cap = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (r->ntus == cap) r->tus = xrealloc(r->tus, (cap = cap ? cap * 2 : 8) * sizeof *r->tus);
        struct report_tu *t = &r->tus[r->ntus++];
        int64_t id = sqlite3_column_int64(q, 0);
        t->source = display_path(r->root, (const char *)sqlite3_column_text(q, 1));
        t->o3_extra_loops = -1;
        const char *kind = (const char *)sqlite3_column_text(q, 3), *version = (const char *)sqlite3_column_text(q, 4);
        t->compiler_kind = xstrdup(kind ? kind : "");
        t->compiler_major = version ? atoi(version) : 0;
        if (sqlite3_column_int(q, 2) > 0) {
            int extra = loops_in_variant(st, id, "probe:O3") - loops_in_variant(st, id, "build");
            t->o3_extra_loops = extra > 0 ? extra : 0;
        }
        t->notes = json_array();
        sqlite3_stmt *n = prepare(st, "SELECT kind, detail FROM tu_notes WHERE compile_id=? AND kind<>'probe-skipped' ORDER BY id");
        if (!n) continue;
        sqlite3_bind_int64(n, 1, id);
        while (sqlite3_step(n) == SQLITE_ROW)
            json_array_append_new(t->notes,
                json_pack("{s:s, s:s}", "kind", (const char *)sqlite3_column_text(n, 0),
                          "detail", sqlite3_column_text(n, 1) ? (const char *)sqlite3_column_text(n, 1) : ""));
        sqlite3_finalize(n);
    }
    sqlite3_finalize(q);
    return 0;
}

int report_load(struct store *st, struct report *r)
{
    memset(r, 0, sizeof *r);
    r->root = store_meta_get(st, "root");
    r->targets = store_meta_get(st, "targets");
    /* The probe's target: from its loops, else (a project where nothing
     * vectorizes, whose candidates are all isa) from its record files. */
    static const char *const probe_queries[] = {
        "SELECT variant FROM loops WHERE variant LIKE 'probe:%' AND variant<>'probe:O3'"
        " GROUP BY variant ORDER BY COUNT(*) DESC LIMIT 1",
        "SELECT variant FROM record_files WHERE variant LIKE 'probe:%' AND variant<>'probe:O3'"
        " GROUP BY variant ORDER BY COUNT(*) DESC LIMIT 1",
    };
    for (size_t i = 0; i < 2 && !r->probe_variant; i++) {
        sqlite3_stmt *q = prepare(st, probe_queries[i]);
        if (q && sqlite3_step(q) == SQLITE_ROW) r->probe_variant = col_text(q, 0);
        sqlite3_finalize(q);
    }
    r->compiles = count_query(st, "SELECT COUNT(*) FROM compiles");
    r->failed_compiles = count_query(st, "SELECT COUNT(*) FROM compiles WHERE exit_status<>0");
    r->corrupt_record_files = count_query(st, "SELECT COUNT(*) FROM record_files WHERE status='corrupt'");
    if (load_functions(st, r) != 0 || load_tus(st, r) != 0) {
        report_free(r);
        return -1;
    }
    return 0;
}

static json_t *width_json(int bytes)
{
    return bytes < 0 ? json_null() : json_integer(bytes);
}

json_t *report_to_json(const struct report *r)
{
    json_t *fs = json_array();
    for (size_t i = 0; i < r->nfunctions; i++) {
        const struct report_function *f = &r->functions[i];
        json_t *loops = json_array();
        for (size_t j = 0; j < f->nloops; j++) {
            const struct report_loop *l = &f->loops[j];
            json_array_append_new(loops, json_pack("{s:s, s:i, s:i, s:s, s:o, s:o, s:o, s:o}", "file", l->file,
                                                   "line", l->line, "column", l->column, "kind", l->kind,
                                                   "build_vector_bytes", width_json(l->build_bytes),
                                                   "target_vector_bytes", width_json(l->target_bytes),
                                                   "build_vector_lanes", width_json(l->build_lanes),
                                                   "target_vector_lanes", width_json(l->target_lanes)));
        }
        json_t *outputs = json_array();
        for (size_t j = 0; j < f->ncompiles; j++) json_array_append_new(outputs, json_string(f->outputs[j]));
        json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:b, s:O, s:o}", "name", f->name, "display_name",
                              f->display_name, "file", f->file, "line", f->line, "status", f->status, "tu", f->tu,
                              "outputs", outputs, "only_at_target", f->only_at_target, "notes", f->notes, "loops",
                              loops);
        json_object_set_new(o, "kind", candidate_kind_json(f->kind));
        json_object_set_new(o, "score", json_integer(f->score));
        json_object_set_new(o, "evidence", f->evidence ? json_string(f->evidence) : json_null());
        struct strvec calls = STRVEC_INIT;
        json_t *dropped = dropped_calls_decode(f->dropped_calls, &calls) == 0 ? json_array() : json_null();
        for (size_t k = 0; k < calls.n; k++) json_array_append_new(dropped, json_string(calls.v[k]));
        sv_free(&calls);
        json_object_set_new(o, "dropped_calls", dropped);
        if (f->reason) json_object_set_new(o, "reason", json_string(f->reason));
        if (f->detail) json_object_set_new(o, "detail", json_string(f->detail));
        json_array_append_new(fs, o);
    }
    json_t *tus = json_array();
    for (size_t i = 0; i < r->ntus; i++) {
        const struct report_tu *t = &r->tus[i];
        json_t *o = json_pack("{s:s, s:O}", "source", t->source, "notes", t->notes);
        json_object_set_new(o, "o3_extra_loops", t->o3_extra_loops < 0 ? json_null() : json_integer(t->o3_extra_loops));
        json_object_set_new(o, "compiler", json_string(t->compiler_kind));
        json_array_append_new(tus, o);
    }
    json_t *root = json_pack("{s:s?, s:s?, s:s?, s:i, s:i, s:i, s:i, s:i, s:o, s:o}", "root", r->root, "targets",
                             r->targets, "probe", r->probe_variant, "compiles", r->compiles, "failed_compiles",
                             r->failed_compiles, "corrupt_record_files", r->corrupt_record_files, "candidates",
                             (int)r->ncandidates, "excluded", (int)r->nexcluded, "functions", fs, "tus", tus);
    return root;
}

void report_free(struct report *r)
{
    for (size_t i = 0; i < r->nfunctions; i++) {
        struct report_function *f = &r->functions[i];
        free(f->name);
        free(f->display_name);
        free(f->file);
        free(f->status);
        free(f->reason);
        free(f->detail);
        free(f->tu);
        free(f->evidence);
        free(f->dropped_calls);
        for (size_t j = 0; j < f->ncompiles; j++) free(f->outputs[j]);
        free(f->outputs);
        json_decref(f->notes);
        for (size_t j = 0; j < f->nloops; j++) {
            free(f->loops[j].file);
            free(f->loops[j].kind);
        }
        free(f->loops);
    }
    free(r->functions);
    for (size_t i = 0; i < r->ntus; i++) {
        free(r->tus[i].source);
        free(r->tus[i].compiler_kind);
        json_decref(r->tus[i].notes);
    }
    free(r->tus);
    free(r->root);
    free(r->targets);
    free(r->probe_variant);
    memset(r, 0, sizeof *r);
}

const char *report_o3_reason(const struct report_tu *t)
{
    if (!strcmp(t->compiler_kind, "clang"))
        return "clang vectorizes at -O2 too; its -O3 inlines and unrolls more, which exposes more loops";
    if (t->compiler_major > 0 && t->compiler_major < 12) return "GCC before 12 does not vectorize at -O2";
    return "GCC 12's -O2 uses the very-cheap cost model";
}
