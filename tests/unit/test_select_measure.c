/* Unit tests of what `fmvgen select` measures with, as found on real
 * projects (lz4, libjpeg-turbo): the speedup of a function the variant never
 * sampled (stats.h: +inf, not the 0 that reads "infinitely slower"), no
 * samples on either side (no change), and the clone that ran never being the
 * dispatcher (attribution.h: lz4's cold LZ4HC_compress_generic_dictCtx
 * showed up only as its .resolver). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/profile.h"
#include "select/attribution.h"
#include "select/stats.h"

static void test_speedup_when_variant_never_sampled(void **state)
{
    (void)state;
    /* lz4: 3 baseline samples in 5 runs, none in the variant */
    double base[] = {1, 0, 1, 0, 1}, none[] = {0, 0, 0, 0, 0};
    struct stats_interval iv;
    stats_welch(base, 5, none, 5, &iv);
    assert_true(iv.valid);
    assert_true(isinf(iv.speedup) && iv.speedup > 0);
    assert_true(iv.speedup_lo <= iv.speedup);   /* the point inside its interval */
    assert_false(stats_slower(&iv));

    /* neither side sampled: no change, not a slowdown */
    stats_welch(none, 5, none, 5, &iv);
    assert_true(iv.speedup == 1.0);
    assert_true(iv.speedup_lo == 1.0 && iv.speedup_hi == 1.0);
    assert_false(stats_faster(&iv));
    assert_false(stats_slower(&iv));

    /* only the variant sampled: slower, speedup 0 */
    stats_welch(none, 5, base, 5, &iv);
    assert_true(iv.speedup == 0.0);
    assert_true(iv.speedup_lo <= iv.speedup && iv.speedup <= iv.speedup_hi);
}

static void test_interval_contains_point(void **state)
{
    (void)state;
    double a[] = {100, 104, 98, 101, 97}, b[] = {50, 52, 49, 51, 48};
    struct stats_interval iv;
    stats_welch(a, 5, b, 5, &iv);
    assert_true(iv.speedup_lo < iv.speedup && iv.speedup < iv.speedup_hi);
}

/* A clean-clone CI run on a busy machine: one of three baseline runs took
 * twice the CPU time of the others (every function in it slowed alike).
 * On the linear scale that one run hides a 5x gain; the samples' log scale
 * (stats_compare_samples) still finds it - and falls back to the linear scale
 * where a side has a run without samples. */
static void test_one_slowed_run_does_not_hide_a_gain(void **state)
{
    (void)state;
    double base[] = {1900, 2000, 4600}, fast[] = {520, 510, 530};
    struct stats_interval lin, iv;
    stats_welch(base, 3, fast, 3, &lin);
    assert_false(stats_faster(&lin));
    stats_compare_samples(base, 3, fast, 3, &iv);
    assert_true(stats_faster(&iv));
    assert_true(iv.speedup_lo > 1.2 && iv.speedup_lo < iv.speedup && iv.speedup < iv.speedup_hi);

    /* the same noise with no gain stays no gain */
    double same[] = {2100, 1950, 2050};
    stats_compare_samples(base, 3, same, 3, &iv);
    assert_false(stats_faster(&iv));
    assert_false(stats_slower(&iv));

    /* a variant run without samples: the linear interval (the ratio of
     * the means), and +inf where the variant never sampled it at all */
    double rare[] = {0, 1, 0}, gone[] = {0, 0, 0};
    stats_compare_samples(base, 3, rare, 3, &iv);
    assert_true(iv.valid);
    assert_true(fabs(iv.speedup - iv.mean_a / iv.mean_b) < 1e-9);
    stats_compare_samples(base, 3, gone, 3, &iv);
    assert_true(iv.valid);
    assert_true(isinf(iv.speedup));
}

static void add_entry(struct profile *p, const char *symbol, long samples)
{
    p->entries = realloc(p->entries, (p->n + 1) * sizeof *p->entries);
    p->entries[p->n++] = (struct profile_entry){.symbol = strdup(symbol), .samples = samples};
    p->total_samples += samples;
}

static void test_hottest_symbol_is_a_clone(void **state)
{
    (void)state;
    struct profile p = {0};
    add_entry(&p, "cold.resolver", 2);          /* GCC's dispatcher */
    add_entry(&p, "warm.ifunc", 5);             /* Clang's */
    add_entry(&p, "warm.avx2.0", 1);
    add_entry(&p, "hot.resolver", 9);
    add_entry(&p, "hot.arch_x86_64_v3", 8);
    add_entry(&p, "hot.default", 3);
    /* the resolver's samples are the function's time ... */
    assert_int_equal(attribution_samples(&p, "cold"), 2);
    assert_int_equal(attribution_samples(&p, "hot"), 20);
    /* ... but never "the clone that ran" */
    assert_null(attribution_hottest_symbol(&p, "cold"));
    assert_string_equal(attribution_hottest_symbol(&p, "warm"), "warm.avx2.0");
    assert_string_equal(attribution_hottest_symbol(&p, "hot"), "hot.arch_x86_64_v3");
    profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_speedup_when_variant_never_sampled),
        cmocka_unit_test(test_interval_contains_point),
        cmocka_unit_test(test_one_slowed_run_does_not_hide_a_gain),
        cmocka_unit_test(test_hottest_symbol_is_a_clone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
