/* assign.h - from the verdicts of `fmvgen select` to its patch: each
 * selected function gets the target set that made it fastest (decision.h's
 * chosen variant), or no clones at all, and the patch gives every function
 * its own set (patch_plan_build_assigned, lib/patch/plan.h). Kept apart from
 * the measuring (session.c) so the path from a decision to the patch text
 * is testable without timing anything. */
#ifndef FMVGEN_SELECT_ASSIGN_H
#define FMVGEN_SELECT_ASSIGN_H

#include "patch/plan.h"
#include "select/result.h"

/* Timed mode: marks in_patch and set (= the chosen variant) of every
 * function r->decision selected, except one whose name other candidates
 * share and whose samples were not told from theirs by file
 * (select_name_ambiguous: the profile credited it with their samples too),
 * which gets the note "not selected, ambiguous name" and a line in
 * r->notes; a function held back because it gained only with an
 * ineligible variant gets that variant's failure as its note (its "why"),
 * and a line in r->notes. */
void select_apply_decision(struct select_report *r);

/* The patch's per-function targets: each in_patch function with the targets
 * of its variant (r->variants[set].targets) - or its copy_only target alone,
 * where the code-growth budget left the copies that never ran out
 * (select/trimcopies.h) - named by name, and by file
 * too when other candidates share the name (a static namesake in another
 * file is not patched with it). Also sets r->n_selected and
 * r->patch_targets (the one set's targets, or each set's, "; "-separated,
 * when functions got different ones; NULL when nothing is selected).
 * Returns 0, or -1 after an error line when a variant's targets do not
 * parse. */
int select_patch_assignments(struct select_report *r, struct patch_assignments *out);

#endif
