/* Unit tests of select/rounds.h: rounds_append joins two stages' rounds
 * row by row in every array (samples, by name, the A/A arm's, totals,
 * positions), each value where decision_input's layout expects it with the
 * joined round count, for 2 workloads, 3 variants and 2 functions; a
 * fresh stage is zeros with every position -1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "select/rounds.h"

#define NF 2
#define NV 3
#define NW 2

/* The value stage s puts in array k's row at round r. */
static double value(int k, size_t row, size_t r, int s)
{
    return 100000.0 * k + 1000.0 * (double)row + 10.0 * (double)r + s;
}

static void fill(struct rounds *d, int s)
{
    size_t nr = d->nr;
    double *arrays[] = {d->samples, d->name_samples, d->aa_samples, d->aa_name_samples, d->totals, d->aa_totals};
    size_t rows[] = {NW * NV * NF, NW * NV * NF, NW * NF, NW * NF, NW * NV, NW};
    for (int k = 0; k < 6; k++)
        for (size_t row = 0; row < rows[k]; row++)
            for (size_t r = 0; r < nr; r++) arrays[k][row * nr + r] = value(k, row, r, s);
    for (size_t arm = 0; arm <= NV; arm++)
        for (size_t r = 0; r < nr; r++) d->position[arm * nr + r] = (int)(10 * arm + r + 100 * (size_t)s);
}

static void test_append(void **state)
{
    (void)state;
    struct rounds a, b;
    rounds_init(&a, NF, NV, NW, 2);
    rounds_init(&b, NF, NV, NW, 3);
    for (size_t i = 0; i < NW * NV * NF * 3; i++) assert_true(b.samples[i] == 0);
    for (size_t i = 0; i < (NV + 1) * 3; i++) assert_int_equal(b.position[i], -1);
    fill(&a, 1);
    fill(&b, 2);
    rounds_append(&a, &b, NF, NV, NW);
    assert_int_equal(a.nr, 5);
    assert_null(b.samples);   /* b freed */
    double *arrays[] = {a.samples, a.name_samples, a.aa_samples, a.aa_name_samples, a.totals, a.aa_totals};
    size_t rows[] = {NW * NV * NF, NW * NV * NF, NW * NF, NW * NF, NW * NV, NW};
    for (int k = 0; k < 6; k++)
        for (size_t row = 0; row < rows[k]; row++)
            for (size_t r = 0; r < 5; r++)
                assert_true(arrays[k][row * 5 + r] == (r < 2 ? value(k, row, r, 1) : value(k, row, r - 2, 2)));
    /* decision_input's own indexing: workload 1, variant 2, function 1, round 3 (b's round 1) */
    assert_true(a.samples[((1 * NV + 2) * NF + 1) * 5 + 3] == value(0, (1 * NV + 2) * NF + 1, 1, 2));
    for (size_t arm = 0; arm <= NV; arm++)
        for (size_t r = 0; r < 5; r++)
            assert_int_equal(a.position[arm * 5 + r], r < 2 ? (int)(10 * arm + r + 100) : (int)(10 * arm + r - 2 + 200));
    rounds_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
