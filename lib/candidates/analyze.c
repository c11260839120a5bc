/* analyze.c - see analyze.h. Per successful compile: the distinct functions
 * its loop records name (build and probes alike), one libclang parse of the
 * TU, each function located (locate.h), judged (eligibility.h) and noted
 * (simdifdef.h), and the compile's functions rows replaced in one
 * transaction - so a failure halfway leaves the previous rows intact. */
#include "candidates/analyze.h"
#include "candidates/eligibility.h"
#include "candidates/helpers.h"
#include "candidates/included.h"
#include "candidates/inlined.h"
#include "candidates/isa.h"
#include "candidates/locate.h"
#include "candidates/simdifdef.h"
#include "capture/compiler.h"
#include "elf/elffile.h"
#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"

#include <jansson.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A function some loop record names, or (function NULL) a loop position
 * from a plain log whose function must be found by its line. */
struct wanted {
    char *function;
    char *file;   /* loop position, for the row of an unlocated function */
    int line;
    /* Every loop position of a named function (helpers.h); the file
     * strings are owned by files. None for a position without function. */
    struct loop_position *positions;
    size_t npositions;
    struct strvec files;
    /* candidates/isa.h: KIND_*, and what its code at the target changes. */
    const char *kind;
    int score, fma_score;
    char *evidence;
};

struct wanted_list {
    struct wanted *v;
    size_t n, cap;
    /* What the compile emitted as functions of their own (helpers.h): as
     * the scan's own compile of it did (--compdb), or else the build's
     * object; known = 0 when neither can be read. */
    struct strvec object_functions;
    int object_known;
    struct strvec isa_notes;   /* tu_notes 'isa-unmatched' (isa.h) */
};

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

static void wanted_free(struct wanted_list *w)
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
static int load_wanted(struct store *st, const struct compile_row *c, struct wanted_list *out)
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

/* One functions row, as it will be stored. */
struct fn_row {
    char *name, *display_name, *file;
    unsigned line, col, end_line, end_col;
    int located;                 /* positions and insert point are valid */
    unsigned insert_offset, insert_line;
    const char *reason;          /* NULL: candidate */
    char *detail, *notes, *source_hash;
    const char *kind;            /* KIND_* (static strings) */
    int score, fma_score;
    char *evidence;
};

struct row_list {
    struct fn_row *v;
    size_t n, cap;
};

static struct fn_row *row_new(struct row_list *rows)
{
    if (rows->n == rows->cap) rows->v = xrealloc(rows->v, (rows->cap = rows->cap ? rows->cap * 2 : 16) * sizeof *rows->v);
    struct fn_row *r = &rows->v[rows->n++];
    memset(r, 0, sizeof *r);
    return r;
}

static void row_free(struct fn_row *r)
{
    free(r->name);
    free(r->display_name);
    free(r->file);
    free(r->detail);
    free(r->notes);
    free(r->source_hash);
    free(r->evidence);
}

static void rows_free(struct row_list *rows)
{
    for (size_t i = 0; i < rows->n; i++) row_free(&rows->v[i]);
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

static char *position_name(const struct wanted *w)
{
    return xasprintf("%s:%d", w->file ? path_basename(w->file) : "?", w->line);
}

/* A row for a function that was not located: named after the record, and
 * placed at the loop the compiler reported. */
static void row_unlocated(struct fn_row *r, const struct wanted *w, const char *directory, const char *reason,
                          char *detail, const struct fn_def *def)
{
    r->name = w->function ? xstrndup(w->function, strcspn(w->function, ".")) : position_name(w);
    if (def && def->display_name) r->display_name = xstrdup(def->display_name);
    else if (w->function) r->display_name = xstrdup(r->name);
    else r->display_name = xasprintf("(function at %s)", r->name);
    r->file = w->file ? path_absolute(w->file, directory) : NULL;
    r->line = r->end_line = w->line > 0 ? (unsigned)w->line : 0;
    r->reason = reason;
    r->detail = detail;
    r->notes = xstrdup("[]");
}

static void add_note(json_t *notes, const char *kind, const char *detail)
{
    json_t *n = json_object();
    json_object_set_new(n, "kind", json_string(kind));
    json_object_set_new(n, "detail", json_string(detail));
    json_array_append_new(notes, n);
}

static char *notes_for(const struct pp_directives *pp, struct parsed_tu *tu, const struct fn_def *def)
{
    json_t *notes = json_array();
    if (tu_is_main_file(tu, def->cxfile) || (compile_language_of(def->file) && !path_is_header(def->file))) {
        struct strvec details = STRVEC_INIT;
        simd_ifdef_details(pp, def, &details);
        for (size_t i = 0; i < details.n; i++) add_note(notes, "simd-ifdef", details.v[i]);
        sv_free(&details);
    }
    char *macro = locate_static_macro(tu, def);
    if (macro) {
        /* The patch reads "static" from the text; here a macro hides it,
         * and an external FMVGEN_CLONES(sym) on a static function makes
         * clang < 18 emit a global alias and resolver (two files' static
         * emit_restart then do not link: libjpeg-turbo). */
        json_t *n = json_object();
        char *d = xasprintf("internal linkage through the macro %s: the patch marks it FMVGEN_CLONES_STATIC", macro);
        json_object_set_new(n, "kind", json_string("static-macro"));
        json_object_set_new(n, "detail", json_string(d));
        json_object_set_new(n, "static", json_true());
        json_array_append_new(notes, n);
        free(d);
        free(macro);
    }
    /* Hidden visibility (-fvisibility=hidden or an attribute, as libclang
     * sees the compile): GCC and clang < 18 export a target_clones
     * dispatcher anyway, so the patch hides it (patch/preamble.h). */
    if (def->match == DEF_FOUND && clang_getCursorLinkage(def->cursor) == CXLinkage_External &&
        clang_getCursorVisibility(def->cursor) == CXVisibility_Hidden)
        add_note(notes, "visibility", "hidden (-fvisibility=hidden or an attribute): the patch keeps its dispatcher hidden");
    if (def->shared_line_prefix) {
        char *d = xasprintf("line %u also holds '%s' before the definition: an attribute line inserted above "
                            "it would precede that code too",
                            def->insert_line, def->shared_line_prefix);
        add_note(notes, "shared-line", d);
        free(d);
    }
    char *s = json_dumps(notes, JSON_COMPACT);
    json_decref(notes);
    char *r = xstrdup(s ? s : "[]");
    free(s);
    return r;
}

static void row_located(struct fn_row *r, const struct fn_def *def, const struct eligibility *el, char *notes)
{
    r->name = xstrdup(def->symbol);
    r->display_name = xstrdup(def->display_name ? def->display_name : def->symbol);
    r->file = xstrdup(def->file);
    r->line = def->line;
    r->col = def->col;
    r->end_line = def->end_line;
    r->end_col = def->end_col;
    r->located = 1;
    r->insert_offset = def->insert_offset;
    r->insert_line = def->insert_line;
    r->reason = el->reason;
    r->detail = el->detail;
    r->notes = notes;
    r->source_hash = hash_file_hex(def->file);
}

/* GCC's own header directory ("gcc -print-file-name=include"), asked once
 * per compiler: libclang then finds headers only GCC ships (omp.h). */
struct gcc_includes {
    struct strvec compilers, dirs;
};

static const char *gcc_include_dir(struct gcc_includes *cache, const struct compile_row *c)
{
    if (!c->compiler_kind || strcmp(c->compiler_kind, "gcc") != 0 || !c->compiler) return NULL;
    for (size_t i = 0; i < cache->compilers.n; i++)
        if (!strcmp(cache->compilers.v[i], c->compiler)) return *cache->dirs.v[i] ? cache->dirs.v[i] : NULL;
    char *argv[] = {c->compiler, "-print-file-name=include", NULL};
    struct run_opts opts = {.capture_stdout = 1, .null_stderr = 1, .timeout_s = 30};
    struct run_result res;
    char *dir = NULL;
    if (run_argv(argv, &opts, &res) == 0 && res.out) {
        dir = xstrndup(res.out, strcspn(res.out, "\r\n"));
        if (dir[0] != '/' || !is_directory(dir)) {
            free(dir);
            dir = NULL;
        }
    }
    run_result_free(&res);
    sv_push(&cache->compilers, c->compiler);
    sv_push(&cache->dirs, dir ? dir : "");
    free(dir);
    const char *d = cache->dirs.v[cache->dirs.n - 1];
    return *d ? d : NULL;
}

static struct fn_row *row_named(struct row_list *rows, const char *name)
{
    for (size_t i = 0; i < rows->n; i++)
        if (rows->v[i].name && !strcmp(rows->v[i].name, name)) return &rows->v[i];
    return NULL;
}

static void row_take_kind(struct fn_row *r, const struct wanted *w);

/* Adds the row of an unlocated function unless one of that name exists
 * ("foo" and "foo.part.0" both unlocated). Takes detail. */
static void add_unlocated(struct row_list *rows, const struct wanted *w, const char *directory, const char *reason,
                          char *detail, const struct fn_def *def)
{
    struct fn_row tmp;
    memset(&tmp, 0, sizeof tmp);
    row_unlocated(&tmp, w, directory, reason, detail, def);
    struct fn_row *r = row_named(rows, tmp.name);
    if (r) row_free(&tmp);
    else *(r = row_new(rows)) = tmp;
    row_take_kind(r, w);
}

static void row_add_note(struct fn_row *r, json_t *note);

/* The loop positions of seen definition k: those of every record that led
 * to it ("foo", "foo.part.0"). Caller frees. */
static struct loop_position *positions_of(const struct wanted_list *wanted, const size_t *seen_of, size_t k, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < wanted->n; i++) *n += seen_of[i] == k ? wanted->v[i].npositions : 0;
    struct loop_position *v = xcalloc(*n ? *n : 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; i < wanted->n; i++)
        for (size_t p = 0; seen_of[i] == k && p < wanted->v[i].npositions; p++) v[(*n)++] = wanted->v[i].positions[p];
    return v;
}

/* The helpers.h notes of the candidate rows: each definition's loop
 * positions from every record that led to it ("foo" and "foo.part.0"). */
static void note_helpers(struct parsed_tu *tu, struct pp_directives *pp, const struct wanted_list *wanted, const size_t *seen_of, const struct fn_def *seen,
                         const size_t *row_of, size_t nseen, struct row_list *rows)
{
    for (size_t k = 0; k < nseen; k++) {
        if (row_of[k] == SIZE_MAX || rows->v[row_of[k]].reason) continue;
        size_t n = 0;
        /* An isa candidate has no loop position: the callees the build
         * inlined into it (helpers.h, from the object) still count. */
        struct loop_position *positions = positions_of(wanted, seen_of, k, &n);
        json_t *notes = json_array();
        helpers_note(tu, pp, &seen[k], positions, n, seen, nseen,
                     wanted->object_known ? &wanted->object_functions : NULL, notes);
        size_t j;
        json_t *note;
        json_array_foreach(notes, j, note) row_add_note(&rows->v[row_of[k]], note);
        json_decref(notes);
        free(positions);
    }
}

/* Rows for the static callees whose loops were inlined into an excluded
 * function (inlined.h): main's kernels become the candidates. */
static void add_inlined_callees(struct parsed_tu *tu, struct pp_directives *pp, const struct wanted_list *wanted,
                                const size_t *seen_of, const struct fn_def *seen, const size_t *row_of, size_t nseen,
                                struct row_list *rows)
{
    struct inlined_host *hosts = xcalloc(nseen ? nseen : 1, sizeof *hosts);
    size_t nh = 0;
    for (size_t k = 0; k < nseen; k++) {
        if (row_of[k] == SIZE_MAX) continue;
        struct inlined_host *h = &hosts[nh++];
        h->def = &seen[k];
        h->reason = rows->v[row_of[k]].reason;
        h->positions = positions_of(wanted, seen_of, k, &h->n);
    }
    struct inlined_callee *callees = NULL;
    size_t n = inlined_callees(tu, pp, hosts, nh, seen, nseen, &callees);
    for (size_t i = 0; i < n; i++) {
        struct fn_row *r = row_new(rows);
        row_located(r, &callees[i].def, &callees[i].el, notes_for(pp, tu, &callees[i].def));
        size_t j;
        json_t *note;
        json_array_foreach(callees[i].notes, j, note) row_add_note(r, note);
        if (callees[i].el.note) row_add_note(r, callees[i].el.note);
        json_decref(callees[i].notes);
        json_decref(callees[i].el.note);
        fn_def_free(&callees[i].def);
    }
    free(callees);
    for (size_t k = 0; k < nh; k++) free((void *)hosts[k].positions);
    free(hosts);
}

/* The kind, score and evidence of a wanted function onto its row; "foo"
 * and "foo.part.0" on one row keep the kind that says more. */
static void row_take_kind(struct fn_row *r, const struct wanted *w)
{
    if (!r) return;
    r->kind = isa_kind_max(r->kind, w->kind);
    if (w->score > r->score) {
        r->score = w->score;
        r->fma_score = w->fma_score;
        free(r->evidence);
        r->evidence = w->evidence ? xstrdup(w->evidence) : NULL;
    }
}

static void analyze_tu(struct parsed_tu *tu, struct pp_directives *pp, const struct compile_row *c,
                       const struct wanted_list *wanted, struct row_list *rows)
{
    struct fn_def *seen = xcalloc(wanted->n ? wanted->n : 1, sizeof *seen);
    size_t *row_of = xcalloc(wanted->n ? wanted->n : 1, sizeof *row_of);    /* per seen: its located row */
    size_t *seen_of = xcalloc(wanted->n ? wanted->n : 1, sizeof *seen_of);  /* per wanted: its seen */
    size_t nseen = 0;
    for (size_t i = 0; i < wanted->n; i++) {
        const struct wanted *w = &wanted->v[i];
        struct fn_def def;
        if (w->function) locate_by_name(tu, w->function, &def);
        else locate_by_line(tu, w->file, w->line, &def);
        size_t duplicate = SIZE_MAX;
        /* Constructor variants (C1/C2) and a log's loops of one function
         * are one row; each instance of a template keeps its own. */
        for (size_t k = 0; k < nseen && duplicate == SIZE_MAX; k++)
            if (fn_def_same(&seen[k], &def) &&
                (def.match != DEF_TEMPLATE || !w->function || !strcmp(seen[k].symbol, def.symbol)))
                duplicate = k;
        if (duplicate != SIZE_MAX) {
            seen_of[i] = duplicate;
            if (row_of[duplicate] != SIZE_MAX) row_take_kind(&rows->v[row_of[duplicate]], w);
            fn_def_free(&def);
            continue;
        }
        struct eligibility el;
        eligibility_check(tu, pp, &def, &el);
        row_of[nseen] = SIZE_MAX;
        if (def.match == DEF_FOUND || def.match == DEF_TEMPLATE) {
            row_located(row_new(rows), &def, &el, notes_for(pp, tu, &def));
            row_of[nseen] = rows->n - 1;
            if (el.note) row_add_note(&rows->v[rows->n - 1], el.note);   /* redecl.h */
        } else {
            add_unlocated(rows, w, c->directory, el.reason, el.detail, &def);
        }
        if (row_of[nseen] != SIZE_MAX) row_take_kind(&rows->v[row_of[nseen]], w);
        json_decref(el.note);
        seen_of[i] = nseen;
        seen[nseen++] = def;
    }
    note_helpers(tu, pp, wanted, seen_of, seen, row_of, nseen, rows);
    add_inlined_callees(tu, pp, wanted, seen_of, seen, row_of, nseen, rows);
    for (size_t k = 0; k < nseen; k++) fn_def_free(&seen[k]);
    free(seen);
    free(row_of);
    free(seen_of);
}

static int store_rows(struct store *st, int64_t compile_id, const struct row_list *rows)
{
    sqlite3 *db = store_db(st);
    if (store_begin(st) != 0) return -1;
    sqlite3_stmt *del = NULL, *ins = NULL;
    int ok = sqlite3_prepare_v2(db, "DELETE FROM functions WHERE compile_id=?", -1, &del, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db,
                                "INSERT INTO functions(compile_id,name,display_name,file,line,col,end_line,end_col,"
                                "insert_offset,insert_line,status,reason,detail,notes,source_hash,kind,score,evidence,"
                                "fma_score) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
        sqlite3_bind_text(ins, 12, r->reason, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 13, r->detail, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 14, r->notes ? r->notes : "[]", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 15, r->source_hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 16, r->kind ? r->kind : KIND_VECTORIZED, -1, SQLITE_STATIC);
        sqlite3_bind_int(ins, 17, r->score);
        sqlite3_bind_text(ins, 18, r->evidence, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(ins, 19, r->fma_score);
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

static int drop_rows_of_failed_compiles(struct store *st)
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

/* One TU's work: read from the store before the workers start, rows
 * written to the store after they end (one SQLite connection, one writer). */
struct tu_job {
    const struct compile_row *compile;
    size_t index;                  /* in the compiles list */
    struct wanted_list wanted;
    const char *gcc_include;
    struct row_list rows;
    int unparsable;
    int done;                      /* the first pass ran */
    int parsed;                    /* parsed for its rows (the first pass) */
    struct strvec included;        /* source files the TU includes (included.h) */
    struct sightings sightings;    /* their definitions as this TU compiles them */
    /* The second pass (included.h): only sightings of the definitions in
     * these files, in a TU the first pass did not parse or whose own source
     * is one of them. */
    const struct strvec *sight_files;
};

static int job_busy(const struct tu_job *j)
{
    return j->sight_files || (j->wanted.n > 0 && !j->done);
}

/* The second pass over one TU: which of the files it compiles, and how. */
static void sight_job(CXIndex index, struct tu_job *j)
{
    const struct compile_row *c = j->compile;
    char *error = NULL;
    int from_log = !c->compiler_kind || !strcmp(c->compiler_kind, "unknown");
    struct parsed_tu *tu = tu_parse(index, c, j->gcc_include, from_log, &error);
    /* Said already in the first pass, or a TU without vectorized code whose
     * includes cannot be known: nothing to add. */
    free(error);
    if (!tu) return;
    struct strvec files = STRVEC_INIT;
    char *source = path_absolute(c->source, c->directory);
    if (sv_contains(j->sight_files, source)) sv_push(&files, source);
    free(source);
    if (!j->parsed) tu_included_sources(tu, &j->included);
    for (size_t i = 0; !j->parsed && i < j->included.n; i++)
        if (sv_contains(j->sight_files, j->included.v[i]) && !sv_contains(&files, j->included.v[i]))
            sv_push(&files, j->included.v[i]);
    if (files.n) {
        struct pp_directives *pp = pp_directives_scan(tu);
        sightings_collect(tu, pp, j->index, &files, &j->sightings);
        pp_directives_free(pp);
    }
    sv_free(&files);
    tu_free(tu);
}

static void run_job(CXIndex index, struct tu_job *j)
{
    const struct compile_row *c = j->compile;
    if (!job_busy(j)) return;
    if (j->sight_files) {
        sight_job(index, j);
        return;
    }
    j->done = 1;
    char *source = path_absolute(c->source, c->directory);
    if (!file_exists(source)) {
        /* Deleted or moved since the scan (or named by a build log that is
         * not from this tree): nothing to locate, nothing to patch. */
        fmv_warn("%s: source file not found; its functions are not analyzed", source);
        for (size_t k = 0; k < j->wanted.n; k++)
            add_unlocated(&j->rows, &j->wanted.v[k], c->directory, "not-found",
                          xasprintf("%s: the source file does not exist (any more)", source), NULL);
        free(source);
        return;
    }
    free(source);
    char *error = NULL;
    /* A compile imported from a build log: its compiler and flags are unknown. */
    int from_log = !c->compiler_kind || !strcmp(c->compiler_kind, "unknown");
    struct parsed_tu *tu = tu_parse(index, c, j->gcc_include, from_log, &error);
    if (tu) {
        if (error) fmv_warn("%s", error);
        struct pp_directives *pp = pp_directives_scan(tu);
        analyze_tu(tu, pp, c, &j->wanted, &j->rows);
        j->parsed = 1;
        /* Source files it includes: their definitions as this TU sees
         * them, for the verdict over every TU that compiles them. */
        tu_included_sources(tu, &j->included);
        if (j->included.n) sightings_collect(tu, pp, j->index, &j->included, &j->sightings);
        pp_directives_free(pp);
        tu_free(tu);
    } else {
        /* One line for the TU; its functions are kept as exclusions so that
         * `list` still shows what vectorized there. */
        fmv_error("%s", error);
        j->unparsable = 1;
        for (size_t k = 0; k < j->wanted.n; k++)
            add_unlocated(&j->rows, &j->wanted.v[k], c->directory, "parse-error", xstrdup(error), NULL);
    }
    free(error);
}

/* ---- definitions in source files that TUs include (included.h) ---- */

/* The included source files holding a candidate. */
static void included_with_candidates(const struct tu_job *jobs, size_t n, struct strvec *out)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < jobs[i].included.n; k++) {
            const char *path = jobs[i].included.v[k];
            if (sv_contains(out, path)) continue;
            int has = 0;
            for (size_t a = 0; a < n && !has; a++)
                for (size_t r = 0; r < jobs[a].rows.n && !has; r++)
                    has = !jobs[a].rows.v[r].reason && jobs[a].rows.v[r].located && jobs[a].rows.v[r].file &&
                          !strcmp(jobs[a].rows.v[r].file, path);
            if (has) sv_push(out, path);
        }
}

static void row_add_note(struct fn_row *r, json_t *note)
{
    json_error_t e;
    json_t *notes = r->notes ? json_loads(r->notes, 0, &e) : NULL;
    if (!json_is_array(notes)) {
        json_decref(notes);
        notes = json_array();
    }
    json_array_append(notes, note);
    char *text = json_dumps(notes, JSON_COMPACT);
    json_decref(notes);
    free(r->notes);
    r->notes = xstrdup(text ? text : "[]");
    free(text);
}

/* Judges each definition of the files once over every TU that compiles it,
 * and gives its rows the verdict. */
static void apply_verdicts(struct tu_job *jobs, size_t n, const struct strvec *files, const struct included_tu *tus)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += jobs[i].sightings.n;
    const struct sighting **group = xcalloc(total ? total : 1, sizeof *group);
    for (size_t f = 0; f < files->n; f++) {
        const char *path = files->v[f];
        /* Each distinct definition (insert offset) of the file once. */
        for (size_t i = 0; i < n; i++)
            for (size_t s = 0; s < jobs[i].sightings.n; s++) {
                const struct sighting *lead = &jobs[i].sightings.v[s];
                if (strcmp(lead->file, path) != 0) continue;
                size_t ng = 0;
                int first = 1;
                for (size_t a = 0; a < n; a++)
                    for (size_t b = 0; b < jobs[a].sightings.n; b++) {
                        const struct sighting *g = &jobs[a].sightings.v[b];
                        if (strcmp(g->file, path) != 0 || g->insert_offset != lead->insert_offset) continue;
                        if (ng == 0 && g != lead) first = 0;   /* judged with an earlier sighting */
                        group[ng++] = g;
                    }
                if (!first) continue;
                struct included_verdict v;
                included_verdict(group, ng, tus, &v);
                for (size_t a = 0; a < n; a++)
                    for (size_t r = 0; r < jobs[a].rows.n; r++) {
                        struct fn_row *row = &jobs[a].rows.v[r];
                        if (row->reason || !row->located || strcmp(row->file, path) != 0 ||
                            row->insert_offset != lead->insert_offset)
                            continue;
                        if (v.reason) {
                            row->reason = v.reason;
                            free(row->detail);
                            row->detail = xstrdup(v.detail);
                        } else if (v.note) {
                            row_add_note(row, v.note);
                        }
                    }
                free(v.detail);
                json_decref(v.note);
            }
    }
    free(group);
}

/* The second pass and the verdicts: only when a candidate lives in a
 * source file some TU includes (rare: no extra work otherwise). */
static void run_jobs(struct tu_job *jobs, size_t n);
static void judge_included_sources(struct tu_job *jobs, size_t n, struct gcc_includes *includes)
{
    struct strvec files = STRVEC_INIT;
    included_with_candidates(jobs, n, &files);
    if (files.n == 0) return;
    struct included_tu *tus = xcalloc(n, sizeof *tus);
    struct strvec sources = STRVEC_INIT;
    for (size_t i = 0; i < n; i++) sv_push(&sources, "");
    for (size_t i = 0; i < n; i++) {
        struct tu_job *j = &jobs[i];
        char *source = path_absolute(j->compile->source, j->compile->directory);
        free(sources.v[i]);
        sources.v[i] = source;
        tus[i].source = source;
        tus[i].output = j->compile->output;
        /* A TU the first pass did not parse may include one of the files;
         * one that compiles one as its own source saw only its functions
         * that vectorized there. */
        if ((!j->parsed && !j->unparsable && file_exists(source)) || sv_contains(&files, source)) {
            j->sight_files = &files;
            if (!j->gcc_include) j->gcc_include = gcc_include_dir(includes, j->compile);
        }
    }
    run_jobs(jobs, n);
    for (size_t i = 0; i < n; i++) jobs[i].sight_files = NULL;
    apply_verdicts(jobs, n, &files, tus);
    sv_free(&sources);
    free(tus);
    sv_free(&files);
}

#define MAX_PARSERS 8

struct job_queue {
    struct tu_job *jobs;
    size_t n, next;
    pthread_mutex_t lock;
};

struct worker_arg {
    struct job_queue *queue;
    CXIndex index;
};

/* A worker parses TUs until none is left, with its own libclang index:
 * libclang is thread-safe for distinct indexes and TUs. */
static void *worker(void *arg)
{
    struct worker_arg *w = arg;
    struct job_queue *q = w->queue;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next++;
        pthread_mutex_unlock(&q->lock);
        if (i >= q->n) break;
        run_job(w->index, &q->jobs[i]);
    }
    return NULL;
}

static void run_jobs(struct tu_job *jobs, size_t n)
{
    struct job_queue q = {jobs, n, 0, PTHREAD_MUTEX_INITIALIZER};
    size_t busy = 0;
    for (size_t i = 0; i < n; i++) busy += job_busy(&jobs[i]);
    size_t nthreads = (size_t)(cpu_count() > 0 ? cpu_count() : 1);
    /* A parsed C++ TU can hold hundreds of MB: a few at a time is enough. */
    if (nthreads > MAX_PARSERS) nthreads = MAX_PARSERS;
    if (nthreads > busy) nthreads = busy;
    if (nthreads == 0) return;
    /* Indexes are created here, one after the other: creating one
     * initializes LLVM's global target registry, which is not safe to do
     * from two threads at once. */
    struct worker_arg *args = xcalloc(nthreads, sizeof *args);
    for (size_t t = 0; t < nthreads; t++) args[t] = (struct worker_arg){&q, clang_createIndex(0, 0)};
    pthread_t *threads = xcalloc(nthreads, sizeof *threads);
    size_t started = 0;
    if (nthreads > 1) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        /* Deeply nested code recurses deeply in clang's parser. */
        pthread_attr_setstacksize(&attr, 16u << 20);
        for (; started < nthreads; started++)
            if (pthread_create(&threads[started], &attr, worker, &args[started]) != 0) break;
        pthread_attr_destroy(&attr);
    }
    if (started == 0) worker(&args[0]);   /* one job, or no thread could start: do it here */
    for (size_t t = 0; t < started; t++) pthread_join(threads[t], NULL);
    for (size_t t = 0; t < nthreads; t++) clang_disposeIndex(args[t].index);
    free(threads);
    free(args);
}

int candidates_analyze(struct store *st, struct analyze_stats *stats)
{
    struct analyze_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    if (drop_rows_of_failed_compiles(st) != 0) return -1;
    size_t ncompiles = 0;
    struct compile_row *compiles = store_list_compiles(st, &ncompiles);
    struct tu_job *jobs = xcalloc(ncompiles ? ncompiles : 1, sizeof *jobs);
    struct gcc_includes includes = {STRVEC_INIT, STRVEC_INIT};
    int rc = 0;
    for (size_t i = 0; i < ncompiles && rc == 0; i++) {
        jobs[i].compile = &compiles[i];
        jobs[i].index = i;
        rc = load_wanted(st, &compiles[i], &jobs[i].wanted);
        if (jobs[i].wanted.n > 0) jobs[i].gcc_include = gcc_include_dir(&includes, &compiles[i]);
    }
    if (rc == 0) run_jobs(jobs, ncompiles);
    if (rc == 0) judge_included_sources(jobs, ncompiles, &includes);
    for (size_t i = 0; i < ncompiles; i++) {
        struct tu_job *j = &jobs[i];
        if (rc == 0) {
            stats->unparsable_tus += j->unparsable;
            for (size_t k = 0; k < j->rows.n; k++) {
                if (j->rows.v[k].reason) stats->excluded++;
                else stats->candidates++;
            }
            if (store_rows(st, j->compile->id, &j->rows) != 0) rc = -1;
            for (size_t k = 0; rc == 0 && k < j->wanted.isa_notes.n; k++)
                if (store_add_tu_note(st, j->compile->id, "isa-unmatched", j->wanted.isa_notes.v[k]) != 0) rc = -1;
        }
        rows_free(&j->rows);
        wanted_free(&j->wanted);
        sv_free(&j->included);
        sightings_free(&j->sightings);
    }
    free(jobs);
    sv_free(&includes.compilers);
    sv_free(&includes.dirs);
    compile_rows_free(compiles, ncompiles);
    return rc;
}
