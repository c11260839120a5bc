/* threshold.c - see threshold.h. */
#include "patch/threshold.h"

#include <string.h>

#include "candidates/isa.h"
#include "patch/plan.h"
#include "util/util.h"

char *patch_below_threshold(const struct patch_function *f, int min_score)
{
    if (min_score <= 0 || !f->kind || strcmp(f->kind, KIND_ISA) != 0 || f->score >= min_score) return NULL;
    return xasprintf("score below threshold: %d < %d (isa: %s); --min-score %d takes it", f->score, min_score,
                     f->evidence ? f->evidence : "no evidence", f->score > 0 ? f->score : 1);
}
