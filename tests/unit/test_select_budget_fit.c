/* Unit tests of select/budget.h's fit rule alone, on hand-made sizes and
 * gains: within the limit nothing is dropped; above it the least gain per
 * byte goes first; a dropped function that fits again is taken back;
 * unknown sizes are never dropped; the fixed part counts only while
 * something is selected; no limit; fixed parts per file, counted once while
 * a function needing them is kept, and part of what dropping a function
 * saves; one big gain beats many small ones; each workload's best function
 * fitted first (a trade only when clear of the noise; never for a function
 * no workload has as its best). budget_apply on a report, and the pins:
 * test_select_budget.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/budget.h"
#include "select/decision.h"
#include "select/decision_confirm.h"
#include "select/report.h"
#include "select/result.h"
#include "util/util.h"

static void test_fit_within_limit(void **state)
{
    (void)state;
    int sel[] = {1, 1, 0}, dropped[3];
    double bytes[] = {1000, 500, 9000}, gain[] = {0.1, 0.01, 0.5}, before, after;
    /* the unselected 9000 bytes do not count; the fixed part does */
    assert_int_equal(budget_fit(3, sel, bytes, gain, 200, 1700, dropped, &before, &after), 0);
    assert_true(before == 1700 && after == 1700);
    assert_int_equal(dropped[0] + dropped[1] + dropped[2], 0);
}

static void test_fit_drops_least_gain_per_byte(void **state)
{
    (void)state;
    /* A: 5000 B for 20% (4e-5/B); B: 900 B for 2% (2.2e-5/B); C: 300 B for 3% (1e-4/B) */
    int sel[] = {1, 1, 1}, dropped[3];
    double bytes[] = {5000, 900, 300}, gain[] = {0.20, 0.02, 0.03}, before, after;
    assert_int_equal(budget_fit(3, sel, bytes, gain, 0, 5700, dropped, &before, &after), 1);
    assert_true(before == 6200);
    assert_int_equal(dropped[1], 1);   /* B, the least per byte */
    assert_int_equal(dropped[0] + dropped[2], 0);
    assert_true(after == 5300);
}

static void test_fit_takes_back_what_fits(void **state)
{
    (void)state;
    /* dropping order: D (least per byte, small), then A (big): after A is
     * gone, D fits again and is taken back */
    int sel[] = {1, 1, 1}, dropped[3];
    double bytes[] = {5000, 400, 1000}, gain[] = {0.05, 0.001, 0.10}, after;
    assert_int_equal(budget_fit(3, sel, bytes, gain, 0, 1500, dropped, NULL, &after), 1);
    assert_int_equal(dropped[0], 1);
    assert_int_equal(dropped[1], 0);
    assert_int_equal(dropped[2], 0);
    assert_true(after == 1400);
}

static void test_fit_losers_and_unknown(void **state)
{
    (void)state;
    /* a function that saved nothing goes before any that saved something;
     * one of unknown size is never dropped and never takes back room */
    int sel[] = {1, 1, 1}, dropped[3];
    double bytes[] = {100, 2000, -1}, gain[] = {-0.01, 0.3, 0.2}, after;
    assert_int_equal(budget_fit(3, sel, bytes, gain, 0, 2000, dropped, NULL, &after), 1);
    assert_int_equal(dropped[0], 1);
    assert_int_equal(dropped[2], 0);
    assert_true(after == 2000);
    /* the fixed part alone is above the limit: all go (nothing added at all) */
    int sel2[] = {1, 1}, dropped2[2];
    double bytes2[] = {100, 200}, gain2[] = {0.1, 0.1};
    assert_int_equal(budget_fit(2, sel2, bytes2, gain2, 5000, 1000, dropped2, NULL, &after), 2);
    assert_true(after == 0);
    /* no limit */
    assert_int_equal(budget_fit(2, sel2, bytes2, gain2, 5000, -1, dropped2, NULL, &after), 0);
    assert_true(after == 5300);
}

static void test_fit_parts_per_file(void **state)
{
    (void)state;
    /* a library (part 0, 4600 B of CPU detection) holds A and B; a program
     * (part 1, 4600 B) holds C alone. Per own byte C is the best (3%/300 B),
     * but dropping it saves 4900 B; B (2%/900 B) saves only its 900 */
    int sel[] = {1, 1, 1}, dropped[3];
    double bytes[] = {5000, 900, 300}, gain[] = {0.20, 0.02, 0.03}, fixed[] = {4600, 4600}, before, after;
    unsigned char needs[] = {1, 0, /* A */ 1, 0, /* B */ 0, 1 /* C */};
    struct budget_parts p = {3, sel, bytes, gain, 2, fixed, needs, 0, NULL, NULL};
    assert_int_equal(budget_fit_parts(&p, 10500, dropped, &before, &after), 1);
    assert_true(before == 6200 + 9200);
    assert_int_equal(dropped[2], 1);   /* C: 3% for 4900 B */
    assert_int_equal(dropped[0] + dropped[1], 0);
    assert_true(after == 5900 + 4600);
    /* room for all: each part still counts once */
    assert_int_equal(budget_fit_parts(&p, 20000, dropped, NULL, &after), 0);
    assert_true(after == 6200 + 9200);
    /* A alone above the limit: all of A's file goes, C's stays */
    assert_int_equal(budget_fit_parts(&p, 5000, dropped, NULL, &after), 2);
    assert_int_equal(dropped[0] + dropped[1], 2);
    assert_int_equal(dropped[2], 0);
    assert_true(after == 4900);
}

static void test_fit_big_gain_beats_many_small(void **state)
{
    (void)state;
    /* speexdsp's selection (bench/results/heldout-speexdsp-20261204.txt):
     * A (speex_preprocess_run) 3.17% for 5408 B; the small ones 1.73% in all,
     * each better per byte but B, E and F. 272 B of CPU check per file.
     * Least-per-byte-first dropped A and kept the small ones (1.73%); A alone
     * fits (5680 B) and keeps more: A is kept, the rest dropped. */
    int sel[] = {1, 1, 1, 1, 1, 1}, dropped[6];
    double bytes[] = {5408, 736, 624, 176, 1200, 944}, gain[] = {0.0317, 0.0013, 0.010, 0.0039, 0.0018, 0.0003};
    double fixed[] = {272, 272, 272}, after;
    unsigned char needs[] = {1, 0, 0, /* A */ 1, 0, 0, /* B */ 0, 1, 0, /* C */ 0, 1, 0, /* D */
                             0, 0, 1, /* E */ 0, 0, 1 /* F */};
    struct budget_parts p = {6, sel, bytes, gain, 3, fixed, needs, 0, NULL, NULL};
    assert_int_equal(budget_fit_parts(&p, 5708, dropped, NULL, &after), 5);
    assert_int_equal(dropped[0], 0);
    for (int f = 1; f < 6; f++) assert_int_equal(dropped[f], 1);
    assert_true(after == 5408 + 272);
    /* with room for A and C's file too, both are kept */
    assert_int_equal(budget_fit_parts(&p, 5408 + 272 + 624 + 176 + 272, dropped, NULL, &after), 3);
    assert_int_equal(dropped[0] + dropped[2] + dropped[3], 0);
}

/* One workload, baseline and one set, 2 runs; two functions selected with
 * the set: f0 saves 40 of 100 samples with 3000 bytes, f1 saves 5 with
 * 1000 bytes. */
static void test_fit_each_workload_best_first(void **state)
{
    (void)state;
    enum { S, M, H, Z, L, N };
    int sel[N] = {1, 1, 1, 1, 1}, dropped[N];
    double bytes[N] = {2572, 2553, 1546, 2089, 2166};
    double saved[N * N] = {0};
    double share[N] = {0.180, 0.150, 0.0350, 0.0210, 0.0365}, gain[N], low[N];
    for (int f = 0; f < N; f++) saved[f * N + f] = share[f], gain[f] = share[f] / N;
    /* the low ends: S 1.16, M 1.15, H 1.00 (no gain), Z 1.01, L 1.01 */
    double sp[N] = {1.24, 1.18, 1.04, 1.03, 1.06}, lo[N] = {1.16, 1.15, 1.00, 1.01, 1.01};
    for (int f = 0; f < N; f++) low[f] = lo[f] > 1 ? gain[f] * (1 - 1 / lo[f]) / (1 - 1 / sp[f]) : 0;
    double fixed[] = {193, 193, 193}, before, after;
    unsigned char needs[N * 3] = {1, 0, 0, 1, 0, 0, 1, 0, 0, /* S M H: src_sinc.c */ 0, 1, 0, /* Z */ 0, 0, 1 /* L */};
    struct budget_parts old = {N, sel, bytes, gain, 3, fixed, needs, 0, NULL, NULL};
    assert_int_equal(budget_fit_parts(&old, 8022, dropped, &before, &after), 2);
    assert_true(before == 10926 + 579);
    assert_int_equal(dropped[H], 1);   /* what the old fit did */
    assert_int_equal(dropped[L], 0);
    struct budget_parts p = {N, sel, bytes, gain, 3, fixed, needs, N, saved, low};
    assert_int_equal(budget_fit_parts(&p, 8022, dropped, &before, &after), 2);
    assert_int_equal(dropped[S] + dropped[M] + dropped[H], 0);
    assert_int_equal(dropped[Z], 1);
    assert_int_equal(dropped[L], 1);
    assert_true(after == 2572 + 2553 + 1546 + 193);
    long best[N];
    budget_best_per_workload(&p, best);
    for (int w = 0; w < N; w++) assert_int_equal(best[w], w);
    /* room for all: nothing dropped */
    assert_int_equal(budget_fit_parts(&p, 11521, dropped, NULL, &after), 0);
}

/* Two workloads whose best functions do not fit together: A saves 6.3% of
 * W1 with 5408 B (1.51x [1.30, 1.77]), C 2% of W2 with 624 B; 272 B of CPU
 * check per file; 5708 B allowed. By gain per byte C stays and A goes; A
 * kept instead serves as many workloads and saves more even at its low end
 * (2.2% against C's 1%): A is kept. With a low end near no gain (1.05x) the
 * trade is within the noise and C, cheaper per gain, stays. */
static void test_fit_best_trade_needs_clear_gain(void **state)
{
    (void)state;
    int sel[] = {1, 1}, dropped[2];
    double bytes[] = {5408, 624}, gain[] = {0.0317, 0.010}, saved[] = {0.0634, 0, 0, 0.020};
    double fixed[] = {272, 272}, after;
    unsigned char needs[] = {1, 0, 0, 1};
    double low[] = {0.0317 * (1 - 1 / 1.30) / (1 - 1 / 1.51), 0.005};
    struct budget_parts p = {2, sel, bytes, gain, 2, fixed, needs, 2, saved, low};
    assert_int_equal(budget_fit_parts(&p, 5708, dropped, NULL, &after), 1);
    assert_int_equal(dropped[0], 0);
    assert_int_equal(dropped[1], 1);
    assert_true(after == 5408 + 272);
    low[0] = 0.0317 * (1 - 1 / 1.05) / (1 - 1 / 1.51);
    assert_int_equal(budget_fit_parts(&p, 5708, dropped, NULL, &after), 1);
    assert_int_equal(dropped[0], 1);
    assert_int_equal(dropped[1], 0);
    assert_true(after == 624 + 272);
}

/* A workload's best function is not given up for one that gains more but
 * serves no workload as its best: X (W1's best, 10% of it) and Y (W2's, 3%)
 * fit; Z (5% of W1, second there) gains more than Y but W2 would keep
 * nothing. The old fit kept X and Z. */
static void test_fit_best_not_traded_for_second(void **state)
{
    (void)state;
    int sel[] = {1, 1, 1}, dropped[3];
    double bytes[] = {1000, 1000, 1000}, gain[] = {0.05, 0.015, 0.025};
    double saved[] = {0.10, 0, /* X */ 0, 0.03, /* Y */ 0.05, 0 /* Z */};
    double fixed[] = {0};
    unsigned char needs[] = {0, 0, 0};
    struct budget_parts old = {3, sel, bytes, gain, 1, fixed, needs, 0, NULL, NULL};
    assert_int_equal(budget_fit_parts(&old, 2000, dropped, NULL, NULL), 1);
    assert_int_equal(dropped[1], 1);
    struct budget_parts p = {3, sel, bytes, gain, 1, fixed, needs, 2, saved, NULL};
    assert_int_equal(budget_fit_parts(&p, 2000, dropped, NULL, NULL), 1);
    assert_int_equal(dropped[0] + dropped[1], 0);
    assert_int_equal(dropped[2], 1);
    /* Y saving less than BUDGET_BEST_MIN_SAVED of W2 (0.5%) is no best
     * function: the most gain keeps X and Z */
    saved[3] = 0.005;
    gain[1] = 0.0025;
    assert_int_equal(budget_fit_parts(&p, 2000, dropped, NULL, NULL), 1);
    assert_int_equal(dropped[1], 1);
    /* one workload: its best function first, when it fits alone (speexdsp:
     * the big one the per-byte order would drop) */
    int sel1[] = {1, 1, 1}, d1[3];
    double b1[] = {5408, 624, 176}, g1[] = {0.0317, 0.010, 0.0039}, s1[] = {0.0317, 0.010, 0.0039};
    struct budget_parts one = {3, sel1, b1, g1, 1, fixed, needs, 1, s1, NULL};
    assert_int_equal(budget_fit_parts(&one, 5500, d1, NULL, NULL), 2);
    assert_int_equal(d1[0], 0);
}

/* budget_apply on two workloads: big (30% of W1, 2000 B), other (12% of
 * W1, 1000 B), small (W2's only function: 4% of it, 1000 B); 3000 B
 * allowed. The old fit dropped small (least gain per byte); now small is W2's
 * best and other goes, its note and the report's note saying why. With 2500
 * B small goes too: its note names W2. */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_within_limit),
        cmocka_unit_test(test_fit_drops_least_gain_per_byte),
        cmocka_unit_test(test_fit_takes_back_what_fits),
        cmocka_unit_test(test_fit_losers_and_unknown),
        cmocka_unit_test(test_fit_parts_per_file),
        cmocka_unit_test(test_fit_big_gain_beats_many_small),
        cmocka_unit_test(test_fit_each_workload_best_first),
        cmocka_unit_test(test_fit_best_trade_needs_clear_gain),
        cmocka_unit_test(test_fit_best_not_traded_for_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
