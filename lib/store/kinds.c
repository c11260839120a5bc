/* kinds.c - see kinds.h. */
#include "store/kinds.h"

#include <string.h>

static const char *const KIND_NAMES[] = {
    [KIND_ISA] = "isa",
    [KIND_TARGET_VECTORIZED] = "target-vectorized",
    [KIND_VECTORIZED] = "vectorized",
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

const char *candidate_kind_name(enum candidate_kind k)
{
    return (size_t)k < COUNT(KIND_NAMES) ? KIND_NAMES[k] : NULL;
}

enum candidate_kind candidate_kind_parse(const char *name)
{
    if (!name) return KIND_NONE;
    for (size_t k = 0; k < COUNT(KIND_NAMES); k++)
        if (KIND_NAMES[k] && !strcmp(KIND_NAMES[k], name)) return (enum candidate_kind)k;
    return KIND_UNKNOWN;
}

json_t *candidate_kind_json(enum candidate_kind k)
{
    return candidate_kind_name(k) ? json_string(candidate_kind_name(k)) : json_null();
}

enum candidate_kind candidate_kind_max(enum candidate_kind a, enum candidate_kind b)
{
    return a >= b ? a : b;
}
