/* profiling.c - the profiled runs of `fmvgen select` (session_phases.h):
 * every eligible-or-comparable variant runs every workload under perf,
 * interleaved (each round in a fresh seeded order, with the baseline once
 * more as the A/A arm), --runs times, each workload at its own sampling
 * period (sampling.h; its samples counted in 50-us units); the samples are
 * folded onto the candidates (attribution.h, by file where names are
 * shared) and the rule of decision.h decides. */
#include "select/session_phases.h"

#include <stdlib.h>
#include <string.h>

#include "elf/fmvnames.h"
#include "elf/symsource.h"
#include "measure/profile.h"
#include "store/store.h"
#include "select/attribution.h"
#include "select/budget.h"
#include "select/cloneisa.h"
#include "select/inlinedkernels.h"
#include "select/libcalls.h"
#include "select/linkedfile.h"
#include "select/outlined.h"
#include "select/decision.h"
#include "select/decision_confirm.h"
#include "select/fmabisect.h"
#include "util/shuffle.h"
#include "select/runcheck.h"
#include "select/sampling.h"
#include "select/report.h"
#include "select/rounds.h"

/* A variant is profiled when it built and its workloads ran (even if its
 * outputs differ: the report then says what FMA would have bought). */
static int profiled(const struct select_variant *v, size_t index)
{
    return v->built && (index == 0 || !v->failure || !strncmp(v->failure, "output", 6));
}

/* How each candidate is found in a profile (attribution.h): a name other
 * candidates share is counted by source file, or by linked file where each
 * is external in its own program (linkedfile.h), unless even that cannot
 * tell them apart (same basename, or two external functions whose compiles
 * are not known); a name of its own by file only when the profile shows
 * namesakes from other files. */
static void attribution_plan(const struct select_session *s, const struct linked_files *lf,
                             struct attribution_function *fns, struct strvec *sources, enum attribution_need *need)
{
    const struct select_report *r = &s->rep;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        attribution_sources(pf->rel, pf->notes, &sources[f]);
        fns[f] = (struct attribution_function){pf->name, sv_argv(&sources[f]), pf->is_static, linked_files_id(lf, f)};
    }
    for (size_t f = 0; f < r->n_functions; f++) {
        if (select_name_count(r, f) == 1) need[f] = ATTRIBUTION_BY_FILE_IF_NAMESAKES;
        else need[f] = attribution_files_clash(fns, r->n_functions, f) ? ATTRIBUTION_BY_NAME : ATTRIBUTION_BY_FILE;
    }
}

/* attribution_count, folding the copies of a function that several TUs
 * compile from one included source file, each under its own symbol when a
 * macro renames it (jpeg_fdct_islow, jpeg12_fdct_islow): all are its time. */
static void count_function(const struct profile *p, const struct attribution_origin *origins,
                           const struct attribution_function *fn, const struct patch_function *pf,
                           enum attribution_need need, struct attribution_count *out)
{
    if (!pf->symbols.n) {
        attribution_count(p, origins, fn, need, out);
        return;
    }
    memset(out, 0, sizeof *out);
    long best = -1;
    for (size_t i = 0; i < pf->symbols.n; i++) {
        struct attribution_function one = *fn;
        one.name = pf->symbols.v[i];
        struct attribution_count c;
        attribution_count(p, origins, &one, need, &c);
        out->samples += c.samples;
        out->name_samples += c.name_samples;
        out->undecided |= c.undecided;
        if (c.hottest && c.samples > best) best = c.samples, out->hottest = c.hottest;
    }
}

/* Per function and variant (decision.h's function_eligible): a variant's
 * own eligibility, and for an FMA variant whose only failure is a differing
 * output, its functions whose clones there hold no FMA instruction
 * (cloneisa.h) - provided an FMA-free variant is eligible, which shows that
 * wider vectors alone change no result here (no reassociation), so what
 * differs is FMA contraction in other functions. NULL when no variant is
 * such. Caller frees. */
static int *function_eligibility(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants;
    int exact_eligible = 0, any = 0;
    for (size_t v = 1; v < nv; v++) exact_eligible |= s->sets[v - 1].exact && r->variants[v].eligible;
    int *out = xcalloc(nf * nv + 1, sizeof *out);
    for (size_t v = 0; v < nv; v++) {
        const struct select_variant *x = &r->variants[v];
        for (size_t f = 0; f < nf; f++) out[f * nv + v] = x->eligible;
        if (v == 0 || x->eligible || !x->fma || !exact_eligible || !x->built || !x->failure ||
            strncmp(x->failure, "output", 6) != 0)
            continue;
        const struct clone_isa *isa = session_clone_isa(s, v);
        for (size_t f = 0; f < nf; f++) {
            int fma_free = isa[f].found && !clone_isa_uses_fma(&isa[f]);
            out[f * nv + v] = fma_free;
            r->functions[f].fma_free_code |= fma_free;
            any |= fma_free;
        }
    }
    if (!any) {
        free(out);
        return NULL;
    }
    return out;
}

/* Per function and variant (decision.h's same_code): its clones in that
 * variant's build are its default's code (cloneisa.h), kept in the report
 * (select_function.same_code) and said in a note. NULL when no pair is
 * such. Caller frees. */
static int *function_same_code(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, n_everywhere = 0;
    int *out = xcalloc(nf * nv + 1, sizeof *out), any = 0;
    for (size_t v = 1; v < nv; v++) {
        if (!r->variants[v].built) continue;
        const struct clone_isa *isa = session_clone_isa(s, v);
        for (size_t f = 0; f < nf; f++) {
            out[f * nv + v] = isa[f].same_code;
            any |= isa[f].same_code;
        }
    }
    struct strbuf which = STRBUF_INIT;
    for (size_t f = 0; f < nf; f++) {
        struct select_function *fn = &r->functions[f];
        fn->same_code = xcalloc(nv + 1, sizeof *fn->same_code);
        size_t v = 1;
        for (size_t u = 1; u < nv; u++) fn->same_code[u] = out[f * nv + u];
        while (v < nv && out[f * nv + v]) v++;
        if (nv < 2 || v < nv) continue;
        if (n_everywhere < 5) sb_addf(&which, "%s%s", n_everywhere ? ", " : "", fn->display_name);
        n_everywhere++;
    }
    if (n_everywhere)
        sv_pushf(&r->notes, "%zu candidate%s (%s%s) got clones that are the default's code with every target set "
                            "(inspect): no verdict from timing for %s, whatever the runs show",
                 n_everywhere, n_everywhere == 1 ? "" : "s", sb_str(&which), n_everywhere > 5 ? ", ..." : "",
                 n_everywhere == 1 ? "it" : "them");
    sb_free(&which);
    if (!any) {
        free(out);
        return NULL;
    }
    return out;
}

/* The sampled local symbols of run p (workload w, variant v) that belong to
 * no candidate, into log (outlined.h). */
static void log_helpers(const struct profile *p, const struct attribution_origin *origins, const char *const *names,
                        size_t nf, size_t w, size_t v, size_t round, double scale, struct outlined_log *log)
{
    for (size_t i = 0; origins && i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !origins[i].known || !origins[i].local || !origins[i].file || !*origins[i].file) continue;
        /* fmvgen's CPU check (cpuid dispatch) is dispatch code, no helper the clones outlined */
        struct elf_fmv_name nm;
        if (elf_fmv_name(e->symbol, &nm) == ELF_FMV_LEVELS) continue;
        char *base = attribution_base_name(e->symbol);
        int candidate = 0;
        for (size_t f = 0; f < nf && !candidate; f++) candidate = !strcmp(base, names[f]);
        if (!candidate) outlined_add(log, w, v, round, origins[i].file, base, (double)e->samples * scale);
        free(base);
    }
}

/* Time the clones moved out of the candidates into helpers they no longer
 * inline is counted as the candidates' (outlined.h), and said. */
static void count_outlined(struct select_session *s, const struct outlined_log *log, const struct strvec *sources,
                           double *samples)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    double *moved = xcalloc(nf * nv + 1, sizeof *moved);
    struct strvec *helpers = xcalloc(nf + 1, sizeof *helpers);
    outlined_apply(log, sources, nw, nv, nf, nr, samples, moved, helpers);
    for (size_t f = 0; f < nf; f++) {
        if (!helpers[f].n) continue;
        struct strbuf names = STRBUF_INIT;
        for (size_t i = 0; i < helpers[f].n; i++) sb_addf(&names, "%s%s", i ? ", " : "", helpers[f].v[i]);
        double most = 0;
        for (size_t v = 1; v < nv; v++)
            if (moved[f * nv + v] > most) most = moved[f * nv + v];
        /* a few samples moved are counted all the same (report.json's
         * outlined_helpers), but not worth a line each (opus: 18 of them, most
         * with 0-6 samples per run) */
        if (most >= SELECT_MIN_SAMPLES)
            sv_pushf(&r->notes, "%s: with its clones, %s ran out of line (inlined into it in the baseline), %.0f "
                                "samples per run at most: counted as its time, since the clones moved that time, "
                                "they did not save it", r->functions[f].display_name, sb_str(&names), most);
        free(r->functions[f].outlined);
        r->functions[f].outlined = sb_detach(&names);
        sb_free(&names);
        sv_free(&helpers[f]);
    }
    free(helpers);
    free(moved);
}

/* Each profiled all-candidates build against the baseline, per workload:
 * the runs' total samples (totals[(w * nv + v) * nr + round]), widened by
 * the A/A calibration's margin like the end-to-end intervals. */
static void total_intervals(struct select_report *r, const double *totals, size_t nr)
{
    size_t nv = r->n_variants;
    for (size_t w = 0; w < r->n_workloads; w++) {
        struct select_workload_result *wr = &r->workloads[w];
        free(wr->all_candidates);
        wr->all_candidates = xcalloc(nv, sizeof *wr->all_candidates);
        double margin = r->decision.aa_workload_margin && w < r->decision.n_workloads
                            ? r->decision.aa_workload_margin[w] : 0;
        for (size_t v = 1; v < nv; v++) {
            if (!profiled(&r->variants[v], v)) continue;
            stats_compare_log(&totals[w * nv * nr], nr, &totals[(w * nv + v) * nr], nr, &wr->all_candidates[v]);
            stats_widen(&wr->all_candidates[v], margin);
        }
    }
}

/* Time in library calls the clones replace with an instruction is counted
 * as the time of the candidates that drop them (libcalls.h), and said. */
static void count_libcalls(struct select_session *s, const struct libcall_log *log, const struct strvec *dropped,
                           const char *const *names, double *samples, double *aa_samples)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions;
    double *credited = xcalloc(nf + 1, sizeof *credited);
    struct strvec *seen = xcalloc(nf + 1, sizeof *seen), *shared = xcalloc(nf + 1, sizeof *shared);
    libcalls_apply(log, dropped, names, r->n_workloads, r->n_variants, nf, (size_t)s->o->runs, samples, aa_samples,
                   credited, seen, shared);
    for (size_t f = 0; f < nf; f++) {
        if (seen[f].n) {
            struct strbuf sb = STRBUF_INIT;
            sb_addf(&sb, "%s: %.1f samples per run of the baseline in ", r->functions[f].display_name, credited[f]);
            sb_add_joined(&sb, &seen[f], ", ");
            sb_adds(&sb, " - calls its clones replace with instructions (its dropped calls) - are counted as its time "
                         "in every arm (perf credits them to the library function, not to the caller; other callers' "
                         "time there counts too)");
            if (shared[f].n) {
                sb_adds(&sb, "; split with ");
                sb_add_joined(&sb, &shared[f], ", ");
                sb_adds(&sb, ", which drop the same calls, by their own baseline samples: no call graph told which "
                             "one called");
            }
            sv_push(&r->notes, sb_str(&sb));
            sb_free(&sb);
        }
        sv_free(&seen[f]);
        sv_free(&shared[f]);
    }
    free(seen);
    free(shared);
    free(credited);
}

/* What every stage of profiled rounds shares: how each candidate is found
 * in a profile (attribution_plan), and which are counted by name. */
struct profiling {
    struct attribution_function *fns;
    struct strvec *sources;
    enum attribution_need *need;
    int *undecided;                  /* [f]: some profile could not tell it by file */
    struct elf_symsource_cache *symbols;
    struct linked_files *linked;     /* external namesakes told by linked file */
    struct strvec *dropped;          /* [f]: the library calls its clones drop */
    const char **names;
    struct inlined_kernels kernels;
    struct select_runcheck *check;
};

static const char *copy_of(const struct select_session *s, size_t v)
{
    return s->sources && s->sources[v] ? s->sources[v] : s->builds[v].dir;
}

/* Each entry of a name told by linked file gets the candidate its file
 * holds (linkedfile.h), found on the baseline's copy of that file. */
static void set_linked_owners(const struct select_session *s, struct profiling *pr, size_t v, const struct profile *p,
                              struct attribution_origin *origins)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !e->symbol) continue;
        char *base = attribution_base_name(e->symbol);
        if (linked_files_name(pr->linked, base)) {
            char *at = e->dso && e->dso[0] == '/' ? linked_files_project_path(e->dso, copy_of(s, v), s->builds[v].dir,
                                                                             s->root, s->builddir) : NULL;
            char *in_base = at ? linked_files_copy_path(at, copy_of(s, 0), s->builds[0].dir, s->root, s->builddir)
                               : NULL;
            /* "[unknown]", "[vdso]": no file, so nobody's that can be told */
            origins[i].linked_owner = e->dso && e->dso[0] == '/' ? linked_files_owner(pr->linked, base, at, in_base)
                                                                : LINKED_FILES_UNKNOWN;
            free(at);
            free(in_base);
        }
        free(base);
    }
}

/* d->nr rounds, numbered from first in the seeded order (the confirmation
 * continues the profiled rounds' numbering), each arm in its place: every
 * profiled variant, or only those need[] names (with the baseline), and the
 * A/A arm. 0, or -1 (interrupted, or a run that failed its checks). */
static int run_rounds(struct select_session *s, struct profiling *pr, struct rounds *d, size_t first,
                      const int *need, const char *what, size_t *n_runs)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = d->nr;
    /* + the A/A arm (decision.h): the baseline again, in its own place of
     * each round's random order (util/shuffle.h) */
    size_t n_arms = nv + 1, *order = xcalloc(n_arms, sizeof *order);
    int rc = 0;
    for (size_t round = 0; round < nr && rc == 0; round++) {
        session_step(round + 1, nr, "%s", what);
        shuffle_round_order(r->seed, first + round, n_arms, order);
        int place = 0;
        for (size_t k = 0; k < n_arms && rc == 0; k++) {
            int aa = order[k] == nv;
            size_t v = aa ? 0 : order[k];
            if (!profiled(&r->variants[v], v) || (need && !aa && !need[v])) continue;
            d->position[order[k] * nr + round] = place++;
            for (size_t w = 0; w < nw && rc == 0; w++) {
                if (session_interrupted()) {
                    rc = -1;
                    break;
                }
                struct profile p;
                if (select_runcheck_profile(pr->check, s, v, w, first + round, &p) != 0) {   /* runcheck.h: proven */
                    rc = -1;
                    break;
                }
                (*n_runs)++;
                /* in 50-us units (sampling.h): every count of this run is scaled below */
                double scale = sampling_scale(r->workloads[w].sampling.period_ns);
                *(aa ? &d->aa_totals[w * nr + round] : &d->totals[(w * nv + v) * nr + round]) =
                    (double)p.total_samples * scale;
                /* the baseline's profiled runs, per symbol, for the placement check */
                if (v == 0 && !need && first == 0) session_placement_log(s, 0, w, aa ? nr + round : round, &p);
                struct attribution_origin *origins = attribution_locate(&p, pr->symbols);
                set_linked_owners(s, pr, v, &p, origins);
                if (!aa) log_helpers(&p, origins, pr->names, nf, w, v, round, scale, &d->helpers_log);
                size_t logged = d->libcall_log.n;
                libcalls_log_profile(&d->libcall_log, &p, pr->dropped, nf, w, v, round, aa);
                for (size_t i = logged; i < d->libcall_log.n; i++) d->libcall_log.v[i].samples *= scale;
                for (size_t f = 0; f < nf; f++) {
                    struct attribution_count c;
                    count_function(&p, origins, &pr->fns[f], &s->candidates.functions[f], pr->need[f], &c);
                    size_t at = aa ? (w * nf + f) * nr + round : ((w * nv + v) * nf + f) * nr + round;
                    (aa ? d->aa_samples : d->samples)[at] = (double)c.samples;
                    (aa ? d->aa_name_samples : d->name_samples)[at] = (double)c.name_samples;
                    pr->undecided[f] |= c.undecided;
                    if (!aa && c.hottest && !r->functions[f].ran[v]) r->functions[f].ran[v] = xstrdup(c.hottest);
                }
                if (aa)
                    inlined_kernels_count(&pr->kernels, &p, 0, 0, &d->aa_samples[w * nf * nr + round],
                                          &d->aa_name_samples[w * nf * nr + round], nr, scale);
                else
                    inlined_kernels_count(&pr->kernels, &p, v, v == 0 && !need,
                                          &d->samples[(w * nv + v) * nf * nr + round],
                                          &d->name_samples[(w * nv + v) * nf * nr + round], nr, scale);
                for (size_t f = 0; f < nf; f++) {
                    size_t at = aa ? (w * nf + f) * nr + round : ((w * nv + v) * nf + f) * nr + round;
                    (aa ? d->aa_samples : d->samples)[at] *= scale;
                    (aa ? d->aa_name_samples : d->name_samples)[at] *= scale;
                }
                free(origins);
                profile_free(&p);
            }
        }
    }
    free(order);
    return rc;
}

/* A function some profile could not tell by file is counted by name in
 * every run of the stage. */
static void by_name_where_undecided(struct select_session *s, struct profiling *pr, struct rounds *d, int first)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = d->nr;
    for (size_t f = 0; f < nf; f++) {
        if (pr->need[f] != ATTRIBUTION_BY_FILE) continue;
        if (first) r->functions[f].by_file = !pr->undecided[f];
        for (size_t i = 0; pr->undecided[f] && i < nw * nv; i++)
            memcpy(&d->samples[(i * nf + f) * nr], &d->name_samples[(i * nf + f) * nr], nr * sizeof *d->samples);
        for (size_t w = 0; pr->undecided[f] && w < nw; w++)
            memcpy(&d->aa_samples[(w * nf + f) * nr], &d->aa_name_samples[(w * nf + f) * nr],
                   nr * sizeof *d->samples);
    }
}

/* One batch of the confirmation's fresh rounds, numbered from first,
 * counted as the profiled rounds were. 0, or -1. */
static int confirm_rounds(struct select_session *s, struct profiling *pr, struct rounds *d, size_t nr, size_t first,
                          const int *need, const char *what, size_t *n_runs)
{
    struct select_report *r = &s->rep;
    rounds_init(d, r->n_functions, r->n_variants, r->n_workloads, nr);
    int rc = run_rounds(s, pr, d, first, need, what, n_runs);
    if (rc == 0) {
        by_name_where_undecided(s, pr, d, 0);
        libcalls_apply(&d->libcall_log, pr->dropped, pr->names, r->n_workloads, r->n_variants, r->n_functions, d->nr,
                       d->samples, d->aa_samples, NULL, NULL, NULL);
        outlined_apply(&d->helpers_log, pr->sources, r->n_workloads, r->n_variants, r->n_functions, d->nr, d->samples,
                       NULL, NULL);
    }
    return rc;
}

static void fresh_input(struct decision_input *fresh, const struct decision_input *first, const struct rounds *d)
{
    *fresh = *first;
    fresh->n_runs = d->nr;
    fresh->samples = d->samples;
    fresh->totals = d->totals;
    fresh->aa_samples = d->aa_samples;
    fresh->aa_totals = d->aa_totals;
}

/* The confirmation stage (decision_confirm.h): when the decision held
 * comparisons back by Holm alone, --confirm-runs fresh rounds of only the
 * arms they need, counted the way the profiled rounds were, and the retest
 * on them alone, at half the decision's alpha; when that leaves a retested
 * function undecided but leaning to a gain, as many rounds again and the
 * retest on all the fresh rounds, at the other half. 0, or -1. */
static int confirm_held_back(struct select_session *s, struct profiling *pr, const struct decision_input *first)
{
    struct select_report *r = &s->rep;
    size_t nv = r->n_variants;
    int runs = s->o->confirm_runs < 0 ? s->o->runs : s->o->confirm_runs;
    r->decision.confirmation.n_asked = runs >= 2 ? (size_t)runs : 0;
    size_t near = runs >= 2 ? decision_confirm_near(first, &r->decision) : 0;
    size_t k = decision_confirm_pairs(&r->decision);
    if (!k || runs < 2) return 0;
    int *need = xcalloc(nv, sizeof *need);
    decision_confirm_arms(&r->decision, need);
    size_t n_arms = 1;
    for (size_t v = 1; v < nv; v++) n_arms += (size_t)need[v];
    session_say("%zu comparison%s to retest (%zu of near-significant functions, the others held back by Holm "
                "alone): %d fresh rounds of the baseline, the A/A arm and %zu variant%s", k, k == 1 ? "" : "s",
                near, runs, n_arms - 1, n_arms == 2 ? "" : "s");
    struct rounds d;
    size_t n_runs = 0, first_round = (size_t)s->o->runs;
    r->decision.confirmation.alpha = r->decision.alpha / 2;
    int rc = confirm_rounds(s, pr, &d, (size_t)runs, first_round, need,
                            "confirmation runs, interleaved in a random order", &n_runs);
    struct decision_input fresh;
    if (rc == 0) {
        fresh_input(&fresh, first, &d);
        decision_confirm(&fresh, &r->decision);
    }
    if (rc == 0 && decision_confirm_undecided(&r->decision)) {
        session_say("a retested function is faster on the fresh rounds but not yet confirmed: %d more rounds, and "
                    "the retest again on all %d (each look at half of the 5%% level)", runs, 2 * runs);
        struct rounds more;
        rc = confirm_rounds(s, pr, &more, (size_t)runs, first_round + (size_t)runs, need,
                            "confirmation runs, second look", &n_runs);
        if (rc == 0) {
            rounds_append(&d, &more, r->n_functions, r->n_variants, r->n_workloads);
            fresh_input(&fresh, first, &d);
            decision_confirm_again(&fresh, &r->decision);
        } else {
            rounds_free(&more);
        }
    }
    if (rc == 0) {
        select_keep_run_stage(r, 1, d.nr, first_round, d.position, d.samples, d.totals, d.aa_samples, d.aa_totals);
        r->decision.confirmation.n_profiled_runs = n_runs;
    }
    rounds_free(&d);
    free(need);
    return rc;
}

/* Each workload's sampling period (sampling.h), from the unprofiled runs
 * of every arm that will be profiled; said once per workload. */
static void plan_sampling(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nv = r->n_variants, nw = r->n_workloads;
    double *cpu = xcalloc(nv + 1, sizeof *cpu);
    for (size_t w = 0; w < nw; w++) {
        size_t n = 0;
        for (size_t v = 0; v < nv; v++)
            if (profiled(&r->variants[v], v)) cpu[n++] = s->check_cpu[v * nw + w];
        r->workloads[w].sampling = sampling_rule(cpu, n, s->o->min_share, s->o->sample_period_ns);
        char *how = sampling_describe(&r->workloads[w].sampling);
        session_say("'%s' is sampled %s", r->workloads[w].command, how);
        free(how);
    }
    free(cpu);
}

int session_profile_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants, nw = r->n_workloads, nr = (size_t)s->o->runs;
    struct profiling pr = {0};
    pr.fns = xcalloc(nf + 1, sizeof *pr.fns);
    pr.sources = xcalloc(nf + 1, sizeof *pr.sources);
    pr.need = xcalloc(nf + 1, sizeof *pr.need);
    pr.undecided = xcalloc(nf + 1, sizeof *pr.undecided);
    pr.symbols = elf_symsource_cache_new();
    pr.dropped = xcalloc(nf + 1, sizeof *pr.dropped);
    struct strvec unknown = STRVEC_INIT;
    libcalls_dropped(s->candidates.functions, nf, pr.dropped, &unknown);
    if (unknown.n) {
        struct strbuf sb = STRBUF_INIT;
        sb_add_joined(&sb, &unknown, ", ");
        sv_pushf(&r->notes, "%zu candidate%s (%s) %s analysed by an fmvgen before store schema 4: the library calls "
                            "%s clones drop are not known, so time in them is not counted as %s (run 'fmvgen scan' "
                            "again)",
                 unknown.n, unknown.n == 1 ? "" : "s", sb_str(&sb), unknown.n == 1 ? "was" : "were",
                 unknown.n == 1 ? "its" : "their", unknown.n == 1 ? "its" : "theirs");
        sb_free(&sb);
    }
    sv_free(&unknown);
    pr.linked = session_linked_files(s);
    plan_sampling(s);
    attribution_plan(s, pr.linked, pr.fns, pr.sources, pr.need);
    inlined_kernels_init(&pr.kernels, s, pr.fns);
    int *eligible = xcalloc(nv, sizeof *eligible);
    pr.names = xcalloc(nf + 1, sizeof *pr.names);
    for (size_t f = 0; f < nf; f++) pr.names[f] = r->functions[f].name;
    for (size_t v = 0; v < nv; v++) eligible[v] = r->variants[v].eligible;
    int *ran = xcalloc(nv + 1, sizeof *ran);
    for (size_t v = 0; v < nv; v++) ran[v] = profiled(&r->variants[v], v);
    struct rounds d;
    rounds_init(&d, nf, nv, nw, nr);
    pr.check = select_runcheck_new(s);
    int rc = run_rounds(s, &pr, &d, 0, NULL, "profiled runs, interleaved in a random order", &r->n_profiled_runs);
    by_name_where_undecided(s, &pr, &d, 1);
    if (rc == 0) inlined_kernels_finish(&pr.kernels, s, d.samples, d.aa_samples);
    if (rc == 0) rc = select_runcheck_finish(pr.check, s);
    /* the fresh rounds' runs get checks 1 and 3 (runcheck.h); check 2 (a
     * hot function ran clones) was done on these */
    select_runcheck_free(pr.check);
    pr.check = NULL;
    int *function_eligible = NULL, *same_code = NULL;
    double *code_bytes = NULL;
    if (rc == 0) {
        count_libcalls(s, &d.libcall_log, pr.dropped, pr.names, d.samples, d.aa_samples);
        count_outlined(s, &d.helpers_log, pr.sources, d.samples);
        select_keep_run_stage(r, 0, nr, 0, d.position, d.samples, d.totals, d.aa_samples, d.aa_totals);
        function_eligible = function_eligibility(s);
        same_code = function_same_code(s);
        code_bytes = session_code_bytes(s);
        struct decision_input in = {
            .n_functions = nf, .n_workloads = nw, .n_variants = nv, .n_runs = nr,
            .functions = pr.names, .samples = d.samples, .totals = d.totals, .variant_eligible = eligible,
            .variant_profiled = ran,
            .function_eligible = function_eligible,
            .min_share = s->o->min_share, .min_samples = SELECT_MIN_SAMPLES,
            .aa_samples = d.aa_samples, .aa_totals = d.aa_totals, .code_bytes = code_bytes,
            .same_code = same_code,
        };
        decide(&in, &r->decision);
        /* an FMA set that changed an output: which functions' FMA did
         * (fmabisect.h); those cleared make the decision again */
        int cleared = session_fma_bisect(s, &in, &function_eligible);
        if (cleared < 0) rc = -1;
        if (cleared > 0) {
            in.function_eligible = function_eligible;
            decision_free(&r->decision);
            decide(&in, &r->decision);
        }
        if (rc == 0) {
            pr.check = select_runcheck_new(s);
            rc = confirm_held_back(s, &pr, &in);
            select_runcheck_free(pr.check);
        }
        budget_apply(r, &in, s->o->max_growth ? s->o->max_growth : SELECT_DEFAULT_MAX_GROWTH);
        select_note_retested(r);
        total_intervals(r, d.totals, nr);
        /* what each function's chosen clones saved, per workload (a
         * confirmed function's in the fresh runs): for telling a
         * fixed-time workload once the end-to-end times are in */
        s->saved = xcalloc(nw * nf + 1, sizeof *s->saved);
        for (size_t w = 0; w < nw; w++)
            for (size_t f = 0; f < nf; f++)
                if (r->decision.functions[f].chosen >= 1)
                    s->saved[w * nf + f] =
                        decision_estimate_saved(&r->decision, &in, w, f, (size_t)r->decision.functions[f].chosen);
    }
    free(function_eligible);
    free(same_code);
    free(code_bytes);
    rounds_free(&d);
    free(pr.fns);
    for (size_t f = 0; f < nf; f++) sv_free(&pr.sources[f]);
    free(pr.sources);
    free(pr.need);
    free(pr.undecided);
    elf_symsource_cache_free(pr.symbols);
    linked_files_notes(pr.linked, &r->notes);
    for (size_t f = 0; f < nf; f++) sv_free(&pr.dropped[f]);
    free(pr.dropped);
    inlined_kernels_free(&pr.kernels);
    free(eligible);
    free(ran);
    free(pr.names);
    return rc;
}

/* Functions selected as a group of small gains (decision.h) are said, with
 * the group's own interval: none of them would be selected alone. */
void session_note_small_gains(struct select_session *s)
{
    struct select_report *r = &s->rep;
    const struct decision_group *g = &r->decision.group;
    size_t n = 0;
    for (size_t f = 0; f < r->n_functions && f < r->decision.n_functions; f++)
        n += r->functions[f].in_patch && r->decision.functions[f].reason == DECISION_SELECTED_TOGETHER;
    if (g->chosen < 1 || !n) return;
    const struct stats_interval *iv = &g->by_variant_chosen;
    sv_pushf(&r->notes, "%zu function%s selected together as small gains with %s: none is significantly faster "
                        "alone, but the %zu functions without a verdict (%.1f%% of a workload) are %.2fx [%.2f, %.2f] "
                        "faster together", n, n == 1 ? "" : "s", r->variants[g->chosen].name,
             g->n_pool, g->share * 100, iv->speedup, iv->speedup_lo, iv->speedup_hi);
}

/* Too few samples, or wide intervals, are said, not hidden. */
void session_note_fma_free(struct select_session *s)
{
    struct select_report *r = &s->rep;
    struct strbuf names = STRBUF_INIT;
    size_t n = 0, set = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (!fn->in_patch || fn->set < 1 || (size_t)fn->set >= r->n_variants || r->variants[fn->set].eligible ||
            fn->fma_verdict == FMA_VERDICT_CLEARED)   /* session_note_fma_bisect says why */
            continue;
        free(fn->note);
        fn->note = xasprintf("selected with %s, whose outputs differ: its clones there hold no FMA instruction "
                             "(inspect), so they compute what the baseline computes",
                             r->variants[fn->set].name);
        sb_addf(&names, "%s%s", n ? ", " : "", fn->display_name);
        set = (size_t)fn->set;
        n++;
    }
    if (n)
        sv_pushf(&r->notes, "%s got %s clones although that variant's outputs differ from the baseline's: %s no FMA "
                            "instruction (inspect), so %s what the baseline computes; the differences come from "
                            "other functions' FMA, which stay held back", sb_str(&names), r->variants[set].name,
                 n == 1 ? "its clones hold" : "their clones hold", n == 1 ? "it computes" : "they compute");
    sb_free(&names);
}

void session_note_noise(struct select_session *s)
{
    struct select_report *r = &s->rep;
    size_t few = 0;
    for (size_t f = 0; f < r->decision.n_functions; f++)
        if (r->decision.functions[f].reason == DECISION_FEW_SAMPLES) few++;
    if (few)
        sv_pushf(&r->notes, "%zu function%s had too few samples for a verdict: raise --runs (now %d) or make the "
                            "workload longer", few, few == 1 ? "" : "s", s->o->runs);
    if (s->o->runs < 3)
        sv_pushf(&r->notes, "only %d runs per variant: intervals are wide; --runs 5 or more is advised", s->o->runs);
}
