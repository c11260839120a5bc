/* fmagroup.h - which functions' FMA changes a program's output, found by
 * group testing (bisection), and what `fmvgen select` reports of it.
 *
 * An FMA target set whose all-candidates build changes an output would
 * otherwise be lost to every function whose clones there hold FMA
 * instructions. fma_group_search tests groups instead: a test puts a subset
 * of the functions at the FMA set and every other candidate at an FMA-free
 * set, builds that, and compares the outputs (the caller's callback).
 *
 * The cleared set C grows only by passing tests, and every test holds all
 * of C besides the group tried, so the last passing test built C as a whole:
 * the functions cleared keep the output *together*, not only one by one.
 * Interactions: two functions whose FMA changes the output only together -
 * the one tried first is cleared, the other is a culprit (its test held the
 * first too). A selection that then takes only a subset of C is a build no
 * test made; the selected build's own output check covers that (fmabisect.h:
 * on failure the cleared functions are dropped and the rest checked again).
 *
 * Search: bisect(T): when T is not known to fail with C, test C + T; a pass
 * clears T. A failing singleton is a culprit. Otherwise split T in halves A,
 * B: bisect(A); when all of A was cleared, C + B is the test that failed
 * already, so B is known to fail without a build; bisect(B). At most
 * max_tests tests: functions left undecided get FMA_VERDICT_UNRESOLVED. */
#ifndef FMVGEN_SELECT_FMAGROUP_H
#define FMVGEN_SELECT_FMAGROUP_H

#include <stddef.h>

#include "util/util.h"

enum fma_verdict {
    FMA_VERDICT_NONE,             /* not tested (its FMA clones were not wanted) */
    FMA_VERDICT_CLEARED,          /* in a passing test: eligible at the FMA set */
    FMA_VERDICT_CHANGES_OUTPUT,   /* culprit: its FMA changes the output */
    FMA_VERDICT_UNRESOLVED,       /* the test limit (or a failed build) left it open */
};

/* "cleared", "fma-changes-output", "fma-unresolved", "" (NONE). */
const char *fma_verdict_code(enum fma_verdict v);

/* One test: at_fma[i] (i < n) says which of the searched functions are at
 * the FMA set. Returns 1 when the outputs are kept, 0 when one changed (then
 * *why, malloc'd, says which and where), -1 when the test could not be made
 * (a build failed, interrupted: the search stops; *why may say why). */
typedef int (*fma_group_test_fn)(void *ctx, const int *at_fma, size_t n, char **why);

/* Searches the n functions. all_why: NULL, or the failure of a test that
 * already held all n at the FMA set (then not made again; copied to
 * culprits found without a test of their own). verdict[i] and why[i] (malloc'd for culprits:
 * the failure of the test that showed it, else NULL) are filled. Returns the
 * number of tests made (<= max_tests). *stopped: 1 when a test returned -1
 * or the limit left functions open. */
size_t fma_group_search(size_t n, const char *all_why, size_t max_tests, fma_group_test_fn test, void *ctx,
                        enum fma_verdict *verdict, char **why, int *stopped);

/* What select reports of it (report.json fma_bisect, report.md, summary). */
struct select_fma_bisect {
    int limit;                /* --fma-bisect: most extra builds (0: none) */
    size_t n_builds;          /* extra builds made */
    int variant;              /* the FMA variant searched, or -1 (none needed) */
    int exact;                /* the FMA-free variant the other functions had */
    char *why;                /* why builds were needed, or why none were; NULL: no search arose */
    struct strvec tests;      /* one line per build: which functions at FMA, the outcome */
    size_t n_cleared, n_culprits, n_unresolved;
};
void select_fma_bisect_free(struct select_fma_bisect *b);

/* One line for the reports: "FMA bisection (fma-levels): 2 extra builds
 * (limit 8): 1 function cleared, 1 changes an output - WHY"; NULL when no
 * search arose. vname: the FMA variant's name. Caller frees. */
char *fma_bisect_sentence(const struct select_fma_bisect *b, const char *vname);

#endif
