/* analyze.c - see analyze.h. Per successful compile: the distinct functions
 * its loop records name (build and probes alike), one libclang parse of the
 * TU, each function located (locate.h), judged (eligibility.h) and noted
 * (simdifdef.h), and the compile's functions rows replaced in one
 * transaction - so a failure halfway leaves the previous rows intact. The
 * pieces are in analyze_internal.h. */
#include "candidates/analyze.h"
#include "candidates/analyze_internal.h"
#include "candidates/eligibility.h"
#include "candidates/helpers.h"
#include "candidates/inlined.h"
#include "candidates/query.h"
#include "candidates/simdifdef.h"
#include "store/notes.h"
#include "store/store.h"
#include "util/util.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* 1 when the build's object defines symbol as a function of its own (or
 * only as GCC's out-of-line copies of it: "f.constprop.0", "f.isra.0");
 * 0 when it does not or the object could not be read. */
static int emitted_by_build(const struct wanted_list *wanted, const char *symbol)
{
    return wanted->object_known && helpers_object_defines(&wanted->object_functions, symbol);
}

/* The note of a function declared inline that eligibility.h let through
 * because the build compiled it out of line. */
static void note_inline_emitted(struct fn_row *r)
{
    json_t *n = note_new(NOTE_INLINE_EMITTED,
                         "declared inline, but the build compiled it out of line (a symbol of its own in the "
                         "object): cloned like any static function; a call site the build inlined it into "
                         "becomes a call");
    fn_row_add_note(r, n);
    json_decref(n);
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
        struct helper_isa_share *isa = xcalloc(wanted->ninl ? wanted->ninl : 1, sizeof *isa);
        size_t nisa = 0;
        for (size_t i = 0; i < wanted->ninl; i++)
            if (wanted->inl[i].host && !strcmp(wanted->inl[i].host, rows->v[row_of[k]].name))
                isa[nisa++] = (struct helper_isa_share){wanted->inl[i].name, wanted->inl[i].score};
        helpers_note(tu, pp, &seen[k], positions, n, seen, nseen,
                     wanted->object_known ? &wanted->object_functions : NULL, isa, nisa, notes);
        free(isa);
        size_t j;
        json_t *note;
        json_array_foreach(notes, j, note) fn_row_add_note(&rows->v[row_of[k]], note);
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
        struct fn_row *r = fn_row_new(rows);
        fn_row_located(r, &callees[i].def, &callees[i].el, def_notes(pp, tu, &callees[i].def));
        size_t j;
        json_t *note;
        json_array_foreach(callees[i].notes, j, note) fn_row_add_note(r, note);
        if (callees[i].el.note) fn_row_add_note(r, callees[i].el.note);
        json_decref(callees[i].notes);
        json_decref(callees[i].el.note);
        fn_def_free(&callees[i].def);
    }
    free(callees);
    for (size_t k = 0; k < nh; k++) free((void *)hosts[k].positions);
    free(hosts);
}

void analyze_tu(struct parsed_tu *tu, struct pp_directives *pp, const struct compile_row *c,
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
            if (row_of[duplicate] != SIZE_MAX) fn_row_take_kind(&rows->v[row_of[duplicate]], w);
            fn_def_free(&def);
            continue;
        }
        struct eligibility el;
        int emitted = def.match == DEF_FOUND && emitted_by_build(wanted, def.symbol);
        eligibility_check_emitted(tu, pp, &def, emitted, &el);
        row_of[nseen] = SIZE_MAX;
        if (def.match == DEF_FOUND || def.match == DEF_TEMPLATE) {
            fn_row_located(fn_row_new(rows), &def, &el, def_notes(pp, tu, &def));
            row_of[nseen] = rows->n - 1;
            if (el.note) fn_row_add_note(&rows->v[rows->n - 1], el.note);   /* redecl.h */
            if (emitted && !el.reason && clang_Cursor_isFunctionInlined(def.cursor)) note_inline_emitted(&rows->v[rows->n - 1]);
        } else {
            fn_rows_add_unlocated(rows, w, c->directory, el.reason, el.detail, &def);
        }
        if (row_of[nseen] != SIZE_MAX) fn_row_take_kind(&rows->v[row_of[nseen]], w);
        json_decref(el.note);
        seen_of[i] = nseen;
        seen[nseen++] = def;
    }
    note_helpers(tu, pp, wanted, seen_of, seen, row_of, nseen, rows);
    add_inlined_callees(tu, pp, wanted, seen_of, seen, row_of, nseen, rows);
    analyze_isa_inlined(tu, pp, c, wanted, seen, row_of, nseen, rows);
    for (size_t k = 0; k < nseen; k++) fn_def_free(&seen[k]);
    free(seen);
    free(row_of);
    free(seen_of);
}

/* One definition of a source file gets one attribute line for all the
 * compiles that see it: when one compile excludes it, another's candidate
 * row is excluded too, with that reason. The compiles may see it under
 * different names (xz's stream_encoder_mt.c: libtool's PIC compile defines
 * lzma_stream_encoder_mt_52 through a macro that only PIC turns on, the
 * other lzma_stream_encoder_mt) or under one name with other macros
 * (faad2 compiles libfaad again with -DDRM, which turns on a static
 * function of bits.h calling faad_rewindbits above its definition:
 * used-before-definition there only). "inline" is not carried over: a
 * compile that inlined the function everywhere does not make another
 * compile's out-of-line copy (a candidate) unsafe to clone. A header's
 * rows are left alone (their per-TU switch, header.h). */
static void exclude_across_compiles(struct tu_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < jobs[i].rows.n; k++) {
            struct fn_row *r = &jobs[i].rows.v[k];
            if (r->reason || !r->located || !r->file || path_is_header(r->file)) continue;
            for (size_t j = 0; j < n && !r->reason; j++) {
                if (j == i) continue;
                for (size_t m = 0; m < jobs[j].rows.n && !r->reason; m++) {
                    const struct fn_row *q = &jobs[j].rows.v[m];
                    if (!q->reason || q->reason == REASON_INLINE || !q->located || !q->file ||
                        q->insert_offset != r->insert_offset || strcmp(q->file, r->file) != 0)
                        continue;
                    const struct compile_row *c = jobs[j].compile;
                    const char *qd = q->detail ? q->detail : reason_name(q->reason);
                    r->reason = q->reason;
                    free(r->detail);
                    if (!strcmp(q->name ? q->name : "", r->name ? r->name : ""))
                        r->detail = xasprintf("the compile of %s into %s excludes it, and the file takes one line: %s",
                                              c->source ? c->source : "?", c->output ? c->output : "?", qd);
                    else
                        r->detail = xasprintf("the compile of %s into %s defines it here as %s, which it excludes, "
                                              "and the file takes one line: %s",
                                              c->source ? c->source : "?", c->output ? c->output : "?",
                                              q->name ? q->name : "?", qd);
                }
            }
        }
}

int candidates_analyze(struct store *st, struct analyze_stats *stats)
{
    struct analyze_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    if (candidates_query_drop_failed(st) != 0) return -1;
    size_t ncompiles = 0;
    struct compile_row *compiles = store_list_compiles(st, &ncompiles);
    struct tu_job *jobs = xcalloc(ncompiles ? ncompiles : 1, sizeof *jobs);
    struct gcc_includes includes = {STRVEC_INIT, STRVEC_INIT};
    int rc = 0;
    for (size_t i = 0; i < ncompiles && rc == 0; i++) {
        jobs[i].compile = &compiles[i];
        jobs[i].index = i;
        rc = wanted_load(st, &compiles[i], &jobs[i].wanted);
        if (jobs[i].wanted.n > 0) jobs[i].gcc_include = gcc_include_dir(&includes, &compiles[i]);
    }
    if (rc == 0) {
        analyze_group_twins(jobs, ncompiles);
        analyze_run_jobs(jobs, ncompiles);
    }
    if (rc == 0) analyze_included_sources(jobs, ncompiles, &includes);
    if (rc == 0) exclude_across_compiles(jobs, ncompiles);
    for (size_t i = 0; i < ncompiles; i++) {
        struct tu_job *j = &jobs[i];
        if (rc == 0) {
            stats->unparsable_tus += j->unparsable;
            for (size_t k = 0; k < j->rows.n; k++) {
                if (j->rows.v[k].reason) stats->excluded++;
                else stats->candidates++;
            }
            if (candidates_query_store_rows(st, j->compile->id, &j->rows) != 0) rc = -1;
            for (size_t k = 0; rc == 0 && k < j->wanted.isa_notes.n; k++)
                if (store_add_tu_note(st, j->compile->id, TU_NOTE_ISA_UNMATCHED, j->wanted.isa_notes.v[k]) != 0) rc = -1;
        }
        fn_rows_free(&j->rows);
        wanted_free(&j->wanted);
        sv_free(&j->included);
        sightings_free(&j->sightings);
        free(j->parse_args);
    }
    free(jobs);
    sv_free(&includes.compilers);
    sv_free(&includes.dirs);
    compile_rows_free(compiles, ncompiles);
    return rc;
}
