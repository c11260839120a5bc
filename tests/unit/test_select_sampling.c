/* Unit test of select/sampling.h's rule: a workload's CPU seconds per run
 * (the least over its arms' unprofiled runs) / the target, clamped to
 * [50 us, 1 ms] in whole microseconds; the target raised when --min-share
 * is low; short runs (a demo's, a test's) at 50 us as before; no
 * measurement: 50 us; --sample-period wins. One period per workload,
 * whatever the arms' order: every arm gets the same. And the unit the
 * decision counts samples in (50 us). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/sampling.h"

static struct sampling_period rule1(double cpu_s, double min_share)
{
    return sampling_rule(&cpu_s, 1, min_share, 0);
}

static void test_rule(void **state)
{
    (void)state;
    /* 0.44 s / 2500 samples = 176 us */
    struct sampling_period p = rule1(0.44, 0.02);
    assert_int_equal(p.period_ns, 176000);
    assert_int_equal(p.source, SAMPLING_BY_RULE);
    assert_true(p.target == 2500);
    assert_true(p.cpu_s == 0.44);
    /* whole microseconds, rounded down: never fewer samples than the target */
    assert_int_equal(rule1(0.4444444, 0.02).period_ns, 177000);
    /* short runs: 50 us, as before the rule (0.125 s and below) */
    assert_int_equal(rule1(0.05, 0.02).period_ns, 50000);
    assert_int_equal(rule1(0.125, 0.02).period_ns, 50000);
    assert_int_equal(rule1(0.13, 0.02).period_ns, 52000);
    assert_int_equal(rule1(0.05, 0.02).source, SAMPLING_BY_RULE);
    /* long runs: at most 1 ms (2.5 s and above) */
    assert_int_equal(rule1(2.5, 0.02).period_ns, 1000000);
    assert_int_equal(rule1(60, 0.02).period_ns, 1000000);
    assert_int_equal(rule1(2.4, 0.02).period_ns, 960000);
}

/* a function holding min_share of a run keeps 50 samples: the target grows
 * when --min-share is below 2% */
static void test_min_share(void **state)
{
    (void)state;
    assert_true(sampling_target(0.02) == 2500);
    assert_true(sampling_target(0.10) == 2500);
    assert_true(fabs(sampling_target(0.01) - 5000) < 1e-9);
    assert_true(fabs(sampling_target(0.005) - 10000) < 1e-9);
    assert_true(sampling_target(0) == 2500);
    assert_int_equal(rule1(0.44, 0.01).period_ns, 88000);
    assert_int_equal(rule1(0.44, 0.005).period_ns, 50000);
    for (double share = 0.001; share <= 0.5; share *= 1.7)
        for (double cpu = 0.01; cpu <= 100; cpu *= 1.9) {
            struct sampling_period p = rule1(cpu, share);
            double samples = cpu * 1e9 / (double)p.period_ns;
            /* unless clamped at 1 ms, a function at min_share gets at least SAMPLING_AT_MIN_SHARE */
            if (p.period_ns < SAMPLING_MAX_PERIOD_NS && cpu * 1e9 / SAMPLING_MIN_PERIOD_NS >= p.target)
                assert_true(samples * share >= SAMPLING_AT_MIN_SHARE - 1e-6);
            assert_true(p.period_ns >= SAMPLING_MIN_PERIOD_NS && p.period_ns <= SAMPLING_MAX_PERIOD_NS);
            assert_int_equal(p.period_ns % 1000, 0);
        }
}

/* every arm of a workload gets one period: the fastest arm's (it collects
 * the fewest samples), whatever the order they come in */
static void test_same_for_all_arms(void **state)
{
    (void)state;
    double arms[4] = {0.9, 0.6, 0.44, 0.7};
    struct sampling_period p = sampling_rule(arms, 4, 0.02, 0);
    assert_int_equal(p.period_ns, 176000);
    assert_true(p.cpu_s == 0.44);
    for (int rot = 1; rot < 4; rot++) {
        double r[4];
        for (int i = 0; i < 4; i++) r[i] = arms[(i + rot) % 4];
        assert_int_equal(sampling_rule(r, 4, 0.02, 0).period_ns, p.period_ns);
    }
    /* an arm without a measurement (a failed run, NaN) is skipped */
    double some[3] = {0, NAN, 0.44};
    assert_int_equal(sampling_rule(some, 3, 0.02, 0).period_ns, 176000);
}

static void test_unmeasured_and_option(void **state)
{
    (void)state;
    double none[2] = {0, -1};
    struct sampling_period p = sampling_rule(none, 2, 0.02, 0);
    assert_int_equal(p.period_ns, 50000);
    assert_int_equal(p.source, SAMPLING_UNMEASURED);
    p = sampling_rule(NULL, 0, 0.02, 0);
    assert_int_equal(p.period_ns, 50000);
    assert_int_equal(p.source, SAMPLING_UNMEASURED);
    /* --sample-period wins, also over a measurement */
    double arms[2] = {5.0, 6.0};
    p = sampling_rule(arms, 2, 0.02, 200000);
    assert_int_equal(p.period_ns, 200000);
    assert_int_equal(p.source, SAMPLING_BY_OPTION);
    assert_string_equal(sampling_source_name(p.source), "option");
    char *how = sampling_describe(&p);
    assert_string_equal(how, "every 200 us (--sample-period)");
    free(how);
    p = sampling_rule(arms, 2, 0.02, 0);
    how = sampling_describe(&p);
    assert_string_equal(how, "every 1000 us (the rule: 5 s of CPU per run / 2500 samples, at most 1000 us)");
    free(how);
}

/* the decision's unit: a sample of a workload sampled every P counts P / 50 us */
static void test_scale(void **state)
{
    (void)state;
    assert_true(sampling_scale(50000) == 1);
    assert_true(sampling_scale(500000) == 10);
    assert_true(sampling_scale(176000) == 3.52);
    assert_true(sampling_scale(0) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_min_share),
        cmocka_unit_test(test_same_for_all_arms),
        cmocka_unit_test(test_unmeasured_and_option),
        cmocka_unit_test(test_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
