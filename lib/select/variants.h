/* variants.h - the services `fmvgen select`'s session and its phases
 * (session_phases.h) share, below both: progress lines and Ctrl-C, building
 * a variant in its private tree (tree.h), running a command in it, and
 * measuring the code of the builds (codecost.h). They work on the session's
 * builds[] and sources[] and call nothing above them. Not for use outside
 * lib/select. */
#ifndef FMVGEN_SELECT_VARIANTS_H
#define FMVGEN_SELECT_VARIANTS_H

#include <signal.h>
#include <stddef.h>

#include "run/spawn.h"
#include "select/cloneisa.h"
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

/* 1 (after an error line) once SIGINT/SIGTERM arrived: stop at this step.
 * session_was_interrupted: the same, silently. */
int session_interrupted(void);
int session_was_interrupted(void);
/* The flag SIGINT/SIGTERM set, for run_opts.cancel: a build or workload
 * running when it comes is stopped (its group SIGTERMed) at once. */
const volatile sig_atomic_t *session_cancel_flag(void);

/* For the duration of select_run: the progress bar started and SIGINT/
 * SIGTERM caught (session_interrupted); _end restores the handlers saved. */
struct session_signals {
    struct sigaction sigint, sigterm;
};
void session_progress_begin(struct session_signals *saved);
void session_progress_end(const struct session_signals *saved);

/* Builds variant `index` (NAME) in its private tree (tree.h), patched by
 * plan when not NULL; a failing build's output is shown. */
int session_build_variant(struct select_session *s, size_t index, const char *name, const struct patch_plan *plan);
/* Per function (rep.functions' names), what its clones in variant `index`'s
 * build need (cloneisa.h): the build's linked files are inspected once, on
 * the first call after the variant was (re)built, and the answer kept in
 * s->clone_isa. Never NULL; the session owns it. */
const struct clone_isa *session_clone_isa(struct select_session *s, size_t index);
/* The argv running shell command cmd for variant `index` (tree.h). */
void session_variant_command(const struct select_session *s, size_t index, const char *cmd, struct strvec *argv);
/* Runs cmd once in variant `index`'s build dir, its output captured. */
int session_run_shell(const struct select_session *s, size_t index, const char *cmd, struct run_result *res);
/* Measures the code of every build that exists (codecost.h). */
void session_measure_code(struct select_session *s);

/* The session's external namesakes told by linked file (select/
 * linkedfile.h), made on first use from the store and the candidates. */
struct linked_files *session_linked_files(struct select_session *s);
/* [f * n_variants + v]: the bytes f's clones add in variant v's build
 * (measured by session_measure_code), -1 when unknown, for decision.h's
 * smaller-code preference. NULL when nothing was measured. Caller frees. */
double *session_code_bytes(const struct select_session *s);

#endif
