/* timing.c - see timing.h. Each run is timed by run_argv around the whole
 * process (spawn to exit), the time a user waits for; the programs the demo
 * times run for tenths of a second, so the spawn's microseconds do not count.
 * Its CPU time comes from the same wait (wait4's rusage). On lz4 with four
 * other builds on the machine, the wall-time medians of two identical runs
 * moved by up to 30% while the CPU-time medians stayed within 3%. */
#include "measure/timing.h"
#include "util/shuffle.h"
#include "run/spawn.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double measure_median(const double *v, size_t n)
{
    if (n == 0) return 0;
    double *sorted = xmalloc(n * sizeof *sorted);
    memcpy(sorted, v, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    double m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
    return m;
}

double measure_speedup(double reference, double t)
{
    if (reference <= 0 || t <= 0) return 0;
    return reference / t;
}

/* One run of spec, recorded into out (whose seconds[] measure_time_set sized). */
static void run_once(const struct timing_spec *spec, struct timing_result *out, int first)
{
    struct run_opts opts = {
        .cwd = spec->cwd,
        .capture_stdout = 1,
        .capture_stderr = 1,
        .timeout_s = spec->timeout_s,
    };
    struct run_result res;
    int rc = run_argv(spec->argv, &opts, &res);
    if (first) {
        out->output = xstrdup(res.out ? res.out : "");
        out->errors = xstrdup(res.err ? res.err : "");
    } else if (strcmp(out->output, res.out ? res.out : "") != 0) {
        out->output_varies = 1;
    }
    if (rc != 0) out->failure = run_describe(&res);
    else {
        out->cpu_seconds[out->runs] = res.cpu_seconds;
        out->seconds[out->runs++] = res.seconds;
    }
    run_result_free(&res);
}

/* seed NULL: the commands in their order every round; else a fresh seeded
 * order each round (util/shuffle.h). */
static int time_set(const struct timing_spec *specs, size_t n, const uint64_t *seed, struct timing_result *out)
{
    int max_runs = 0;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        int runs = specs[i].runs < 1 ? 1 : specs[i].runs;
        out[i].seconds = xcalloc((size_t)runs, sizeof *out[i].seconds);
        out[i].cpu_seconds = xcalloc((size_t)runs, sizeof *out[i].cpu_seconds);
        if (runs > max_runs) max_runs = runs;
    }
    size_t *order = xcalloc(n ? n : 1, sizeof *order);
    for (int round = 0; round < max_runs; round++) {
        if (seed) shuffle_round_order(*seed, (size_t)round, n, order);
        else
            for (size_t i = 0; i < n; i++) order[i] = i;
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            if (!out[i].failure && round < (specs[i].runs < 1 ? 1 : specs[i].runs))
                run_once(&specs[i], &out[i], round == 0);
        }
    }
    free(order);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        out[i].median = measure_median(out[i].seconds, (size_t)out[i].runs);
        out[i].cpu_median = measure_median(out[i].cpu_seconds, (size_t)out[i].runs);
        if (out[i].failure) failed++;
    }
    return failed;
}

int measure_time_set(const struct timing_spec *specs, size_t n, struct timing_result *out)
{
    return time_set(specs, n, NULL, out);
}

int measure_time_set_shuffled(const struct timing_spec *specs, size_t n, uint64_t seed, struct timing_result *out)
{
    return time_set(specs, n, &seed, out);
}

int measure_time(const struct timing_spec *spec, struct timing_result *out)
{
    return measure_time_set(spec, 1, out) ? -1 : 0;
}

void timing_result_free(struct timing_result *r)
{
    free(r->seconds);
    free(r->cpu_seconds);
    free(r->output);
    free(r->errors);
    free(r->failure);
    memset(r, 0, sizeof *r);
}
