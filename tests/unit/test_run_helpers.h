/* test_run_helpers.h - shared by the unit tests that compile fixtures at
 * test time: whether a compiler is installed, and running a command that
 * must succeed (its stderr printed when it does not). Static functions:
 * each test program includes it once. */
#ifndef TEST_RUN_HELPERS_H
#define TEST_RUN_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "run/spawn.h"

/* Not every test program uses every helper. */
#define RUN_HELPER static __attribute__((unused))

/* 1 when `cc --version` runs. */
RUN_HELPER int have(const char *cc)
{
    char *const argv[] = {(char *)cc, "--version", NULL};
    struct run_opts o = {.null_stdout = 1, .null_stderr = 1};
    return run_argv(argv, &o, NULL) == 0;
}

/* Runs argv; the test fails (cmocka) unless it exits 0. */
RUN_HELPER void run_ok(char *const *argv)
{
    struct run_opts o = {.capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(argv, &o, &r);
    if (rc) fprintf(stderr, "%s failed: %s\n", argv[0], r.err ? r.err : "");
    assert_int_equal(rc, 0);
    run_result_free(&r);
}

#endif
