/* inlined.c - see inlined.h. */
#include "candidates/inlined.h"
#include "store/notes.h"
#include "util/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct found {
    struct fn_def def;
    struct strvec hosts, reasons;     /* excluded hosts (display names) and their reasons */
    struct strvec symbols;            /* the hosts' symbols (as the ELF spells them) */
    struct strvec also;               /* candidates it was inlined into too */
    struct strvec lines;              /* the loop lines it holds */
};

static int host_qualifies(const struct inlined_host *h)
{
    return h->reason && h->reason != REASON_ATTRIBUTE && h->def->match == DEF_FOUND;
}

static const char *name_of(const struct fn_def *d)
{
    return d->display_name ? d->display_name : d->symbol;
}

/* The callee holding position p of host h, or NULL; *d is filled (caller
 * frees) when it returns non-NULL. */
static int callee_at(struct parsed_tu *tu, const struct inlined_host *h, const struct loop_position *p,
                     const struct fn_def *own, size_t nown, struct fn_def *d)
{
    if (locate_by_line(tu, p->file, p->line, d) != DEF_FOUND || fn_def_same(d, h->def) ||
        !tu_is_main_file(tu, d->cxfile) || clang_getCursorLinkage(d->cursor) != CXLinkage_Internal) {
        fn_def_free(d);
        return 0;
    }
    for (size_t k = 0; k < nown; k++)
        if (fn_def_same(d, &own[k])) {
            fn_def_free(d);
            return 0;
        }
    return 1;
}

static void push_once(struct strvec *v, const char *s)
{
    if (!sv_contains(v, s)) sv_push(v, s);
}

json_t *inlined_into_note(const char *what, const char *callee, enum exclusion_reason reason,
                          const struct strvec *hosts, const struct strvec *symbols, const struct strvec *reasons,
                          const struct strvec *also)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s into ", what);
    for (size_t i = 0; i < hosts->n; i++)
        sb_addf(&sb, "%s%s (excluded: %s)", i == 0 ? "" : i + 1 == hosts->n ? " and " : ", ", hosts->v[i],
                reasons->v[i]);
    if (reason)
        sb_addf(&sb, "; %s is no candidate either (%s)", callee, reason_name(reason));
    else
        sb_addf(&sb, ", so the candidate is %s itself; cloned, it stays out of line: one call more at each call "
                     "from %s",
                callee, hosts->n == 1 ? hosts->v[0] : "them");
    if (also && also->n) {
        sb_adds(&sb, ". It was also inlined into ");
        sb_add_joined(&sb, also, ", ");
        sb_adds(&sb, also->n == 1 ? ", a candidate, whose clones call it out of line too"
                                  : ", candidates whose clones call it out of line too");
    }
    json_t *hs = json_array();
    for (size_t i = 0; i < hosts->n; i++) {
        json_t *h = json_pack("{s:s, s:s}", "name", hosts->v[i], "reason", reasons->v[i]);
        if (symbols && i < symbols->n && symbols->v[i][0])
            json_object_set_new(h, "symbol", json_string(symbols->v[i]));
        json_array_append_new(hs, h);
    }
    json_t *n = note_new(NOTE_INLINED_INTO, sb_str(&sb));
    json_object_set_new(n, "hosts", hs);
    sb_free(&sb);
    return n;
}

static json_t *note_of(const struct found *f, enum exclusion_reason reason)
{
    struct strbuf what = STRBUF_INIT;
    sb_adds(&what, "its loops (line ");
    sb_add_joined(&what, &f->lines, ", ");
    sb_adds(&what, ") were compiled inlined");
    json_t *n = inlined_into_note(sb_str(&what), name_of(&f->def), reason, &f->hosts, &f->symbols, &f->reasons,
                                  &f->also);
    sb_free(&what);
    json_t *lines = json_array();
    for (size_t i = 0; i < f->lines.n; i++) json_array_append_new(lines, json_integer(atoi(f->lines.v[i])));
    json_object_set_new(n, "lines", lines);
    return n;
}

/* ---- a kernel's own helpers ---------------------------------------------- */

static int may_be_helper(const struct inlined_callee *c)
{
    return !c->el.reason || c->el.reason == REASON_USED_BEFORE_DEFINITION ||
           c->el.reason == REASON_DECLARED_AFTER_DEFINITION;
}

/* The index of the callee whose extent holds every use of r[i] (not r[i]
 * itself), or (size_t)-1. */
static size_t sole_user(struct parsed_tu *tu, const struct inlined_callee *r, size_t n, size_t i)
{
    struct use_site *uses = NULL;
    size_t nu = locate_uses(tu, r[i].def.cursor, r[i].def.cxfile, UINT_MAX, &uses);
    size_t owner = (size_t)-1;
    for (size_t j = 0; j < n && nu; j++) {
        if (j == i || !clang_File_isEqual(r[j].def.cxfile, r[i].def.cxfile)) continue;
        int all = 1;
        for (size_t u = 0; u < nu && all; u++)
            all = uses[u].offset >= r[j].def.offset && uses[u].offset <= r[j].def.end_offset;
        if (all) owner = j;
    }
    free(uses);
    return owner;
}

static json_t *helper_note(const struct fn_def *h, const struct fn_def *owner)
{
    const char *hn = name_of(h), *on = name_of(owner);
    char *d = xasprintf("%s (line %u) was inlined with %s into the excluded function, and only %s uses it: it is "
                        "inlined into each of %s's clones (always_inline), so that its code is compiled for each "
                        "clone's target",
                        hn, h->line, on, on, on);
    json_t *helper = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i}", "name", h->symbol, "display_name", hn, "line",
                               (int)h->line, "end_line", (int)h->end_line, "insert_offset", (int)h->insert_offset,
                               "insert_line", (int)h->insert_line);
    json_t *n = note_new(NOTE_INLINED_HELPER, d);
    json_object_set_new(n, "helper", helper);
    free(d);
    return n;
}

/* Folds each callee used only inside another (see inlined.h) into the
 * candidate at the root of that chain; returns how many callees are left. */
static size_t fold_helpers(struct parsed_tu *tu, struct inlined_callee *r, size_t n)
{
    size_t *owner = xcalloc(n ? n : 1, sizeof *owner);
    for (size_t i = 0; i < n; i++) owner[i] = may_be_helper(&r[i]) ? sole_user(tu, r, n, i) : (size_t)-1;
    int *gone = xcalloc(n ? n : 1, sizeof *gone);
    for (size_t i = 0; i < n; i++) {
        size_t root = owner[i], steps = 0;
        while (root != (size_t)-1 && owner[root] != (size_t)-1 && steps++ < n) root = owner[root];
        /* a cycle, or a root that is no candidate: left as it is */
        if (root == (size_t)-1 || steps >= n || root == i || r[root].el.reason) continue;
        json_array_append_new(r[root].notes, helper_note(&r[i].def, &r[root].def));
        gone[i] = 1;
    }
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (!gone[i]) {
            r[out++] = r[i];
            continue;
        }
        fn_def_free(&r[i].def);
        free(r[i].el.detail);
        json_decref(r[i].el.note);
        json_decref(r[i].notes);
    }
    free(owner);
    free(gone);
    return out;
}

size_t inlined_callees(struct parsed_tu *tu, const struct pp_directives *pp, const struct inlined_host *hosts,
                       size_t nh, const struct fn_def *own, size_t nown, struct inlined_callee **out)
{
    struct found *v = NULL;
    size_t nv = 0;
    /* the excluded hosts first: they make a callee; then the candidates,
     * which only show in its note */
    for (int pass = 0; pass < 2; pass++)
        for (size_t h = 0; h < nh; h++) {
            const struct inlined_host *host = &hosts[h];
            if (pass == 0 ? !host_qualifies(host) : host->reason != REASON_NONE) continue;
            for (size_t p = 0; p < host->n; p++) {
                struct fn_def d;
                if (!callee_at(tu, host, &host->positions[p], own, nown, &d)) continue;
                struct found *f = NULL;
                for (size_t k = 0; k < nv && !f; k++)
                    if (fn_def_same(&v[k].def, &d)) f = &v[k];
                if (!f && pass == 1) {
                    fn_def_free(&d);
                    continue;
                }
                if (!f) {
                    v = xrealloc(v, (nv + 1) * sizeof *v);
                    f = &v[nv++];
                    memset(f, 0, sizeof *f);
                    f->def = d;
                } else {
                    fn_def_free(&d);
                }
                char line[16];
                snprintf(line, sizeof line, "%d", host->positions[p].line);
                push_once(&f->lines, line);
                const char *hn = name_of(host->def);
                if (pass == 1) {
                    push_once(&f->also, hn);
                } else if (!sv_contains(&f->hosts, hn)) {
                    sv_push(&f->hosts, hn);
                    sv_push(&f->symbols, host->def->symbol ? host->def->symbol : "");
                    sv_push(&f->reasons, reason_name(host->reason));
                }
            }
        }
    struct inlined_callee *r = xcalloc(nv ? nv : 1, sizeof *r);
    for (size_t i = 0; i < nv; i++) {
        r[i].def = v[i].def;
        eligibility_check(tu, pp, &r[i].def, &r[i].el);
        r[i].notes = json_array();
        json_array_append_new(r[i].notes, note_of(&v[i], r[i].el.reason));
        sv_free(&v[i].hosts);
        sv_free(&v[i].symbols);
        sv_free(&v[i].reasons);
        sv_free(&v[i].also);
        sv_free(&v[i].lines);
    }
    free(v);
    nv = fold_helpers(tu, r, nv);
    *out = r;
    return nv;
}
