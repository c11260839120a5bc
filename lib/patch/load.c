/* load.c - see plan.h (patch_resolve_targets, patch_validate_targets) and
 * plan_internal.h (patch_load_functions, patch_function_cmp): what the
 * store holds for a patch - the targets, the compilers that test-compile
 * them, the candidate functions with their notes and loop counts. The
 * SQL of lib/patch/ is here. */
#include "patch/plan_internal.h"
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

int patch_validate_targets(struct store *st, const struct strvec *targets, const char *compiler,
                           const char *compiler_kind, int major)
{
    if (compiler) return targets_validate(targets, compiler, compiler_kind, major);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT DISTINCT c.compiler, c.compiler_kind, c.compiler_version FROM compiles c "
                           "JOIN functions f ON f.compile_id = c.id WHERE f.status = 'candidate' ORDER BY 1",
                           -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        const char *cc = (const char *)sqlite3_column_text(q, 0);
        const char *kind = (const char *)sqlite3_column_text(q, 1);
        const char *version = (const char *)sqlite3_column_text(q, 2);
        if (!cc) continue;
        if (!kind || (strcmp(kind, "gcc") != 0 && strcmp(kind, "clang") != 0)) {
            rc = fmv_error("%s: not GCC or Clang; target_clones needs one of them", cc);
            break;
        }
        rc = targets_validate(targets, cc, kind, version ? atoi(version) : 0);
    }
    sqlite3_finalize(q);
    return rc;
}

static char *col_dup(sqlite3_stmt *q, int i)
{
    const unsigned char *s = sqlite3_column_text(q, i);
    return s ? xstrdup((const char *)s) : NULL;
}

/* Fills the build/probe loop counts of f from the loops table. */
static void load_loops(struct store *st, int64_t compile_id, struct patch_function *f)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT variant, COUNT(*), MAX(COALESCE(vector_bytes, 0)) FROM loops "
                           "WHERE compile_id = ? AND function = ? GROUP BY variant ORDER BY variant",
                           -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, compile_id);
    sqlite3_bind_text(q, 2, f->name, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *variant = (const char *)sqlite3_column_text(q, 0);
        int count = sqlite3_column_int(q, 1), bytes = sqlite3_column_int(q, 2);
        if (!variant) continue;
        if (!strcmp(variant, "build")) {
            f->build_loops = count;
            f->build_bytes = bytes;
        } else if (!strncmp(variant, "probe:", 6) && strcmp(variant, "probe:O3") != 0 && !f->probe_target) {
            f->probe_target = xstrdup(variant + 6);
            f->probe_loops = count;
            f->probe_bytes = bytes;
        }
    }
    sqlite3_finalize(q);
}

int patch_function_cmp(const void *a, const void *b)
{
    const struct patch_function *x = a, *y = b;
    int c = strcmp(x->rel, y->rel);
    if (c) return c;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* What the "included-source" note (candidates/included.h) says: the
 * symbols of every including TU, the spelling FMVGEN_CLONES gets; and the
 * linkage libclang saw, from it or from a "static-macro" note (a static
 * hidden behind METHODDEF(void)). */
static void read_included_note(struct patch_function *f)
{
    size_t j;
    json_t *note;
    json_array_foreach(f->notes, j, note)
    {
        const char *kind = json_string_value(json_object_get(note, "kind"));
        json_t *st = json_object_get(note, "static");
        if (json_is_boolean(st)) f->linkage = json_is_true(st) ? PATCH_LINKAGE_STATIC : PATCH_LINKAGE_EXTERNAL;
        if (kind && !strcmp(kind, "visibility")) f->hidden = 1;
        if (!kind || strcmp(kind, "included-source") != 0) continue;
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
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT compile_id, name, display_name, file, line, insert_offset, insert_line, "
                           "source_hash, notes, kind, score, evidence, fma_score, end_line, end_col FROM functions WHERE status = 'candidate' "
                           "ORDER BY file, insert_offset, id",
                           -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    size_t cap = 16;
    p->functions = xcalloc(cap, sizeof *p->functions);
    int rc = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *file = (const char *)sqlite3_column_text(q, 3);
        const char *name = (const char *)sqlite3_column_text(q, 1);
        if (!file || !name || sqlite3_column_type(q, 5) == SQLITE_NULL || sqlite3_column_int64(q, 5) < 0) {
            rc = fmv_error("%s: candidate %s has no located definition; run 'fmvgen scan' again",
                           file ? file : store_path(st), name ? name : "?");
            break;
        }
        size_t offset = (size_t)sqlite3_column_int64(q, 5);
        /* One TU compiled twice (static and shared library): one function. */
        if (p->nfunctions && !strcmp(p->functions[p->nfunctions - 1].file, file) &&
            p->functions[p->nfunctions - 1].offset == offset)
            continue;
        char *rel = path_relative_to(file, root);
        if (!rel) {
            rc = fmv_error("%s: outside the project root %s; a patch cannot name it", file, root);
            break;
        }
        if (p->nfunctions == cap) p->functions = xrealloc(p->functions, (cap *= 2) * sizeof *p->functions);
        struct patch_function *f = &p->functions[p->nfunctions++];
        memset(f, 0, sizeof *f);
        f->file = xstrdup(file);
        f->rel = rel;
        f->name = xstrdup(name);
        f->display_name = col_dup(q, 2);
        if (!f->display_name) f->display_name = xstrdup(name);
        f->offset = offset;
        f->start = offset;
        f->insert_line = sqlite3_column_int(q, 6);
        f->line = f->insert_line;
        if (sqlite3_column_int(q, 4) > 0) f->line = sqlite3_column_int(q, 4);
        f->source_hash = col_dup(q, 7);
        f->kind = col_dup(q, 9);
        f->score = sqlite3_column_int(q, 10);
        f->evidence = col_dup(q, 11);
        f->fma_score = sqlite3_column_int(q, 12);
        f->end_line = sqlite3_column_int(q, 13);
        f->end_col = sqlite3_column_int(q, 14);
        const char *notes = (const char *)sqlite3_column_text(q, 8);
        json_error_t e;
        f->notes = notes ? json_loads(notes, 0, &e) : NULL;
        if (!json_is_array(f->notes)) {
            json_decref(f->notes);
            f->notes = json_array();
        }
        read_included_note(f);
        load_loops(st, sqlite3_column_int64(q, 0), f);
        /* Other code before the definition on its first line: a line above
         * it would give that code the attribute too. Left out, said why. */
        const char *shared = NULL;
        size_t j;
        json_t *note;
        json_array_foreach(f->notes, j, note)
        {
            const char *kind = json_string_value(json_object_get(note, "kind"));
            if (kind && !strcmp(kind, "shared-line")) shared = json_string_value(json_object_get(note, "detail"));
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
    sqlite3_finalize(q);
    if (rc == 0) qsort(p->functions, p->nfunctions, sizeof *p->functions, patch_function_cmp);
    return rc;
}
