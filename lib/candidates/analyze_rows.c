/* analyze_rows.c - see analyze_internal.h: the functions rows of one
 * compile as they will be stored (query.h stores them), and their notes. */
#include "candidates/analyze_internal.h"
#include "candidates/eligibility.h"
#include "candidates/isa.h"
#include "candidates/laterdecl.h"
#include "candidates/params.h"
#include "candidates/simdifdef.h"
#include "capture/compiler.h"
#include "store/notes.h"
#include "store/reasons.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

struct fn_row *fn_row_new(struct row_list *rows)
{
    if (rows->n == rows->cap) rows->v = xrealloc(rows->v, (rows->cap = rows->cap ? rows->cap * 2 : 16) * sizeof *rows->v);
    struct fn_row *r = &rows->v[rows->n++];
    memset(r, 0, sizeof *r);
    return r;
}

static void fn_row_free(struct fn_row *r)
{
    free(r->name);
    free(r->display_name);
    free(r->file);
    free(r->detail);
    free(r->notes);
    free(r->source_hash);
    free(r->evidence);
    sv_free(&r->dropped);
}

void fn_rows_free(struct row_list *rows)
{
    for (size_t i = 0; i < rows->n; i++) fn_row_free(&rows->v[i]);
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

static char *position_name(const struct wanted *w)
{
    return xasprintf("%s:%d", w->file ? path_basename(w->file) : "?", w->line);
}

/* A row for a function that was not located: named after the record, and
 * placed at the loop the compiler reported. */
static void fn_row_unlocated(struct fn_row *r, const struct wanted *w, const char *directory,
                             enum exclusion_reason reason, char *detail, const struct fn_def *def)
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

static void add_note(json_t *notes, enum note_kind kind, const char *detail)
{
    json_array_append_new(notes, note_new(kind, detail));
}

char *def_notes(const struct pp_directives *pp, struct parsed_tu *tu, const struct fn_def *def)
{
    json_t *notes = json_array();
    if (tu_is_main_file(tu, def->cxfile) || (compile_language_of(def->file) && !path_is_header(def->file))) {
        struct strvec details = STRVEC_INIT;
        simd_ifdef_details(pp, def, &details);
        for (size_t i = 0; i < details.n; i++) add_note(notes, NOTE_SIMD_IFDEF, details.v[i]);
        sv_free(&details);
    }
    char *why = locate_static_hidden(tu, def);
    if (why) {
        /* The patch reads "static" from the text; here a macro or an
         * earlier declaration holds it,
         * and an external FMVGEN_CLONES(sym) on a static function makes
         * clang < 18 emit a global alias and resolver (two files' static
         * emit_restart then do not link: libjpeg-turbo). */
        json_t *n = note_new(NOTE_STATIC_MACRO, why);
        json_object_set_new(n, "static", json_true());
        /* from an earlier declaration: the head writes no static at all */
        if (!strncmp(why, LOCATE_STATIC_EARLIER, strlen(LOCATE_STATIC_EARLIER)))
            json_object_set_new(n, "earlier", json_true());
        json_array_append_new(notes, n);
        free(why);
    }
    /* Hidden visibility (-fvisibility=hidden or an attribute, as libclang
     * sees the compile): GCC and clang < 18 export a target_clones
     * dispatcher anyway, so the patch hides it (patch/preamble.h). */
    if (def->match == DEF_FOUND && clang_getCursorLinkage(def->cursor) == CXLinkage_External &&
        clang_getCursorVisibility(def->cursor) == CXVisibility_Hidden)
        add_note(notes, NOTE_VISIBILITY, "hidden (-fvisibility=hidden or an attribute): the patch keeps its dispatcher hidden");
    if (def->shared_line_prefix) {
        char *d = xasprintf("line %u also holds '%s' before the definition: an attribute line inserted above "
                            "it would precede that code too",
                            def->insert_line, def->shared_line_prefix);
        add_note(notes, NOTE_SHARED_LINE, d);
        free(d);
    }
    /* declarations below the definition that take the attribute line too */
    json_t *later = laterdecl_note(tu, def);
    if (later) json_array_append_new(notes, later);
    /* what --dispatch cpuid forwards (params.h) */
    if (def->match == DEF_FOUND) {
        const char *kept = eligibility_body_kept_out(tu, pp, def);
        char *why = kept ? xasprintf("it carries __attribute__((%s)), which keeps its body out of its copies (clang "
                                     "would call one body, compiled for the baseline, from each)", kept)
                         : NULL;
        json_array_append_new(notes, why ? params_note_refused(why) : params_note(tu, def));
        free(why);
    }
    char *s = json_dumps(notes, JSON_COMPACT);
    json_decref(notes);
    char *r = xstrdup(s ? s : "[]");
    free(s);
    return r;
}

void fn_row_located(struct fn_row *r, const struct fn_def *def, const struct eligibility *el, char *notes)
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

static struct fn_row *fn_row_named(struct row_list *rows, const char *name)
{
    for (size_t i = 0; i < rows->n; i++)
        if (rows->v[i].name && !strcmp(rows->v[i].name, name)) return &rows->v[i];
    return NULL;
}

/* Adds the row of an unlocated function unless one of that name exists
 * ("foo" and "foo.part.0" both unlocated). Takes detail. */
void fn_rows_add_unlocated(struct row_list *rows, const struct wanted *w, const char *directory,
                           enum exclusion_reason reason, char *detail, const struct fn_def *def)
{
    struct fn_row tmp;
    memset(&tmp, 0, sizeof tmp);
    fn_row_unlocated(&tmp, w, directory, reason, detail, def);
    struct fn_row *r = fn_row_named(rows, tmp.name);
    if (r) fn_row_free(&tmp);
    else *(r = fn_row_new(rows)) = tmp;
    fn_row_take_kind(r, w);
}

/* The kind, score and evidence of a wanted function onto its row; "foo"
 * and "foo.part.0" on one row keep the kind that says more. */
void fn_row_take_kind(struct fn_row *r, const struct wanted *w)
{
    if (!r) return;
    r->kind = candidate_kind_max(r->kind, w->kind);
    if (w->score > r->score) {
        r->score = w->score;
        r->fma_score = w->fma_score;
        free(r->evidence);
        r->evidence = w->evidence ? xstrdup(w->evidence) : NULL;
        sv_free(&r->dropped);
        sv_push_all(&r->dropped, w->dropped.v);
    }
}

void fn_row_add_note(struct fn_row *r, json_t *note)
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
