/* progress.h - telling the user where a long command is (`fmvgen select`
 * builds and runs for minutes). On a terminal: one line that keeps updating
 * in place - the phase's message, step k/n with a bar, and the elapsed time,
 * redrawn every second by a ticker thread while a build or a run blocks.
 * Anywhere else (a pipe, a log, a test): plain lines a person or a test can
 * read, one per step, e.g. "select: building baseline (1/3)".
 *
 * The bar steps aside for every other message: lines said through
 * progress_say, and the one-line errors and warnings of fmv_error/fmv_warn
 * (through util.h's message hook), are printed above it and the bar is
 * redrawn under them, so the terminal never shows a message glued to a bar.
 *
 * One progress at a time per process (it owns the message hook). */
#ifndef FMVGEN_UTIL_PROGRESS_H
#define FMVGEN_UTIL_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

enum progress_mode {
    PROGRESS_AUTO,   /* a bar with a ticker when out is a terminal, else plain lines */
    PROGRESS_PLAIN,  /* plain lines */
    PROGRESS_BAR,    /* a bar, redrawn only by the calls (no ticker), 80 columns */
};

struct progress;

/* Starts reporting on out (usually stderr) with prefix ("select"); the
 * elapsed time counts from here. Never NULL. */
struct progress *progress_start(FILE *out, const char *prefix, enum progress_mode mode);

/* A new step: k of n in the current phase (n == 0: no count). Plain mode
 * prints "PREFIX: MESSAGE (k/n)"; bar mode redraws the line. */
void progress_step(struct progress *p, size_t k, size_t n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A message that stays: "PREFIX: MESSAGE" on its own line (above the bar). */
void progress_say(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text written as it is (whole lines, e.g. a failing build's output),
 * above the bar. */
void progress_write(struct progress *p, const char *text);

/* 1 when p draws a bar (the caller may then keep its own chatter short). */
int progress_is_bar(const struct progress *p);

/* Clears the bar (the terminal is left on a clean line), stops the ticker
 * and frees p. NULL is a no-op. */
void progress_finish(struct progress *p);

/* The bar line for a step, without control characters, in at most width
 * columns (the message is cut to fit; width < 20 counts as 20):
 *   "select [=====>    ] 2/5 1:07 building fma-levels ..."
 * The bar shows the steps done before this one ((k-1)/n); without a count
 * (n == 0) there is no bar and no k/n. Elapsed time is m:ss, or h:mm:ss
 * from an hour. Writes at most size bytes (NUL included) into buf and
 * returns the length of the line. */
size_t progress_render(char *buf, size_t size, const char *prefix, const char *message, size_t k, size_t n,
                       double elapsed_s, int width);

#endif
