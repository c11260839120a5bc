/* session_phases.h - inside `fmvgen select`'s session (session.h): the
 * phases of one selection, one file each, and what they share from
 * session.c. Not for use outside lib/select.
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

#include "run/spawn.h"
#include "select/session.h"

/* builds[]/sources[]: [variant], [n_variants] the selected build,
 * [n_variants + 1] the -march=x86-64-v3 reference, [n_variants + 2] the
 * -march=x86-64-v3 -mno-fma one (select/reference.h). */
#define SESSION_MARCH_INDEX(r) ((r)->n_variants + 1)
#define SESSION_NOFMA_INDEX(r) ((r)->n_variants + 2)

/* Progress (util/progress.h): session_step starts a step of a phase (k of
 * n; n == 0: uncounted), session_say is a message that stays; a failing
 * command's output is shown indented under its error line. */
void session_step(size_t k, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void session_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void session_show_output(const char *text);

/* 1 (after an error line) once SIGINT/SIGTERM arrived: stop at this step. */
int session_interrupted(void);

/* Builds variant `index` (NAME) in its private tree (tree.h), patched by
 * plan when not NULL; a failing build's output is shown. */
int session_build_variant(struct select_session *s, size_t index, const char *name, const struct patch_plan *plan);
/* The argv running shell command cmd for variant `index` (tree.h). */
void session_variant_command(const struct select_session *s, size_t index, const char *cmd, struct strvec *argv);
/* Runs cmd once in variant `index`'s build dir, its output captured. */
int session_run_shell(const struct select_session *s, size_t index, const char *cmd, struct run_result *res);
/* Measures the code of every build that exists (codecost.h). */
void session_measure_code(struct select_session *s);
/* [f * n_variants + v]: the bytes f's clones add in variant v's build
 * (measured by session_measure_code), -1 when unknown, for decision.h's
 * smaller-code preference. NULL when nothing was measured. Caller frees. */
double *session_code_bytes(const struct select_session *s);

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

#endif
