/* load.c - see plan.h (patch_resolve_targets, patch_validate_targets) and
 * plan_internal.h (patch_load_functions, patch_function_cmp): what the
 * store holds for a patch - the targets, the compilers that test-compile
 * them, the candidate functions with their notes and loop counts, read
 * through query.h. */
#include "patch/plan_internal.h"
#include "patch/query.h"
#include "store/dropped.h"
#include "store/notes.h"
#include "store/store.h"
#include "targets/targets.h"

#include <stdlib.h>
#include <string.h>

int patch_resolve_targets(struct store *st, const char *spec, int exact, struct strvec *out)
{
    char *stored = NULL;
    const char *use = spec;
    if (!use && exact) use = TARGETS_EXACT;
    if (!use) use = stored = store_meta_get(st, "targets");
    if (!use || !*use) use = TARGETS_DEFAULT;
    int rc = targets_parse(use, out);
    free(stored);
    if (rc != 0) return -1;
    if (exact) {
        for (size_t i = 0; i < out->n; i++)
            if (target_enables_fma(out->v[i]))
                return fmv_error("%s: enables FMA, which changes floating-point results; --exact needs "
                                 "FMA-free targets such as %s", out->v[i], TARGETS_EXACT);
    }
    return 0;
}

/* One compiler of the candidates' compiles: GCC or Clang, and the targets
 * compile with it. */
static int validate_with(void *ctx, const char *cc, const char *kind, const char *version)
{
    const struct strvec *targets = ctx;
    if (!cc) return 0;
    if (!kind || (strcmp(kind, "gcc") != 0 && strcmp(kind, "clang") != 0))
        return fmv_error("%s: not GCC or Clang; target_clones needs one of them", cc);
    return targets_validate(targets, cc, kind, version ? atoi(version) : 0);
}

int patch_validate_targets(struct store *st, const struct strvec *targets, const char *compiler,
                           const char *compiler_kind, int major)
{
    if (compiler) return targets_validate(targets, compiler, compiler_kind, major);
    return patch_query_candidate_compilers(st, validate_with, (void *)targets);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* One variant's loop count onto f: the build's, and the first target
 * probe's (not the -O3 comparison). */
static void take_loop_count(void *ctx, const char *variant, int count, int bytes)
{
    struct patch_function *f = ctx;
    if (!variant) return;
    if (!strcmp(variant, "build")) {
        f->build_loops = count;
        f->build_bytes = bytes;
    } else if (!strncmp(variant, "probe:", 6) && strcmp(variant, "probe:O3") != 0 && !f->probe_target) {
        f->probe_target = xstrdup(variant + 6);
        f->probe_loops = count;
        f->probe_bytes = bytes;
    }
}

/* Fills the build/probe loop counts of f from the loops table. */
static void load_loops(struct store *st, int64_t compile_id, struct patch_function *f)
{
    patch_query_loop_counts(st, compile_id, f->name, take_loop_count, f);
}

int patch_function_cmp(const void *a, const void *b)
{
    const struct patch_function *x = a, *y = b;
    int c = strcmp(x->rel, y->rel);
    if (c) return c;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* What the "included-source" note (candidates/included.h) says: the
 * symbols of every including TU, the spelling FMVGEN_CLONES gets; the
 * "header-switch" note (candidates/header.h): the switch and its TUs; and the
 * linkage libclang saw, from it or from a "static-macro" note (a static
 * hidden behind METHODDEF(void)). */
static void read_included_note(struct patch_function *f)
{
    size_t j;
    json_t *note;
    json_array_foreach(f->notes, j, note)
    {
        json_t *st = json_object_get(note, "static");
        if (json_is_boolean(st)) f->linkage = json_is_true(st) ? PATCH_LINKAGE_STATIC : PATCH_LINKAGE_EXTERNAL;
        if (json_is_true(json_object_get(note, "earlier"))) f->static_earlier = 1;
        if (note_kind_of(note) == NOTE_VISIBILITY) f->hidden = 1;
        if (note_kind_of(note) == NOTE_HEADER_SWITCH) {
            const char *tag = json_string_value(json_object_get(note, "tag"));
            free(f->switch_tag);
            f->switch_tag = tag ? xstrdup(tag) : NULL;
            size_t k;
            json_t *tu;
            json_array_foreach(json_object_get(note, "tus"), k, tu)
            {
                const char *src = json_string_value(json_object_get(tu, "source"));
                if (src && !sv_contains(&f->switch_sources, src)) sv_push(&f->switch_sources, src);
            }
            json_t *x = json_object_get(note, "expansion");
            const char *spelled = json_string_value(json_object_get(x, "spelled"));
            const char *place = json_string_value(json_object_get(x, "place"));
            if (spelled && place) {
                f->expansion_spelled = xstrdup(spelled);
                f->expansion_place = xstrdup(place);
                json_t *sym;
                json_array_foreach(json_object_get(x, "symbols"), k, sym)
                {
                    const char *v = json_string_value(sym);
                    if (v && !sv_contains(&f->expansion_symbols, v)) sv_push(&f->expansion_symbols, v);
                }
            }
        }
        if (note_kind_of(note) != NOTE_INCLUDED_SOURCE && note_kind_of(note) != NOTE_HEADER_SWITCH) continue;
        size_t k;
        json_t *sym;
        json_array_foreach(json_object_get(note, "symbols"), k, sym)
        {
            const char *v = json_string_value(sym);
            if (v && !sv_contains(&f->symbols, v)) sv_push(&f->symbols, v);
        }
        const char *spelling = json_string_value(json_object_get(note, "spelling"));
        if (spelling) f->clones_arg = xstrdup(spelling);
    }
}

/* 1 when a row's notes (JSON text) hold a "header-switch" note with an
 * "expansion". */
static int is_expansion(const char *notes)
{
    if (!notes || !strstr(notes, "expansion")) return 0;
    json_error_t e;
    json_t *a = json_loads(notes, 0, &e);
    json_t *n = notes_find(a, NOTE_HEADER_SWITCH);
    int yes = n && json_is_object(json_object_get(n, "expansion"));
    json_decref(a);
    return yes;
}

/* A C identifier or a mangled C++ name: what FMVGEN_CLONES(sym) can
 * stringize into an assembler symbol. */
static int is_symbol(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

int patch_load_functions(struct store *st, const char *root, struct patch_plan *p)
{
    struct patch_candidates *rows = patch_candidates_open(st);
    if (!rows) return -1;
    size_t cap = 16;
    p->functions = xcalloc(cap, sizeof *p->functions);
    int rc = 0;
    size_t outside = 0;
    char *last_file = NULL;   /* the previous row's definition: a second compile's row repeats it */
    size_t last_offset = 0;
    struct patch_candidate_row r;
    while (patch_candidates_next(rows, &r)) {
        const char *file = r.file;
        const char *name = r.name;
        if (!file || !name || !r.located) {
            rc = fmv_error("%s: candidate %s has no located definition; run 'fmvgen scan' again",
                           file ? file : store_path(st), name ? name : "?");
            break;
        }
        size_t offset = (size_t)r.insert_offset;
        /* One TU compiled twice (static and shared library): one function.
         * A header expanded under several names from one place
         * (candidates/header.h): one function per name. */
        if (is_expansion(r.notes)) {
            int seen = 0;
            for (size_t i = 0; i < p->nfunctions && !seen; i++)
                seen = !strcmp(p->functions[i].file, file) && p->functions[i].offset == offset &&
                       !strcmp(p->functions[i].name, name);
            if (seen) continue;
        } else if (last_file && !strcmp(last_file, file) && last_offset == offset) {
            continue;   /* also when the first row was left out: one warning, one line */
        }
        free(last_file);
        last_file = xstrdup(file);
        last_offset = offset;
        char *rel = path_relative_to(file, root);
        if (!rel) {   /* e.g. a test framework's sources under /usr/src */
            int line = r.line > 0 ? r.line : r.insert_line;
            sv_pushf(&p->skipped, "%s:%d %s: outside the project root %s: a patch cannot name it (scan --root DIR)",
                     file, line, name, root);
            fmv_warn("%s:%d: %s not patched: outside the project root %s (scan --root DIR)", file, line, name, root);
            outside++;
            continue;
        }
        if (p->nfunctions == cap) p->functions = xrealloc(p->functions, (cap *= 2) * sizeof *p->functions);
        struct patch_function *f = &p->functions[p->nfunctions++];
        memset(f, 0, sizeof *f);
        f->file = xstrdup(file);
        f->rel = rel;
        f->name = xstrdup(name);
        f->display_name = dup_or_null(r.display_name);
        if (!f->display_name) f->display_name = xstrdup(name);
        f->offset = offset;
        f->start = offset;
        f->insert_line = r.insert_line;
        f->line = f->insert_line;
        if (r.line > 0) f->line = r.line;
        f->source_hash = dup_or_null(r.source_hash);
        f->kind = candidate_kind_parse(r.kind);
        f->score = r.score;
        f->evidence = dup_or_null(r.evidence);
        f->fma_score = r.fma_score;
        int known = dropped_calls_decode(r.dropped_calls, &f->dropped_calls);
        if (known < 0) {
            rc = fmv_error("%s: functions.dropped_calls of %s is no JSON array of names ('%s'); run 'fmvgen scan' "
                           "again",
                           store_path(st), name, r.dropped_calls);
            break;
        }
        f->dropped_known = known == 0;
        f->end_line = r.end_line;
        f->end_col = r.end_col;
        const char *notes = r.notes;
        json_error_t e;
        f->notes = notes ? json_loads(notes, 0, &e) : NULL;
        if (!json_is_array(f->notes)) {
            json_decref(f->notes);
            f->notes = json_array();
        }
        read_included_note(f);
        load_loops(st, r.compile_id, f);
        /* Other code before the definition on its first line: a line above
         * it would give that code the attribute too. Left out, said why. */
        const char *shared = NULL;
        size_t j;
        json_t *note;
        json_array_foreach(f->notes, j, note)
        {
            if (note_kind_of(note) == NOTE_SHARED_LINE) shared = json_string_value(json_object_get(note, "detail"));
        }
        if (!shared && !is_symbol(f->clones_arg ? f->clones_arg : f->name))
            shared = "its symbol is not a plain identifier the preamble can name";
        if (shared) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, shared);
            fmv_warn("%s:%d: %s not patched: %s", f->file, f->line, f->display_name, shared);
            patch_function_free(f);
            p->nfunctions--;
        }
    }
    patch_candidates_close(rows);
    free(last_file);
    if (rc == 0 && outside && p->nfunctions == 0)
        rc = fmv_error("%s: every candidate lies outside the project root %s; scan again with --root DIR",
                       store_path(st), root);
    if (rc == 0) qsort(p->functions, p->nfunctions, sizeof *p->functions, patch_function_cmp);
    return rc;
}
