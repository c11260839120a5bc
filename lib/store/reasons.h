/* reasons.h - the exclusion reason codes of the functions table, typed.
 * lib/candidates decides them (eligibility.h lists the rules in order);
 * functions.reason stores their names (docs/DESIGN.md, store contract),
 * which stay the contract on disk. REASON_NONE (0) is a candidate, so
 * `if (reason)` reads "excluded". */
#ifndef FMVGEN_REASONS_H
#define FMVGEN_REASONS_H

enum exclusion_reason {
    REASON_NONE = 0,                /* a candidate: functions.reason NULL */
    REASON_PARSE_ERROR,             /* "parse-error" */
    REASON_MAIN,                    /* "main" */
    REASON_HEADER,                  /* "header" */
    REASON_MACRO,                   /* "macro" */
    REASON_TEMPLATE,                /* "template" */
    REASON_LAMBDA,                  /* "lambda" */
    REASON_VIRTUAL,                 /* "virtual" */
    REASON_COROUTINE,               /* "coroutine" */
    REASON_INLINE,                  /* "inline" */
    REASON_VARIADIC,                /* "variadic" */
    REASON_ATTRIBUTE,               /* "attribute" */
    REASON_CONSTRUCTOR,             /* "constructor" */
    REASON_INTRINSICS,              /* "intrinsics" */
    REASON_INLINE_ASM,              /* "inline-asm" */
    REASON_USED_BEFORE_DEFINITION,  /* "used-before-definition" */
    REASON_INTERNAL_TEMPLATE,       /* "internal-template" */
    REASON_TAG_NAME,                /* "tag-name" */
    REASON_DECLARED_AFTER_DEFINITION, /* "declared-after-definition" */
    REASON_NOT_FOUND,               /* "not-found" */
    REASON_UNKNOWN,                 /* a stored name this version does not know */
};

/* The stored name of r ("inline", ...); NULL for REASON_NONE and
 * REASON_UNKNOWN. */
const char *reason_name(enum exclusion_reason r);
/* The reason a stored name means: REASON_NONE for NULL, REASON_UNKNOWN for
 * a name this version does not know. */
enum exclusion_reason reason_parse(const char *name);

#endif
