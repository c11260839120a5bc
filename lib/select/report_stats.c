/* report_stats.c - the statistics behind `fmvgen select`'s verdicts, for
 * the three reports (report.h): the seed of the runs' random order, the A/A
 * calibration (the baseline against itself), the rule that keeps many
 * tests from producing false selections (Holm-Bonferroni), the retest on
 * fresh runs of what Holm alone held back (decision_confirm.h), and where
 * a set adding less code was preferred (decision.h), in each format; and
 * each retested function's note (select_note_retested). */
#include "select/report_write.h"

#include "select/decision_confirm.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char RULE[] =
    "Each hot function's interval with each target set is one test of a family; a function is selected only when "
    "Holm-Bonferroni rejects 'no change' for it at 5% family-wise (and its 95% interval excludes no change). The "
    "group of small gains is one more test per eligible set, at 5% divided by the number of sets. Intervals are "
    "widened by what the baseline shows against itself (A/A) where that excludes no change. Among the sets that "
    "qualify, the fastest is taken unless a set whose clones add fewer bytes has an overlapping interval: then that "
    "one. Comparisons held back by Holm alone (faster by their own interval, the other criteria met), and those of "
    "near-significant hot functions (at most 4: see near_significant_rule), are tested again on fresh runs of only "
    "the arms they need (no extra build), on those runs alone, one-sided ('not faster'), Holm over them at 2.5% (the "
    "fresh A/A widening, slower on no workload); those it rejects are selected. When a retested function is then "
    "faster on the fresh runs but not confirmed, as many fresh rounds again, and the same family on all the fresh "
    "rounds at the other 2.5%. Each stage holds its false selections to 5% "
    "family-wise, so both together to at most 10% (union bound).";

#define STR_(x) #x
#define STR(x) STR_(x)
static const char NEAR_RULE[] =
    "A hot function without a significant gain is near-significant with a set when the set is eligible for it, "
    "not its default's code and slower on no workload, and its first runs' point estimate is at least "
    STR(DECISION_NEAR_GAIN) "x, saves at least " STR(DECISION_NEAR_SAVED) " of some workload's time, with a "
    "two-sided p of at most " STR(DECISION_NEAR_P) "; per function its set that saves the most is retested, for at "
    "most " STR(DECISION_NEAR_MAX) " functions (those that save the most). The fresh rounds run only the arms the "
    "retest needs, at most the first stage's rounds per look (two looks at most), whatever the number of functions.";

static const char ESTIMATES[] =
    "A function the confirmation selected has its speedups (functions[].variants[set] with estimate_from "
    "'confirmation_runs'; the tables and the summary mark them '(fresh runs)') and its gain in the code-growth "
    "budget from the confirmation's fresh runs: the profiled runs picked it, so their interval overstates its gain "
    "(winner's curse); theirs stays in profiled_runs_interval. Every other figure comes from the profiled runs.";

/* The retest's family-wise bound with the first stage's: alpha each. */
static double bound(const struct decision *d)
{
    return d->confirmation.n_runs ? 2 * d->alpha : d->alpha;
}

/* Confirmed by the retest, then dropped for the code-growth budget. */
static size_t budget_dropped(const struct decision *d)
{
    size_t n = 0;
    for (size_t f = 0; f < d->n_functions; f++)
        n += d->functions[f].confirmed && d->functions[f].reason == DECISION_CODE_BUDGET;
    return n;
}

static const char *confirm_outcome(const struct decision_function *df)
{
    if (!df->confirmed) return "not confirmed";
    return df->reason == DECISION_CODE_BUDGET ? "confirmed, then dropped for the code-growth budget," : "confirmed";
}

/* The best retested set of f: confirmed, else the one with the best speedup. */
static int retested_set(const struct select_report *r, size_t f)
{
    const struct decision_function *d = &r->decision.functions[f];
    if (!d->confirm) return -1;
    if (d->confirmed && d->chosen >= 1) return d->chosen;
    int best = -1;
    for (size_t v = 1; v < r->n_variants && v < r->decision.n_variants; v++)
        if (d->confirm[v].valid && (best < 0 || d->confirm[v].speedup > d->confirm[best].speedup)) best = (int)v;
    return best;
}

static int timed(const struct select_report *r)
{
    return !r->static_mode && r->decision.functions;
}

static void add_ratio_iv(struct strbuf *sb, const struct stats_interval *iv)
{
    if (!iv->valid || !isfinite(iv->speedup)) {
        sb_adds(sb, "- (no interval)");
        return;
    }
    sb_addf(sb, "%.2fx [%.2f, %.2f]", iv->speedup, iv->speedup_lo, iv->speedup_hi);
}

/* the hot functions whose A/A interval excluded no change (their intervals widened):
 * the ones decision.n_aa_biased counts */
static size_t biased_functions(const struct select_report *r, struct strbuf *sb)
{
    size_t n = 0;
    for (size_t f = 0; f < r->n_functions && f < r->decision.n_functions; f++) {
        const struct decision_function *d = &r->decision.functions[f];
        if (!d->aa_biased) continue;   /* the hot ones n_aa_biased counts, not a cold function's */
        if (sb) {
            sb_addf(sb, "%s%s ", n ? ", " : "", r->functions[f].display_name);
            add_ratio_iv(sb, &d->aa);
        }
        n++;
    }
    return n;
}

static int smaller_preferred(const struct select_report *r, size_t f)
{
    const struct decision_function *d = &r->decision.functions[f];
    return d->chosen >= 1 && d->fastest >= 1 && d->chosen != d->fastest && !d->budget_from &&
           (size_t)d->chosen < r->n_variants &&
           (size_t)d->fastest < r->n_variants;
}

void report_statistics_markdown(struct strbuf *sb, const struct select_report *r)
{
    if (!timed(r)) return;
    const struct decision *d = &r->decision;
    sb_addf(sb, "## Statistics\n\nEach round of runs takes the arms in a fresh random order (seed %" PRIu64
                "; `--seed %" PRIu64 "` repeats it).\n\n", r->seed, r->seed);
    if (d->calibrated) {
        sb_addf(sb, "**A/A calibration.** The baseline also ran as an arm of its own, so identical code was compared "
                    "with itself. Of %zu hot function(s), %zu differed from themselves significantly", d->n_aa_checked,
                d->n_aa_biased);
        struct strbuf list = STRBUF_INIT;
        if (biased_functions(r, &list)) sb_addf(sb, " (%s): their intervals are widened by that difference", list.buf);
        sb_free(&list);
        sb_adds(sb, ". Total samples, baseline vs A/A:");
        for (size_t w = 0; w < r->n_workloads && w < d->n_workloads; w++) {
            sb_addf(sb, "%s `%s` ", w ? ";" : "", r->workloads[w].command);
            add_ratio_iv(sb, &d->aa_workload[w]);
            if (d->aa_workload_margin[w] > 0) sb_adds(sb, " (excludes 1: its end-to-end intervals are widened)");
        }
        sb_adds(sb, ".\n\n");
    } else {
        sb_adds(sb, "No A/A calibration ran.\n\n");
    }
    sb_addf(sb, "**False selections.** %s %zu test%s; %zu function%s significant by %s own interval %s held back "
                "by Holm.\n", RULE, d->n_tests, d->n_tests == 1 ? "" : "s", d->n_unadjusted, d->n_unadjusted == 1 ? "" : "s",
            d->n_unadjusted == 1 ? "its" : "their", d->n_unadjusted == 1 ? "was" : "were");
    /* (the confirmation's paragraph follows) */
    const struct decision_confirmation *c = &d->confirmation;
    char looks[200] = "";
    if (c->n_looks == 2)
        snprintf(looks, sizeof looks, " in two looks at %.1f%% each (the first %zu rounds: %zu confirmed; a function "
                 "faster there but not confirmed asked for %zu more, all %zu: %zu more confirmed)",
                 100 * c->alpha, c->n_runs_first, c->n_confirmed - c->n_confirmed_second, c->n_runs - c->n_runs_first,
                 c->n_runs, c->n_confirmed_second);
    else if (c->alpha > 0)
        snprintf(looks, sizeof looks, " at %.1f%% (a second look, at the other %.1f%%, was not needed)", 100 * c->alpha,
                 100 * c->alpha);
    if (c->n_runs) {
        sb_addf(sb, "\n**Confirmation on fresh runs.** %zu comparison%s (of %zu function%s: %zu held back by Holm "
                    "alone, %zu near-significant of %zu found, at most %d) were tested again on %zu fresh round%s "
                    "(%zu runs) of the baseline, %sthe variants they need, one-sided, Holm over them%s; %zu "
                    "function%s confirmed (%zu of them then dropped for the code-growth budget). False selections "
                    "over both stages: at most %.0f%% (%.0f%% each, union bound).\n", c->n_tests,
                c->n_tests == 1 ? "" : "s", c->n_functions, c->n_functions == 1 ? "" : "s", c->n_functions - c->n_near,
                c->n_near, c->n_near_found, DECISION_NEAR_MAX, c->n_runs, c->n_runs == 1 ? "" : "s",
                c->n_profiled_runs, c->calibrated ? "the A/A arm and " : "", looks, c->n_confirmed,
                c->n_confirmed == 1 ? "" : "s", budget_dropped(d), 100 * bound(d), 100 * d->alpha);
        for (size_t f = 0; f < r->n_functions && f < d->n_functions; f++) {
            int v = retested_set(r, f);
            if (v < 1) continue;
            const struct decision_function *df = &d->functions[f];
            sb_addf(sb, "- %s with %s (%s", r->functions[f].display_name, r->variants[v].name,
                    df->near_set >= 1 ? "near-significant: " : "held back by Holm");
            if (df->near_set >= 1) add_ratio_iv(sb, &df->by_variant[df->near_set]);
            sb_addf(sb, "): %s on the fresh runs, ", confirm_outcome(df));
            add_ratio_iv(sb, &df->confirm[v]);
            sb_adds(sb, "\n");
        }
        if (c->n_confirmed)
            sb_adds(sb, "\nA confirmed function's speedups in the tables and the summary (marked *(fresh runs)*) and "
                        "its gain in the code-growth budget come from these fresh runs: the profiled runs picked it, "
                        "so their interval overstates its gain (winner's curse).\n");
    } else if (c->n_asked == 0 && d->n_unadjusted) {
        sb_adds(sb, "\nNo confirmation on fresh runs (`--confirm-runs 0`).\n");
    }
    for (size_t f = 0; f < r->n_functions && f < d->n_functions; f++)
        if (smaller_preferred(r, f))
            sb_addf(sb, "- %s: %s rather than the faster-looking %s, whose interval overlaps and whose clones add "
                        "more code\n", r->functions[f].display_name, r->variants[d->functions[f].chosen].name,
                    r->variants[d->functions[f].fastest].name);
    sb_adds(sb, "\n");
}

json_t *report_statistics_json(const struct select_report *r)
{
    if (!timed(r)) return json_null();
    const struct decision *d = &r->decision;
    json_t *o = json_object();
    json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(o, "order", json_string("each round in a fresh random order from the seed"));
    json_object_set_new(o, "alpha", json_real(d->alpha));
    json_object_set_new(o, "rule", json_string(RULE));
    json_object_set_new(o, "tests", json_integer((json_int_t)d->n_tests));
    json_object_set_new(o, "held_back_by_holm", json_integer((json_int_t)d->n_unadjusted));
    const struct decision_confirmation *c = &d->confirmation;
    json_t *conf = json_object();
    json_object_set_new(conf, "rounds_asked", json_integer((json_int_t)c->n_asked));
    json_object_set_new(conf, "rounds", json_integer((json_int_t)c->n_runs));
    json_object_set_new(conf, "looks", json_integer(c->n_looks));
    json_object_set_new(conf, "rounds_first_look", json_integer((json_int_t)c->n_runs_first));
    json_object_set_new(conf, "alpha_per_look", json_real(c->alpha > 0 ? c->alpha : d->alpha));
    json_object_set_new(conf, "confirmed_second_look", json_integer((json_int_t)c->n_confirmed_second));
    json_object_set_new(conf, "profiled_runs", json_integer((json_int_t)c->n_profiled_runs));
    json_object_set_new(conf, "tests", json_integer((json_int_t)c->n_tests));
    json_object_set_new(conf, "functions", json_integer((json_int_t)c->n_functions));
    json_object_set_new(conf, "confirmed", json_integer((json_int_t)c->n_confirmed));
    json_object_set_new(conf, "calibrated", json_boolean(c->calibrated));
    json_object_set_new(conf, "near_significant_found", json_integer((json_int_t)c->n_near_found));
    json_object_set_new(conf, "near_significant_retested", json_integer((json_int_t)c->n_near));
    json_object_set_new(conf, "near_significant_confirmed", json_integer((json_int_t)c->n_near_confirmed));
    json_object_set_new(conf, "near_significant_cap", json_integer(DECISION_NEAR_MAX));
    json_object_set_new(conf, "near_significant_rule", json_string(NEAR_RULE));
    json_object_set_new(conf, "alpha", json_real(d->alpha));
    json_object_set_new(o, "confirmation", conf);
    json_object_set_new(o, "family_wise_error_bound", json_real(bound(d)));
    json_t *cal = json_null();
    if (d->calibrated) {
        cal = json_object();
        json_object_set_new(cal, "arm", json_string("the baseline build run again as an arm of its own"));
        json_object_set_new(cal, "functions_checked", json_integer((json_int_t)d->n_aa_checked));
        json_object_set_new(cal, "functions_biased", json_integer((json_int_t)d->n_aa_biased));
        json_t *fs = json_array();
        for (size_t f = 0; f < r->n_functions && f < d->n_functions; f++) {
            const struct decision_function *df = &d->functions[f];
            if (!df->aa.valid) continue;
            json_t *j = json_object();
            json_object_set_new(j, "name", json_string(r->functions[f].display_name));
            json_object_set_new(j, "baseline_vs_aa", select_interval_json(&df->aa));
            json_object_set_new(j, "excludes_no_change", json_boolean(df->aa_margin > 0));
            json_array_append_new(fs, j);
        }
        json_object_set_new(cal, "functions", fs);
        json_t *ws = json_array();
        for (size_t w = 0; w < r->n_workloads && w < d->n_workloads; w++) {
            json_t *j = json_object();
            json_object_set_new(j, "command", json_string(r->workloads[w].command));
            json_object_set_new(j, "total_samples_baseline_vs_aa", select_interval_json(&d->aa_workload[w]));
            json_object_set_new(j, "excludes_no_change", json_boolean(d->aa_workload_margin[w] > 0));
            json_array_append_new(ws, j);
        }
        json_object_set_new(cal, "workloads", ws);
    }
    json_object_set_new(o, "calibration", cal);
    json_t *smaller = json_array();
    for (size_t f = 0; f < r->n_functions && f < d->n_functions; f++) {
        if (!smaller_preferred(r, f)) continue;
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(r->functions[f].display_name));
        json_object_set_new(j, "chosen", json_string(r->variants[d->functions[f].chosen].name));
        json_object_set_new(j, "fastest", json_string(r->variants[d->functions[f].fastest].name));
        json_array_append_new(smaller, j);
    }
    json_object_set_new(o, "smaller_code_preferred", smaller);
    return o;
}

json_t *report_confirmation_json(const struct select_report *r, size_t f)
{
    if (!timed(r) || f >= r->decision.n_functions || !r->decision.functions[f].confirm) return json_null();
    const struct decision_function *d = &r->decision.functions[f];
    json_t *o = json_object();
    json_object_set_new(o, "rounds", json_integer((json_int_t)(d->confirmed == 1 ? r->decision.confirmation.n_runs_first
                                                                                 : r->decision.confirmation.n_runs)));
    json_object_set_new(o, "confirmed", json_boolean(d->confirmed));
    json_object_set_new(o, "look", d->confirmed ? json_integer(d->confirmed) : json_null());
    json_object_set_new(o, "dropped_for_budget", json_boolean(d->confirmed && d->reason == DECISION_CODE_BUDGET));
    json_object_set_new(o, "why", json_string(d->near_set >= 1 ? "near-significant" : "held back by Holm"));
    json_object_set_new(o, "test", json_string("one-sided (not faster), Holm over the comparisons retested"));
    if (d->near_set >= 1) {
        json_t *first = select_interval_json(&d->by_variant[d->near_set]);
        json_object_set_new(first, "variant", json_string(r->variants[d->near_set].name));
        json_object_set_new(first, "saved_share", json_real(d->near_saved));
        json_object_set_new(o, "first_runs", first);
    }
    json_t *sets = json_object();
    for (size_t v = 1; v < r->n_variants && v < r->decision.n_variants; v++) {
        if (!decision_confirm_retests(&r->decision, f, v)) continue;
        json_t *j = select_interval_json(&d->confirm[v]);
        json_object_set_new(j, "holm_rejects", json_boolean(d->confirm_holm[v]));
        json_object_set_new(sets, r->variants[v].name, j);
    }
    json_object_set_new(o, "variants", sets);
    return o;
}

json_t *report_run_counts_json(const struct select_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "profiled_runs", json_string("the profiled rounds every verdict was made on (the "
                                                        "baseline, the A/A arm, each variant); without the "
                                                        "confirmation's"));
    json_object_set_new(o, "confirmation_runs",
                        json_string("the confirmation's fresh rounds, which retest what Holm alone held back "
                                    "(statistics.confirmation.profiled_runs); not in profiled_runs"));
    json_object_set_new(o, "timed_runs", json_string("the end-to-end timed runs (baseline, selected build, "
                                                     "references)"));
    json_object_set_new(o, "placement_runs",
                        json_string("the selected build's profiled runs of the placement check (placement."
                                    "selected_profiled_runs); not in profiled_runs"));
    json_object_set_new(o, "total", json_integer((json_int_t)(r->n_profiled_runs + r->n_timed_runs +
                                                               r->decision.confirmation.n_profiled_runs +
                                                               r->placement.n_runs)));
    return o;
}

json_t *report_estimates_json(const struct select_report *r)
{
    return timed(r) ? json_string(ESTIMATES) : json_null();
}

void report_statistics_summary(struct strbuf *sb, const struct select_report *r)
{
    if (!timed(r)) return;
    const struct decision *d = &r->decision;
    sb_addf(sb, "statistics: runs in a random order (--seed %" PRIu64 "); Holm over %zu test%s", r->seed, d->n_tests,
            d->n_tests == 1 ? "" : "s");
    if (d->n_unadjusted) sb_addf(sb, " held back %zu", d->n_unadjusted);
    if (d->confirmation.n_runs)
        sb_addf(sb, "; %zu retested on %zu fresh rounds, %zu confirmed (false selections over both stages <= %.0f%%%s)",
                d->confirmation.n_tests, d->confirmation.n_runs, d->confirmation.n_confirmed, 100 * bound(d),
                d->confirmation.n_confirmed ? "; their speedups from the fresh rounds" : "");
    sb_adds(sb, "\n");
    if (!d->calibrated) return;
    sb_adds(sb, "calibration (A/A, the baseline against itself):");
    for (size_t w = 0; w < r->n_workloads && w < d->n_workloads; w++) {
        sb_addf(sb, "%s '%s' ", w ? ";" : "", r->workloads[w].command);
        add_ratio_iv(sb, &d->aa_workload[w]);
        if (d->aa_workload_margin[w] > 0) sb_adds(sb, " EXCLUDES 1: end-to-end intervals widened");
    }
    sb_addf(sb, "; %zu of %zu hot functions differed from themselves%s\n", d->n_aa_biased, d->n_aa_checked,
            d->n_aa_biased ? " (their intervals widened)" : "");
}

void select_note_statistics(struct select_report *r)
{
    if (!timed(r)) return;
    const struct decision *d = &r->decision;
    struct strbuf list = STRBUF_INIT;
    size_t n = biased_functions(r, &list);
    if (n)
        sv_pushf(&r->notes, "A/A calibration: %zu of %zu hot functions differed significantly between two arms of "
                            "identical code (the baseline against itself: %s); their intervals are widened by that "
                            "difference, so only a gain beyond it can select them",
                 n, d->n_aa_checked, list.buf);
    sb_free(&list);
    const struct decision_confirmation *c = &d->confirmation;
    if (c->n_runs)
        sv_pushf(&r->notes, "%zu function%s faster by %s own interval but held back by Holm over %zu tests, and %zu "
                            "near-significant (of %zu found, at most %d), %s tested again on %zu fresh rounds (%zu "
                            "comparison%s, one-sided, Holm over them): %zu confirmed (%zu of them near-significant, %zu "
                            "then dropped for the code-growth budget); false selections over both stages are bounded by %.0f%% (%.0f%% "
                            "each)",
                 c->n_functions - c->n_near, c->n_functions - c->n_near == 1 ? "" : "s",
                 c->n_functions - c->n_near == 1 ? "its" : "their", d->n_tests, c->n_near, c->n_near_found,
                 DECISION_NEAR_MAX, c->n_functions == 1 ? "was" : "were", c->n_runs, c->n_tests,
                 c->n_tests == 1 ? "" : "s", c->n_confirmed, c->n_near_confirmed, budget_dropped(d), 100 * bound(d),
                 100 * d->alpha);
    char retested[96] = "";
    if (c->n_runs)
        snprintf(retested, sizeof retested, "; %zu of them retested on fresh runs, not confirmed",
                 (c->n_functions - c->n_near) - (c->n_confirmed - c->n_near_confirmed));
    size_t held_confirmed = c->n_confirmed - c->n_near_confirmed;
    size_t held = d->n_unadjusted - (held_confirmed < d->n_unadjusted ? held_confirmed : d->n_unadjusted);
    if (held)
        sv_pushf(&r->notes, "%zu function%s faster by %s own interval %s not selected: over %zu tests (functions x "
                            "target sets) Holm's correction asks for more (more --runs give narrower intervals)%s",
                 held, held == 1 ? "" : "s", held == 1 ? "its" : "their", held == 1 ? "is" : "are", d->n_tests,
                 retested);
}

/* A function Holm held back that the confirmation did not retest says
 * why: no run was asked for, or no set it was faster with could be
 * selected (outputs or tests differ, slower on some workload). */
static void note_not_retested(struct select_report *r, size_t f)
{
    const struct decision_function *df = &r->decision.functions[f];
    char *why;
    if (!r->decision.confirmation.n_asked) why = xstrdup("not retested (--confirm-runs below 2)");
    else if (df->n_unheld_ineligible || df->n_unheld_slower) {
        struct strbuf sb = STRBUF_INIT;
        if (df->n_unheld_ineligible)
            sb_addf(&sb, "%d set%s changed outputs or tests", df->n_unheld_ineligible,
                    df->n_unheld_ineligible == 1 ? "" : "s");
        if (df->n_unheld_slower)
            sb_addf(&sb, "%s%d set%s significantly slower on some workload", sb.len ? ", " : "",
                    df->n_unheld_slower, df->n_unheld_slower == 1 ? "" : "s");
        why = xasprintf("not retested: no set it was faster with could be selected (%s)", sb_str(&sb));
        sb_free(&sb);
    } else {
        return;
    }
    free(r->functions[f].note);
    r->functions[f].note = xasprintf("%s; %s", decision_reason_name(DECISION_MULTIPLE_TESTS), why);
    free(why);
}

/* Each function the confirmation retested says how it went (its verdict
 * text, select_function_verdict), with the fresh runs' interval; one Holm
 * held back without a retest says why (note_not_retested). */
void select_note_retested(struct select_report *r)
{
    const struct decision *d = &r->decision;
    for (size_t f = 0; f < r->n_functions && f < d->n_functions; f++) {
        const struct decision_function *df = &d->functions[f];
        if (!df->confirm && df->reason == DECISION_MULTIPLE_TESTS && !r->functions[f].note) {
            note_not_retested(r, f);
            continue;
        }
        int open = df->reason == DECISION_CONFIRMED || df->reason == DECISION_MULTIPLE_TESTS ||
                   (df->near_set >= 1 && (df->reason == DECISION_NO_GAIN || df->reason == DECISION_CALIBRATION));
        if (!df->confirm || !open) continue;
        int v = df->reason == DECISION_CONFIRMED ? df->chosen : -1;   /* else the best retested set */
        for (size_t u = 1; df->reason != DECISION_CONFIRMED && u < r->n_variants; u++)
            if (decision_confirm_retests(d, f, u) && df->confirm[u].valid &&
                (v < 0 || df->confirm[u].speedup > df->confirm[v].speedup))
                v = (int)u;
        char iv[96] = "no interval";
        if (v >= 1)
            snprintf(iv, sizeof iv, "%.2fx [%.2f, %.2f] with %s", df->confirm[v].speedup, df->confirm[v].speedup_lo,
                     df->confirm[v].speedup_hi, r->variants[v].name);
        /* the fresh rounds its figures come from: the first look's, or both looks' */
        size_t runs = df->confirmed == 1 ? d->confirmation.n_runs_first : d->confirmation.n_runs;
        char first[128] = "";
        if (df->near_set >= 1)
            snprintf(first, sizeof first, "near-significant on the first runs (%.2fx [%.2f, %.2f] with %s)",
                     df->by_variant[df->near_set].speedup, df->by_variant[df->near_set].speedup_lo,
                     df->by_variant[df->near_set].speedup_hi, r->variants[df->near_set].name);
        free(r->functions[f].note);
        if (df->reason == DECISION_CONFIRMED && df->near_set >= 1)
            r->functions[f].note = xasprintf("selected: %s, then confirmed on %zu fresh runs (%s; one-sided, Holm "
                                             "over the %zu comparisons retested)",
                                             first, runs, iv, d->confirmation.n_tests);
        else if (df->reason == DECISION_CONFIRMED)
            r->functions[f].note = xasprintf("selected: held back by Holm over %zu tests, then confirmed on %zu fresh "
                                             "runs (%s; one-sided, Holm over the %zu comparisons retested)",
                                             d->n_tests, runs, iv, d->confirmation.n_tests);
        else if (df->near_set >= 1)
            r->functions[f].note = xasprintf("%s; %s, retested on %zu fresh runs, the gain did not hold (%s)",
                                             decision_reason_name(df->reason), first, runs, iv);
        else
            r->functions[f].note = xasprintf("%s; retested on %zu fresh runs, the gain did not hold (%s)",
                                             decision_reason_name(DECISION_MULTIPLE_TESTS), runs, iv);
    }
}
