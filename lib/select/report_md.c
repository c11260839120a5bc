/* report_md.c - report.md (report.h): prose around select's tables. Its
 * parts (report_write.h) are also the prose of report.html. */
#include "select/report_write.h"
#include "select/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_md_intro(struct strbuf *sb, const struct select_report *r)
{
    if (r->static_mode) {
        sb_adds(sb, "**Static selection: nothing was timed.** Functions were chosen from what their clones' "
                    "code needs (the ISA verdicts of `fmvgen inspect`) and from the loop records.\n\n");
        return;
    }
    char confirmation[96] = "";
    if (r->decision.confirmation.n_profiled_runs)
        snprintf(confirmation, sizeof confirmation, ", %zu confirmation runs (fresh rounds, not among the profiled)",
                 r->decision.confirmation.n_profiled_runs);
    char placement[96] = "";
    if (r->placement.n_runs)
        snprintf(placement, sizeof placement, ", %zu profiled runs of the selected build (the placement check)",
                 r->placement.n_runs);
    sb_addf(sb, "%zu builds, %zu profiled runs%s%s and %zu timed runs; %d runs per variant and workload, "
                "interleaved. Intervals are 95%% (%s). A function is selected when its own time drops "
                "significantly and it holds at least %.1f%% of the baseline's samples; functions with no "
                "significant gain alone are selected together when, as one group, they are significantly "
                "faster.\n\n",
            r->n_builds, r->n_profiled_runs, confirmation, placement, r->n_timed_runs, r->runs,
            r->runs >= STATS_RANK_MIN_RUNS
                ? "a function's samples where every run sampled it, and each workload's times end to end: the "
                  "Hodges-Lehmann interval of the Mann-Whitney test on the log scale, which the one-sided slow "
                  "bursts of a busy machine barely move (at least " STATS_RANK_MIN_RUNS_TEXT " runs); Welch "
                  "otherwise"
                : "Welch; a function's samples on the log scale where every run sampled it; from "
                  STATS_RANK_MIN_RUNS_TEXT " runs on, a rank interval",
            r->min_share * 100);
    const struct runs_auto *ra = &r->runs_auto;
    if (ra->probed && ra->failure)
        sb_addf(sb, "The runs were not chosen by noise (--runs auto): %s.\n\n", ra->failure);
    else if (ra->probed)
        sb_addf(sb, "%d runs (--runs auto): the baseline's workloads ran %zu times each first; %zu of those runs "
                    "took at least %.2fx their workload's fastest CPU time (the worst %.2fx)%s. The probe is a "
                    "snapshot: bursts that start later meet the runs it chose.\n\n",
                ra->runs, ra->probe_runs, ra->slow_runs, RUNS_AUTO_SLOW, ra->worst_ratio,
                ra->bursty ? ": a busy machine's slow bursts, so every comparison has enough runs for the rank "
                             "interval"
                           : ": a quiet machine");
    char *dispatch = select_dispatch_sentence(r);
    if (dispatch) sb_addf(sb, "D%s.\n\n", dispatch + 1);
    free(dispatch);
    report_md_sampling(sb, r);
}

void report_md_sampling(struct strbuf *sb, const struct select_report *r)
{
    int any = 0, scaled = 0;
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct sampling_period *p = &r->workloads[w].sampling;
        if (p->period_ns <= 0) continue;
        char *how = sampling_describe(p);
        sb_addf(sb, "%s `%s` %s", any ? ";" : "perf sampled the CPU time of", r->workloads[w].command, how);
        free(how);
        any = 1;
        scaled |= p->period_ns != SAMPLING_UNIT_NS;
    }
    if (!any) return;
    sb_adds(sb, ", every arm of a workload alike.");
    if (scaled)
        sb_addf(sb, " Samples are counted in units of %g us of CPU: a sample taken every 500 us counts 10.",
                (double)SAMPLING_UNIT_NS / 1000);
    sb_adds(sb, "\n\n");
}

/* " `work` (a.c:3, b.c:9)" for each name of the list; how many candidates. */
static size_t add_shared_list(struct strbuf *sb, const struct select_report *r, int by_file)
{
    size_t n = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        if (!report_first_of_shared_name(r, f, by_file)) continue;
        sb_addf(sb, " `%s` (", r->functions[f].name);
        int first = 1;
        for (size_t g = f; g < r->n_functions; g++) {
            if (strcmp(r->functions[g].name, r->functions[f].name) != 0 || !report_shared_listed(r, g, by_file))
                continue;
            sb_addf(sb, "%s%s:%d", first ? "" : ", ", r->functions[g].file, r->functions[g].line);
            first = 0;
            n++;
        }
        sb_adds(sb, ")");
    }
    return n;
}

/* The paragraphs under the functions table on names candidates share: those
 * the profile could not tell apart (select_name_ambiguous), and those it
 * told apart by file. */
void report_md_shared_names(struct strbuf *sb, const struct select_report *r)
{
    size_t n = 0, n_by_file = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        n += select_name_ambiguous(r, f);
        n_by_file += report_shared_listed(r, f, 1);
    }
    if (n_by_file) {
        sb_addf(sb, "\n**Names shared, told apart by file:** %zu candidates share their name with another candidate "
                    "(static functions in different files):", n_by_file);
        add_shared_list(sb, r, 1);
        sb_adds(sb, ". perf names a sample by its symbol only; each sample of these was given to its own file's "
                    "function through the symbol table of the file it ran in (the STT_FILE of its symbol), so each "
                    "is judged on its own samples.\n");
    }
    if (!n) return;
    sb_addf(sb, "\n**Names not unique:** %zu candidates share their name with another candidate (static functions "
                "in different files):", n);
    add_shared_list(sb, r, 0);
    if (r->static_mode)
        sb_adds(sb, ". The static selection does not depend on a profile, but the patch names functions the same "
                    "way.\n");
    else
        sb_adds(sb, ". The profile names a sample by its symbol only, so each of them was credited with the samples "
                    "of all of its namesakes: their shares and speedups above are of the sum, and none of them is "
                    "selected on them (\"ambiguous name\").\n");
}

void report_md_e2e_intro(struct strbuf *sb)
{
    sb_adds(sb, "Wall time decides; CPU time (user + system) of the same runs is shown beside it, because "
                "on a loaded machine it moves much less between identical runs. Where the baseline's wall "
                "times were 1.3x its CPU times or more, the runs waited for a busy machine and the CPU time "
                "decides (marked *decides*).\n\n");
}

/* how close the selection comes where the whole-program build wins */
void report_md_e2e_march(struct strbuf *sb, const struct select_report *r)
{
    if (!r->n_selected) {
        sb_adds(sb, "\nNothing was selected, so the selected build is the baseline: the references were timed "
                    "against it in the same interleaved runs.");
        for (size_t w = 0; w < r->n_workloads; w++) {
            const struct select_workload_result *wr = &r->workloads[w];
            if (!wr->march_timed || !wr->march_e2e.valid) continue;
            sb_addf(sb, " On `%s` the -march=x86-64-v3 build is %s (%.2fx [%.2f, %.2f]).", wr->command,
                    stats_faster(&wr->march_e2e)  ? "significantly faster than the baseline"
                    : stats_slower(&wr->march_e2e) ? "significantly slower than the baseline"
                                                   : "as fast as the baseline within the interval",
                    wr->march_e2e.speedup, wr->march_e2e.speedup_lo, wr->march_e2e.speedup_hi);
        }
        sb_adds(sb, "\n");
        return;
    }
    sb_adds(sb, "\nThe three builds were timed in the same interleaved runs; \"selected vs "
                "-march=x86-64-v3\" above 1x means the selected build is the faster.");
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->march_timed || !wr->selected_vs_march.valid) continue;
        if (stats_slower(&wr->selected_vs_march))
            sb_addf(sb, " On `%s` the -march=x86-64-v3 build is significantly faster: the selection "
                        "reaches %.0f%% of its speed (code outside the cloned functions gains from "
                        "the wider ISA too).", wr->command, 100 * wr->selected_vs_march.speedup);
        else if (stats_faster(&wr->selected_vs_march))
            sb_addf(sb, " On `%s` the selected build is significantly faster than the -march=x86-64-v3 "
                        "build.", wr->command);
        else
            sb_addf(sb, " On `%s` the selected build and the -march=x86-64-v3 build are as fast within "
                        "the interval.", wr->command);
    }
    sb_adds(sb, "\n");
}

void report_md_code_unmeasured(struct strbuf *sb, const struct select_report *r)
{
    if (!r->static_mode) {
        sb_adds(sb, "\n## Code size\n\nThe baseline's linked files could not be measured.\n");
        return;
    }
    if (r->n_variants <= 1 || !r->variants[1].code.measured) return;
    sb_adds(sb, "\n## Code size\n\n");
    sb_adds(sb, REPORT_CODE_COUNTED);
    sb_adds(sb, "\n\nOnly the all-candidates build was made (--static): ");
    report_add_bytes(sb, r->variants[1].code.clone_bytes + r->variants[1].code.resolver_bytes);
    sb_adds(sb, " bytes of clones and resolvers in its ");
    report_add_bytes(sb, r->variants[1].code.code_bytes);
    sb_adds(sb, " bytes of code");
    uint64_t selected = 0;
    for (size_t f = 0; f < r->n_functions; f++)
        if (r->functions[f].in_patch && select_bytes_added(r, f, 1) > 0)
            selected += (uint64_t)select_bytes_added(r, f, 1);
    sb_adds(sb, "; the selected functions' share of them: ");
    report_add_bytes(sb, selected);
    sb_adds(sb, " bytes.\n");
}

void report_md_code_after(struct strbuf *sb, const struct select_report *r)
{
    const struct select_code *base = &r->variants[0].code;
    const struct select_march *m = &r->march;
    sb_adds(sb, "\nGrowth beyond the clones and resolvers is code they bring along: with GCC, libgcc's CPU "
                "detection (__cpu_indicator_init, get_available_features: about 4.5 KB once per linked file "
                "with a resolver), and the alignment padding of the new functions.\n\n");
    if (r->selected_code.measured) {
        int64_t sel = select_code_growth(r, &r->selected_code);
        sb_adds(sb, "The selected build's code grows by ");
        report_add_growth(sb, r, &r->selected_code);
        sb_adds(sb, "; with every candidate cloned it grows by");
        int first = 1;
        for (size_t v = 1; v < r->n_variants; v++) {
            if (!r->variants[v].code.measured) continue;
            int64_t all = select_code_growth(r, &r->variants[v].code);
            sb_adds(sb, first ? " " : ", ");
            first = 0;
            report_add_growth(sb, r, &r->variants[v].code);
            sb_addf(sb, " (%s", r->variants[v].name);
            if (all > 0) sb_addf(sb, ": the selection keeps %.0f%% of it", 100.0 * (double)sel / (double)all);
            sb_adds(sb, ")");
        }
        sb_adds(sb, first ? " - (no all-candidates build was measured).\n" : ".\n");
    }
    char *budget = budget_sentence(r);
    if (budget) sb_addf(sb, "\nThe %s.\n", budget + strlen("code-growth "));
    free(budget);

    if (m->code.measured && !m->failure) {
        sb_adds(sb, "glibc-hwcaps packaging would ship the -march=x86-64-v3 build beside the baseline: ");
        report_add_bytes(sb, m->code.code_bytes);
        sb_addf(sb, " more bytes of code to ship (+%.1f%%)",
                base->code_bytes ? 100.0 * (double)m->code.code_bytes / (double)base->code_bytes : 0.0);
        if (r->selected_code.measured) {
            sb_adds(sb, ", where the selected build adds ");
            report_add_growth(sb, r, &r->selected_code);
        }
        sb_adds(sb, ".\n");
    }
    report_references_markdown(sb, r);
}

void report_md_selected(struct strbuf *sb, const struct select_report *r)
{
    sb_addf(sb, "\n%zu of %zu candidates selected%s%s%s.\n", r->n_selected, r->n_functions,
            r->patch_targets ? " (targets " : "", r->patch_targets ? r->patch_targets : "",
            r->patch_targets ? ")" : "");
}

char *select_report_markdown(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    struct report_table t;
    sb_adds(&sb, "# fmvgen select\n\n");
    report_md_intro(&sb, r);
    if (!r->static_mode) {
        report_add_noise(&sb, r, "**Noisy measurements.** ", "\n\n");
        report_statistics_markdown(&sb, r);
    }
    sb_adds(&sb, "## Variants\n\n");
    report_table_variants(r, &t);
    report_table_markdown(&sb, &t);
    report_table_free(&t);
    sb_adds(&sb, "\n## Functions\n\n");
    report_table_functions(r, &t);
    report_table_markdown(&sb, &t);
    report_table_free(&t);
    if (!r->static_mode) report_md_shared_names(&sb, r);
    /* which functions' FMA changed an output (fmabisect.h) */
    char *bisect = r->fma_bisect.variant >= 1 ? fma_bisect_sentence(&r->fma_bisect, r->variants[r->fma_bisect.variant].name) : NULL;
    if (bisect) sb_addf(&sb, "\n## FMA bisection\n\n%s.\n\n", bisect);
    for (size_t i = 0; bisect && i < r->fma_bisect.tests.n; i++) sb_addf(&sb, "- %s\n", r->fma_bisect.tests.v[i]);
    free(bisect);
    int march;
    if (report_table_e2e(r, &t, &march) == 0) {
        sb_adds(&sb, "\n## End to end: selected build vs baseline\n\n");
        report_md_e2e_intro(&sb);
        report_table_markdown(&sb, &t);
        if (march) report_md_e2e_march(&sb, r);
    }
    report_table_free(&t);
    if (report_table_code(r, &t) == 0) {
        sb_adds(&sb, "\n## Code size\n\n");
        sb_adds(&sb, REPORT_CODE_COUNTED);
        sb_adds(&sb, "\n\n");
        report_table_markdown(&sb, &t);
        report_md_code_after(&sb, r);
    } else {
        report_md_code_unmeasured(&sb, r);
    }
    report_table_free(&t);
    report_md_selected(&sb, r);
    if (r->notes.n) {
        sb_adds(&sb, "\n## Notes\n\n");
        for (size_t i = 0; i < r->notes.n; i++) sb_addf(&sb, "- %s\n", r->notes.v[i]);
    }
    return sb_detach(&sb);
}
