/* pinsite.h - where a placement pin (patch/plan.h's struct patch_pin) may
 * go for a hot function that is NOT a candidate: fmvgen select keeps such a
 * function at the offset mod 64 it had in the baseline build, so that the
 * clones added around it do not move its loops across a cache line. A pin
 * is one line above the definition,
 *   __attribute__((__aligned__(64), __patchable_function_entry__(K, K)))
 * which changes no code, only where the function starts. It is written
 * only where the definition is known unambiguously and the line is safe.
 *
 * Where the definition is found, for a symbol (a plain identifier or
 * mangled name, as the linked file names it):
 *   - its functions row of status 'excluded' (it vectorized or its target
 *     code differed, but it may not be cloned): the row's insert offset,
 *     when every row of that name names one place;
 *   - no row (the usual case: nothing vectorized and its code at the
 *     target differs only in encoding): the compiles whose code holds the
 *     symbol (function_profiles, written by the target probe for every
 *     function of every TU), which must all compile one source; that TU is
 *     parsed with libclang (tu.h) and the definition located (locate.h).
 *     Its own source must define it (not a file it includes).
 * Which exclusion reasons (eligibility.h) still allow a pin: the attribute
 * applies to one out-of-line definition in one TU:
 *   allowed: main, variadic, intrinsics, inline-asm, used-before-definition
 *     (gcc 12, clang 14 and clang 19 accept these attributes after a use),
 *     internal-template, tag-name (target_clones problems only), and a
 *     located function with no reason at all;
 *   refused: header (every TU including it would get the line; their
 *     copies sit at other offsets), macro (the line would precede a macro
 *     invocation), template, lambda, coroutine (the compiler splits the
 *     body), inline (copies in several TUs, or none out of line), virtual
 *     and constructor (C++ members whose symbols may alias or repeat:
 *     untested), attribute (it may carry aligned, section, naked,
 *     target_clones, ...), parse-error (libclang's view is not trusted),
 *     not-found (nowhere to write).
 * A definition sharing its first line with other code (locate.h's
 * shared_line_prefix) is refused too: the line would attribute that code. */
#ifndef FMVGEN_PINSITE_H
#define FMVGEN_PINSITE_H

#include <stddef.h>

#include "store/reasons.h"

struct store;

struct pin_site {
    const char *symbol;          /* in: the symbol (borrowed) */
    char *file;                  /* the definition's file (absolute); NULL when not found */
    size_t insert_offset;        /* where the line goes (locate.h's insert position) */
    int insert_line, line;       /* 1-based */
    char *display_name, *source_hash;   /* the scan's hash of file (compiles.source_hash) */
    enum exclusion_reason reason;       /* why it is no candidate (REASON_NONE: not excluded) */
    int has_row;                 /* found through a functions row */
    char *why_not;               /* NULL: it may be pinned; else why not (one clause) */
};

/* 1 when a function excluded for r may still get a pin (above). */
int pinsite_reason_allows(enum exclusion_reason r);

/* Fills sites[0..n) (symbol set by the caller, the rest zero): each TU
 * needed is parsed once. 0, or -1 after an error line (the store). */
int pinsite_find(struct store *st, struct pin_site *sites, size_t n);
void pin_site_free(struct pin_site *s);

#endif
