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

/* Why the switch cannot serve it, in every TU (NULL: it can). */
static char *common_problem(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                            enum exclusion_reason *reason)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++) {
            if (all[i]->compile != all[k]->compile || !strcmp(all[i]->symbol, all[k]->symbol)) continue;
            struct strbuf names = STRBUF_INIT;
            size_t count = 0;
            for (size_t j = 0; j < n; j++)
                if (all[j]->compile == all[i]->compile) sb_addf(&names, "%s%s", count++ ? ", " : "", all[j]->symbol);
            *reason = REASON_HEADER;
            char *r = xasprintf("defined %zu times from this place of header %s in TU %s (%s: the header is included "
                                "more than once with other macros): the per-TU switch would clone all of them",
                                count, path_basename(all[i]->file), tu_name(tus, all[i]->compile), sb_str(&names));
            sb_free(&names);
            return r;
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

void header_verdict(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                    struct header_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->tu_reason = xcalloc(n ? n : 1, sizeof *out->tu_reason);
    out->tu_detail = xcalloc(n ? n : 1, sizeof *out->tu_detail);
    if (n == 0) return;
    char *problem = common_problem(all, n, tus, &out->reason);
    if (problem) {
        out->detail = problem;
        return;
    }
    /* Each TU's own verdict; a source one compile excludes is off in all
     * of its compiles (the switch goes into that file). */
    for (size_t i = 0; i < n; i++) {
        out->tu_reason[i] = all[i]->reason;
        if (all[i]->reason) out->tu_detail[i] = xstrdup(all[i]->detail ? all[i]->detail : reason_name(all[i]->reason));
    }
    for (size_t i = 0; i < n; i++) {
        if (out->tu_reason[i]) continue;
        const char *src = tus[all[i]->compile].source;
        for (size_t k = 0; k < n && !out->tu_reason[i]; k++) {
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
    size_t on = 0;
    for (size_t i = 0; i < n; i++) on += !out->tu_reason[i];
    if (!on) return;
    const struct sighting *lead = NULL;
    for (size_t i = 0; i < n && !lead; i++)
        if (!out->tu_reason[i]) lead = all[i];
    char *tag = header_switch_tag(lead->file, lead->symbol);
    json_t *list = json_array(), *symbols = json_array(), *off = json_array();
    struct strbuf sb = STRBUF_INIT, offs = STRBUF_INIT;
    struct strvec on_names = STRVEC_INIT, off_names = STRVEC_INIT;
    for (size_t i = 0; i < n; i++) {
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
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = !out->tu_reason[k] && !strcmp(all[k]->symbol, g->symbol);
        if (!seen) json_array_append_new(symbols, json_string(g->symbol));
        if (!sv_contains(&on_names, tu_name(tus, g->compile))) sv_push(&on_names, tu_name(tus, g->compile));
    }
    sb_addf(&sb, "static function of header %s: cloned in the TUs that define %s (", path_basename(lead->file), tag);
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
    json_object_set_new(note, "static", json_true());
    json_object_set_new(note, "off", off);
    out->note = note;
    sv_free(&on_names);
    sv_free(&off_names);
    sb_free(&sb);
    sb_free(&offs);
    free(tag);
}

void header_verdict_free(struct header_verdict *v, size_t n)
{
    free(v->detail);
    for (size_t i = 0; i < n && v->tu_detail; i++) free(v->tu_detail[i]);
    free(v->tu_detail);
    free(v->tu_reason);
    json_decref(v->note);
    memset(v, 0, sizeof *v);
}
