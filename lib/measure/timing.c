/* timing.c - see timing.h. Each run is timed by run_argv around the whole
 * process (spawn to exit), the time a user waits for; the programs the demo
 * times run for tenths of a second, so the spawn's microseconds do not count. */
#include "measure/timing.h"
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

int measure_time(const struct timing_spec *spec, struct timing_result *out)
{
    memset(out, 0, sizeof *out);
    int runs = spec->runs < 1 ? 1 : spec->runs;
    out->seconds = xcalloc((size_t)runs, sizeof *out->seconds);
    struct run_opts opts = {
        .cwd = spec->cwd,
        .capture_stdout = 1,
        .capture_stderr = 1,
        .timeout_s = spec->timeout_s,
    };
    for (int i = 0; i < runs; i++) {
        struct run_result res;
        int rc = run_argv(spec->argv, &opts, &res);
        if (i == 0) {
            out->output = xstrdup(res.out ? res.out : "");
            out->errors = xstrdup(res.err ? res.err : "");
        } else if (strcmp(out->output, res.out ? res.out : "") != 0) {
            out->output_varies = 1;
        }
        if (rc != 0) {
            out->failure = run_describe(&res);
            run_result_free(&res);
            break;
        }
        out->seconds[out->runs++] = res.seconds;
        run_result_free(&res);
    }
    out->median = measure_median(out->seconds, (size_t)out->runs);
    return out->failure ? -1 : 0;
}

void timing_result_free(struct timing_result *r)
{
    free(r->seconds);
    free(r->output);
    free(r->errors);
    free(r->failure);
    memset(r, 0, sizeof *r);
}
