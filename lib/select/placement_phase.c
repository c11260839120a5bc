/* placement_phase.c - the placement check (session_phases.h,
 * select/placement.h): the baseline's profiled runs are logged per symbol
 * as they happen (profiling.c calls session_placement_log); after the
 * confirmation the selected build - timed there, never profiled - runs
 * --runs times per workload under perf (no build, no baseline run added:
 * the baseline's runs are those of the profiled rounds, its arm and its
 * A/A arm); its hot functions that are not cloned are judged, and each
 * slower one's code is compared between the two builds. */
#include "select/session_phases.h"

#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/elffile.h"
#include "elf/fmvnames.h"
#include "elf/samecode.h"
#include "select/attribution.h"
#include "select/placement.h"
#include "select/runcheck.h"

static const char *copy_of(const struct select_session *s, size_t v)
{
    return s->sources[v] ? s->sources[v] : s->builds[v].dir;
}

/* path relative to variant v's trees: "B/REST" under its build dir,
 * "S/REST" under its source copy; NULL outside both (a system library). */
static char *relative(const struct select_session *s, size_t v, const char *path)
{
    const char *roots[2] = {s->builds[v].dir, copy_of(s, v)}, *tags[2] = {"B/", "S/"};
    for (int i = 0; i < 2; i++) {
        size_t n = roots[i] ? strlen(roots[i]) : 0;
        if (n && !strncmp(path, roots[i], n) && path[n] == '/') return xasprintf("%s%s", tags[i], path + n + 1);
    }
    return NULL;
}

/* The file a relative name of the log names in variant v. */
static char *absolute(const struct select_session *s, size_t v, const char *rel)
{
    return xasprintf("%s/%s", rel[0] == 'B' ? s->builds[v].dir : copy_of(s, v), rel + 2);
}

void session_placement_log(struct select_session *s, size_t v, size_t w, size_t k, const struct profile *p)
{
    size_t runs = s->o->runs > 0 ? (size_t)s->o->runs : 1;
    if (!s->placement) s->placement = placement_log_new(s->rep.n_workloads, 2 * runs);
    enum placement_arm arm = v == 0 ? PLACEMENT_BASELINE : PLACEMENT_SELECTED;
    placement_log_run(s->placement, arm, w, k, (double)p->total_samples);
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        /* unresolved addresses ("0x00000000000012a0") name no symbol */
        if (e->kernel || !e->dso || !e->symbol || !strncmp(e->symbol, "0x", 2)) continue;
        char *rel = relative(s, v, e->dso);
        if (!rel) continue;
        placement_log_add(s->placement, arm, w, k, rel, e->symbol, (double)e->samples);
        free(rel);
    }
}

/* A symbol of a selected function (a clone, copy, resolver, the function
 * itself), or of fmvgen's dispatch: not tested. */
static int skip_selected(const char *symbol, void *ctx)
{
    const struct select_report *r = ctx;
    struct elf_fmv_name nm;
    if (elf_fmv_name(symbol, &nm) != ELF_FMV_NONE) return 1;
    char *base = attribution_base_name(symbol);
    int skip = 0;
    for (size_t f = 0; f < r->n_functions && !skip; f++)
        skip = r->functions[f].in_patch && !strcmp(base, r->functions[f].name);
    free(base);
    return skip;
}

/* The one function symbol of ef named name; NULL when none or several. */
static const struct elf_sym *only_symbol(const struct elf_file *ef, const char *name, const char **why)
{
    const struct elf_sym *first;
    size_t n = elf_file_syms_named(ef, name, &first);
    if (n != 1) *why = n ? "several function symbols of that name" : "no function symbol of that name";
    return n == 1 ? first : NULL;
}

/* Compares out's symbol in the baseline's and the selected build's file. */
static void compare_code(const struct select_session *s, struct select_placement_function *out)
{
    char *paths[2] = {absolute(s, 0, out->file), absolute(s, s->rep.n_variants, out->file)};
    struct elf_file ef[2];
    int open[2] = {0, 0};
    const struct elf_sym *sym[2] = {NULL, NULL};
    const char *why = NULL;
    out->code_same = -1;
    for (int i = 0; i < 2 && !why; i++) {
        if (elf_file_open(paths[i], &ef[i]) != 0) {
            why = "a build's file cannot be read";
            break;
        }
        open[i] = 1;
        sym[i] = only_symbol(&ef[i], out->symbol, &why);
    }
    if (!why) {
        out->base_addr = sym[0]->value;
        out->sel_addr = sym[1]->value;
        out->code_same = elf_code_same_moved(&ef[0], sym[0], &ef[1], sym[1]);
        if (out->code_same < 0) why = "its bytes cannot be read or decoded";
    }
    if (why) out->code_why = xasprintf("%s (%s)", why, out->file);
    for (int i = 0; i < 2; i++) {
        if (open[i]) elf_file_close(&ef[i]);
        free(paths[i]);
    }
}

/* The note of a function slower in the selected build whose code is the
 * same (or could not be compared). */
static void note_slower(struct select_report *r, const struct select_placement_function *f)
{
    double ratio = f->iv.speedup > 0 ? 1 / f->iv.speedup : 0;
    double lo = f->iv.speedup_hi > 0 ? 1 / f->iv.speedup_hi : 0, hi = f->iv.speedup_lo > 0 ? 1 / f->iv.speedup_lo : 0;
    if (f->code_same == 1)
        sv_pushf(&r->notes, "%s: %.2fx the samples in the selected build [%.2f, %.2f] (%.0f per run, baseline %.0f), "
                            "code the same in both builds, address moved from 0x%llx (offset %u mod 64) to 0x%llx "
                            "(%u mod 64): placement - an unchanged function slowed by where the clones moved it",
                 f->symbol, ratio, lo, hi, f->sel_mean, f->base_mean, (unsigned long long)f->base_addr,
                 (unsigned)(f->base_addr % 64), (unsigned long long)f->sel_addr, (unsigned)(f->sel_addr % 64));
    else if (f->code_same < 0)
        sv_pushf(&r->notes, "%s: %.2fx the samples in the selected build [%.2f, %.2f] (%.0f per run, baseline %.0f), "
                            "though it is not cloned; whether its code is the same in both builds could not be "
                            "checked: %s", f->symbol, ratio, lo, hi, f->sel_mean, f->base_mean, f->code_why);
    else
        return;
    session_say("%s", r->notes.v[r->notes.n - 1]);
}

int session_placement_check(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nw = r->n_workloads, nr = s->o->runs > 0 ? (size_t)s->o->runs : 0, sel = r->n_variants;
    struct select_placement *pl = &r->placement;
    if (!s->placement || nr < 2) {
        pl->why_not = xstrdup(nr < 2 ? "fewer than 2 runs per workload" : "the baseline's runs were not logged");
        return 0;
    }
    struct select_runcheck *check = select_runcheck_new(s);
    int rc = 0;
    for (size_t k = 0; k < nr && rc == 0; k++) {
        session_step(k + 1, nr, "profiling the selected build: which functions it did not clone run slower");
        for (size_t w = 0; w < nw && rc == 0; w++) {
            struct profile p;
            if (session_interrupted() || select_runcheck_profile(check, s, sel, w, k, &p) != 0) {
                rc = -1;
                break;
            }
            pl->n_runs++;
            session_placement_log(s, sel, w, k, &p);
            profile_free(&p);
        }
    }
    select_runcheck_free(check);
    if (rc != 0) return rc;
    size_t n = 0, n_missing = 0;
    const double *margins = r->decision.n_workloads == nw ? r->decision.aa_workload_margin : NULL;
    struct placement_verdict *v = placement_judge(s->placement, s->o->min_share, SELECT_MIN_SAMPLES, margins,
                                                  skip_selected, r, &n, &n_missing);
    pl->checked = 1;
    pl->n_tested = n;
    if (n_missing)
        pl->why_not = xasprintf("%zu workload%s had fewer than 2 profiled runs of the baseline or the selected build",
                                n_missing, n_missing == 1 ? "" : "s");
    size_t n_slower = 0;
    while (n_slower < n && v[n_slower].slower) n_slower++;
    pl->slower = xcalloc(n_slower + 1, sizeof *pl->slower);
    for (size_t i = 0; i < n_slower; i++) {
        struct select_placement_function *f = &pl->slower[pl->n_slower++];
        f->symbol = xstrdup(v[i].symbol);
        f->file = xstrdup(v[i].file);
        f->base_mean = v[i].base_mean;
        f->sel_mean = v[i].sel_mean;
        f->iv = v[i].iv;
        compare_code(s, f);
        note_slower(r, f);
    }
    free(v);
    return 0;
}

/* The offset mod 64 of the one function symbol named name in files (its
 * copies in several files all at one offset count as one); -1 when none,
 * or when they disagree. */
static int baseline_offset(struct elf_file *efs, size_t n, const char *name)
{
    int offset = -1;
    for (size_t f = 0; f < n; f++) {
        const char *why = NULL;
        const struct elf_sym *sym = efs[f].elf ? only_symbol(&efs[f], name, &why) : NULL;
        if (!sym) {
            if (why && strstr(why, "several")) return -1;
            continue;
        }
        int k = (int)(sym->value % 64);
        if (offset >= 0 && k != offset) return -1;
        offset = k;
    }
    return offset;
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
    struct strbuf sb = STRBUF_INIT;
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
                int off = baseline_offset(efs, files.n, sym);
                free(sym);
                if (off < 0) continue;
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
    sb_free(&sb);
}

void session_placement_pins(struct select_session *s, struct patch_assignments *a)
{
    struct select_report *r = &s->rep;
    struct select_placement *pl = &r->placement;
    if (!s->o->placement_pins || !a->n) return;
    pin_copies(s, a);
    struct strvec files = STRVEC_INIT;
    elf_find_linked(s->builds[0].dir, &files);
    struct elf_file *efs = xcalloc(files.n + 1, sizeof *efs);
    for (size_t i = 0; i < files.n; i++)
        if (elf_file_open(files.v[i], &efs[i]) != 0) memset(&efs[i], 0, sizeof efs[i]);
    for (size_t f = 0; f < r->n_functions && f < r->decision.n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        const struct patch_function *pf = &s->candidates.functions[f];
        if (fn->in_patch || r->decision.functions[f].share < s->o->min_share || select_name_count(r, f) > 1) continue;
        int k = baseline_offset(efs, files.n, pf->name);
        if (k < 0) continue;
        patch_pin_in(a, pf->name, pf->rel, (unsigned)k);
        sv_pushf(&pl->pinned, "%s@%d", fn->display_name, k);
    }
    for (size_t i = 0; i < files.n; i++)
        if (efs[i].elf) elf_file_close(&efs[i]);
    free(efs);
    sv_free(&files);
    if (!pl->pinned.n) return;
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < pl->pinned.n; i++) {
        const char *at = strrchr(pl->pinned.v[i], '@');
        sb_addf(&sb, "%s%.*s (%s mod 64)", i ? ", " : "", (int)(at - pl->pinned.v[i]), pl->pinned.v[i], at + 1);
    }
    sv_pushf(&r->notes, "%zu hot function%s the selection does not clone %s kept at the offset from a 64-byte boundary "
                        "%s code had in the baseline build, so that the clones do not move %s across a cache line "
                        "(selected.patch's 'Kept in place'): %s",
             pl->pinned.n, pl->pinned.n == 1 ? "" : "s", pl->pinned.n == 1 ? "is" : "are",
             pl->pinned.n == 1 ? "its" : "their", pl->pinned.n == 1 ? "it" : "them", sb_str(&sb));
    sb_free(&sb);
}
