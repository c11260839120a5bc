/* budget_sets.h - the target set each selected function keeps under the
 * code-growth budget (select/budget.h): its timings' set, or another set
 * it also qualified for whose clones add fewer bytes.
 *
 * A function's options: the set its timings chose (decide(): the fastest
 * of the sets that qualify unless a smaller one's interval overlaps), then
 * each other set it qualified for (decision_function.qualifies: eligible,
 * significantly faster after Holm or the confirmation's retest, slower on
 * no workload; the share and sample rules are the function's, not the
 * set's) whose clones add fewer bytes (bytes_added in that set's
 * all-candidates build, both sizes known), fewest bytes last. Only a
 * function selected by its own verdict (DECISION_SELECTED, _CONFIRMED) has
 * options; a member of the group of small gains keeps the group's set.
 *
 * The search, when the fit of the timings' sets drops a function: every
 * assignment of options to the functions with more than one is fitted
 * (budget_fit_parts, each function's bytes and gain those of its set in
 * the assignment: decision_estimate_saved, not the timings' set's), and the
 * one kept is the best by, in order: the most workloads whose best
 * function (of the timings' sets' fit) is kept; the most gain kept; the
 * fewest functions moved off their timings' set; the fewest bytes; the
 * first in the enumeration (the timings' set first). An assignment replaces
 * the fit it starts from only when it keeps more of those workloads, or as
 * many and more gain; its prediction stays within the fit's limit.
 * Bound: at most BUDGET_SETS_MAX assignments. When the functions with
 * options have more, they are taken in order of gain (with their timings'
 * set; ties: the first), each whose options keep the count within it
 * searched; the others
 * keep the rule that applies to all (budget_cheaper_set): a dropped one is
 * tried again with its cheaper set. */
#ifndef FMVGEN_SELECT_BUDGET_SETS_H
#define FMVGEN_SELECT_BUDGET_SETS_H

#include <stddef.h>

#define BUDGET_SETS_MAX 64   /* assignments (fits) the search tries at most */

struct select_report;
struct decision_input;

/* A function's gain with set v: the share of each workload's baseline
 * samples its clones saved (decision_estimate_saved), averaged over the
 * workloads. */
double budget_set_gain(const struct select_report *r, const struct decision_input *in, size_t f, size_t v);

/* The set function f may keep instead of being dropped: one other than
 * its chosen set that it qualified for (decision_function.qualifies) whose
 * clones add fewer bytes, both sizes known; of several, the one saving the
 * most time. -1: none (also for a function selected with the group of small
 * gains, whose set is the group's). */
int budget_cheaper_set(const struct select_report *r, const struct decision_input *in, size_t f);

/* f's options (see the top) with timed its timings' set: out[0] = timed,
 * then the cheaper qualifying sets; returns how many (at most cap; 0 when f
 * is not selected by its own verdict or timed < 1). */
size_t budget_set_options(const struct select_report *r, size_t f, int timed, int *out, size_t cap);

/* One assignment's fit, as the search compares them. */
struct budget_outcome {
    size_t served;   /* workloads whose best function is kept */
    double gain;     /* the kept functions' gain, each with its set */
    double bytes;    /* predicted growth */
    size_t moved;    /* functions off their timings' set */
    int within;      /* 1: within the limit the search must keep */
};

/* 1 when a is the better fit (the order at the top, the enumeration's
 * aside). */
int budget_outcome_better(const struct budget_outcome *a, const struct budget_outcome *b);

/* The search (see the top). n functions; n_options[f] and options[f][i]
 * (options[f][0]: the timings' set) as budget_set_options gives them;
 * order[i] (i < n_order): the functions to search, first those saving the
 * most; start: the assignment the search starts from and its outcome
 * (fitted by the caller). eval fits an assignment (sets[f] for every f)
 * and fills its outcome. Writes the assignment kept into best (n entries:
 * start's when none is better) and returns the number of assignments
 * fitted (<= BUDGET_SETS_MAX). */
typedef void (*budget_eval_fn)(void *ctx, const int *sets, struct budget_outcome *out);
size_t budget_search_sets(size_t n, const size_t *n_options, const int *const *options, const size_t *order,
                          size_t n_order, const int *start, const struct budget_outcome *start_outcome,
                          budget_eval_fn eval, void *ctx, int *best);

/* budget_search_sets on r's selection: each function's options from its
 * timings' set timed[f] (budget_set_options), those saving the most first
 * (budget_set_gain with timed[f]), starting from each decision's chosen
 * set, whose fit has outcome start_outcome. Returns the number of
 * assignments fitted (0: no function has a cheaper set; best is then the
 * start). */
size_t budget_sets_search(const struct select_report *r, const struct decision_input *in, size_t n,
                          const int *timed, const struct budget_outcome *start_outcome, budget_eval_fn eval,
                          void *ctx, int *best);

/* Function f, kept with a cheaper set than its timings' timed: its note
 * (both sets' bytes and speedups, and room: the functions the move let the
 * budget keep, "" for none), and an entry of list for the report's note.
 * bytes: what its clones add as the fit counted them. */
struct strbuf;
void budget_sets_kept_note(struct select_report *r, size_t f, int timed, double bytes, const char *room,
                           struct strbuf *list);

#endif
