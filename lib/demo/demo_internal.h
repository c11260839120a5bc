/* demo_internal.h - what the pieces of lib/demo/ share: engine.c (the
 * pipeline), text.c (the human tables), json.c (demo_to_json). For
 * lib/demo/ only. */
#ifndef FMVGEN_DEMO_INTERNAL_H
#define FMVGEN_DEMO_INTERNAL_H

#include "demo/demo.h"

/* Prints text line by line to stdout, each line led by indent. */
void demo_print_indented(const char *text, const char *indent);

/* 1 when build def d is built for the example (its `only`). */
int demo_build_applies(const struct demo_build_def *d, const struct demo_example *ex);

/* 1 when the build was timed and its runs succeeded. */
int demo_timed_ok(const struct demo_build_result *r);

/* The -O3 build's time, which the ratios divide; 0 when it has none. */
double demo_reference_seconds(const struct demo_example *ex);

/* A build's run on the emulated CPU cpu_models.v[i]; NULL when there is none. */
const struct verify_run *demo_emulated_run(const struct demo_build_result *r, size_t i);

/* The table's cell for one run on an emulated CPU (caller frees): OK, or
 * how it ended ("SIGILL", "exit 1", "timeout", "wrong output" when it
 * exited 0 but printed something else than natively); "-" for none. */
char *demo_cpu_cell(const struct verify_run *run);

/* The human report of one example that ran: the time table (with the
 * emulated CPUs' columns), which builds fail where and what the FMV
 * build's resolvers pick, FMV against -mavx2, the kernels' times, the
 * outputs and the clones that run here. */
void demo_print_example(const struct demo_example *ex, const struct demo_options *o);

#endif
