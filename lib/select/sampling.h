/* sampling.h - how often `fmvgen select`'s profiled runs sample, per
 * workload. perf's cpu-clock costs the profiled program CPU time per sample
 * (about 22 us on the machine of bench/results/perfrate-20261206-s20.txt:
 * at the 50 us of profile.h's default nbench's CPU time under perf was
 * 1.83x its own, 1.14x at 200 us, 1.03x at 500 us), and a run that yields thousands of samples in each hot
 * function gains no precision from more. So a workload whose runs are long
 * is sampled less often:
 *
 *   period = its CPU seconds per run / the target, clamped to
 *            [SAMPLING_MIN_PERIOD_NS, SAMPLING_MAX_PERIOD_NS], whole us;
 *   target = SAMPLING_TARGET samples per run, or more when --min-share is
 *            low: a function holding min_share of a run must still get
 *            SAMPLING_AT_MIN_SHARE samples (2.5 x SELECT_MIN_SAMPLES).
 *
 * The CPU seconds are those select already measured before profiling: the
 * unprofiled runs of the output checks (checks.c: the baseline twice, every
 * other variant once), the least of them over every arm - the fastest
 * arm collects the fewest samples. A workload with no such run keeps the
 * minimum. The short runs of a demo or a test (below SAMPLING_TARGET x 50
 * us, 0.125 s of CPU) are sampled every 50 us, as before.
 *
 * One period per workload, never per arm: every arm of a workload (the
 * baseline, the A/A arm, each variant, the confirmation's fresh rounds, the
 * selected build of the placement check) is profiled with it, since their
 * samples are compared with each other. --sample-period fixes it for every
 * workload instead.
 *
 * Units: the decision's inputs (profiling.c) count a workload's samples in
 * units of SAMPLING_UNIT_NS (50 us) of CPU - each sample of a workload
 * sampled every P counts P / 50 us - so that sums over workloads stay sums
 * of time, and every threshold expressed in samples (SELECT_MIN_SAMPLES per
 * run, the group of small gains, the notes) keeps the time it meant at 20
 * kHz (20 samples: 1 ms of CPU per run); the rule's target keeps their
 * precision: a function at min_share still has SAMPLING_AT_MIN_SHARE real
 * samples per run. The checks that need a count of real samples for what
 * they conclude (runcheck.h's clones that never ran, hostlines.h's cold
 * hosts, placement.h) read the profiles themselves, in real samples. */
#ifndef FMVGEN_SELECT_SAMPLING_H
#define FMVGEN_SELECT_SAMPLING_H

#include <stddef.h>

#include "measure/profile.h"

#define SAMPLING_UNIT_NS PROFILE_DEFAULT_PERIOD_NS
#define SAMPLING_MIN_PERIOD_NS PROFILE_DEFAULT_PERIOD_NS
/* Beyond 1 ms perf's cost is ~2% of the workload's CPU and nothing more is
 * saved (bench/results/perfrate-20261206-s20.txt), while the samples keep
 * thinning. */
#define SAMPLING_MAX_PERIOD_NS 1000000L
#define SAMPLING_TARGET 2500.0
#define SAMPLING_AT_MIN_SHARE 50.0
/* --sample-period's range, in microseconds */
#define SAMPLING_OPTION_MIN_US 10
#define SAMPLING_OPTION_MAX_US 100000

enum sampling_source {
    SAMPLING_BY_RULE,        /* the rule, from the measured CPU time */
    SAMPLING_UNMEASURED,     /* no unprofiled run gave a CPU time: the minimum */
    SAMPLING_BY_OPTION,      /* --sample-period */
};

/* One workload's period, and why. */
struct sampling_period {
    long period_ns;
    enum sampling_source source;
    double cpu_s;            /* the least CPU seconds of its unprofiled runs; 0: none */
    double target;           /* samples per run the rule aimed at (sampling_target) */
};

/* The rule's samples per run at min_share (a fraction; <= 0: SAMPLING_TARGET). */
double sampling_target(double min_share);

/* The rule for one workload: cpu_s[0..n) are the CPU seconds of its
 * unprofiled runs on every arm (<= 0, or not a number: no measurement);
 * option_ns > 0 is --sample-period and wins. */
struct sampling_period sampling_rule(const double *cpu_s, size_t n, double min_share, long option_ns);

/* What one sample of a workload profiled every period_ns counts, in
 * SAMPLING_UNIT_NS (1 at the minimum). */
double sampling_scale(long period_ns);

/* "every 175 us (the rule: 0.44 s of CPU per run / 2500 samples)", for
 * report.md and the notes. Caller frees. */
char *sampling_describe(const struct sampling_period *p);
/* "rule", "unmeasured", "option" (report.json) */
const char *sampling_source_name(enum sampling_source s);

#endif
