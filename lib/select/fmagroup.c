/* fmagroup.c - see fmagroup.h. */
#include "select/fmagroup.h"

#include <stdlib.h>
#include <string.h>

const char *fma_verdict_code(enum fma_verdict v)
{
    switch (v) {
    case FMA_VERDICT_CLEARED: return "cleared";
    case FMA_VERDICT_CHANGES_OUTPUT: return "fma-changes-output";
    case FMA_VERDICT_UNRESOLVED: return "fma-unresolved";
    case FMA_VERDICT_NONE: break;
    }
    return "";
}

struct search {
    size_t n, max_tests, n_tests;
    fma_group_test_fn test;
    void *ctx;
    int *cleared;     /* C */
    int *at;          /* scratch: C + T */
    enum fma_verdict *verdict;
    char **why;
    int stopped;
};

static void mark(struct search *s, const size_t *t, size_t k, enum fma_verdict v)
{
    for (size_t i = 0; i < k; i++) s->verdict[t[i]] = v;
}

/* T = t[0..k): known_fail says C + T failed already, with why `failed`. */
static void bisect(struct search *s, const size_t *t, size_t k, int known_fail, const char *failed)
{
    if (!k) return;
    char *own = NULL;
    if (!known_fail) {
        if (s->stopped || s->n_tests >= s->max_tests) {
            s->stopped = 1;
            mark(s, t, k, FMA_VERDICT_UNRESOLVED);
            return;
        }
        memcpy(s->at, s->cleared, s->n * sizeof *s->at);
        for (size_t i = 0; i < k; i++) s->at[t[i]] = 1;
        s->n_tests++;
        int rc = s->test(s->ctx, s->at, s->n, &own);
        if (rc < 0) {
            s->stopped = 1;
            free(own);
            mark(s, t, k, FMA_VERDICT_UNRESOLVED);
            return;
        }
        if (rc > 0) {
            free(own);
            for (size_t i = 0; i < k; i++) s->cleared[t[i]] = 1;
            mark(s, t, k, FMA_VERDICT_CLEARED);
            return;
        }
        failed = own;
    }
    if (k == 1) {
        s->verdict[t[0]] = FMA_VERDICT_CHANGES_OUTPUT;
        free(s->why[t[0]]);
        s->why[t[0]] = failed ? xstrdup(failed) : NULL;
        free(own);
        return;
    }
    size_t half = k / 2;
    bisect(s, t, half, 0, NULL);
    int a_cleared = 1;
    for (size_t i = 0; i < half; i++) a_cleared &= s->cleared[t[i]];
    /* all of A cleared: C + B is C_before + T, which failed */
    bisect(s, t + half, k - half, a_cleared, a_cleared ? failed : NULL);
    free(own);
}

size_t fma_group_search(size_t n, const char *all_why, size_t max_tests, fma_group_test_fn test, void *ctx,
                        enum fma_verdict *verdict, char **why, int *stopped)
{
    struct search s = {.n = n, .max_tests = max_tests, .test = test, .ctx = ctx, .verdict = verdict, .why = why};
    s.cleared = xcalloc(n + 1, sizeof *s.cleared);
    s.at = xcalloc(n + 1, sizeof *s.at);
    size_t *all = xcalloc(n + 1, sizeof *all);
    for (size_t i = 0; i < n; i++) {
        all[i] = i;
        verdict[i] = FMA_VERDICT_NONE;
        why[i] = NULL;
    }
    bisect(&s, all, n, all_why != NULL, all_why);
    free(all);
    free(s.cleared);
    free(s.at);
    if (stopped) *stopped = s.stopped;
    return s.n_tests;
}

char *fma_bisect_sentence(const struct select_fma_bisect *b, const char *vname)
{
    if (!b->why) return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "FMA bisection (%s): %zu extra build%s (limit %d)", vname, b->n_builds, b->n_builds == 1 ? "" : "s",
            b->limit);
    if (b->n_cleared + b->n_culprits + b->n_unresolved)
        sb_addf(&sb, ": %zu function%s cleared, %zu change%s an output, %zu undecided", b->n_cleared,
                b->n_cleared == 1 ? "" : "s", b->n_culprits, b->n_culprits == 1 ? "s" : "", b->n_unresolved);
    sb_addf(&sb, " - %s", b->why);
    return sb_detach(&sb);
}

void select_fma_bisect_free(struct select_fma_bisect *b)
{
    free(b->why);
    sv_free(&b->tests);
    memset(b, 0, sizeof *b);
}
