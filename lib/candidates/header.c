/* header.c - see header.h. Plain data work over the sightings. */
#include "candidates/header.h"
#include "store/notes.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static void slug_into(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        int ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        sb_addf(sb, "%c", ok ? c : '_');
    }
}

char *header_switch_tag(const char *file, const char *symbol)
{
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "FMVGEN_CLONE_");
    slug_into(&sb, path_basename(file));
    sb_adds(&sb, "_");
    slug_into(&sb, symbol);
    return sb_detach(&sb);
}

static const char *tu_name(const struct included_tu *tus, size_t compile)
{
    return path_basename(tus[compile].source ? tus[compile].source : "?");
}

/* 1 when one TU defines more than one symbol from this place. */
static int expanded_twice(const struct sighting *const *all, size_t n, size_t *at)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (all[i]->compile == all[k]->compile && strcmp(all[i]->symbol, all[k]->symbol) != 0) {
                *at = i;
                return 1;
            }
    return 0;
}

/* Why the switch cannot serve it, in every TU (NULL: it can). *spelled:
 * the macro that names each expansion when one TU defines several. */
static char *common_problem(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                            enum exclusion_reason *reason, const char **spelled)
{
    *spelled = NULL;
    size_t at = 0;
    for (size_t i = 1; i < n; i++)
        if (all[i]->is_static != all[0]->is_static) {
            *reason = REASON_HEADER;
            const struct sighting *st = all[i]->is_static ? all[i] : all[0], *ex = all[i]->is_static ? all[0] : all[i];
            return xasprintf("static in TU %s, external in TU %s (header %s): one attribute line cannot serve both",
                             tu_name(tus, st->compile), tu_name(tus, ex->compile), path_basename(all[i]->file));
        }
    /* An external function's attribute names its symbol (clang < 18's
     * alias): symbols that differ between TUs need the pasted switch too. */
    int external_renamed = 0;
    for (size_t i = 1; i < n && !all[0]->is_static; i++)
        if (strcmp(all[i]->symbol, all[0]->symbol) != 0) external_renamed = 1, at = i;
    if (expanded_twice(all, n, &at) || external_renamed) {
        /* One macro written as the name, a different symbol in each
         * expansion: the switch can be pasted from it. */
        const char *why = NULL;
        for (size_t i = 0; i < n && !why; i++) {
            if (all[i]->cxx) why = "a C++ function";
            else if (!all[i]->spelled) why = "its name is not written as an identifier";
            else if (strcmp(all[i]->spelled, all[0]->spelled) != 0) why = "its name is written differently in the TUs";
            else if (!strcmp(all[i]->spelled, all[i]->symbol)) why = "its name is written as itself, not as a macro";
        }
        if (!why) {
            *spelled = all[0]->spelled;
        } else {
            struct strbuf names = STRBUF_INIT;
            size_t count = 0;
            for (size_t j = 0; j < n; j++)
                if (all[j]->compile == all[at]->compile) sb_addf(&names, "%s%s", count++ ? ", " : "", all[j]->symbol);
            *reason = REASON_HEADER;
            if (count < 2) {
                sb_free(&names);
                return xasprintf("external, its symbol differs between TUs (%s in TU %s, %s in TU %s), and %s: no "
                                 "switch can name each TU's symbol",
                                 all[0]->symbol, tu_name(tus, all[0]->compile), all[at]->symbol,
                                 tu_name(tus, all[at]->compile), why);
            }
            char *r = xasprintf("defined %zu times from this place of header %s in TU %s (%s: the header is included "
                                "more than once with other macros), and %s: no switch can tell the expansions apart",
                                count, path_basename(all[at]->file), tu_name(tus, all[at]->compile), sb_str(&names),
                                why);
            sb_free(&names);
            return r;
        }
    }
    /* One expansion per TU: the line is FMVGEN_CLONES(spelled), which
     * must expand to the symbol. */
    for (size_t i = 0; i < n && !*spelled && !all[i]->is_static; i++)
        if (all[i]->spelling_why) {
            *reason = REASON_MACRO;
            return xasprintf("external function of header %s renamed by macro in TU %s (to %s): %s, so the attribute "
                             "line cannot name its symbol",
                             path_basename(all[i]->file), tu_name(tus, all[i]->compile), all[i]->symbol,
                             all[i]->spelling_why);
        }
    for (size_t i = 0; i < n; i++)
        if (!all[i]->reason && all[i]->redecl_text) {
            *reason = REASON_USED_BEFORE_DEFINITION;
            return xasprintf("used above its definition in header %s (TU %s): the redeclaration line would not be "
                             "switched per TU",
                             path_basename(all[i]->file), tu_name(tus, all[i]->compile));
        }
    return NULL;
}

/* The verdicts of the sightings idx[0..m) (one symbol) and their note. */
static void judge_symbol(const struct sighting *const *all, size_t n, const size_t *idx, size_t m,
                         const struct included_tu *tus, const char *spelled, struct header_verdict *out)
{
    /* Each TU's own verdict; a source one compile excludes is off in all
     * of its compiles (the switch goes into that file). */
    for (size_t j = 0; j < m; j++) {
        size_t i = idx[j];
        out->tu_reason[i] = all[i]->reason;
        if (all[i]->reason) out->tu_detail[i] = xstrdup(all[i]->detail ? all[i]->detail : reason_name(all[i]->reason));
    }
    for (size_t j = 0; j < m; j++) {
        size_t i = idx[j];
        if (out->tu_reason[i]) continue;
        const char *src = tus[all[i]->compile].source;
        for (size_t l = 0; l < m && !out->tu_reason[i]; l++) {
            size_t k = idx[l];
            if (!all[k]->reason || !src || !tus[all[k]->compile].source ||
                strcmp(src, tus[all[k]->compile].source) != 0)
                continue;
            out->tu_reason[i] = all[k]->reason;
            out->tu_detail[i] = xasprintf("%s is compiled twice, and the other compile (%s) excludes it: %s",
                                          tu_name(tus, all[i]->compile), tus[all[k]->compile].output
                                              ? tus[all[k]->compile].output : "?",
                                          all[k]->detail ? all[k]->detail : reason_name(all[k]->reason));
        }
    }
    const struct sighting *lead = NULL;
    for (size_t j = 0; j < m && !lead; j++)
        if (!out->tu_reason[idx[j]]) lead = all[idx[j]];
    if (!lead) return;
    char *tag = header_switch_tag(lead->file, lead->symbol);
    json_t *list = json_array(), *symbols = json_array(), *off = json_array();
    struct strbuf sb = STRBUF_INIT, offs = STRBUF_INIT;
    struct strvec on_names = STRVEC_INIT, off_names = STRVEC_INIT;
    for (size_t j = 0; j < m; j++) {
        size_t i = idx[j];
        const struct sighting *g = all[i];
        const char *src = tus[g->compile].source;
        if (out->tu_reason[i]) {
            json_array_append_new(off, json_pack("{s:s?, s:s, s:s}", "source", src, "reason",
                                                 reason_name(out->tu_reason[i]), "detail", out->tu_detail[i]));
            char *w = xasprintf("%s (%s)", tu_name(tus, g->compile), reason_name(out->tu_reason[i]));
            if (!sv_contains(&off_names, w)) sv_push(&off_names, w);
            free(w);
            continue;
        }
        json_array_append_new(list, json_pack("{s:s?, s:s?, s:s}", "source", src, "output", tus[g->compile].output,
                                              "symbol", g->symbol));
        if (!json_array_size(symbols)) json_array_append_new(symbols, json_string(g->symbol));
        if (!sv_contains(&on_names, tu_name(tus, g->compile))) sv_push(&on_names, tu_name(tus, g->compile));
    }
    sb_addf(&sb, "%s function of header %s: cloned", lead->is_static ? "static" : "external",
            path_basename(lead->file));
    sb_addf(&sb, " in the TUs that define %s (", tag);
    for (size_t i = 0; i < on_names.n; i++) sb_addf(&sb, "%s%s", i ? ", " : "", on_names.v[i]);
    sb_adds(&sb, ")");
    if (off_names.n) {
        for (size_t i = 0; i < off_names.n; i++) sb_addf(&offs, "%s%s", i ? ", " : "", off_names.v[i]);
        sb_addf(&sb, "; not in %s", sb_str(&offs));
    }
    json_t *note = note_new(NOTE_HEADER_SWITCH, sb_str(&sb));
    json_object_set_new(note, "tag", json_string(tag));
    json_object_set_new(note, "tus", list);
    json_object_set_new(note, "symbols", symbols);
    json_object_set_new(note, "static", json_boolean(lead->is_static));
    /* one expansion per TU: what FMVGEN_CLONES(...) gets, the name as
     * written (a macro that expands to the symbol) */
    if (!lead->is_static && !spelled && lead->spelled && strcmp(lead->spelled, lead->symbol) != 0)
        json_object_set_new(note, "spelling", json_string(lead->spelled));
    json_object_set_new(note, "off", off);
    if (spelled) {
        /* every symbol of this place in any TU: each needs its default */
        json_t *all_symbols = json_array();
        for (size_t i = 0; i < n; i++) {
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(all[k]->symbol, all[i]->symbol);
            if (!seen) json_array_append_new(all_symbols, json_string(all[i]->symbol));
        }
        char *place = header_switch_tag(lead->file, "");
        place[strlen(place) - 1] = '\0';   /* FMVGEN_CLONE_poly_fir_h */
        json_object_set_new(note, "expansion", json_pack("{s:s, s:s, s:o}", "spelled", spelled, "place",
                                                         place + strlen("FMVGEN_CLONE_"), "symbols", all_symbols));
        free(place);
    }
    out->notes[out->nnotes++] = note;
    for (size_t j = 0; j < m; j++)
        if (!out->tu_reason[idx[j]]) out->note_of[idx[j]] = note;
    sv_free(&on_names);
    sv_free(&off_names);
    sb_free(&sb);
    sb_free(&offs);
    free(tag);
}

void header_verdict(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                    struct header_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->tu_reason = xcalloc(n ? n : 1, sizeof *out->tu_reason);
    out->tu_detail = xcalloc(n ? n : 1, sizeof *out->tu_detail);
    out->note_of = xcalloc(n ? n : 1, sizeof *out->note_of);
    out->notes = xcalloc(n ? n : 1, sizeof *out->notes);
    if (n == 0) return;
    const char *spelled = NULL;
    char *problem = common_problem(all, n, tus, &out->reason, &spelled);
    if (problem) {
        out->detail = problem;
        return;
    }
    /* one switch per symbol (one unless the header is expanded under
     * several names) */
    size_t *idx = xcalloc(n, sizeof *idx);
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(all[k]->symbol, all[i]->symbol);
        if (seen) continue;
        size_t m = 0;
        for (size_t k = i; k < n; k++)
            if (!strcmp(all[k]->symbol, all[i]->symbol)) idx[m++] = k;
        judge_symbol(all, n, idx, m, tus, spelled, out);
    }
    free(idx);
}

void header_verdict_free(struct header_verdict *v, size_t n)
{
    free(v->detail);
    for (size_t i = 0; i < n && v->tu_detail; i++) free(v->tu_detail[i]);
    free(v->tu_detail);
    free(v->tu_reason);
    for (size_t i = 0; i < v->nnotes; i++) json_decref(v->notes[i]);
    free(v->notes);
    free(v->note_of);
    memset(v, 0, sizeof *v);
}
