/* Unit tests of select/slowdown.h: which end-to-end readings flag a
 * workload as slower, the fresh runs that confirm it (or do not), the A/A
 * margin, and the reason written when the selection is withdrawn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "select/slowdown.h"

static double base_s[] = {1.00, 1.01, 0.99, 1.00, 1.02}, slow_s[] = {1.10, 1.11, 1.09, 1.10, 1.12},
              same_s[] = {1.00, 0.99, 1.01, 1.01, 1.00};

static struct timing_result runs(double *wall, double *cpu)
{
    return (struct timing_result){.runs = 5, .seconds = wall, .cpu_seconds = cpu};
}

static void test_flagged(void **state)
{
    (void)state;
    struct select_workload_result wr;
    memset(&wr, 0, sizeof wr);
    wr.command = "./w";
    stats_welch_log(base_s, 5, same_s, 5, &wr.e2e);
    stats_welch_log(base_s, 5, same_s, 5, &wr.e2e_cpu);
    assert_int_equal(slowdown_flagged(&wr), 0);   /* not timed */
    wr.timed = 1;
    assert_int_equal(slowdown_flagged(&wr), 0);   /* no difference */
    stats_welch_log(base_s, 5, slow_s, 5, &wr.e2e_cpu);
    assert_int_equal(slowdown_flagged(&wr), 1);   /* more CPU time */
    stats_welch_log(base_s, 5, same_s, 5, &wr.e2e_cpu);
    stats_welch_log(base_s, 5, slow_s, 5, &wr.e2e);
    assert_int_equal(slowdown_flagged(&wr), 1);   /* more wall time, which decides */
    wr.cpu_decides = 1;
    assert_int_equal(slowdown_flagged(&wr), 0);   /* the runs waited: the CPU time decides */
    wr.cpu_decides = 0;
    wr.failure = "killed by SIGILL";
    assert_int_equal(slowdown_flagged(&wr), 0);   /* a failure is said otherwise */
}

static void test_confirm(void **state)
{
    (void)state;
    struct stats_interval wall, cpu;
    struct timing_result b = runs(base_s, base_s), slow = runs(slow_s, slow_s), same = runs(same_s, same_s);
    assert_int_equal(slowdown_confirm(&b, &slow, 0, 0, &wall, &cpu), 1);
    assert_true(cpu.valid && cpu.speedup < 0.95);
    assert_int_equal(slowdown_confirm(&b, &same, 0, 0, &wall, &cpu), 0);
    /* 10% slower, but the baseline differed from itself by more: no verdict */
    assert_int_equal(slowdown_confirm(&b, &slow, 0.2, 0, &wall, &cpu), 0);
    /* wall slower only, while the CPU time decides: not slower */
    struct timing_result wall_only = runs(slow_s, same_s);
    assert_int_equal(slowdown_confirm(&b, &wall_only, 0, 1, &wall, &cpu), 0);
    assert_int_equal(slowdown_confirm(&b, &wall_only, 0, 0, &wall, &cpu), 1);
    struct timing_result failed = runs(slow_s, slow_s);
    failed.failure = "exit 1";
    assert_int_equal(slowdown_confirm(&b, &failed, 0, 0, &wall, &cpu), -1);
    failed.failure = NULL;
    failed.runs = 1;
    assert_int_equal(slowdown_confirm(&b, &failed, 0, 0, &wall, &cpu), -1);
}

static void test_reason(void **state)
{
    (void)state;
    struct select_workload_result wr;
    memset(&wr, 0, sizeof wr);
    wr.command = "./w big";
    wr.timed = 1;
    stats_welch_log(base_s, 5, same_s, 5, &wr.e2e);
    stats_welch_log(base_s, 5, slow_s, 5, &wr.e2e_cpu);
    struct stats_interval wall, cpu;
    struct timing_result b = runs(base_s, base_s), w = runs(slow_s, same_s);
    assert_int_equal(slowdown_confirm(&b, &w, 0, 0, &wall, &cpu), 1);
    char *why = slowdown_reason(&wr, &wall, &cpu, 5);
    assert_non_null(strstr(why, "significantly slower than the baseline on './w big': CPU time 0.91x ["));
    assert_non_null(strstr(why, "again on 5 fresh runs: wall time 0.91x ["));
    free(why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flagged),
        cmocka_unit_test(test_confirm),
        cmocka_unit_test(test_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
