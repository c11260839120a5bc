/* test_select_helpers.h - shared by the test_select*.c programs that build
 * a `struct select_report` by hand (what the session would fill): the
 * three variants of the default target sets, functions with their decision
 * rows, and intervals from made-up runs. Static functions: each test
 * program includes it once. select_report_free frees what they allocate. */
#ifndef TEST_SELECT_HELPERS_H
#define TEST_SELECT_HELPERS_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "select/result.h"
#include "select/stats.h"
#include "util/util.h"

/* Not every test program uses every helper. */
#define SEL_HELPER static __attribute__((unused))

/* An empty report of 3 runs (tolerance -1, min share 2%) with the variants
 * baseline, fma-levels (arch=x86-64-v3) and fma-free (avx2), all built,
 * their outputs identical, eligible but the baseline. */
SEL_HELPER void sel_report_init(struct select_report *r)
{
    memset(r, 0, sizeof *r);
    r->runs = 3;
    r->tolerance = -1;
    r->min_share = 0.02;
    r->n_variants = r->decision.n_variants = 3;
    r->variants = xcalloc(3, sizeof *r->variants);
    const char *names[] = {"baseline", "fma-levels", "fma-free"}, *targets[] = {"", "arch=x86-64-v3", "avx2"};
    for (int v = 0; v < 3; v++) {
        r->variants[v].name = xstrdup(names[v]);
        r->variants[v].targets = xstrdup(targets[v]);
        r->variants[v].built = 1;
        r->variants[v].eligible = v > 0;
        r->variants[v].output_match = xstrdup("identical");
    }
}

/* Appends a function at file:line, not chosen, with its decision row (an
 * empty interval per variant) and its ran list; returns its index. */
SEL_HELPER size_t sel_add_function(struct select_report *r, const char *name, const char *file, int line)
{
    size_t f = r->n_functions++;
    r->functions = xrealloc(r->functions, r->n_functions * sizeof *r->functions);
    r->decision.functions = xrealloc(r->decision.functions, r->n_functions * sizeof *r->decision.functions);
    r->decision.n_functions = r->n_functions;
    struct select_function *fn = &r->functions[f];
    memset(fn, 0, sizeof *fn);
    fn->name = xstrdup(name);
    fn->display_name = xstrdup(name);
    fn->file = xstrdup(file);
    fn->line = line;
    fn->ran = xcalloc(r->n_variants + 1, sizeof(char *));
    struct decision_function *d = &r->decision.functions[f];
    memset(d, 0, sizeof *d);
    d->chosen = -1;
    d->best_ineligible = -1;
    d->by_variant = xcalloc(r->n_variants, sizeof *d->by_variant);
    return f;
}

/* The interval of three runs around b against three around a (log scale:
 * speedup a / b). */
SEL_HELPER void sel_interval(struct stats_interval *iv, double a, double b)
{
    double base[] = {a, a * 1.01, a * 0.99}, other[] = {b, b * 1.01, b * 0.99};
    stats_welch_log(base, 3, other, 3, iv);
}

/* A report shaped as select fills it: baseline + two target sets, dot
 * selected with the first, scale not. */
SEL_HELPER void sel_make_report(struct select_report *r)
{
    sel_report_init(r);
    r->n_builds = 5;
    const char *fns[] = {"dot", "scale"};
    for (int f = 0; f < 2; f++) sel_add_function(r, fns[f], "k.c", 10 + f);
    r->functions[0].in_patch = 1;
    r->functions[0].set = 1;
    double base[] = {100, 104, 96}, fast[] = {50, 52, 48}, same[] = {101, 103, 97};
    for (int f = 0; f < 2; f++) {
        struct decision_function *d = &r->decision.functions[f];
        d->chosen = f == 0 ? 1 : -1;
        d->share = f == 0 ? 0.9 : 0.01;
        d->base_samples = 100;
        for (int v = 1; v < 3; v++) stats_welch(base, 3, f == 0 && v == 1 ? fast : same, 3, &d->by_variant[v]);
    }
    r->n_selected = 1;
    r->patch_targets = xstrdup("arch=x86-64-v3");
    r->n_workloads = 1;
    r->workloads = xcalloc(1, sizeof *r->workloads);
    r->workloads[0].command = xstrdup("./prog 100000");
    double tb[] = {1.0, 1.02, 0.98}, ts[] = {0.6, 0.61, 0.59}, tm[] = {0.50, 0.505, 0.495};
    stats_welch_log(tb, 3, ts, 3, &r->workloads[0].e2e);
    r->workloads[0].timed = 1;
    stats_welch_log(tb, 3, tm, 3, &r->workloads[0].march_e2e);
    stats_welch_log(tm, 3, ts, 3, &r->workloads[0].selected_vs_march);
    r->workloads[0].march_timed = 1;
}

/* Function f's and workload w's objects in a report.json. */
SEL_HELPER json_t *sel_function_json(json_t *report, size_t f)
{
    return json_array_get(json_object_get(report, "functions"), f);
}

SEL_HELPER json_t *sel_workload_json(json_t *report, size_t w)
{
    return json_array_get(json_object_get(report, "workloads"), w);
}

#endif
