/* threshold.c - see threshold.h. */
#include "patch/threshold.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "patch/plan.h"
#include "util/util.h"

/* The hosts of f's inlined-into note ("main, sum"), or NULL: none. */
static char *inlined_hosts(const struct patch_function *f)
{
    size_t i, k;
    json_t *note, *host;
    struct strbuf sb = STRBUF_INIT;
    json_array_foreach(f->notes, i, note)
    {
        const char *kind = json_string_value(json_object_get(note, "kind"));
        if (!kind || strcmp(kind, "inlined-into") != 0) continue;
        json_array_foreach(json_object_get(note, "hosts"), k, host)
        {
            const char *name = json_string_value(json_object_get(host, "name"));
            if (name) sb_addf(&sb, "%s%s", sb.len ? ", " : "", name);
        }
    }
    char *out = sb.len ? sb_detach(&sb) : NULL;
    sb_free(&sb);
    return out;
}

char *patch_below_threshold(const struct patch_function *f, int min_score, int exact)
{
    int score = exact ? f->score - f->fma_score : f->score;
    if (min_score <= 0 || f->kind != KIND_ISA) return NULL;
    char *hosts = inlined_hosts(f);
    if (hosts) {
        char *why = xasprintf("inlined into %s in the build: cloned, it runs out of line without what inlining "
                              "gave it (constant sizes, ...), which its gains (isa: %s) may not repay; left to "
                              "select, which measures it; --min-score 0 takes it",
                              hosts, f->evidence ? f->evidence : "no evidence");
        free(hosts);
        return why;
    }
    if (score >= min_score) return NULL;
    if (score <= 0)   /* no --min-score takes it: only 0, which takes everything */
        return xasprintf("score without FMA and AVX-512 (--exact) below threshold: 0 < %d (isa: %s); --min-score 0 takes it",
                         min_score, f->evidence ? f->evidence : "no evidence");
    return xasprintf("score%s below threshold: %d < %d (isa: %s); --min-score %d takes it",
                     exact && f->fma_score ? " without FMA and AVX-512 (--exact)" : "", score, min_score,
                     f->evidence ? f->evidence : "no evidence", score);
}
