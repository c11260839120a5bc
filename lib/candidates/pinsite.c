/* pinsite.c - see pinsite.h. */
#include "candidates/pinsite.h"
#include "candidates/analyze_internal.h"
#include "candidates/eligibility.h"
#include "candidates/locate.h"
#include "candidates/simdifdef.h"
#include "candidates/tu.h"
#include "store/store.h"
#include "util/util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

int pinsite_reason_allows(enum exclusion_reason r)
{
    switch (r) {
    case REASON_NONE:
    case REASON_MAIN:
    case REASON_VARIADIC:
    case REASON_INTRINSICS:
    case REASON_INLINE_ASM:
    case REASON_USED_BEFORE_DEFINITION:
    case REASON_DECLARED_AFTER_DEFINITION:
    case REASON_INTERNAL_TEMPLATE:
    case REASON_TAG_NAME:
        return 1;
    default:
        return 0;
    }
}

void pin_site_free(struct pin_site *s)
{
    free(s->file);
    free(s->display_name);
    free(s->source_hash);
    free(s->why_not);
    s->file = s->display_name = s->source_hash = s->why_not = NULL;
}

static int store_error(struct store *st)
{
    return fmv_error("%s/store.sqlite: %s", store_path(st), sqlite3_errmsg(store_db(st)));
}

static char *dup_text(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    return t ? xstrdup((const char *)t) : NULL;
}

static const char *excluded_why(enum exclusion_reason r)
{
    switch (r) {
    case REASON_HEADER: return "defined in a header: every TU that includes it would get the line";
    case REASON_MACRO: return "its definition comes out of a macro";
    case REASON_TEMPLATE: return "a template: the line would apply to every instance";
    case REASON_INLINE: return "inline: copies in several TUs, or none out of line";
    case REASON_ATTRIBUTE: return "it carries attributes a pin may clash with";
    case REASON_PARSE_ERROR: return "libclang cannot parse its definition";
    case REASON_NOT_FOUND: return "its definition was not located";
    default: return "excluded for a reason a pin is not written for";
    }
}

/* From the functions rows of s->symbol: 1 when there is one (s filled),
 * 0 when none, -1 on a store error. */
static int from_rows(struct store *st, struct pin_site *s)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT status, reason, file, insert_offset, insert_line, line, display_name, source_hash "
                           "FROM functions WHERE name = ?1 ORDER BY id",
                           -1, &q, NULL) != SQLITE_OK)
        return store_error(st);
    sqlite3_bind_text(q, 1, s->symbol, -1, SQLITE_TRANSIENT);
    int n = 0, several = 0, candidate = 0, unlocated = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(q, 0);
        const char *file = (const char *)sqlite3_column_text(q, 2);
        int located = sqlite3_column_type(q, 3) != SQLITE_NULL && sqlite3_column_int64(q, 3) >= 0;
        if (status && !strcmp(status, "candidate")) candidate = 1;
        if (n++ == 0) {
            s->has_row = 1;
            s->reason = reason_parse((const char *)sqlite3_column_text(q, 1));
            s->file = dup_text(q, 2);
            s->insert_offset = located ? (size_t)sqlite3_column_int64(q, 3) : 0;
            s->insert_line = sqlite3_column_int(q, 4);
            s->line = sqlite3_column_int(q, 5);
            s->display_name = dup_text(q, 6);
            s->source_hash = dup_text(q, 7);
            unlocated = !located || !file;
        } else if (!file || !s->file || strcmp(file, s->file) != 0 || !located ||
                   (size_t)sqlite3_column_int64(q, 3) != s->insert_offset) {
            several = 1;
        }
    }
    sqlite3_finalize(q);
    if (!n) return 0;
    if (candidate) s->why_not = xstrdup("a candidate (pinned, if at all, as one)");
    else if (several) s->why_not = xstrdup("several definitions of that name (static namesakes)");
    else if (unlocated) s->why_not = xasprintf("excluded as %s, no located definition",
                                               reason_name(s->reason) ? reason_name(s->reason) : "?");
    else if (!pinsite_reason_allows(s->reason))
        s->why_not = xasprintf("excluded as %s: %s", reason_name(s->reason) ? reason_name(s->reason) : "?",
                               excluded_why(s->reason));
    return 1;
}

/* The one compile whose code holds symbol (function_profiles): its id in
 * *id; 0 found, 1 with s->why_not set. */
static int compile_of(struct store *st, struct pin_site *s, int64_t *id)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT DISTINCT c.id, c.source, c.directory FROM function_profiles f "
                           "JOIN compiles c ON c.id = f.compile_id WHERE f.name = ?1 AND c.exit_status = 0 "
                           "ORDER BY c.id",
                           -1, &q, NULL) != SQLITE_OK)
        return store_error(st);
    sqlite3_bind_text(q, 1, s->symbol, -1, SQLITE_TRANSIENT);
    char *source = NULL;
    int several = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        char *abs = path_absolute((const char *)sqlite3_column_text(q, 1), (const char *)sqlite3_column_text(q, 2));
        if (!source) {
            source = abs;
            *id = sqlite3_column_int64(q, 0);
            continue;
        }
        if (strcmp(abs, source) != 0) several = 1;   /* the same source twice (libtool): one definition */
        free(abs);
    }
    sqlite3_finalize(q);
    if (!source) s->why_not = xstrdup("no functions row and no compile of the scan holds its code (scanned with "
                                      "--no-probe, or not compiled by the scanned build)");
    else if (several) s->why_not = xstrdup("no functions row, and several TUs hold code of that name (static "
                                           "namesakes)");
    free(source);
    return s->why_not ? 1 : 0;
}

/* Locates sites[idx[0..n)] in compile c, parsed once. */
static void locate_in(struct gcc_includes *inc, const struct compile_row *c, struct pin_site *sites, const size_t *idx,
                      size_t n)
{
    CXIndex index = clang_createIndex(0, 0);
    char *error = NULL;
    int from_log = !c->compiler_kind || !strcmp(c->compiler_kind, "unknown");
    struct parsed_tu *tu = tu_parse(index, c, gcc_include_dir(inc, c), from_log, &error);
    struct pp_directives *pp = tu ? pp_directives_scan(tu) : NULL;
    for (size_t i = 0; i < n; i++) {
        struct pin_site *s = &sites[idx[i]];
        if (!tu) {
            s->why_not = xasprintf("no functions row, and its TU %s does not parse with libclang (%s)", c->source,
                                   error ? error : "?");
            continue;
        }
        struct fn_def def;
        memset(&def, 0, sizeof def);
        if (locate_by_name(tu, s->symbol, &def) != DEF_FOUND) {
            s->why_not = xasprintf("no functions row, and libclang finds no definition of it in %s", c->source);
        } else if (!tu_is_main_file(tu, def.cxfile)) {
            s->why_not = xasprintf("no functions row, and it is defined in %s, which %s includes", def.file,
                                   c->source);
        } else {
            struct eligibility el;
            eligibility_check_emitted(tu, pp, &def, 1, &el);
            s->reason = el.reason;
            if (!pinsite_reason_allows(el.reason))
                s->why_not = xasprintf("%s: %s", reason_name(el.reason) ? reason_name(el.reason) : "?",
                                       excluded_why(el.reason));
            else if (def.shared_line_prefix)
                s->why_not = xstrdup("other code shares its definition's first line");
            free(el.detail);
            json_decref(el.note);
            s->file = def.file ? xstrdup(def.file) : NULL;
            s->insert_offset = def.insert_offset;
            s->insert_line = (int)def.insert_line;
            s->line = (int)def.line;
            s->display_name = def.display_name ? xstrdup(def.display_name) : NULL;
            s->source_hash = c->source_hash ? xstrdup(c->source_hash) : NULL;
            if (!s->file && !s->why_not) s->why_not = xstrdup("libclang names no file for its definition");
        }
        fn_def_free(&def);
    }
    if (pp) pp_directives_free(pp);
    if (tu) tu_free(tu);
    free(error);
    clang_disposeIndex(index);
}

int pinsite_find(struct store *st, struct pin_site *sites, size_t n)
{
    int64_t *ids = xcalloc(n + 1, sizeof *ids);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int r = from_rows(st, &sites[i]);
        if (r < 0) rc = -1;
        else if (r == 0 && compile_of(st, &sites[i], &ids[i]) < 0) rc = -1;
    }
    struct gcc_includes inc = {STRVEC_INIT, STRVEC_INIT};
    size_t *idx = xcalloc(n + 1, sizeof *idx);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!ids[i] || sites[i].has_row || sites[i].why_not || sites[i].file) continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (ids[j] == ids[i] && !sites[j].has_row && !sites[j].why_not && !sites[j].file) idx[k++] = j;
        struct compile_row c;
        if (store_get_compile(st, ids[i], &c) != 0) {
            for (size_t j = 0; j < k; j++) sites[idx[j]].why_not = xstrdup("its compile cannot be read from the store");
            continue;
        }
        locate_in(&inc, &c, sites, idx, k);
        for (size_t j = 0; j < k; j++)
            if (!sites[idx[j]].file && !sites[idx[j]].why_not) sites[idx[j]].why_not = xstrdup("not located");
        compile_row_free(&c);
    }
    sv_free(&inc.compilers);
    sv_free(&inc.dirs);
    free(idx);
    free(ids);
    return rc;
}
