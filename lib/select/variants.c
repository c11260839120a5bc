/* variants.c - see variants.h: what select's session and its phases
 * share, moved out of session.c so that the phases call down, not back. */
#include "select/variants.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/codecost.h"
#include "select/linkedfile.h"
#include "store/store.h"
#include "util/progress.h"

/* ---- Ctrl-C: remove the temp dir at the next step ---- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

const volatile sig_atomic_t *session_cancel_flag(void)
{
    return &interrupted;
}

int session_interrupted(void)
{
    if (interrupted) fmv_error("interrupted; removing the temp directory");
    return interrupted;
}

int session_was_interrupted(void)
{
    return interrupted;
}

/* The run's progress (util/progress.h): one updating line on a terminal,
 * plain "select: ..." lines otherwise; set for the duration of select_run.
 * session_step() starts a step of a phase (k of n; n == 0: uncounted), session_say() is a
 * message that stays. */
static struct progress *bar;

void session_step(size_t k, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (bar) progress_step(bar, k, n, "%s", msg);
    else if (n) fprintf(stderr, "select: %s (%zu/%zu)\n", msg, k, n);
    else fprintf(stderr, "select: %s\n", msg);
}

void session_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (bar) progress_say(bar, "%s", msg);
    else fprintf(stderr, "select: %s\n", msg);
}

/* A failing build's or workload's output, indented under the error line. */
void session_show_output(const char *text)
{
    struct strbuf sb = STRBUF_INIT;
    const char *s = text ? text : "";
    while (*s) {
        size_t n = strcspn(s, "\n");
        sb_addf(&sb, "    | %.*s\n", (int)n, s);
        s += n;
        if (*s) s++;
    }
    if (bar) progress_write(bar, sb_str(&sb));
    else fputs(sb_str(&sb), stderr);
    sb_free(&sb);
}

void session_progress_begin(struct session_signals *saved)
{
    interrupted = 0;
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &saved->sigint);
    sigaction(SIGTERM, &sa, &saved->sigterm);
    bar = progress_start(stderr, "select", PROGRESS_AUTO);
}

void session_progress_end(const struct session_signals *saved)
{
    progress_finish(bar);
    bar = NULL;
    sigaction(SIGINT, &saved->sigint, NULL);
    sigaction(SIGTERM, &saved->sigterm, NULL);
}

/* ---- builds ---- */

/* Builds variant `index` (NAME) in its private tree (tree.h), patched by
 * plan when not NULL; a failing build's output is shown. */
int session_build_variant(struct select_session *s, size_t index, const char *name, const struct patch_plan *plan)
{
    struct variant_build *out = &s->builds[index];
    if (s->clone_isa) {   /* a rebuilt variant is inspected again */
        free(s->clone_isa[index]);
        s->clone_isa[index] = NULL;
    }
    int rc = select_tree_build(&s->tree, name, plan, s->work, out, &s->sources[index]);
    if (rc != 0 && out->log && *out->log) session_show_output(out->log);
    return rc;
}

const struct clone_isa *session_clone_isa(struct select_session *s, size_t index)
{
    size_t nf = s->rep.n_functions;
    if (!s->clone_isa) s->clone_isa = xcalloc(SESSION_NOFMA_INDEX(&s->rep) + 1, sizeof *s->clone_isa);
    if (!s->clone_isa[index]) {
        const char **names = xcalloc(nf + 1, sizeof *names);
        for (size_t f = 0; f < nf; f++) names[f] = s->rep.functions[f].name;
        s->clone_isa[index] = xcalloc(nf + 1, sizeof *s->clone_isa[index]);
        clone_isa_of_dir(s->builds[index].dir, names, nf, s->clone_isa[index]);
        free(names);
    }
    return s->clone_isa[index];
}

/* The argv running shell command cmd for variant `index` (tree.h). */
void session_variant_command(const struct select_session *s, size_t index, const char *cmd, struct strvec *argv)
{
    select_tree_variant_command(&s->tree, s->sources[index] ? s->sources[index] : s->builds[index].dir,
                                s->builds[index].dir, cmd, argv);
}

/* Runs cmd once in variant `index`'s build dir, its output captured. */
int session_run_shell(const struct select_session *s, size_t index, const char *cmd, struct run_result *res)
{
    struct strvec argv = STRVEC_INIT;
    session_variant_command(s, index, cmd, &argv);
    struct run_opts opts = {.cwd = s->builds[index].dir, .capture_stdout = 1, .capture_stderr = 1,
                            .timeout_s = s->o->timeout_s, .cancel = &interrupted};
    int rc = run_argv(sv_argv(&argv), &opts, res);
    sv_free(&argv);
    return rc;
}

struct linked_files *session_linked_files(struct select_session *s)
{
    if (!s->linked)
        s->linked = linked_files_new(s->st, s->st ? store_path(s->st) : NULL, s->candidates.functions,
                                     s->candidates.nfunctions);
    return s->linked;
}

/* Measures the code of every build that exists (select/codecost.h). */
void session_measure_code(struct select_session *s)
{
    struct select_report *r = &s->rep;
    const char **dirs = xcalloc(r->n_variants, sizeof *dirs);
    for (size_t v = 0; v < r->n_variants; v++) dirs[v] = r->variants[v].built ? s->builds[v].dir : NULL;
    struct select_build_dirs d = {
        .variants = dirs,
        .selected = s->builds[r->n_variants].dir && !s->builds[r->n_variants].failure ? s->builds[r->n_variants].dir : NULL,
        .march = r->march.built ? s->builds[SESSION_MARCH_INDEX(r)].dir : NULL,
        .march_nofma = r->march_nofma.built ? s->builds[SESSION_NOFMA_INDEX(r)].dir : NULL,
        .linked = session_linked_files(s),
        .builddir = s->builddir,
    };
    session_step(0, 0, "measuring the code of the builds");
    select_measure_code(r, &d);
    free(dirs);
}

double *session_code_bytes(const struct select_session *s)
{
    const struct select_report *r = &s->rep;
    size_t nf = r->n_functions, nv = r->n_variants;
    int any = 0;
    for (size_t f = 0; f < nf; f++) any |= r->functions[f].bytes_added != NULL;
    if (!any) return NULL;
    double *out = xcalloc(nf * nv + 1, sizeof *out);
    for (size_t f = 0; f < nf; f++)
        for (size_t v = 0; v < nv; v++)
            out[f * nv + v] = r->functions[f].bytes_added ? (double)r->functions[f].bytes_added[v] : -1;
    return out;
}
