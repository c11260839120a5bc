/* runsauto.h - how many profiled runs `fmvgen select` makes when --runs is
 * not given (--runs auto, the default).
 *
 * A shared machine slows some runs by 1.3-1.6x in bursts and none faster
 * (docs/FINDINGS.md). With SELECT_DEFAULT_RUNS runs a side, a function's
 * samples are compared with Welch's interval, whose variance such a burst
 * inflates until gains of 10-15% read as noise; from STATS_RANK_MIN_RUNS
 * runs a side they are compared by rank (stats.h), which the bursts barely
 * move. So before any profiled run, the baseline's workloads each run
 * RUNS_AUTO_PROBE_RUNS times, unprofiled, in a shuffled order, and:
 *   - a workload is bursty when one of its probe runs took at least
 *     RUNS_AUTO_SLOW times the CPU time of its fastest one (on a quiet
 *     machine runs of one workload differ by a few percent; the bursts by
 *     30% or more);
 *   - any bursty workload: RUNS_AUTO_NOISY_RUNS runs (= STATS_RANK_MIN_RUNS,
 *     the rank interval), else SELECT_DEFAULT_RUNS.
 * The rule reads the baseline alone, before any variant ran: it cannot
 * favour a comparison, so the tests' error rates hold whatever it chooses.
 * It is a snapshot: a burst that starts after the probe meets the runs it
 * chose (report.md says so). The confirmation's fresh rounds (--confirm-
 * runs) and the end-to-end timings follow the chosen count, as they follow
 * --runs. A probe run that fails, or a workload without CPU times, keeps
 * SELECT_DEFAULT_RUNS, with a note: the profiled runs will meet the
 * failure themselves. */
#ifndef FMVGEN_SELECT_RUNSAUTO_H
#define FMVGEN_SELECT_RUNSAUTO_H

#include <stddef.h>

#include "measure/timing.h"

#define RUNS_AUTO_PROBE_RUNS 6
#define RUNS_AUTO_SLOW 1.25
#define RUNS_AUTO_NOISY_RUNS 8

struct select_session;

struct runs_auto {
    int probed;              /* 1: --runs was not given and the probe ran */
    int runs;                /* the runs chosen */
    size_t probe_runs;       /* per workload */
    size_t bursty;           /* workloads with a slow run */
    size_t slow_runs;        /* probe runs at >= RUNS_AUTO_SLOW x their workload's fastest */
    double worst_ratio;      /* the largest slowest/fastest CPU time of any workload */
    size_t worst_workload;
    char *failure;           /* NULL, or why the probe could not tell (a run failed) */
};

/* The rule above over the baseline's probe runs, res[w] for each of nw
 * workloads (measure/timing.h: cpu_seconds per run). Fills out (failure
 * stays NULL: the caller sets it). Pure. */
void runs_auto_decide(const struct timing_result *res, size_t nw, struct runs_auto *out);

/* With --runs auto: runs the probe on the session's baseline, sets the
 * session's runs and the report's (rep.runs, rep.runs_auto), and says what
 * it chose and why. Without: nothing. 0, or -1 when interrupted. */
int session_choose_runs(struct select_session *s);

void runs_auto_free(struct runs_auto *ra);

#endif
