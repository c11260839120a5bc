/* Unit tests of --runs auto's rule (select/runsauto.h, runs_auto_decide):
 * runs of a few percent apart choose SELECT_DEFAULT_RUNS; one run at
 * RUNS_AUTO_SLOW times its workload's fastest CPU time (a slow burst) in any
 * workload chooses RUNS_AUTO_NOISY_RUNS, the rank interval's count; the
 * worst workload and ratio are named; workloads without CPU times or with
 * fewer than 2 runs count for nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "select/runsauto.h"
#include "select/session.h"
#include "select/stats.h"

static struct timing_result result(double *cpu, int n)
{
    return (struct timing_result){.runs = n, .seconds = cpu, .cpu_seconds = cpu};
}

static void test_quiet(void **state)
{
    (void)state;
    double a[6] = {0.30, 0.31, 0.29, 0.32, 0.30, 0.31}, b[6] = {1.00, 1.04, 1.02, 0.99, 1.01, 1.10};
    struct timing_result res[2] = {result(a, 6), result(b, 6)};
    struct runs_auto ra = {0};
    runs_auto_decide(res, 2, &ra);
    assert_int_equal(ra.runs, SELECT_DEFAULT_RUNS);
    assert_int_equal(ra.bursty, 0);
    assert_int_equal(ra.slow_runs, 0);
    assert_int_equal(ra.worst_workload, 1);
    assert_true(fabs(ra.worst_ratio - 1.10 / 0.99) < 1e-9);
}

static void test_burst(void **state)
{
    (void)state;
    /* nbench's ASSIGN on this machine: 0.29-0.32 s, or 0.44-0.50 s in a burst */
    double a[6] = {0.30, 0.31, 0.29, 0.32, 0.30, 0.31}, b[6] = {0.29, 0.46, 0.30, 0.31, 0.45, 0.30};
    struct timing_result res[2] = {result(a, 6), result(b, 6)};
    struct runs_auto ra = {0};
    runs_auto_decide(res, 2, &ra);
    assert_int_equal(ra.runs, RUNS_AUTO_NOISY_RUNS);
    assert_int_equal(RUNS_AUTO_NOISY_RUNS, STATS_RANK_MIN_RUNS);   /* the count the ranks need */
    assert_int_equal(ra.bursty, 1);
    assert_int_equal(ra.slow_runs, 2);
    assert_int_equal(ra.worst_workload, 1);
    /* exactly at the factor counts as slow */
    double c[2] = {1.0, RUNS_AUTO_SLOW};
    res[0] = result(c, 2);
    runs_auto_decide(res, 1, &ra);
    assert_int_equal(ra.runs, RUNS_AUTO_NOISY_RUNS);
    assert_int_equal(ra.slow_runs, 1);
}

static void test_nothing_to_read(void **state)
{
    (void)state;
    double a[1] = {0.3}, z[3] = {0, 0, 0};
    struct timing_result res[3] = {result(a, 1), result(z, 3), {.runs = 4}};
    struct runs_auto ra = {0};
    runs_auto_decide(res, 3, &ra);
    assert_int_equal(ra.runs, SELECT_DEFAULT_RUNS);
    assert_int_equal(ra.bursty, 0);
    assert_true(ra.worst_ratio == 0);
    assert_true(ra.probed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet),
        cmocka_unit_test(test_burst),
        cmocka_unit_test(test_nothing_to_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
