/* fmabisect.h - a per-function FMA verdict for `fmvgen select` (inside the
 * session, like session_phases.h; not for use outside lib/select).
 *
 * When an FMA set's all-candidates build changes an output (no
 * --tolerance) while an FMA-free set keeps every output, the FMA set is
 * ineligible as a whole; functions whose clones there hold no FMA
 * instruction are eligible anyway (profiling.c's function_eligibility).
 * session_fma_bisect decides the others, only where it matters: the
 * functions whose clones hold FMA and that the decision would give the FMA
 * set were it eligible (decide() run once more with it eligible for them),
 * or that the confirmation would retest with it (held back by Holm alone,
 * or near-significant: decision_confirm.h; when --confirm-runs is at least
 * 2); with o->fma_bisect_all, every function whose clones hold FMA.
 * Those are searched by group testing (fmagroup.h): extra builds with a
 * subset at the FMA set and every other candidate at the FMA-free set, each
 * checked like a variant (outputs against the baseline's, --test), never
 * timed - the all-candidates build's profiled runs already timed every
 * function's FMA clones, and a function's clones are the same code in any
 * build. At most o->fma_bisect builds (0: none, the behaviour without this
 * search). Functions cleared become eligible at the FMA set
 * (function_eligible); culprits keep it ineligible, with their reason
 * (fma-changes-output) and the failing output. The selected build's own
 * check still runs (confirm.c): a selection the search never built as such
 * (a subset of the cleared set) is vouched for there, and
 * session_fma_fallback drops the cleared functions when it fails. */
#ifndef FMVGEN_SELECT_FMABISECT_H
#define FMVGEN_SELECT_FMABISECT_H

#include "select/decision.h"
#include "select/session.h"

/* in: the decision's input (its function_eligible may be NULL), *eligible:
 * the per-function eligibility it uses (allocated here when NULL and a
 * function is cleared; in->function_eligible is then to be reset by the
 * caller). Fills s->rep.fma_bisect and each function's fma_verdict.
 * Returns 1 when a function was cleared (the decision must be made again),
 * 0 when nothing changed, -1 when interrupted. */
int session_fma_bisect(struct select_session *s, const struct decision_input *in, int **eligible);

/* After select_apply_decision: culprits the decision held back for the FMA
 * set (it gained only with it) get the fma-changes-output note (other
 * culprits keep their reason; report.json's fma_verdict says it); cleared functions selected with it
 * get a note saying which build vouched for them. */
void session_note_fma_bisect(struct select_session *s);

/* The selected build failed its check (failure): when functions cleared by
 * the bisection were selected with the FMA set, they may change an output
 * together in a way no test built (or with a subset of the cleared set).
 * They are dropped from the selection (a note each and one in the report),
 * the build slot cleared, and *retry filled with the selection left: 1 to
 * build that once more; 0 (nothing changed, retry untouched) when none was
 * such or none would be left - the caller withdraws the selection. */
int session_fma_fallback(struct select_session *s, const char *failure, struct patch_assignments *retry);

#endif
