/* session_phases.h - inside `fmvgen select`'s session (session.h): the
 * phases of one selection, one file each; what they share (progress,
 * Ctrl-C, building and running a variant) is variants.h, below them. Not
 * for use outside lib/select.
 *
 *   checks.c     every variant runs every workload once (stdout compared with
 *                the baseline's) and --test; sets eligibility
 *   profiling.c  the interleaved profiled runs, folded onto functions, and
 *                the decision (decision.h), with its notes
 *   confirm.c    the selected build, built and timed end to end against the
 *                baseline (and the -march reference), with its notes */
#ifndef FMVGEN_SELECT_SESSION_PHASES_H
#define FMVGEN_SELECT_SESSION_PHASES_H

#include <stddef.h>

#include "measure/profile.h"
#include "select/session.h"
#include "select/variants.h"

/* checks.c: variant v's workloads and --test; -1 when the baseline fails
 * (everything stops), else 0 with var's eligibility set. session_check_one
 * says a variant's failure; session_check_all checks every built variant
 * but the baseline, which build_all checks right after its build. */
int session_check_variant(struct select_session *s, size_t v, struct select_variant *var);
int session_check_one(struct select_session *s, size_t v);
int session_check_all(struct select_session *s);

/* profiling.c: the profiled runs and the decision (into s->rep.decision,
 * s->saved); the notes on noise and on the group of small gains. */
int session_profile_all(struct select_session *s);
void session_note_noise(struct select_session *s);
void session_note_small_gains(struct select_session *s);
/* Functions in the patch with a variant that is not eligible (they got it
 * through function_eligible: FMA-free code) get a note saying why. */
void session_note_fma_free(struct select_session *s);

/* confirm.c: builds the selected patch a (its plan into *plan), checks it,
 * and times it end to end against the baseline on every workload. */
int session_confirm(struct select_session *s, const struct patch_assignments *a, struct patch_plan *plan);
/* When nothing is selected: the references that were built (and whose code
 * differs from the baseline's) timed end to end against the baseline on
 * every workload, as session_confirm times them, into each workload's
 * march and nofma figures (selected_vs_* stay invalid), with a note. */
void session_time_references(struct select_session *s);

/* placement_phase.c: the profiled runs' samples per symbol into
 * s->placement (select/placement.h): run k of variant v (0: the baseline,
 * its A/A arm too; n_variants: the selected build) on workload w, profile p
 * with its paths mapped outside (runcheck.h). Only the project's own files
 * (under the variant's copy) are kept. */
void session_placement_log(struct select_session *s, size_t v, size_t w, size_t k, const struct profile *p);
/* After the confirmation: the selected build profiled --runs times per
 * workload, its hot functions that are not cloned judged against the
 * baseline's (placement.h), each slower one's code compared in both builds
 * (samecode.h), the result into s->rep.placement and a note per function
 * whose code is the same. 0, or -1 (interrupted, or a run failed its
 * checks). */
int session_placement_check(struct select_session *s);
/* Before the selected build (placement_pins.c): each hot function the
 * selection does not clone whose symbol the baseline's linked files hold
 * once is pinned in a at the offset mod 64 it has there:
 *   - a candidate (share >= --min-share, a name of its own): patch_pin_in;
 *   - any other symbol hot in the baseline's profiled runs (placement.h's
 *     rule) that is no candidate, where candidates/pinsite.h finds one
 *     definition a pin may go on: patch_pin_at.
 * The pinned go into s->rep.placement.pinned and a note; the hot ones
 * that could not be pinned, with why, into .unpinned and a note. With
 * --no-placement-pins nothing is pinned, and a note says so. */
void session_placement_pins(struct select_session *s, struct patch_assignments *a);
/* placement_textpad.c: after the pins (their alignment counts), the pad
 * before .text's functions (select/textpad.h) into a->text_pad where the
 * builds measured tell it and the budget has room for it; a note either
 * way when the selection needs one. session_placement_pins calls it. */
void session_text_pad(struct select_session *s, struct patch_assignments *a);

#endif
