/* placement_pins.c - session_placement_pins (session_phases.h): before the
 * selected build, the hot functions the selection does not clone are kept
 * at the offset mod 64 their code had in the baseline build (patch/plan.h's
 * struct patch_pin): the candidates, and the other hot symbols of the
 * baseline's profiled runs wherever candidates/pinsite.h finds a definition
 * a pin may go on; and, with --dispatch cpuid, each selected function's
 * copies at the offsets they had in the all-candidates build that measured
 * their gain. An offset is read in the linked files the baseline's profiled
 * runs sampled the function in, where the files disagree (select/pinoffset.h:
 * libtool's two compiles of one source). Pins are kept within the
 * code-growth budget's room (select/budget.h: budget_take_pin, each at its
 * worst case in every linked compile of the function, pinoffset.h:
 * pin_linked_copies), the copies' first, then the candidates', then the others',
 * hottest first; those with no room are listed (unpinned, or a note for
 * copies). Then the pad before .text's functions (placement_textpad.c),
 * which the pins' alignment bears on; with --no-placement-pins there is
 * none either. */
#include "select/session_phases.h"

#include <stdlib.h>
#include <string.h>

#include "candidates/pinsite.h"
#include "elf/codesize.h"
#include "elf/elffile.h"
#include "select/attribution.h"
#include "select/budget.h"
#include "select/hotrest.h"
#include "select/pinoffset.h"
#include "select/placement.h"
#include "store/reasons.h"

/* The linked files of variant v's tree the baseline's profiled runs
 * sampled function name in (all they sampled anything in when name is
 * NULL; placement.h: "B/REST" under its build dir,
 * "S/REST" under its source copy), as paths in v's tree: the files its
 * workloads run it from, whose offset a pin keeps (pinoffset.h). */
static void ran_in(const struct select_session *s, size_t v, const char *name, struct strvec *out)
{
    struct strvec rel = STRVEC_INIT;
    if (name) placement_sampled_files(s->placement, name, &rel);
    else placement_ran_files(s->placement, &rel);
    for (size_t i = 0; i < rel.n; i++) {
        const char *root = rel.v[i][0] == 'S' && s->sources[v] ? s->sources[v] : s->builds[v].dir;
        char *path = path_join(root, rel.v[i] + 2);
        sv_push(out, path);
        free(path);
    }
    sv_free(&rel);
}

/* The offset mod 64 a pin of name keeps in variant v's files (pinoffset.h);
 * *disagree: the linked files disagree (the ones the runs sampled it in
 * decided). */
static int baseline_offset(const struct select_session *s, size_t v, const struct strvec *files,
                           const struct elf_file *efs, const char *function, const char *name, int *disagree)
{
    struct strvec ran = STRVEC_INIT, running = STRVEC_INIT;
    ran_in(s, v, function, &ran);
    ran_in(s, v, NULL, &running);
    int k = pin_offset(efs, (const char *const *)files->v, files->n, name, &ran, &running, disagree);
    sv_free(&ran);
    sv_free(&running);
    return k;
}

static void open_linked(const char *dir, struct strvec *files, struct elf_file **efs)
{
    elf_find_linked(dir, files);
    *efs = xcalloc(files->n + 1, sizeof **efs);
    for (size_t i = 0; i < files->n; i++)
        if (elf_file_open(files->v[i], &(*efs)[i]) != 0) memset(&(*efs)[i], 0, sizeof (*efs)[i]);
}

static void close_linked(struct strvec *files, struct elf_file *efs)
{
    for (size_t i = 0; i < files->n; i++)
        if (efs[i].elf) elf_file_close(&efs[i]);
    free(efs);
    sv_free(files);
}

/* The copies (--dispatch cpuid: fmvgen_cp_<name>_<slug>) of each selected
 * function kept at the offsets mod 64 they had in the all-candidates build
 * of its set, where its gain was measured: the selected build lays the
 * file out otherwise, and a clone's loop moved along a 64-byte line can
 * lose the gain (plan.h, struct patch_copy_pin). */
static void pin_copies(struct select_session *s, struct patch_assignments *a)
{
    static const char *const slugs[] = {"x86_64_v4", "x86_64_v3", "avx2", "x86_64_v2", "default"};
    struct select_report *r = &s->rep;
    struct strbuf sb = STRBUF_INIT, nofit = STRBUF_INIT, several = STRBUF_INIT, chosen = STRBUF_INIT;
    size_t npinned = 0;
    for (size_t v = 1; v < r->n_variants; v++) {
        struct strvec files = STRVEC_INIT;
        struct elf_file *efs = NULL;
        int opened = 0;
        for (size_t f = 0; f < r->n_functions && f < r->decision.n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            const struct patch_function *pf = &s->candidates.functions[f];
            if (!fn->in_patch || fn->set != (int)v || select_name_count(r, f) > 1) continue;
            if (!opened) open_linked(s->builds[v].dir, &files, &efs);
            opened = 1;
            struct strbuf one = STRBUF_INIT;
            for (size_t k = 0; k < sizeof slugs / sizeof *slugs; k++) {
                char *sym = xasprintf("fmvgen_cp_%s_%s", pf->name, slugs[k]);
                if (fn->copy_only_symbol && strcmp(slugs[k], "default") && strcmp(sym, fn->copy_only_symbol)) {
                    free(sym);   /* a copy the budget left out (trimcopies.h) */
                    continue;
                }
                int disagree = 0, off = baseline_offset(s, v, &files, efs, pf->name, sym, &disagree);
                size_t compiles = pin_linked_copies(efs, files.n, sym);   /* each pays the padding */
                free(sym);
                if (off == PIN_OFFSET_SEVERAL)
                    sb_addf(&several, "%s%s %s", several.len ? ", " : "", fn->display_name, slugs[k]);
                if (off < 0) continue;
                if (disagree)
                    sb_addf(&chosen, "%s%s %s %d", chosen.len ? ", " : "", fn->display_name, slugs[k], off);
                if (!budget_take_pin(&r->budget, (unsigned)off, compiles)) {
                    sb_addf(&nofit, "%s%s %s %d", nofit.len ? ", " : "", fn->display_name, slugs[k], off);
                    continue;
                }
                patch_copy_pin_in(a, pf->name, pf->rel, slugs[k], (unsigned)off);
                sb_addf(&one, "%s%s %d", one.len ? ", " : "", slugs[k], off);
            }
            if (one.len) {
                sb_addf(&sb, "%s%s (%s)", npinned ? "; " : "", fn->display_name, sb_str(&one));
                npinned++;
            }
            sb_free(&one);
        }
        if (opened) close_linked(&files, efs);
    }
    if (npinned)
        sv_pushf(&r->notes, "the copies of %zu selected function%s are kept at the offsets from a 64-byte boundary they "
                            "had in the build their gain was measured in (mod 64), so that the selected build's other "
                            "layout does not move their loops: %s",
                 npinned, npinned == 1 ? "" : "s", sb_str(&sb));
    if (nofit.len)
        sv_pushf(&r->notes, "copies not kept at the offset mod 64 they were measured at, for the code-growth budget "
                            "(a pin adds up to 63 + K bytes of padding in each linked file holding the copy, and "
                            "the budget's room after the selection had no more): %s", sb_str(&nofit));
    if (chosen.len)
        sv_pushf(&r->notes, "copies at different offsets mod 64 in the linked files of the build that measured them "
                            "(a source compiled twice, as libtool does) are kept at the offset of the file the "
                            "profiled runs ran them from: %s", sb_str(&chosen));
    if (several.len)
        sv_pushf(&r->notes, "copies not kept at the offset mod 64 they were measured at: the linked files of the "
                            "build that measured them hold several or place them at different offsets, and the "
                            "files the profiled runs sampled them in do not settle it: %s", sb_str(&several));
    sb_free(&sb);
    sb_free(&nofit);
    sb_free(&several);
    sb_free(&chosen);
}

/* The line for a pin the budget has no room for. */
static void no_room(struct select_placement *pl, const char *name, int k, size_t compiles)
{
    if (compiles > 1)
        sv_pushf(&pl->unpinned, "%s: no room in the code-growth budget for its pin (up to %.0f bytes of padding at "
                                "%d mod 64 in each of the %zu linked files holding it)",
                 name, BUDGET_PIN_BYTES(k), k, compiles);
    else
        sv_pushf(&pl->unpinned, "%s: no room in the code-growth budget for its pin (up to %.0f bytes of padding at "
                                "%d mod 64)", name, BUDGET_PIN_BYTES(k), k);
}

/* A name the source can define: letters, digits, '_' (no compiler-made
 * copy "f.constprop.0", no "f@plt"). */
static int plain_symbol(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!(*s == '_' || *s == '$' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* Not one of the non-candidates to pin: a selected function's symbol
 * (clone, copy, resolver), fmvgen's dispatch, or any candidate's (those go
 * the candidates' way, or stay unpinned for their reason). */
static int skip_for_pin(const char *symbol, void *ctx)
{
    const struct select_session *s = ctx;
    if (select_candidate_symbol(s, symbol)) return 1;
    char *base = attribution_base_name(symbol);
    int skip = 0;
    for (size_t f = 0; f < s->rep.n_functions && !skip; f++)
        skip = s->rep.functions[f].in_patch && !strcmp(base, s->rep.functions[f].name);
    free(base);
    return skip;
}

/* The hot functions that are no candidate: pinned where a definition is
 * found that a pin may go on, else listed in pl->unpinned. */
static void pin_others(struct select_session *s, struct patch_assignments *a, const struct strvec *files,
                       struct elf_file *efs)
{
    struct select_placement *pl = &s->rep.placement;
    size_t nh = 0;
    struct placement_hot *hot = placement_hot(s->placement, s->o->min_share, SELECT_MIN_SAMPLES, skip_for_pin, s, &nh);
    struct pin_site *sites = xcalloc(nh + 1, sizeof *sites);
    int *offset = xcalloc(nh + 1, sizeof *offset);
    size_t n = 0;
    for (size_t i = 0; i < nh; i++) {
        const char *sym = hot[i].symbol;
        int dup = 0;
        for (size_t j = 0; j < n && !dup; j++) dup = !strcmp(sites[j].symbol, sym);
        if (dup) continue;   /* one symbol in several linked files */
        if (!plain_symbol(sym)) {
            sv_pushf(&pl->unpinned, "%s: a compiler-made copy or a stub, no definition of its own", sym);
            continue;
        }
        int k = baseline_offset(s, 0, files, efs, sym, sym, NULL);
        if (k < 0) {
            sv_pushf(&pl->unpinned, "%s: %s", sym,
                     k == PIN_OFFSET_SEVERAL ? "several function symbols of that name in the baseline's linked files"
                             : "no function symbol of that name in the baseline's linked files");
            continue;
        }
        offset[n] = k;
        sites[n++].symbol = sym;
    }
    if (n && pinsite_find(s->st, sites, n) != 0) {
        sv_push(&s->rep.notes, "the hot functions that are no candidate were not pinned: the store could not be read");
        for (size_t i = 0; i < n; i++) pin_site_free(&sites[i]);
        n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        struct pin_site *site = &sites[i];
        char *rel = site->file && !site->why_not ? path_relative_to(site->file, s->root) : NULL;
        if (!site->why_not && !rel) site->why_not = xasprintf("defined outside the project root (%s)", site->file);
        if (site->why_not) {
            sv_pushf(&pl->unpinned, "%s: %s", site->symbol, site->why_not);
        } else if (!budget_take_pin(&s->rep.budget, (unsigned)offset[i],
                                    pin_linked_copies(efs, files->n, site->symbol))) {
            no_room(pl, site->display_name ? site->display_name : site->symbol, offset[i],
                    pin_linked_copies(efs, files->n, site->symbol));
        } else {
            const char *reason = reason_name(site->reason);
            char *note = reason ? xasprintf("not a candidate: excluded as %s", reason) : xstrdup("not a candidate");
            patch_pin_at(a, site->symbol, site->file, rel, site->insert_offset, site->line, site->display_name,
                         site->source_hash, note, (unsigned)offset[i]);
            sv_pushf(&pl->pinned, "%s@%d", site->display_name ? site->display_name : site->symbol, offset[i]);
            free(note);
        }
        free(rel);
        pin_site_free(site);
    }
    free(sites);
    free(offset);
    free(hot);
}

/* The notes: what is pinned, and what is hot but is not. */
static void note_pins(struct select_report *r)
{
    struct select_placement *pl = &r->placement;
    if (pl->pinned.n) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < pl->pinned.n; i++) {
            const char *at = strrchr(pl->pinned.v[i], '@');
            sb_addf(&sb, "%s%.*s (%s mod 64)", i ? ", " : "", (int)(at - pl->pinned.v[i]), pl->pinned.v[i], at + 1);
        }
        sv_pushf(&r->notes,
                 "%zu hot function%s the selection does not clone %s kept at the offset from a 64-byte boundary "
                 "%s code had in the baseline build, so that the clones do not move %s across a cache line "
                 "(selected.patch's 'Kept in place'): %s",
                 pl->pinned.n, pl->pinned.n == 1 ? "" : "s", pl->pinned.n == 1 ? "is" : "are",
                 pl->pinned.n == 1 ? "its" : "their", pl->pinned.n == 1 ? "it" : "them", sb_str(&sb));
        sb_free(&sb);
    }
    if (pl->unpinned.n) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < pl->unpinned.n; i++) sb_addf(&sb, "%s%s", i ? "; " : "", pl->unpinned.v[i]);
        sv_pushf(&r->notes,
                 "%zu hot function%s the selection does not clone %s not pinned, so the clones may move %s "
                 "(the placement check reports %s if slower): %s",
                 pl->unpinned.n, pl->unpinned.n == 1 ? "" : "s", pl->unpinned.n == 1 ? "is" : "are",
                 pl->unpinned.n == 1 ? "it" : "them", pl->unpinned.n == 1 ? "it" : "them", sb_str(&sb));
        sb_free(&sb);
    }
}

void session_placement_pins(struct select_session *s, struct patch_assignments *a)
{
    struct select_report *r = &s->rep;
    struct select_placement *pl = &r->placement;
    if (!s->o->placement_pins) {
        pl->pins_off = 1;
        sv_push(&r->notes, "placement pins are off (--no-placement-pins): hot functions the selection does not "
                           "clone are not kept at their baseline offset mod 64, and the clones may move them");
        return;
    }
    if (!a->n) return;
    pin_copies(s, a);
    struct strvec files = STRVEC_INIT;
    struct elf_file *efs = NULL;
    open_linked(s->builds[0].dir, &files, &efs);
    /* the candidates hottest first: the budget's room goes to them first */
    size_t nf = r->n_functions < r->decision.n_functions ? r->n_functions : r->decision.n_functions;
    size_t *order = xcalloc(nf + 1, sizeof *order);
    for (size_t i = 0; i < nf; i++) order[i] = i;
    for (size_t i = 1; i < nf; i++)   /* insertion sort, stable: share descending */
        for (size_t j = i; j > 0 && r->decision.functions[order[j]].share > r->decision.functions[order[j - 1]].share; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t i = 0; i < nf; i++) {
        size_t f = order[i];
        const struct select_function *fn = &r->functions[f];
        const struct patch_function *pf = &s->candidates.functions[f];
        if (fn->in_patch || r->decision.functions[f].share < s->o->min_share || select_name_count(r, f) > 1) continue;
        int k = baseline_offset(s, 0, &files, efs, pf->name, pf->name, NULL);
        if (k == PIN_OFFSET_SEVERAL)
            sv_pushf(&pl->unpinned, "%s: several function symbols of that name in the baseline's linked files, or "
                                    "several offsets mod 64 (in the files its runs sampled it in, if any)",
                     fn->display_name);
        if (k < 0) continue;
        size_t compiles = pin_linked_copies(efs, files.n, pf->name);
        if (!budget_take_pin(&r->budget, (unsigned)k, compiles)) {
            no_room(pl, fn->display_name, k, compiles);
            continue;
        }
        patch_pin_in(a, pf->name, pf->rel, (unsigned)k);
        sv_pushf(&pl->pinned, "%s@%d", fn->display_name, k);
    }
    free(order);
    if (s->placement) pin_others(s, a, &files, efs);
    close_linked(&files, efs);
    note_pins(r);
    session_text_pad(s, a);
}
