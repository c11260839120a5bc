/* dropped.h - functions.dropped_calls (schema 4): the library calls a
 * function's code at the target no longer makes (libgcc __popcountdi2,
 * libm floorf, ...; candidates/isa.h decides which), as data. The ISA
 * evidence's "X replaces a, b" text is rendered from the same list; select
 * credits samples in these calls to the clone that drops them
 * (select/libcalls.h) from this column, never from the evidence text.
 *
 * On disk: a JSON array of symbol names, each once ("[]": none). NULL in
 * rows an analysis before schema 4 wrote: not known, which is not none. */
#ifndef FMVGEN_STORE_DROPPED_H
#define FMVGEN_STORE_DROPPED_H

#include "util/util.h"

/* Encode: the stored text of calls (caller frees); "[]" when empty. */
char *dropped_calls_encode(const struct strvec *calls);
/* Decode: appends the stored names of text to out. 0; 1 when text is NULL
 * (not known: an older analysis); -1 when text is no JSON array of
 * strings (out gets nothing). */
int dropped_calls_decode(const char *text, struct strvec *out);

#endif
