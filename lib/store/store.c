/* store.c - see store.h. The schema lives here, in one string, versioned by
 * PRAGMA user_version so that a later fmvgen can migrate an older store. */
#include "store/store.h"
#include "util/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA_VERSION 4   /* 2: object_functions; 3: function_profiles, functions.kind/score/evidence;
                              * 4: functions.dropped_calls */

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS meta("
    "  key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS compiles("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"  /* never reused: a rescan must not alias old rows */
    "  directory TEXT NOT NULL,"
    "  argv TEXT NOT NULL,"
    "  compiler TEXT NOT NULL,"
    "  compiler_kind TEXT NOT NULL,"
    "  compiler_version TEXT,"
    "  source TEXT NOT NULL,"
    "  output TEXT NOT NULL DEFAULT '',"
    "  language TEXT,"
    "  exit_status INTEGER NOT NULL DEFAULT 0,"
    "  source_hash TEXT,"
    "  scanned_at TEXT DEFAULT (datetime('now')),"
    "  UNIQUE(source, output));"
    "CREATE TABLE IF NOT EXISTS record_files("
    "  id INTEGER PRIMARY KEY,"
    "  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,"
    "  variant TEXT NOT NULL,"
    "  format TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  status TEXT NOT NULL DEFAULT 'pending',"
    "  error TEXT,"
    "  UNIQUE(compile_id, variant));"
    "CREATE TABLE IF NOT EXISTS loops("
    "  id INTEGER PRIMARY KEY,"
    "  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,"
    "  variant TEXT NOT NULL,"
    "  function TEXT,"
    "  file TEXT, line INTEGER, col INTEGER,"
    "  kind TEXT NOT NULL,"
    "  vector_bytes INTEGER,"
    "  message TEXT,"
    /* Clang reports a loop's width in elements (its VectorizationFactor),
     * not bytes: 0 when the compiler did not say (GCC, SLP). */
    "  vector_lanes INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX IF NOT EXISTS loops_by_compile ON loops(compile_id, variant);"
    /* The functions a compile emitted as code of their own (its object's or
     * assembly's function symbols): the static functions missing there were
     * inlined everywhere (candidates/helpers.h). Kept for the compiles the
     * scan ran itself (--compdb), whose output went to a temp dir. */
    "CREATE TABLE IF NOT EXISTS object_functions("
    "  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS object_functions_by_compile ON object_functions(compile_id);"
    /* The ISA profile (elf/funcisa.h, as JSON) of each function of a
     * compile's code: variant 'build' for the scan's own compile
     * (--compdb), 'probe:<target>' for the target probe's. Read before
     * their temp dir goes; a wrapped build's object is read at analysis. */
    "CREATE TABLE IF NOT EXISTS function_profiles("
    "  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,"
    "  variant TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  profile TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS function_profiles_by_compile ON function_profiles(compile_id, variant);"
    "CREATE TABLE IF NOT EXISTS tu_notes("
    "  id INTEGER PRIMARY KEY,"
    "  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,"
    "  kind TEXT NOT NULL,"
    "  detail TEXT);"
    /* One row per function that vectorized somewhere (build or probe):
     * status 'candidate' or 'excluded' (reason says why). */
    "CREATE TABLE IF NOT EXISTS functions("
    "  id INTEGER PRIMARY KEY,"
    "  compile_id INTEGER NOT NULL REFERENCES compiles(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  display_name TEXT,"
    "  file TEXT,"
    "  line INTEGER, col INTEGER, end_line INTEGER, end_col INTEGER,"
    "  insert_offset INTEGER, insert_line INTEGER,"
    "  status TEXT NOT NULL,"
    "  reason TEXT,"
    "  detail TEXT,"
    "  notes TEXT,"
    "  source_hash TEXT,"
    /* vectorized / target-vectorized / isa (candidates/isa.h); the score
     * of what changes at the target and its readable evidence. */
    "  kind TEXT,"
    "  score INTEGER NOT NULL DEFAULT 0,"
    "  evidence TEXT,"
    "  fma_score INTEGER NOT NULL DEFAULT 0,"  /* the part of score FMA-free avx2 clones lack: FMA, AVX-512-only ops */
    /* store/dropped.h: the library calls its target code drops, as data */
    "  dropped_calls TEXT);";

/* Columns later schemas added to tables an older store already has. */
static const struct {
    const char *table, *column, *decl;
} ADDED_COLUMNS[] = {
    {"functions", "kind", "TEXT"},
    {"functions", "score", "INTEGER NOT NULL DEFAULT 0"},
    {"functions", "evidence", "TEXT"},
    {"functions", "fma_score", "INTEGER NOT NULL DEFAULT 0"},
    {"functions", "dropped_calls", "TEXT"},
};

struct store {
    sqlite3 *db;
    char *builddir;
    char *dir;
    char *records_dir;
};

static int exec_sql(struct store *st, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fmv_error("%s/store.sqlite: %s", st->dir, err ? err : "SQL error");
        sqlite3_free(err);
        return -1;
    }
    return 0;
}

int store_open(const char *builddir, int create, struct store **out)
{
    *out = NULL;
    struct store *st = xcalloc(1, sizeof *st);
    st->builddir = path_absolute(builddir, NULL);
    st->dir = path_join(st->builddir, STORE_DIRNAME);
    st->records_dir = path_join(st->dir, "records");
    char *dbpath = path_join(st->dir, "store.sqlite");
    if (!create && !file_exists(dbpath)) {
        fmv_error("%s: no fmvgen store here; run 'fmvgen scan' first", st->dir);
        goto fail;
    }
    if (create && mkdir_p(st->dir, 0755) != 0) {
        fmv_error("%s: cannot create directory", st->dir);
        goto fail;
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(dbpath, &st->db, flags, NULL) != SQLITE_OK) {
        fmv_error("%s: cannot open store: %s", dbpath, st->db ? sqlite3_errmsg(st->db) : "out of memory");
        goto fail;
    }
    /* Parallel wrappers wait for each other rather than fail. */
    sqlite3_busy_timeout(st->db, 120000);
    if (exec_sql(st, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;") != 0)
        goto fail;
    int version = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW) version = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    if (version > SCHEMA_VERSION) {
        fmv_error("%s: store written by a newer fmvgen (schema %d, this one knows %d)", dbpath, version,
                  SCHEMA_VERSION);
        goto fail;
    }
    if (version < SCHEMA_VERSION) {
        /* The tables an older store lacks are created, the columns added;
         * no stored row is dropped. */
        int rc = exec_sql(st, "BEGIN IMMEDIATE") != 0 || exec_sql(st, SCHEMA) != 0;
        for (size_t i = 0; !rc && i < sizeof ADDED_COLUMNS / sizeof *ADDED_COLUMNS; i++) {
            char *probe = xasprintf("SELECT 1 FROM pragma_table_info('%s') WHERE name='%s'", ADDED_COLUMNS[i].table,
                                    ADDED_COLUMNS[i].column);
            int has = 0;
            if (sqlite3_prepare_v2(st->db, probe, -1, &q, NULL) == SQLITE_OK) {
                has = sqlite3_step(q) == SQLITE_ROW;
                sqlite3_finalize(q);
            }
            free(probe);
            if (has) continue;
            char *alter = xasprintf("ALTER TABLE %s ADD COLUMN %s %s", ADDED_COLUMNS[i].table, ADDED_COLUMNS[i].column,
                                    ADDED_COLUMNS[i].decl);
            rc = exec_sql(st, alter) != 0;
            free(alter);
        }
        char *sql = xasprintf("PRAGMA user_version=%d; COMMIT;", SCHEMA_VERSION);
        if (!rc) rc = exec_sql(st, sql) != 0;
        free(sql);
        if (rc != 0) {
            store_rollback(st);
            goto fail;
        }
    }
    free(dbpath);
    *out = st;
    return 0;
fail:
    free(dbpath);
    store_close(st);
    return -1;
}

char *store_find_builddir(const char *start)
{
    char *dir = path_absolute(start ? start : ".", NULL);
    for (;;) {
        char *s = path_join(dir, STORE_DIRNAME "/store.sqlite");
        int found = file_exists(s);
        free(s);
        if (found) return dir;
        if (!strcmp(dir, "/")) break;
        char *up = path_dirname(dir);
        free(dir);
        dir = up;
    }
    free(dir);
    return NULL;
}

void store_close(struct store *st)
{
    if (!st) return;
    if (st->db) sqlite3_close(st->db);
    free(st->builddir);
    free(st->dir);
    free(st->records_dir);
    free(st);
}

sqlite3 *store_db(struct store *st) { return st->db; }

void store_skip_checkpoint_on_close(struct store *st)
{
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
}
const char *store_builddir(struct store *st) { return st->builddir; }
const char *store_path(struct store *st) { return st->dir; }

const char *store_records_dir(struct store *st)
{
    mkdir_p(st->records_dir, 0755);
    return st->records_dir;
}

int store_begin(struct store *st) { return exec_sql(st, "BEGIN IMMEDIATE"); }
int store_commit(struct store *st) { return exec_sql(st, "COMMIT"); }
void store_rollback(struct store *st) { sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL); }

/* Prepares, binds text/int64 parameters from a format ("t" text, "i" int64,
 * "n" int) and steps once. Returns the sqlite step code. */
static int run_stmt(struct store *st, const char *sql, const char *types, ...)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
        fmv_error("%s/store.sqlite: %s", st->dir, sqlite3_errmsg(st->db));
        return SQLITE_ERROR;
    }
    va_list ap;
    va_start(ap, types);
    for (int i = 0; types[i]; i++) {
        switch (types[i]) {
        case 't': {
            const char *s = va_arg(ap, const char *);
            if (s) sqlite3_bind_text(q, i + 1, s, -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(q, i + 1);
            break;
        }
        case 'i': sqlite3_bind_int64(q, i + 1, va_arg(ap, int64_t)); break;
        case 'n': sqlite3_bind_int(q, i + 1, va_arg(ap, int)); break;
        }
    }
    va_end(ap);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        fmv_error("%s/store.sqlite: %s", st->dir, sqlite3_errmsg(st->db));
    sqlite3_finalize(q);
    return rc;
}

int store_meta_set(struct store *st, const char *key, const char *value)
{
    return run_stmt(st, "INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    "tt", key, value) == SQLITE_DONE ? 0 : -1;
}

char *store_meta_get(struct store *st, const char *key)
{
    sqlite3_stmt *q;
    char *v = NULL;
    if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key=?", -1, &q, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
        v = xstrdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    return v;
}

static char *argv_to_json(char *const *argv)
{
    json_t *a = json_array();
    for (; argv && *argv; argv++) json_array_append_new(a, json_string(*argv));
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    char *r = xstrdup(s ? s : "[]");
    free(s);
    return r;
}

static char **argv_from_json(const char *text)
{
    struct strvec sv = STRVEC_INIT;
    json_error_t e;
    json_t *a = json_loads(text ? text : "[]", 0, &e);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) if (json_is_string(v)) sv_push(&sv, json_string_value(v));
    json_decref(a);
    return sv_argv(&sv);
}

int64_t store_add_compile(struct store *st, const struct compile_info *ci)
{
    char *argv = argv_to_json(ci->argv);
    const char *output = ci->output ? ci->output : "";
    int64_t id = -1;
    /* Inside the caller's transaction when one is open (the wrapper's:
     * the compile and its record file in one commit), else its own. */
    int own = sqlite3_get_autocommit(st->db) != 0;
    if (own && store_begin(st) != 0) goto out;
    /* Replacing the row cascades to its old records, loops and functions. */
    if (run_stmt(st, "DELETE FROM compiles WHERE source=? AND output=?", "tt", ci->source, output) != SQLITE_DONE)
        goto fail;
    if (run_stmt(st,
                 "INSERT INTO compiles(directory,argv,compiler,compiler_kind,compiler_version,source,output,"
                 "language,exit_status,source_hash) VALUES(?,?,?,?,?,?,?,?,?,?)",
                 "ttttttttnt", ci->directory, argv, ci->compiler, ci->compiler_kind, ci->compiler_version,
                 ci->source, output, ci->language, ci->exit_status, ci->source_hash) != SQLITE_DONE)
        goto fail;
    id = sqlite3_last_insert_rowid(st->db);
    if (own && store_commit(st) != 0) {
        id = -1;
        goto fail;
    }
    goto out;
fail:
    if (own) store_rollback(st);
out:
    free(argv);
    return id;
}

int64_t store_add_record_file(struct store *st, int64_t compile_id, const char *variant, const char *format,
                              const char *path)
{
    if (run_stmt(st,
                 "INSERT INTO record_files(compile_id,variant,format,path) VALUES(?,?,?,?) "
                 "ON CONFLICT(compile_id,variant) DO UPDATE SET format=excluded.format, path=excluded.path, "
                 "status='pending', error=NULL",
                 "itt" "t", compile_id, variant, format, path) != SQLITE_DONE)
        return -1;
    sqlite3_stmt *q;
    int64_t id = -1;
    if (sqlite3_prepare_v2(st->db, "SELECT id FROM record_files WHERE compile_id=? AND variant=?", -1, &q, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(q, 1, compile_id);
        sqlite3_bind_text(q, 2, variant, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(q) == SQLITE_ROW) id = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    return id;
}

int store_set_record_file_status(struct store *st, int64_t record_file_id, const char *status, const char *error)
{
    return run_stmt(st, "UPDATE record_files SET status=?, error=? WHERE id=?", "tti", status, error,
                    record_file_id) == SQLITE_DONE ? 0 : -1;
}

int store_claim_record_file(struct store *st, int64_t id, const char *path, const char *status, const char *error)
{
    sqlite3 *db = st->db;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "UPDATE record_files SET status=?, error=? WHERE id=? AND status='pending' AND path=?",
                           -1, &q, NULL) != SQLITE_OK) {
        fmv_error("%s/store.sqlite: %s", st->dir, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_text(q, 1, status, -1, SQLITE_TRANSIENT);
    if (error) sqlite3_bind_text(q, 2, error, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(q, 2);
    sqlite3_bind_int64(q, 3, id);
    sqlite3_bind_text(q, 4, path, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) {
        fmv_error("%s/store.sqlite: %s", st->dir, sqlite3_errmsg(db));
        return -1;
    }
    return sqlite3_changes(db) > 0;
}

struct pending_record_file *store_pending_record_files(struct store *st, size_t *n, int *failed)
{
    *n = 0;
    *failed = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT rf.id, rf.compile_id, rf.variant, rf.format, rf.path, c.directory "
                           "FROM record_files rf JOIN compiles c ON c.id = rf.compile_id "
                           "WHERE rf.status = 'pending' ORDER BY rf.id",
                           -1, &q, NULL) != SQLITE_OK) {
        fmv_error("%s/store.sqlite: %s", st->dir, sqlite3_errmsg(st->db));
        *failed = 1;
        return NULL;
    }
    struct pending_record_file *files = NULL;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (*n == cap) files = xrealloc(files, (cap = cap ? cap * 2 : 16) * sizeof *files);
        struct pending_record_file *f = &files[(*n)++];
        f->id = sqlite3_column_int64(q, 0);
        f->compile_id = sqlite3_column_int64(q, 1);
        const char *cols[4];
        for (int i = 0; i < 4; i++) cols[i] = (const char *)sqlite3_column_text(q, 2 + i);
        f->variant = xstrdup(cols[0] ? cols[0] : "");
        f->format = xstrdup(cols[1] ? cols[1] : "");
        f->path = xstrdup(cols[2] ? cols[2] : "");
        f->directory = xstrdup(cols[3] ? cols[3] : "/");
    }
    if (rc != SQLITE_DONE) {
        fmv_error("%s/store.sqlite: %s", st->dir, sqlite3_errmsg(st->db));
        *failed = 1;
    }
    sqlite3_finalize(q);
    return files;
}

int store_add_loop(struct store *st, int64_t compile_id, const char *variant, const struct loop_record *rec)
{
    return run_stmt(st,
                    "INSERT INTO loops(compile_id,variant,function,file,line,col,kind,vector_bytes,message,"
                    "vector_lanes) VALUES(?,?,?,?,?,?,?,?,?,?)",
                    "itttnntntn", compile_id, variant, rec->function, rec->file, rec->line, rec->column,
                    loop_kind_name(rec->kind), rec->vector_bytes, rec->message, rec->vector_lanes) == SQLITE_DONE ? 0 : -1;
}

int store_clear_loops(struct store *st, int64_t compile_id, const char *variant)
{
    return run_stmt(st, "DELETE FROM loops WHERE compile_id=? AND variant=?", "it", compile_id, variant) ==
                   SQLITE_DONE ? 0 : -1;
}

int store_clear_variant(struct store *st, int64_t compile_id, const char *variant)
{
    static const char *const sql[] = {"DELETE FROM record_files WHERE compile_id=? AND variant=?",
                                      "DELETE FROM loops WHERE compile_id=? AND variant=?",
                                      "DELETE FROM function_profiles WHERE compile_id=? AND variant=?"};
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++)
        if (run_stmt(st, sql[i], "it", compile_id, variant) != SQLITE_DONE) return -1;
    return 0;
}

int store_add_tu_note(struct store *st, int64_t compile_id, enum tu_note_kind kind, const char *detail)
{
    const char *name = tu_note_kind_name(kind);
    if (!name) return fmv_error("%s/store.sqlite: a TU note of no known kind (%d)", store_path(st), (int)kind);
    return run_stmt(st, "INSERT INTO tu_notes(compile_id,kind,detail) VALUES(?,?,?)", "itt", compile_id, name,
                    detail) == SQLITE_DONE ? 0 : -1;
}

int store_set_object_functions(struct store *st, int64_t compile_id, const struct strvec *names)
{
    if (run_stmt(st, "DELETE FROM object_functions WHERE compile_id=?", "i", compile_id) != SQLITE_DONE) return -1;
    for (size_t i = 0; i < names->n; i++)
        if (run_stmt(st, "INSERT INTO object_functions(compile_id,name) VALUES(?,?)", "it", compile_id,
                     names->v[i]) != SQLITE_DONE)
            return -1;
    return 0;
}

int store_object_functions(struct store *st, int64_t compile_id, struct strvec *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT name FROM object_functions WHERE compile_id=?", -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(q, 1, compile_id);
    int found = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 0);
        if (name) sv_push(out, name);
        found = 1;
    }
    sqlite3_finalize(q);
    return found;
}

int store_set_function_profiles(struct store *st, int64_t compile_id, const char *variant, const struct strvec *names,
                                const struct strvec *profiles)
{
    if (run_stmt(st, "DELETE FROM function_profiles WHERE compile_id=? AND variant=?", "it", compile_id, variant) !=
        SQLITE_DONE)
        return -1;
    for (size_t i = 0; i < names->n && i < profiles->n; i++)
        if (run_stmt(st, "INSERT INTO function_profiles(compile_id,variant,name,profile) VALUES(?,?,?,?)", "itt" "t",
                     compile_id, variant, names->v[i], profiles->v[i]) != SQLITE_DONE)
            return -1;
    return 0;
}

int store_function_profiles(struct store *st, int64_t compile_id, const char *variant, struct strvec *names,
                            struct strvec *profiles)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT name, profile FROM function_profiles WHERE compile_id=? AND variant=?"
                                   " ORDER BY rowid",
                           -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(q, 1, compile_id);
    sqlite3_bind_text(q, 2, variant, -1, SQLITE_TRANSIENT);
    int found = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 0), *profile = (const char *)sqlite3_column_text(q, 1);
        if (!name || !profile) continue;
        sv_push(names, name);
        sv_push(profiles, profile);
        found = 1;
    }
    sqlite3_finalize(q);
    return found;
}

static char *col_dup(sqlite3_stmt *q, int i)
{
    const unsigned char *s = sqlite3_column_text(q, i);
    return s ? xstrdup((const char *)s) : NULL;
}

#define COMPILE_COLUMNS \
    "id,directory,argv,compiler,compiler_kind,compiler_version,source,output,language,exit_status,source_hash"

static void fill_compile_row(sqlite3_stmt *q, struct compile_row *r)
{
    r->id = sqlite3_column_int64(q, 0);
    r->directory = col_dup(q, 1);
    r->argv = argv_from_json((const char *)sqlite3_column_text(q, 2));
    r->compiler = col_dup(q, 3);
    r->compiler_kind = col_dup(q, 4);
    r->compiler_version = col_dup(q, 5);
    r->source = col_dup(q, 6);
    r->output = col_dup(q, 7);
    r->language = col_dup(q, 8);
    r->exit_status = sqlite3_column_int(q, 9);
    r->source_hash = col_dup(q, 10);
}

int store_get_compile(struct store *st, int64_t id, struct compile_row *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT " COMPILE_COLUMNS " FROM compiles WHERE id=?", -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, id);
    int rc = -1;
    if (sqlite3_step(q) == SQLITE_ROW) {
        fill_compile_row(q, out);
        rc = 0;
    }
    sqlite3_finalize(q);
    return rc;
}

struct compile_row *store_list_compiles(struct store *st, size_t *n)
{
    *n = 0;
    size_t cap = 16;
    struct compile_row *rows = xcalloc(cap, sizeof *rows);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT " COMPILE_COLUMNS " FROM compiles WHERE exit_status=0 ORDER BY id", -1,
                           &q, NULL) != SQLITE_OK)
        return rows;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (*n == cap) rows = xrealloc(rows, (cap *= 2) * sizeof *rows);
        memset(&rows[*n], 0, sizeof *rows);
        fill_compile_row(q, &rows[(*n)++]);
    }
    sqlite3_finalize(q);
    return rows;
}

void compile_row_free(struct compile_row *r)
{
    if (!r) return;
    free(r->directory);
    free(r->compiler);
    free(r->compiler_kind);
    free(r->compiler_version);
    free(r->source);
    free(r->output);
    free(r->language);
    free(r->source_hash);
    if (r->argv)
        for (char **a = r->argv; *a; a++) free(*a);
    free(r->argv);
    memset(r, 0, sizeof *r);
}

void compile_rows_free(struct compile_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) compile_row_free(&rows[i]);
    free(rows);
}
