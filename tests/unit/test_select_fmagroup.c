/* Unit tests of select/fmagroup.h: the group search against a model of the
 * outputs (a set of culprits, and pairs that change the output only
 * together): culprits found, the rest cleared, every passing test holding
 * all that was cleared before it, the number of tests, a culprit found
 * without a test of its own (its half's sibling was cleared), the limit
 * leaving functions undecided, a failing build stopping the search, and an
 * interaction between two functions (the one tried first is cleared, the
 * other is the culprit, and the cleared set passes as a whole). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "select/fmagroup.h"
#include "util/util.h"

#define MAXN 16

struct model {
    int culprit[MAXN];
    int pair_a, pair_b;        /* >= 0: change the output only together */
    int fail_build_at;         /* the test number (1-based) whose build fails; 0: none */
    size_t n_tests;
    int last_pass[MAXN];       /* the set of the last passing test */
    int ever_cleared_missing;  /* a passing test lacked something cleared earlier */
    int cleared_so_far[MAXN];
};

static int model_test(void *ctx, const int *at, size_t n, char **why)
{
    struct model *m = ctx;
    m->n_tests++;
    if (m->fail_build_at && (int)m->n_tests == m->fail_build_at) {
        *why = xstrdup("did not build");
        return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= at[i] && m->culprit[i];
    if (m->pair_a >= 0 && at[m->pair_a] && at[m->pair_b]) bad = 1;
    if (bad) {
        *why = xasprintf("output differs (test %zu)", m->n_tests);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (m->cleared_so_far[i] && !at[i]) m->ever_cleared_missing = 1;
        m->last_pass[i] = at[i];
        m->cleared_so_far[i] |= at[i];
    }
    return 1;
}

static size_t run(struct model *m, size_t n, const char *all_why, size_t limit, enum fma_verdict *v, char **why,
                  int *stopped)
{
    return fma_group_search(n, all_why, limit, model_test, m, v, why, stopped);
}

static void free_why(char **why, size_t n)
{
    for (size_t i = 0; i < n; i++) free(why[i]);
}

static void test_one_culprit_of_eight(void **state)
{
    (void)state;
    struct model m = {.pair_a = -1};
    m.culprit[5] = 1;
    enum fma_verdict v[8];
    char *why[8];
    int stopped = 1;
    size_t t = run(&m, 8, "all at once", 20, v, why, &stopped);
    assert_int_equal(stopped, 0);
    assert_int_equal(t, m.n_tests);
    for (int i = 0; i < 8; i++) assert_int_equal(v[i], i == 5 ? FMA_VERDICT_CHANGES_OUTPUT : FMA_VERDICT_CLEARED);
    /* known to fail (all_why): [0,4) passes (1), so [4,8) is known to fail; [4,6) fails (2), [4] passes (3),
     * so [5] is known without a test of its own; [6,8) passes (4) */
    assert_int_equal(t, 4);
    assert_string_equal(why[5], "output differs (test 2)");
    assert_int_equal(m.ever_cleared_missing, 0);
    for (int i = 0; i < 8; i++) assert_int_equal(m.last_pass[i], i != 5);
    free_why(why, 8);
}

static void test_unknown_start_tests_all_first(void **state)
{
    (void)state;
    struct model m = {.pair_a = -1};
    enum fma_verdict v[3];
    char *why[3];
    int stopped;
    assert_int_equal(run(&m, 3, NULL, 8, v, why, &stopped), 1);   /* all pass at once */
    for (int i = 0; i < 3; i++) assert_int_equal(v[i], FMA_VERDICT_CLEARED);
    free_why(why, 3);
}

static void test_culprit_first_gets_own_why(void **state)
{
    (void)state;
    struct model m = {.pair_a = -1};
    m.culprit[0] = 1;
    enum fma_verdict v[2];
    char *why[2];
    int stopped;
    assert_int_equal(run(&m, 2, NULL, 8, v, why, &stopped), 3);
    assert_int_equal(v[0], FMA_VERDICT_CHANGES_OUTPUT);
    assert_int_equal(v[1], FMA_VERDICT_CLEARED);
    assert_string_equal(why[0], "output differs (test 2)");
    assert_null(why[1]);
    free_why(why, 2);
}

static void test_interaction(void **state)
{
    (void)state;
    struct model m = {.pair_a = 1, .pair_b = 2};
    enum fma_verdict v[4];
    char *why[4];
    int stopped;
    run(&m, 4, "together", 20, v, why, &stopped);
    assert_int_equal(v[0], FMA_VERDICT_CLEARED);
    assert_int_equal(v[1], FMA_VERDICT_CLEARED);   /* tried first: alone it keeps the output */
    assert_int_equal(v[2], FMA_VERDICT_CHANGES_OUTPUT);   /* with 1 cleared, it changes it */
    assert_int_equal(v[3], FMA_VERDICT_CLEARED);
    assert_int_equal(m.ever_cleared_missing, 0);
    /* the cleared set passed as a whole */
    assert_true(m.last_pass[0] && m.last_pass[1] && !m.last_pass[2] && m.last_pass[3]);
    free_why(why, 4);
}

static void test_limit(void **state)
{
    (void)state;
    struct model m = {.pair_a = -1};
    m.culprit[0] = m.culprit[3] = 1;
    enum fma_verdict v[4];
    char *why[4];
    int stopped = 0;
    assert_int_equal(run(&m, 4, NULL, 1, v, why, &stopped), 1);
    assert_int_equal(stopped, 1);
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], FMA_VERDICT_UNRESOLVED);
    free_why(why, 4);
    memset(&m, 0, sizeof m);
    m.pair_a = -1;
    m.culprit[0] = 1;
    assert_int_equal(run(&m, 4, NULL, 0, v, why, &stopped), 0);
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], FMA_VERDICT_UNRESOLVED);
    free_why(why, 4);
}

static void test_failed_build_stops(void **state)
{
    (void)state;
    struct model m = {.pair_a = -1, .fail_build_at = 2};
    m.culprit[3] = 1;
    enum fma_verdict v[4];
    char *why[4];
    int stopped = 0;
    /* test 1 ([0,2) with all known failing) fails to build: nothing more is tried */
    assert_int_equal(run(&m, 4, "x", 8, v, why, &stopped), 2);
    assert_int_equal(stopped, 1);
    for (int i = 0; i < 4; i++) assert_int_not_equal(v[i], FMA_VERDICT_CHANGES_OUTPUT);
    free_why(why, 4);
}

static void test_codes(void **state)
{
    (void)state;
    assert_string_equal(fma_verdict_code(FMA_VERDICT_CLEARED), "cleared");
    assert_string_equal(fma_verdict_code(FMA_VERDICT_CHANGES_OUTPUT), "fma-changes-output");
    assert_string_equal(fma_verdict_code(FMA_VERDICT_UNRESOLVED), "fma-unresolved");
    struct select_fma_bisect b = {.limit = 8, .n_builds = 2, .n_cleared = 1, .n_culprits = 1, .why = xstrdup("w")};
    char *s = fma_bisect_sentence(&b, "fma-levels");
    assert_string_equal(s, "FMA bisection (fma-levels): 2 extra builds (limit 8): 1 function cleared, 1 changes an "
                           "output, 0 undecided - w");
    free(s);
    select_fma_bisect_free(&b);
    assert_null(fma_bisect_sentence(&b, "x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_culprit_of_eight), cmocka_unit_test(test_unknown_start_tests_all_first),
        cmocka_unit_test(test_culprit_first_gets_own_why), cmocka_unit_test(test_interaction),
        cmocka_unit_test(test_limit), cmocka_unit_test(test_failed_build_stops), cmocka_unit_test(test_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
