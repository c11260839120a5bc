/* run.h - the sequence of `fmvgen patch` over an open store:
 *
 *   resolve the targets (patch_resolve_targets)
 *   -> build the plan (patch_plan_build_dispatch; nothing to do: say so
 *      and stop)
 *   -> test-compile the targets with --compiler or the scanned compilers
 *      (patch_validate_targets), before anything is written
 *   -> apply the plan in place (all files or none, each refused when it
 *      changed since the scan: patch/apply.h), or write its text to the
 *      output file (atomically) or to out
 *   -> the summary: a "patched N functions" line after an apply, or the
 *      --json object (the plan, hidden_visibility, applied, output, and the
 *      patch text when it went nowhere else); notes on stderr about FMA
 *      and about functions built with -fvisibility=hidden
 *      (patch/visibility.h).
 *
 * Errors are `fmvgen:` lines on stderr. */
#ifndef FMVGEN_PATCH_RUN_H
#define FMVGEN_PATCH_RUN_H

#include <stdio.h>

#include "patch/pointer.h"

struct store;

struct patch_request {
    const char *targets;        /* --targets LIST; NULL: the scan's, else the default */
    int exact;                  /* FMA-free targets (--exact) */
    int min_score;              /* leave out isa-kind candidates below it (patch/threshold.h) */
    enum patch_dispatch dispatch;
    const char *compiler;       /* check the targets with it; NULL: the scanned compilers */
    const char *output;         /* write the patch to this file; NULL: to out */
    int apply;                  /* patch the sources in place (output must be NULL) */
    int json;                   /* the summary as JSON on out */
    FILE *out;                  /* the patch text and the summary; NULL: stdout */
};

/* Runs the sequence. Returns the exit status of `fmvgen patch`: 0 (also
 * when there is nothing to do), 2 for targets that are unknown or that a
 * compiler refuses, 1 for any other error (store, plan, write, apply). */
int patch_run(struct store *st, const struct patch_request *req);

#endif
