/* slowdown.h - a selected build slower than the baseline on a workload,
 * end to end (confirm.c).
 *
 * Rule: a workload is slower when its CPU-time interval (baseline vs
 * selected) lies below 1, or its wall-time interval does while the wall
 * time decides (cpu_decides unset: the runs did not wait for a busy
 * machine). One such reading is not a verdict: each interval is a 95% test,
 * so among a few workloads one reads slower by chance about one run in
 * twenty. The session times a flagged workload again on fresh runs of the
 * baseline and the selected build only; when the fresh runs, widened by the
 * workload's A/A margin as the first ones were, read slower by the same
 * rule, the slowdown is confirmed and the selection is withdrawn - select
 * keeps only what pays, and a shipped build must not be measurably slower
 * on any workload it was given (a change of code layout can do that where
 * no selected function runs). Both readings being chance: about 1 in 1,600. */
#ifndef FMVGEN_SELECT_SLOWDOWN_H
#define FMVGEN_SELECT_SLOWDOWN_H

#include <stddef.h>

#include "measure/timing.h"
#include "select/result.h"
#include "select/stats.h"

/* 1 when wr reads slower by the rule above. */
int slowdown_flagged(const struct select_workload_result *wr);

/* The fresh runs base and sel (timing.h) of one workload: their wall and
 * CPU intervals (baseline vs selected, log scale) into *wall and *cpu,
 * each widened by margin (decision.h's aa_workload_margin; 0: none), with
 * cpu_decides as the first runs had it. Returns 1 when they read slower by
 * the rule, 0 when not, -1 when either side has a failure or no runs (no
 * verdict: the first reading is then kept as a note only). */
int slowdown_confirm(const struct timing_result *base, const struct timing_result *sel, double margin,
                     int cpu_decides, struct stats_interval *wall, struct stats_interval *cpu);

/* The reason written when a confirmed slowdown withdraws the selection:
 * "significantly slower than the baseline on 'CMD': CPU time 0.93x [0.89,
 * 0.96], again on N fresh runs: 0.92x [0.88, 0.96]" (the measure that
 * decided). Free with free(). */
char *slowdown_reason(const struct select_workload_result *wr, const struct stats_interval *wall,
                      const struct stats_interval *cpu, int fresh_runs);

#endif
