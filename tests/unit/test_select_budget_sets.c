/* Unit tests of select/budget_sets.h: when the code-growth budget binds, a
 * selected function takes a cheaper set it also qualified for so that
 * another fits. libsamplerate's shape (bench/results/rank-20261206-s20.txt):
 * lin, the best function of W1, 20% of it with fma-levels (2200 bytes),
 * 10% with fma-free (1100 bytes); stereo, the best of W2, 6% of it with
 * fma-levels (1800 bytes), nothing with fma-free. The fit of the timings'
 * sets (4000 bytes) keeps lin and drops stereo; with lin's fma-free clones
 * both fit 3000 bytes: both workloads keep their best function, and the
 * report says so (note, report note, report.json, report.md, summary).
 * lin's fma-free not qualifying: stereo dropped as before. Nothing
 * binding, or the cheaper set making no room: the timings' sets, no note.
 * The search's bound: at most BUDGET_SETS_MAX assignments, the functions
 * saving the most searched first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "select/budget.h"
#include "select/budget_sets.h"
#include "select/decision.h"
#include "select/report.h"
#include "select/result.h"
#include "util/util.h"

enum { F = 2, W = 2, V = 3, R = 2 };
/* samples[((w * V + v) * F + f) * R + r]: W1 then W2; baseline,
 * fma-levels, fma-free; lin, stereo */
static const double smp[W * V * F * R] = {
    40, 40, 5, 5, /* W1 baseline */ 20, 20, 5, 5, /* W1 fma-levels */ 30, 30, 5, 5, /* W1 fma-free */
    5, 5, 40, 40, /* W2 baseline */ 5, 5, 34, 34, /* W2 fma-levels */ 5, 5, 40, 40 /* W2 fma-free */};
static const double tot[W * V * R] = {100, 100, 80, 80, 90, 90, 100, 100, 94, 94, 100, 100};
static const char *names[F] = {"lin", "stereo"};

/* fit_bytes: the fit's part of the limit (the v3 reference's code sized
 * so); lin_free: lin qualified for fma-free */
static void make(struct select_report *r, struct decision_input *in, double fit_bytes, int lin_free)
{
    memset(r, 0, sizeof *r);
    r->n_variants = V;
    r->variants = xcalloc(V, sizeof *r->variants);
    const char *vn[V] = {"baseline", "fma-levels", "fma-free"};
    const char *vt[V] = {"", "arch=x86-64-v3,arch=x86-64-v4", "avx2"};
    for (size_t v = 0; v < V; v++) {
        r->variants[v].name = xstrdup(vn[v]);
        r->variants[v].targets = xstrdup(vt[v]);
    }
    r->variants[0].code = (struct select_code){.measured = 1, .code_bytes = 40000};
    r->variants[1].code = (struct select_code){.measured = 1, .code_bytes = 40000 + 2200 + 1800};
    r->variants[2].code = (struct select_code){.measured = 1, .code_bytes = 40000 + 1100 + 1700};
    uint64_t march = (uint64_t)(fit_bytes / 0.1 / (1 - BUDGET_UNPREDICTED_SHARE) + 0.5);
    r->march.code = (struct select_code){.measured = 1, .code_bytes = march};
    r->n_functions = F;
    r->functions = xcalloc(F, sizeof *r->functions);
    const int64_t added[F][V] = {{-1, 2200, 1100}, {-1, 1800, 1700}};
    struct decision *d = &r->decision;
    d->n_functions = F;
    d->n_variants = V;
    d->n_workloads = W;
    d->functions = xcalloc(F, sizeof *d->functions);
    for (size_t f = 0; f < F; f++) {
        struct select_function *fn = &r->functions[f];
        fn->name = xstrdup(names[f]);
        fn->display_name = xstrdup(names[f]);
        fn->file = xstrdup("src.c");
        fn->bytes_added = xcalloc(V + 1, sizeof(int64_t));
        for (size_t v = 0; v < V; v++) fn->bytes_added[v] = added[f][v];
        fn->bytes_added[V] = -1;
        struct decision_function *df = &d->functions[f];
        df->chosen = df->fastest = 1;
        df->reason = DECISION_SELECTED;
        df->by_variant = xcalloc(V, sizeof *df->by_variant);
        df->qualifies = xcalloc(V, sizeof *df->qualifies);
        df->qualifies[1] = 1;
        df->qualifies[2] = !f && lin_free;
        for (size_t v = 1; v < V; v++) {
            double base[R], var[R];
            for (size_t k = 0; k < R; k++) {
                base[k] = smp[((0 * V + 0) * F + f) * R + k] + smp[((1 * V + 0) * F + f) * R + k];
                var[k] = smp[((0 * V + v) * F + f) * R + k] + smp[((1 * V + v) * F + f) * R + k];
            }
            stats_welch(base, R, var, R, &df->by_variant[v]);
        }
    }
    r->n_workloads = W;
    r->workloads = xcalloc(W, sizeof *r->workloads);
    r->workloads[0].command = xstrdup("./w1");
    r->workloads[1].command = xstrdup("./w2");
    *in = (struct decision_input){.n_functions = F, .n_workloads = W, .n_variants = V, .n_runs = R,
                                  .functions = names, .samples = smp, .totals = tot};
}

static void unmake(struct select_report *r)
{
    for (size_t f = 0; f < F; f++) {
        free(r->functions[f].name);
        free(r->functions[f].display_name);
        free(r->functions[f].file);
        free(r->functions[f].note);
        free(r->functions[f].bytes_added);
        free(r->decision.functions[f].by_variant);
        free(r->decision.functions[f].qualifies);
    }
    free(r->functions);
    free(r->decision.functions);
    for (size_t v = 0; v < V; v++) {
        free(r->variants[v].name);
        free(r->variants[v].targets);
    }
    free(r->variants);
    for (size_t w = 0; w < W; w++) free(r->workloads[w].command);
    free(r->workloads);
    sv_free(&r->notes);
}

/* The fit of 3000 bytes: lin takes fma-free, and stereo fits beside it. */
static void test_cheaper_set_makes_room(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    make(&r, &in, 3000, 1);
    int opts[V];
    assert_int_equal(budget_set_options(&r, 0, 1, opts, V), 2);
    assert_int_equal(opts[0], 1);
    assert_int_equal(opts[1], 2);
    assert_int_equal(budget_set_options(&r, 1, 1, opts, V), 1);
    budget_apply(&r, &in, 10);
    const struct decision_function *lin = &r.decision.functions[0], *st = &r.decision.functions[1];
    assert_int_equal(r.budget.n_dropped, 0);
    assert_int_equal(r.budget.n_cheaper, 1);
    assert_int_equal(r.budget.n_room, 1);
    assert_int_equal(r.budget.n_served, 2);
    assert_true(r.budget.before == 4000 && r.budget.after == 2900);
    assert_int_equal(lin->chosen, 2);
    assert_int_equal(lin->budget_from, 1);
    assert_int_equal(lin->reason, DECISION_SELECTED);
    assert_int_equal(st->chosen, 1);
    assert_int_equal(st->reason, DECISION_SELECTED);
    assert_int_equal(st->budget_room, 1);
    assert_non_null(strstr(r.functions[0].note, "kept with its fma-free clones (1100 bytes) for the code-growth budget, "
                                                "which has no room for its fma-levels clones (2200 bytes, 1.80x"));
    assert_non_null(strstr(r.functions[0].note, " beside stereo (1800 bytes, 3.00% saved); fma-free made it "
                                                "significantly faster too: 1.29x"));
    assert_null(r.functions[1].note);
    assert_int_equal(r.notes.n, 1);
    assert_non_null(strstr(r.notes.v[0], "lin (fma-free, 1100 bytes, instead of fma-levels, 2200 bytes; 1.29x"));
    assert_non_null(strstr(r.notes.v[0], "instead of 1.80x"));
    assert_non_null(strstr(r.notes.v[0], "this leaves room for functions the timings' sets left out: stereo"));
    /* the writers */
    char *sum = select_report_summary(&r);
    assert_non_null(strstr(sum, "kept with its fma-free clones (1100 bytes)"));
    assert_non_null(strstr(sum, "note: code-growth budget:"));
    free(sum);
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "kept with its fma-free clones (1100 bytes)"));
    assert_non_null(strstr(md, "this leaves room for functions the timings' sets left out: stereo"));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *bj = json_object_get(json_object_get(j, "code_size"), "budget");
    assert_int_equal(json_integer_value(json_object_get(bj, "kept_with_cheaper_set")), 1);
    assert_int_equal(json_integer_value(json_object_get(bj, "kept_by_cheaper_sets")), 1);
    json_t *fs = json_object_get(j, "functions");
    json_t *cs = json_object_get(json_array_get(fs, 0), "budget_cheaper_set");
    assert_string_equal(json_string_value(json_object_get(json_object_get(cs, "timed"), "set")), "fma-levels");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(cs, "timed"), "bytes_added")), 2200);
    assert_string_equal(json_string_value(json_object_get(json_object_get(cs, "kept"), "set")), "fma-free");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(cs, "kept"), "bytes_added")), 1100);
    assert_true(json_real_value(json_object_get(json_object_get(cs, "kept"), "speedup")) > 1.1);
    assert_true(json_is_null(json_object_get(json_array_get(fs, 1), "budget_cheaper_set")));
    assert_true(json_is_true(json_object_get(json_array_get(fs, 1), "budget_kept_by_cheaper_sets")));
    assert_true(json_is_false(json_object_get(json_array_get(fs, 0), "budget_kept_by_cheaper_sets")));
    json_decref(j);
    unmake(&r);
}

/* lin did not qualify for fma-free: stereo is dropped, as before. */
static void test_cheaper_set_must_qualify(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    make(&r, &in, 3000, 0);
    int opts[V];
    assert_int_equal(budget_set_options(&r, 0, 1, opts, V), 1);
    budget_apply(&r, &in, 10);
    assert_int_equal(r.budget.n_dropped, 1);
    assert_int_equal(r.budget.n_cheaper, 0);
    assert_int_equal(r.budget.n_room, 0);
    assert_int_equal(r.decision.functions[0].chosen, 1);
    assert_int_equal(r.decision.functions[0].budget_from, 0);
    assert_int_equal(r.decision.functions[1].chosen, -1);
    assert_int_equal(r.decision.functions[1].reason, DECISION_CODE_BUDGET);
    assert_true(r.budget.after == 2200);
    unmake(&r);
}

/* Nothing binds (5000 bytes), or the cheaper set makes no room (2500:
 * 1100 + 1800 do not fit either): the timings' sets, no note of a move. */
static void test_cheaper_set_unused(void **state)
{
    (void)state;
    for (int round = 0; round < 2; round++) {
        struct select_report r;
        struct decision_input in;
        make(&r, &in, round ? 2500 : 5000, 1);
        budget_apply(&r, &in, 10);
        assert_int_equal(r.budget.n_cheaper, 0);
        assert_int_equal(r.budget.n_room, 0);
        assert_int_equal(r.decision.functions[0].chosen, 1);
        assert_int_equal(r.decision.functions[0].budget_from, 0);
        assert_null(r.functions[0].note);
        assert_int_equal(r.budget.n_dropped, (size_t)round);
        assert_int_equal(r.decision.functions[1].chosen, round ? -1 : 1);
        assert_true(r.budget.after == (round ? 2200 : 4000));
        for (size_t i = 0; i < r.notes.n; i++) assert_null(strstr(r.notes.v[i], "cheaper target set"));
        unmake(&r);
    }
}

/* The bound: 7 functions with two options each (128 assignments); the 6
 * saving the most are searched (64 fits), the last keeps its start. The
 * eval counts a function at its second option as one more workload
 * served: the best is every searched one moved. */
struct count_ctx {
    size_t calls;
};

static void count_eval(void *p, const int *sets, struct budget_outcome *o)
{
    struct count_ctx *c = p;
    c->calls++;
    for (size_t f = 0; f < 7; f++) o->served += sets[f] == 2;
    o->moved = o->served;
    o->within = 1;
}

static void test_search_bound(void **state)
{
    (void)state;
    enum { N = 7 };
    int o0[2] = {1, 2};
    const int *opts[N];
    size_t n_opt[N], order[N] = {6, 5, 4, 3, 2, 1, 0};
    int start[N], best[N];
    for (size_t f = 0; f < N; f++) opts[f] = o0, n_opt[f] = 2, start[f] = 1;
    struct budget_outcome was = {0, 0, 0, 0, 1};
    struct count_ctx c = {0};
    size_t fitted = budget_search_sets(N, n_opt, opts, order, N, start, &was, count_eval, &c, best);
    assert_int_equal(fitted, BUDGET_SETS_MAX);
    assert_int_equal(c.calls, BUDGET_SETS_MAX);
    for (size_t f = 1; f < N; f++) assert_int_equal(best[f], 2);
    assert_int_equal(best[0], 1);   /* last in the order: not searched */
    /* nothing better than the start: the start */
    struct budget_outcome top = {N, 0, 0, 0, 1};
    budget_search_sets(N, n_opt, opts, order, N, start, &top, count_eval, &c, best);
    for (size_t f = 0; f < N; f++) assert_int_equal(best[f], 1);
}

/* The order: more workloads served, then more gain, then fewer moved,
 * then fewer bytes. */
static void test_outcome_order(void **state)
{
    (void)state;
    struct budget_outcome a = {2, 0.01, 3000, 1, 1}, b = {1, 0.10, 2000, 0, 1};
    assert_true(budget_outcome_better(&a, &b));
    assert_false(budget_outcome_better(&b, &a));
    b.served = 2;
    assert_true(budget_outcome_better(&b, &a));
    b.gain = a.gain;
    assert_true(budget_outcome_better(&b, &a));   /* fewer moved */
    b.moved = a.moved;
    assert_true(budget_outcome_better(&b, &a));   /* fewer bytes */
    b.bytes = a.bytes;
    assert_false(budget_outcome_better(&b, &a));
    assert_false(budget_outcome_better(&a, &b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cheaper_set_makes_room), cmocka_unit_test(test_cheaper_set_must_qualify),
        cmocka_unit_test(test_cheaper_set_unused),     cmocka_unit_test(test_search_bound),
        cmocka_unit_test(test_outcome_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
