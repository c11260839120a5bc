/* threshold.c - see threshold.h. */
#include "patch/threshold.h"

#include <string.h>

#include "patch/plan.h"
#include "util/util.h"

char *patch_below_threshold(const struct patch_function *f, int min_score, int exact)
{
    int score = exact ? f->score - f->fma_score : f->score;
    if (min_score <= 0 || f->kind != KIND_ISA || score >= min_score) return NULL;
    if (score <= 0)   /* no --min-score takes it: only 0, which takes everything */
        return xasprintf("score without FMA (--exact) below threshold: 0 < %d (isa: %s); --min-score 0 takes it",
                         min_score, f->evidence ? f->evidence : "no evidence");
    return xasprintf("score%s below threshold: %d < %d (isa: %s); --min-score %d takes it",
                     exact && f->fma_score ? " without FMA (--exact)" : "", score, min_score,
                     f->evidence ? f->evidence : "no evidence", score);
}
