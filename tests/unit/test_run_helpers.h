/* test_run_helpers.h - shared by the unit tests that compile fixtures at
 * test time: whether a compiler is installed, running a command that must
 * succeed (its stderr printed when it does not), and a temporary folder of
 * fixture sources written from strings. Static functions: each test
 * program includes it once. */
#ifndef TEST_RUN_HELPERS_H
#define TEST_RUN_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/spawn.h"
#include "util/util.h"

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

/* Runs argv in folder dir (NULL: the current one), its stdout in *out
 * (caller frees) when out is given; its stderr is printed when it fails.
 * Returns its exit status (a run longer than 120 s fails). */
RUN_HELPER int run_in(const char *dir, char *const argv[], char **out)
{
    struct run_opts o = {.cwd = dir, .capture_stdout = 1, .capture_stderr = 1, .timeout_s = 120};
    struct run_result r;
    int rc = run_argv(argv, &o, &r);
    if (rc) fprintf(stderr, "%s failed: %s\n", argv[0], r.err ? r.err : "");
    if (out) *out = xstrdup(r.out ? r.out : "");
    run_result_free(&r);
    return rc;
}

/* A new temporary folder (make_temp_dir(prefix)) holding files names[i]
 * with the text texts[i], i < n; NULL when a file cannot be written. */
RUN_HELPER char *fixture_dir(const char *prefix, const char *const *names, const char *const *texts, size_t n)
{
    char *dir = make_temp_dir(prefix);
    for (size_t i = 0; dir && i < n; i++) {
        char *p = path_join(dir, names[i]);
        int bad = write_file_atomic(p, texts[i], strlen(texts[i])) != 0;
        free(p);
        if (bad) {
            remove_tree(dir);
            free(dir);
            dir = NULL;
        }
    }
    return dir;
}

/* Removes fixture_dir's folder and frees its name. */
RUN_HELPER void fixture_dir_free(char *dir)
{
    if (!dir) return;
    remove_tree(dir);
    free(dir);
}

#endif
