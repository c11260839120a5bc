/* placement.h - a hot function the selection did NOT clone that runs
 * slower in the selected build than in the baseline: the clones added to
 * the program moved it (code placement), and on some CPUs that alone can
 * halve a loop's speed (measured on an AMD EPYC: TSVC's s000, byte for byte
 * the same code, 0.50x once it sits at another offset mod 64). select's
 * end-to-end check (slowdown.h) only sees a workload that is slower as a
 * whole; this sees a function slowed inside a workload that gains.
 *
 * The data: every profiled run's samples per symbol, kept per (file, symbol)
 * for the baseline's runs (its arm and its A/A arm of the profiled rounds)
 * and the selected build's (profiled after the confirmation,
 * placement_phase.c). Files are named relative to their variant's copy, so
 * the same program of two variants is one key.
 *
 * The rule (placement_judge): a symbol is tested when it is hot in the
 * baseline - on some workload its mean samples per run are at least
 * min_share of the run's total, and over all workloads at least
 * min_samples per run - and it is not one of the selected functions' (the
 * caller says which). Its samples per run, summed over the workloads, are
 * compared like select's other comparisons (stats_compare_samples: baseline
 * vs selected), the interval widened by the largest A/A margin of the
 * workloads it is hot in; it is slower when the widened interval lies
 * below 1 AND Holm over all the symbols tested rejects at 5% (many
 * functions are tested at once; one would read slower by chance in every
 * twenty runs otherwise). Whether its code is the same in both builds
 * (lib/elf/samecode.h) is the caller's to tell: only then is it placement. */
#ifndef FMVGEN_SELECT_PLACEMENT_H
#define FMVGEN_SELECT_PLACEMENT_H

#include <stddef.h>

#include "select/stats.h"
#include "util/util.h"

enum placement_arm { PLACEMENT_BASELINE, PLACEMENT_SELECTED };

struct placement_log;

/* A log for n_workloads workloads and at most max_runs runs of each arm
 * per workload. */
struct placement_log *placement_log_new(size_t n_workloads, size_t max_runs);
void placement_log_free(struct placement_log *l);

/* Starts run number k (0-based, < max_runs) of arm on workload w, whose
 * profile holds total samples. Runs numbered beyond max_runs are ignored.
 * Every run of one arm and workload must be started before its symbols
 * are added. */
void placement_log_run(struct placement_log *l, enum placement_arm arm, size_t w, size_t k, double total);
/* Adds samples of symbol (in file: relative to the variant's copy) to run k
 * of arm on workload w. */
void placement_log_add(struct placement_log *l, enum placement_arm arm, size_t w, size_t k, const char *file,
                       const char *symbol, double samples);
/* Runs started of arm on workload w. */
size_t placement_log_runs(const struct placement_log *l, enum placement_arm arm, size_t w);

/* One symbol's verdict. */
struct placement_verdict {
    const char *file, *symbol;   /* point into the log */
    double base_mean, sel_mean;  /* samples per run, summed over the workloads */
    struct stats_interval iv;    /* baseline vs selected (speedup < 1: slower), widened */
    int slower;                  /* the rule above */
};

/* Skips a symbol when it returns nonzero (a selected function's clone,
 * copy, resolver or dispatcher). */
typedef int (*placement_skip_fn)(const char *symbol, void *ctx);

/* Judges every symbol of l that is hot in the baseline and not skipped.
 * margins: [w] the A/A margins (log scale; NULL or 0: none). Returns the
 * tested symbols' verdicts (caller frees the array, *n gets their number;
 * NULL when none), the slower first, each group by base_mean descending.
 * Needs at least 2 runs of each arm on every workload a symbol is hot in;
 * *n_missing gets the number of workloads where one arm has fewer (no
 * verdict there). */
struct placement_verdict *placement_judge(const struct placement_log *l, double min_share, double min_samples,
                                          const double *margins, placement_skip_fn skip, void *ctx, size_t *n,
                                          size_t *n_missing);

/* A symbol hot in the baseline (the rule above: min_share on some
 * workload, min_samples per run over all), not skipped. */
struct placement_hot {
    const char *file, *symbol;   /* point into the log */
    double base_mean;            /* samples per run, summed over the workloads */
    double share;                /* its largest share of a workload's baseline samples */
};
/* The hot symbols of l's baseline runs (needs 1 run per workload: no
 * selected arm), hottest first; *n their number (NULL when none; caller
 * frees the array). */
struct placement_hot *placement_hot(const struct placement_log *l, double min_share, double min_samples,
                                    placement_skip_fn skip, void *ctx, size_t *n);

/* The files (relative names, as logged) in which the baseline's runs gave
 * function name samples - its symbol, or a compiler-made piece of it
 * ("name.part.0", "name.cold") - appended to files once each, most samples
 * first: the files the workloads ran it from (select/pinoffset.h). */
void placement_sampled_files(const struct placement_log *l, const char *name, struct strvec *files);
/* The files (relative names, as logged) in which the baseline's runs gave
 * any samples, appended to files once each: the files the workloads run. */
void placement_ran_files(const struct placement_log *l, struct strvec *files);

#endif
