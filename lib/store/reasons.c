/* reasons.c - see reasons.h. */
#include "store/reasons.h"

#include <string.h>

static const char *const NAMES[] = {
    [REASON_PARSE_ERROR] = "parse-error",
    [REASON_MAIN] = "main",
    [REASON_HEADER] = "header",
    [REASON_MACRO] = "macro",
    [REASON_TEMPLATE] = "template",
    [REASON_LAMBDA] = "lambda",
    [REASON_VIRTUAL] = "virtual",
    [REASON_COROUTINE] = "coroutine",
    [REASON_INLINE] = "inline",
    [REASON_VARIADIC] = "variadic",
    [REASON_ATTRIBUTE] = "attribute",
    [REASON_CONSTRUCTOR] = "constructor",
    [REASON_INTRINSICS] = "intrinsics",
    [REASON_INLINE_ASM] = "inline-asm",
    [REASON_USED_BEFORE_DEFINITION] = "used-before-definition",
    [REASON_INTERNAL_TEMPLATE] = "internal-template",
    [REASON_TAG_NAME] = "tag-name",
    [REASON_DECLARED_AFTER_DEFINITION] = "declared-after-definition",
    [REASON_NOT_FOUND] = "not-found",
};

const char *reason_name(enum exclusion_reason r)
{
    return (int)r > 0 && (size_t)r < sizeof NAMES / sizeof NAMES[0] ? NAMES[r] : NULL;
}

enum exclusion_reason reason_parse(const char *name)
{
    if (!name) return REASON_NONE;
    for (size_t r = 1; r < sizeof NAMES / sizeof NAMES[0]; r++)
        if (NAMES[r] && !strcmp(NAMES[r], name)) return (enum exclusion_reason)r;
    return REASON_UNKNOWN;
}
