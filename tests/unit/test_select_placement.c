/* Unit tests of select/placement.h on synthetic records: which symbols are
 * tested (hot in the baseline, not skipped), which read slower in the
 * selected build (the interval, the A/A margin, Holm over the tests), the
 * order of the verdicts, and runs that are missing; and the hot symbols of
 * the baseline alone (placement_hot: what select pins before the selected
 * build exists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/placement.h"

#define NB 6   /* baseline runs: its arm and its A/A arm, 3 rounds */
#define NS 3   /* selected runs */

/* One workload: total 1000 samples per run; symbols with per-run samples. */
struct sym {
    const char *file, *name;
    double base[NB], sel[NS];
};

static struct placement_log *log_of(const struct sym *syms, size_t n, size_t nw)
{
    struct placement_log *l = placement_log_new(nw, NB);
    for (size_t w = 0; w < nw; w++) {
        for (size_t k = 0; k < NB; k++) {
            placement_log_run(l, PLACEMENT_BASELINE, w, k, 1000);
            for (size_t i = 0; i < n; i++)
                placement_log_add(l, PLACEMENT_BASELINE, w, k, syms[i].file, syms[i].name, syms[i].base[k]);
        }
        for (size_t k = 0; k < NS; k++) {
            placement_log_run(l, PLACEMENT_SELECTED, w, k, 900);
            for (size_t i = 0; i < n; i++)
                placement_log_add(l, PLACEMENT_SELECTED, w, k, syms[i].file, syms[i].name, syms[i].sel[k]);
        }
    }
    return l;
}

static const struct sym syms[] = {
    /* hot, twice the samples: slower */
    {"B/prog", "s000", {200, 202, 198, 201, 199, 200}, {400, 404, 398}},
    /* hot, the same */
    {"B/prog", "s2233", {300, 305, 295, 298, 302, 300}, {301, 297, 303}},
    /* hot and faster: a clone (skipped by the caller) */
    {"B/prog", "dot.arch_x86_64_v3", {0, 0, 0, 0, 0, 0}, {100, 101, 99}},
    {"B/prog", "dot", {400, 401, 399, 400, 402, 398}, {0, 0, 0}},
    /* cold: 1% of the runs, 2x slower, not tested */
    {"B/prog", "init", {10, 10, 11, 9, 10, 10}, {20, 21, 19}},
    /* hot, a little slower but noisy: no verdict */
    {"S/lib/libk.so", "vpoly0", {50, 70, 40, 65, 45, 60}, {60, 75, 50}},
};

static int skip_dot(const char *symbol, void *ctx)
{
    (void)ctx;
    return !strncmp(symbol, "dot", 3) && (!symbol[3] || symbol[3] == '.');
}

static void test_judge(void **state)
{
    (void)state;
    struct placement_log *l = log_of(syms, sizeof syms / sizeof *syms, 1);
    assert_int_equal(placement_log_runs(l, PLACEMENT_BASELINE, 0), NB);
    assert_int_equal(placement_log_runs(l, PLACEMENT_SELECTED, 0), NS);
    size_t n = 0, missing = 0;
    struct placement_verdict *v = placement_judge(l, 0.02, 20, NULL, skip_dot, NULL, &n, &missing);
    assert_int_equal(missing, 0);
    assert_int_equal(n, 3);   /* s000, s2233, vpoly0: dot skipped, init cold */
    assert_string_equal(v[0].symbol, "s000");
    assert_string_equal(v[0].file, "B/prog");
    assert_int_equal(v[0].slower, 1);
    assert_true(v[0].iv.speedup < 0.55 && v[0].iv.speedup > 0.45);
    assert_true(v[0].sel_mean > 400 && v[0].sel_mean < 401);
    /* the others by baseline samples: s2233, vpoly0 */
    assert_string_equal(v[1].symbol, "s2233");
    assert_int_equal(v[1].slower, 0);
    assert_string_equal(v[2].symbol, "vpoly0");
    assert_int_equal(v[2].slower, 0);
    free(v);
    /* without the skip, dot is tested and is faster: not slower */
    v = placement_judge(l, 0.02, 20, NULL, NULL, NULL, &n, &missing);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) assert_int_equal(v[i].slower, !strcmp(v[i].symbol, "s000"));
    free(v);
    placement_log_free(l);
}

/* An A/A margin as wide as the difference takes the verdict back. */
static void test_margin(void **state)
{
    (void)state;
    struct placement_log *l = log_of(syms, 2, 1);
    size_t n, missing;
    double small[] = {0.05}, wide[] = {0.8};   /* log scale: x1.05, x2.2 */
    struct placement_verdict *v = placement_judge(l, 0.02, 20, small, NULL, NULL, &n, &missing);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].slower, 1);
    free(v);
    v = placement_judge(l, 0.02, 20, wide, NULL, NULL, &n, &missing);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].slower, 0);
    assert_int_equal(v[1].slower, 0);
    free(v);
    placement_log_free(l);
}

/* A 5% difference on a steady function is significant alone, but one of
 * many tests: Holm keeps it only when its p-value is small enough for the
 * family. */
static void test_holm(void **state)
{
    (void)state;
    struct sym many[12];
    char names[12][8];
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof names[i], "f%d", i);
        double b[NB] = {100, 101, 99, 100, 102, 98}, s[NS] = {100, 99, 101};
        if (i == 0) s[0] = 104, s[1] = 107, s[2] = 105;   /* 1.05x, modest evidence */
        many[i] = (struct sym){"B/prog", names[i], {0}, {0}};
        memcpy(many[i].base, b, sizeof b);
        memcpy(many[i].sel, s, sizeof s);
    }
    struct placement_log *one = log_of(many, 1, 1), *all = log_of(many, 12, 1);
    size_t n, missing;
    struct placement_verdict *v = placement_judge(one, 0.02, 20, NULL, NULL, NULL, &n, &missing);
    assert_int_equal(n, 1);
    int alone = v[0].slower;
    double p = v[0].iv.p;
    free(v);
    v = placement_judge(all, 0.02, 20, NULL, NULL, NULL, &n, &missing);
    assert_int_equal(n, 12);
    assert_int_equal(alone, 1);   /* alone, it is slower */
    assert_true(p > 0.05 / 12);   /* the data are chosen so that Holm takes it back */
    /* among 12 tests it needs p <= 0.05 / 12 */
    size_t k = 0;
    while (k < n && strcmp(v[k].symbol, "f0")) k++;
    assert_true(k < n);
    assert_int_equal(v[k].slower, 0);
    free(v);
    placement_log_free(one);
    placement_log_free(all);
}

/* Samples summed over workloads; a workload without selected runs is
 * missing, and with fewer than 2 runs on a side nothing is judged. */
static void test_missing(void **state)
{
    (void)state;
    struct placement_log *l = placement_log_new(2, NB);
    for (size_t k = 0; k < NB; k++) {
        placement_log_run(l, PLACEMENT_BASELINE, 0, k, 1000);
        placement_log_run(l, PLACEMENT_BASELINE, 1, k, 1000);
        placement_log_add(l, PLACEMENT_BASELINE, 0, k, "B/prog", "s000", 200);
    }
    placement_log_run(l, PLACEMENT_SELECTED, 0, 0, 1000);
    placement_log_run(l, PLACEMENT_SELECTED, 0, 1, 1000);
    placement_log_add(l, PLACEMENT_SELECTED, 0, 0, "B/prog", "s000", 400);
    placement_log_add(l, PLACEMENT_SELECTED, 0, 1, "B/prog", "s000", 400);
    size_t n, missing;
    struct placement_verdict *v = placement_judge(l, 0.02, 20, NULL, NULL, NULL, &n, &missing);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_int_equal(missing, 1);   /* workload 1 has no selected run */
    /* runs beyond the log's size are ignored, not written */
    placement_log_run(l, PLACEMENT_SELECTED, 1, NB, 1000);
    placement_log_add(l, PLACEMENT_SELECTED, 1, NB, "B/prog", "s000", 1);
    assert_int_equal(placement_log_runs(l, PLACEMENT_SELECTED, 1), 0);
    placement_log_free(l);
}

/* The baseline's hot symbols, hottest first, from the baseline's runs only
 * (no selected arm yet); cold and skipped ones left out; a symbol hot on
 * one workload only counts. */
static void test_hot(void **state)
{
    (void)state;
    struct placement_log *l = placement_log_new(2, NB);
    for (size_t k = 0; k < NB; k++) {
        placement_log_run(l, PLACEMENT_BASELINE, 0, k, 1000);
        placement_log_run(l, PLACEMENT_BASELINE, 1, k, 1000);
        for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
            placement_log_add(l, PLACEMENT_BASELINE, 0, k, syms[i].file, syms[i].name, syms[i].base[k]);
        /* only on workload 1: 5% there */
        placement_log_add(l, PLACEMENT_BASELINE, 1, k, "B/prog", "s1111", 50);
        /* 1% on each workload: cold */
        placement_log_add(l, PLACEMENT_BASELINE, 1, k, "B/prog", "init", 10);
    }
    size_t n = 0;
    struct placement_hot *h = placement_hot(l, 0.02, 20, skip_dot, NULL, &n);
    assert_int_equal(n, 4);   /* s2233, s000, vpoly0, s1111: dot skipped, init cold */
    assert_string_equal(h[0].symbol, "s2233");
    assert_true(h[0].base_mean > 299 && h[0].base_mean < 301);
    assert_true(h[0].share > 0.29 && h[0].share < 0.31);
    assert_string_equal(h[1].symbol, "s000");
    assert_string_equal(h[2].symbol, "vpoly0");
    assert_string_equal(h[2].file, "S/lib/libk.so");
    assert_string_equal(h[3].symbol, "s1111");
    assert_true(h[3].share > 0.049 && h[3].share < 0.051);
    free(h);
    /* a higher bar: only the two hottest */
    h = placement_hot(l, 0.25, 20, skip_dot, NULL, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].symbol, "s2233");
    free(h);
    /* too few samples per run over all workloads: none */
    assert_null(placement_hot(l, 0.02, 1e6, skip_dot, NULL, &n));
    assert_int_equal(n, 0);
    assert_null(placement_hot(NULL, 0.02, 20, NULL, NULL, &n));
    placement_log_free(l);
}

/* The files the baseline's runs sampled a function in (select/pinoffset.h
 * reads its offset there): its symbol and compiler-made pieces of it,
 * most samples first, once each; the selected arm's runs and other
 * symbols with the name as a prefix do not count. */
static void test_sampled_files(void **state)
{
    (void)state;
    static const struct sym lame[] = {
        {"B/frontend/lame", "choose_table_nonMMX", {100, 100, 100, 100, 100, 100}, {90, 90, 90}},
        {"B/frontend/lame", "choose_table_nonMMX.part.0", {5, 5, 5, 5, 5, 5}, {0, 0, 0}},
        {"B/libmp3lame/.libs/libmp3lame.so.0.0.0", "choose_table_nonMMX", {0, 0, 0, 0, 0, 0}, {50, 50, 50}},
        {"S/tools/other", "choose_table_nonMMX", {1, 0, 0, 0, 0, 0}, {0, 0, 0}},
        {"B/frontend/mp3rtp", "choose_table_nonMMXX", {200, 200, 200, 200, 200, 200}, {0, 0, 0}},
    };
    struct placement_log *l = log_of(lame, sizeof lame / sizeof *lame, 2);
    struct strvec files = STRVEC_INIT;
    sv_push(&files, "kept");
    placement_sampled_files(l, "choose_table_nonMMX", &files);
    assert_int_equal(files.n, 3);
    assert_string_equal(files.v[0], "kept");
    assert_string_equal(files.v[1], "B/frontend/lame");
    assert_string_equal(files.v[2], "S/tools/other");
    sv_free(&files);
    placement_sampled_files(l, "absent", &files);
    assert_int_equal(files.n, 0);
    placement_sampled_files(NULL, "choose_table_nonMMX", &files);
    assert_int_equal(files.n, 0);
    placement_log_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_margin),
        cmocka_unit_test(test_holm),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_hot),
        cmocka_unit_test(test_sampled_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
