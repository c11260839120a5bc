/* timing.h - timing a command: run it N times, keep each run's wall time,
 * report the median (robust to the odd slow run on a shared machine) and
 * compare variants as ratios. Also checks that the command printed the same
 * stdout every time, and keeps that output, so callers can check that two
 * builds of one program compute the same thing.
 *
 * Used by `fmvgen demo` on the variants built by build.h. */
#ifndef FMVGEN_MEASURE_TIMING_H
#define FMVGEN_MEASURE_TIMING_H

#include <stddef.h>
#include <stdint.h>

struct timing_spec {
    char *const *argv;      /* the command (argv[0] with a '/' or found in PATH) */
    const char *cwd;        /* NULL: inherit */
    int runs;               /* how many times; values < 1 count as 1 */
    double timeout_s;       /* per run; 0: no limit */
};

struct timing_result {
    int runs;               /* runs that exited with status 0 */
    double *seconds;        /* wall time of each of them */
    double median;          /* median of seconds[]; 0 when runs == 0 */
    double *cpu_seconds;    /* CPU time (user + system, the command and the
                             * children it waited for) of each of them: on a
                             * shared machine the wall time also counts the
                             * waits for a busy CPU, the CPU time does not */
    double cpu_median;      /* median of cpu_seconds[] */
    char *output;           /* stdout of the first run ("" if none) */
    char *errors;           /* stderr of the first run ("" if none) */
    int output_varies;      /* a later run printed a different stdout */
    char *failure;          /* NULL, or how a run failed ("killed by SIGILL");
                             * the runs stop at the first failure */
};

/* Runs spec->argv spec->runs times, one after the other. Returns 0 when every
 * run exited with status 0, else -1 (out->failure says how; no message is
 * printed: a SIGILL can be the expected answer). Free out with
 * timing_result_free. */
int measure_time(const struct timing_spec *spec, struct timing_result *out);

/* Times n commands against each other, interleaved: round r runs each
 * command once (one that failed is not run again), so that a change in the
 * machine's load during the measurement (other jobs on a shared machine)
 * affects every command alike instead of the ones timed last. out[i] as
 * measure_time's. Returns the number of commands with a failed run. */
int measure_time_set(const struct timing_spec *specs, size_t n, struct timing_result *out);
/* The same with the commands in a fresh order each round, drawn from seed
 * (util/shuffle.h): what favours a position in the round is spread over
 * every command instead of always helping the same one. */
int measure_time_set_shuffled(const struct timing_spec *specs, size_t n, uint64_t seed, struct timing_result *out);

void timing_result_free(struct timing_result *r);

/* The median of n values (the mean of the middle two when n is even); 0 for
 * n == 0. v is not modified. */
double measure_median(const double *v, size_t n);

/* How many times faster t is than reference (reference / t): 2.0 means t
 * takes half the time. 0 when either is not positive. */
double measure_speedup(double reference, double t);

#endif
