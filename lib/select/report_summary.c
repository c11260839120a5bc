/* report_summary.c - the terminal summary of `fmvgen select` (report.h):
 * a line per function that matters, the end-to-end intervals, the code
 * growth, the notes. */
#include "select/report_write.h"
#include "select/decision_confirm.h"
#include "select/dispatch.h"

/* The summary folds the cold and the too-few-samples functions into one
 * line (a real project has dozens; report.md keeps them all). Functions
 * with a note (held back, ambiguous name) are always shown. */
static int summary_folded(const struct select_report *r, size_t f)
{
    if (r->static_mode || !r->decision.functions || r->functions[f].in_patch || r->functions[f].note) return 0;
    enum decision_reason why = r->decision.functions[f].reason;
    return why == DECISION_COLD || why == DECISION_FEW_SAMPLES;
}

/* A function timed but not selected for a reason its intervals give (no
 * significant gain, held back by the corrections, slower somewhere, the
 * budget): the best set's figure, so the line says how near it came. */
static void add_best_measured(struct strbuf *sb, const struct select_report *r, size_t f)
{
    switch (r->decision.functions[f].reason) {
    case DECISION_NO_GAIN: case DECISION_MULTIPLE_TESTS: case DECISION_CALIBRATION: case DECISION_SLOWER:
    case DECISION_CODE_BUDGET: break;
    default: return;
    }
    size_t v = select_shown_variant(r, f);
    if (v >= r->n_variants || !decision_estimate(&r->decision, f, v)->valid) return;
    sb_adds(sb, " (measured: ");
    report_add_estimate(sb, r, f, v);
    sb_addf(sb, " with %s", r->variants[v].name);
    /* A set that could not be taken (its outputs differ: FMA) but made the
     * function significantly slower: worth knowing before anyone takes it
     * by hand (libebur128's reduction: 0.77x with FMA clones). */
    for (size_t w = 1; w < r->n_variants; w++) {
        if (w == v || r->variants[w].eligible || !r->variants[w].built) continue;
        const struct stats_interval *iv = decision_estimate(&r->decision, f, w);
        if (!iv->valid || select_speedup_unknown(iv) || !(iv->speedup_hi < 1.0)) continue;
        sb_addf(sb, "; slower with %s, not eligible: ", r->variants[w].name);
        report_add_estimate(sb, r, f, w);
    }
    sb_adds(sb, ")");
}

char *select_report_summary(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    if (r->static_mode) sb_adds(&sb, "static selection: nothing was timed\n");
    size_t n_cold = 0, n_few = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        if (summary_folded(r, f)) {
            if (r->decision.functions[f].reason == DECISION_COLD) n_cold++;
            else n_few++;
            continue;
        }
        sb_addf(&sb, "  %-3s %-24s ", fn->in_patch ? "yes" : "no", fn->display_name);
        if (!r->static_mode) {
            const struct decision_function *d = &r->decision.functions[f];
            if (select_baseline_unsampled(r, f)) sb_adds(&sb, "not sampled  ");
            else sb_addf(&sb, "%5.1f%%  ", d->share * 100);
            if (fn->in_patch) {
                report_add_estimate(&sb, r, f, (size_t)fn->set);
                sb_addf(&sb, " with %s", r->variants[fn->set].name);
                if (fn->copy_only)   /* select/trimcopies.h */
                    sb_addf(&sb, ", its %s copy alone (the set's others never ran here; left out for the code-growth "
                                 "budget, so a CPU without %s runs the default)",
                            fn->copy_only, fn->copy_only);
            } else {
                sb_adds(&sb, select_function_verdict(r, f));
                add_best_measured(&sb, r, f);
            }
        } else {
            sb_adds(&sb, select_function_verdict(r, f));
        }
        if (select_bytes_added(r, f, select_shown_variant(r, f)) >= 0 || select_bytes_added(r, f, r->n_variants) >= 0) {
            sb_adds(&sb, "; bytes added: ");
            report_add_function_bytes(&sb, r, f);
        }
        report_add_name_flag(&sb, r, f);
        sb_adds(&sb, "\n");
    }
    if (n_cold || n_few) {
        sb_addf(&sb, "  and %zu more:", n_cold + n_few);
        if (n_cold) sb_addf(&sb, " %zu cold (below %.1f%% of the run)", n_cold, r->min_share * 100);
        if (n_few) sb_addf(&sb, "%s %zu too few samples", n_cold ? "," : "", n_few);
        sb_adds(&sb, " - report.md lists every candidate\n");
    }
    size_t n_shared = 0;
    for (size_t f = 0; f < r->n_functions; f++) n_shared += select_name_ambiguous(r, f);
    if (n_shared) {
        sb_addf(&sb, "names not unique (%zu candidates; the profile credits each with the samples of all, so none is "
                     "selected on them):", n_shared);
        for (size_t f = 0; f < r->n_functions; f++)
            if (report_first_of_shared_name(r, f, 0)) sb_addf(&sb, " %s (%zu)", r->functions[f].name, select_name_count(r, f));
        sb_adds(&sb, "\n");
    }
    report_add_noise(&sb, r, "noise: ", "\n");
    report_statistics_summary(&sb, r);
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->timed && wr->march_timed) {
            sb_addf(&sb, "end to end, '%s': nothing selected; -march=x86-64-v3 build ", wr->command);
            report_add_speedup(&sb, &wr->march_e2e);
            sb_adds(&sb, " vs baseline\n");
        }
        if (!wr->timed) continue;
        sb_addf(&sb, "end to end, '%s': ", wr->command);
        report_add_speedup(&sb, &wr->e2e);
        sb_adds(&sb, " vs baseline");
        if (wr->e2e_cpu.valid) {
            sb_adds(&sb, " (CPU time ");
            report_add_speedup(&sb, &wr->e2e_cpu);
            sb_adds(&sb, wr->cpu_decides ? ", which decides: a busy machine)" : ")");
        }
        if (wr->march_timed) {
            sb_adds(&sb, "; -march=x86-64-v3 build ");
            report_add_speedup(&sb, &wr->march_e2e);
            sb_adds(&sb, ", selected vs it ");
            report_add_speedup(&sb, &wr->selected_vs_march);
        }
        sb_adds(&sb, "\n");
    }
    report_references_summary(&sb, r);
    if (r->n_variants && r->variants[0].code.measured) {
        sb_adds(&sb, "code growth:");
        if (r->selected_code.measured) {
            sb_adds(&sb, " selected ");
            report_add_growth(&sb, r, &r->selected_code);
            sb_adds(&sb, ";");
        }
        sb_adds(&sb, " all candidates");
        for (size_t v = 1; v < r->n_variants; v++) {
            if (!r->variants[v].code.measured) continue;
            sb_addf(&sb, " %s ", r->variants[v].name);
            report_add_growth(&sb, r, &r->variants[v].code);
        }
        if (r->march.code.measured && !r->march.failure) {
            sb_adds(&sb, "; -march=x86-64-v3 build beside the baseline (hwcaps) +");
            report_add_bytes(&sb, r->march.code.code_bytes);
            sb_adds(&sb, " bytes");
        }
        /* the budget's line below counts in a second whole build's bytes */
        sb_adds(&sb, " (percentages of the baseline's code)\n");
    }
    char *budget = budget_sentence(r);
    if (budget) sb_addf(&sb, "%s\n", budget);
    free(budget);
    char *dispatch = select_dispatch_sentence(r);
    if (dispatch) sb_addf(&sb, "%s\n", dispatch);
    free(dispatch);
    char *bisect = r->fma_bisect.variant >= 1 ? fma_bisect_sentence(&r->fma_bisect, r->variants[r->fma_bisect.variant].name) : NULL;
    if (bisect) sb_addf(&sb, "%s\n", bisect);
    free(bisect);
    sb_addf(&sb, "%zu of %zu candidates selected; builds: %zu\n", r->n_selected, r->n_functions, r->n_builds);
    for (size_t i = 0; i < r->notes.n; i++) sb_addf(&sb, "note: %s\n", r->notes.v[i]);
    return sb_detach(&sb);
}
