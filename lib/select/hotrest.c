/* hotrest.c - see hotrest.h. */
#include "select/hotrest.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "elf/fmvnames.h"
#include "select/attribution.h"
#include "select/hostlines.h"
#include "select/placement.h"
#include "store/store.h"
#include "util/demangle.h"

int select_candidate_symbol(const struct select_session *s, const char *symbol)
{
    struct elf_fmv_name nm;
    if (elf_fmv_name(symbol, &nm) != ELF_FMV_NONE) return 1;
    char *base = attribution_base_name(symbol);
    int skip = 0;
    for (size_t f = 0; f < s->candidates.nfunctions && !skip; f++)
        skip = !strcmp(symbol, s->candidates.functions[f].name) || !strcmp(base, s->candidates.functions[f].name);
    free(base);
    return skip;
}

static int skip_candidate(const char *symbol, void *ctx)
{
    return select_candidate_symbol(ctx, symbol);
}

/* Why symbol (its base name) is no candidate, from the store's functions
 * rows; *display gets the row's display name (NULL: none). */
static char *why_not(sqlite3 *db, const char *symbol, const struct strvec *hosts, char **display)
{
    *display = NULL;
    char *base = attribution_base_name(symbol);
    char *why = NULL;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, "SELECT status, reason, display_name FROM functions WHERE name = ?1 "
                               "ORDER BY status = 'excluded' DESC LIMIT 1", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, base, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(q) == SQLITE_ROW) {
            const char *status = (const char *)sqlite3_column_text(q, 0);
            const char *reason = (const char *)sqlite3_column_text(q, 1);
            const char *dn = (const char *)sqlite3_column_text(q, 2);
            if (dn && *dn) *display = xstrdup(dn);
            if (status && !strcmp(status, "excluded"))
                why = xasprintf("excluded: %s%s", reason && *reason ? reason : "?",
                                sv_contains(hosts, base) ? "; the kernels inlined into it are candidates" : "");
            else
                why = xasprintf("%s", status ? status : "?");
        }
    }
    sqlite3_finalize(q);
    if (!why) why = xstrdup("no record: the scan saw no vectorized loop and no code that changes at the target in it");
    free(base);
    return why;
}

void session_note_hot_rest(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nh = 0;
    struct placement_hot *hot = placement_hot(s->placement, s->o->min_share, SELECT_MIN_SAMPLES, skip_candidate, s, &nh);
    if (!nh) return;
    struct strvec hosts = STRVEC_INIT;   /* the candidates' inlined-into hosts */
    for (size_t f = 0; f < s->candidates.nfunctions; f++)
        hostlines_hosts_of(s->candidates.functions[f].notes, &hosts, NULL);
    r->hot_rest = xcalloc(nh, sizeof *r->hot_rest);
    for (size_t i = 0; i < nh; i++) {
        int dup = 0;   /* one symbol in several linked files: its hottest */
        for (size_t k = 0; k < r->n_hot_rest && !dup; k++) dup = !strcmp(r->hot_rest[k].symbol, hot[i].symbol);
        if (dup) continue;
        struct select_hot_rest *h = &r->hot_rest[r->n_hot_rest++];
        h->symbol = xstrdup(hot[i].symbol);
        h->file = xstrdup(hot[i].file);
        h->share = hot[i].share;
        h->why = why_not(store_db(s->st), hot[i].symbol, &hosts, &h->display_name);
        if (!h->display_name) {
            h->display_name = symbol_is_mangled(hot[i].symbol) ? symbol_demangle(hot[i].symbol) : NULL;
            if (!h->display_name) h->display_name = xstrdup(hot[i].symbol);
        }
    }
    free(hot);
    sv_free(&hosts);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->n_hot_rest && i < SELECT_HOT_REST_SHOWN; i++)
        sb_addf(&sb, "%s%s (%.0f%%; %s)", i ? ", " : "", r->hot_rest[i].display_name, 100 * r->hot_rest[i].share,
                r->hot_rest[i].why);
    if (r->n_hot_rest > SELECT_HOT_REST_SHOWN)
        sb_addf(&sb, " and %zu more (report.json's hot_non_candidates)", r->n_hot_rest - SELECT_HOT_REST_SHOWN);
    sv_pushf(&r->notes,
             "%zu hot function%s of the baseline %s no candidate, so select could not clone %s (the largest share "
             "of a workload's samples; why): %s",
             r->n_hot_rest, r->n_hot_rest == 1 ? "" : "s", r->n_hot_rest == 1 ? "is" : "are",
             r->n_hot_rest == 1 ? "it" : "them", sb_str(&sb));
    sb_free(&sb);
}
