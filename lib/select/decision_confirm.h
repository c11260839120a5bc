/* decision_confirm.h - the confirmation stage of `fmvgen select`'s
 * decision (decision.h). With a handful of runs and many (hot function,
 * target set) tests, Holm-Bonferroni holds back comparisons whose own 95%
 * interval already excludes no change (DECISION_MULTIPLE_TESTS), and a
 * handful of runs on a busy machine misses gains of a few percent whose
 * interval just fails to exclude it. Both are tested again on fresh runs,
 * and on them alone: the first runs picked the comparisons, so testing
 * them on the same data again would find "gains" in noise.
 *
 *   - Retested, held back: each function still DECISION_MULTIPLE_TESTS
 *     after decide() (the group of small gains left it out), with each set
 *     whose comparison was held back by Holm only (decision_function.held:
 *     faster by its own interval, eligible, slower on no workload).
 *   - Retested, near-significant (decision_confirm_near, called after
 *     decide()): a hot function left DECISION_NO_GAIN or
 *     DECISION_CALIBRATION whose first runs show, with some set, a gain that
 *     matters but not significantly:
 *       . the set is eligible for it, profiled, not its default's code, and
 *         slower on no workload (first runs);
 *       . its point estimate is at least DECISION_NEAR_GAIN (1.02x) and
 *         saves at least DECISION_NEAR_SAVED (0.2%) of some workload's
 *         time (decision_saved_share);
 *       . its interval leans to a gain: two-sided p <= DECISION_NEAR_P
 *         (0.30; the A/A-widened interval's), the estimate faster.
 *     Per function the set that saves the most is retested (one
 *     comparison); at most DECISION_NEAR_MAX (4) such functions, those
 *     that save the most. The cap holds the family small, so the held-back
 *     comparisons keep their power; the run time is bounded by the arms
 *     (below), not by the number of functions.
 *   - Fresh runs: --confirm-runs rounds (default --runs) of the baseline,
 *     the A/A arm and the variants of the retested sets
 *     (decision_confirm_arms says which); no extra build. At most the
 *     first stage's rounds per look (two looks at most, below): one run
 *     per workload and arm and round.
 *   - The test: per pair, the fresh runs' interval of baseline vs variant,
 *     widened by the fresh A/A interval as in decide(); its one-sided
 *     p-value of "not faster" (the first runs fixed the direction: only
 *     gains are retested, only a gain is selected); Holm over the k pairs
 *     retested (both kinds, one family) at the decision's alpha. A pair
 *     rejected, faster and significantly slower on no workload (fresh
 *     runs) qualifies; among a function's qualifying sets the choice is
 *     decide()'s (decision_prefer_smaller, on the fresh intervals). Such a
 *     function is selected, DECISION_CONFIRMED; the others keep their
 *     reason (decision_function.confirm says they were retested). Nothing
 *     of the first runs enters the test: they chose what is retested.
 *
 *   - A second look: when, after the fresh rounds, a retested function is
 *     still not confirmed while its fresh interval leans to a gain
 *     (decision_confirm_undecided), as many fresh rounds again of the same
 *     arms, and the retest once more on all the fresh rounds
 *     (decision_confirm_again). Each look is a Holm family at half the
 *     decision's alpha (confirmation.alpha, set by the caller), so the
 *     two together hold alpha (union bound, whatever made the second look
 *     run); a look at alpha itself is what decision_confirm alone does
 *     when the caller leaves confirmation.alpha 0.
 *
 * Each stage holds its false selections to alpha family-wise (the second
 * on data independent of the first's choice, whatever that choice was), so
 * over both stages the chance of any false selection is at most 2 * alpha
 * (union bound).
 *
 * The estimate of a confirmed function's gain: the first runs picked the
 * comparison (its interval there was among the luckiest of the family), so
 * their interval overstates the gain (winner's curse). For a confirmed
 * function's retested sets, the reports' speedups and the code-growth
 * budget's gain per byte take the fresh runs' figures instead
 * (decision_estimate*); every other pair keeps the first runs'. */
#ifndef FMVGEN_SELECT_DECISION_CONFIRM_H
#define FMVGEN_SELECT_DECISION_CONFIRM_H

#include <stddef.h>

#include "select/decision.h"

#define DECISION_NEAR_GAIN 1.02
#define DECISION_NEAR_SAVED 0.002
#define DECISION_NEAR_P 0.30
#define DECISION_NEAR_MAX 4

/* Marks the near-significant functions (see the top) on d, decided from
 * in: near_set, near_saved, confirmation.n_near(_found). Returns how many
 * are retested (<= DECISION_NEAR_MAX). Call once, after decide(). */
size_t decision_confirm_near(const struct decision_input *in, struct decision *d);

/* 1 when f's set v is (or would be) retested: held back, or f's
 * near-significant set. */
int decision_confirm_retests(const struct decision *d, size_t f, size_t v);

/* How many comparisons (function, set) a confirmation would retest; 0: no
 * confirmation stage. */
size_t decision_confirm_pairs(const struct decision *d);

/* need[v] (v < d->n_variants) = 1 for the arms the fresh runs must hold:
 * the baseline (v = 0) and every variant of a retested pair; 0 for the
 * others. The A/A arm runs too whenever d->calibrated. */
void decision_confirm_arms(const struct decision *d, int *need);

/* Retests decision_confirm_pairs(d) comparisons on fresh: decision_input's
 * layout with fresh->n_runs the fresh rounds, for the same functions,
 * variants and workloads (only the arms decision_confirm_arms names are
 * read; the A/A arm when fresh->aa_samples). Updates d: confirmation,
 * each retested function's confirm/confirm_holm (one-sided), and the verdict of those
 * confirmed (chosen, fastest, qualifies, reason). */
void decision_confirm(const struct decision_input *fresh, struct decision *d);

/* After decision_confirm: 1 when some retested function is not confirmed
 * and one of its retested sets' fresh interval leans to a gain (valid,
 * faster by its estimate): a second look may decide it. */
int decision_confirm_undecided(const struct decision *d);

/* The second look: all holds the first look's fresh rounds followed by as
 * many more, of the same arms (decision_input's layout, all->n_runs the
 * rounds of both). Every retested pair is tested again on all of them,
 * Holm over the same family at the same level (confirmation.alpha); a
 * function not yet confirmed takes these intervals and, rejected, is
 * confirmed (confirmed = 2); one confirmed at the first look keeps its
 * verdict and figures. */
void decision_confirm_again(const struct decision_input *all, struct decision *d);

/* 1 when f's figures with set v come from the fresh runs: f was confirmed
 * (decision_function.confirmed, also after the budget dropped it) and v
 * was retested with a valid fresh interval. */
int decision_estimate_fresh(const struct decision *d, size_t f, size_t v);

/* f's interval with set v as reported: the fresh one when
 * decision_estimate_fresh, else by_variant[v]. */
const struct stats_interval *decision_estimate(const struct decision *d, size_t f, size_t v);

/* The share of workload w's baseline samples f's clones of set v saved:
 * the fresh runs' when decision_estimate_fresh, else
 * decision_saved_share(in, w, f, v) on the first runs (in). */
double decision_estimate_saved(const struct decision *d, const struct decision_input *in, size_t w, size_t f,
                               size_t v);

#endif
