/* params.h - what `patch --dispatch cpuid` needs to forward a call
 * (patch/cpuid.h): each copy of a function f is a new definition with f's
 * head whose body calls f's renamed body with f's own parameters,
 * `{ return fmvgen_mv_f(a, n); }` (or without `return` when f returns
 * void). The parameter names come from libclang's view of the definition
 * at scan time and are stored as a note on the candidate:
 *
 *   {"kind": "params", "detail": sentence, "names": ["a", "n"], "void": false}
 *
 * or, when no forwarding call can be written, with no "names" and
 * "refused": the reason - a C++ function or member function (the CPUID
 * copies' preamble is C only), a variadic function (its `...` cannot be passed on),
 * a K&R definition, a parameter without a name, a body an attribute keeps
 * out of line (noinline, optnone, noipa: clang then calls one body,
 * compiled for the baseline, from every copy), a body that calls a function
 * returning twice (setjmp, sigsetjmp, vfork, getcontext, savectx, or one
 * declared returns_twice: GCC refuses to inline it even always_inline, an
 * error). The patch falls back to
 * IFUNC target_clones for those, and for candidates without this note
 * (scanned by an older fmvgen). */
#ifndef FMVGEN_CANDIDATES_PARAMS_H
#define FMVGEN_CANDIDATES_PARAMS_H

#include <jansson.h>

#include "candidates/locate.h"

/* The "params" note of def (a located definition, DEF_FOUND or
 * DEF_TEMPLATE). New reference. */
json_t *params_note(struct parsed_tu *tu, const struct fn_def *def);
/* The refused "params" note, why being the reason. New reference. */
json_t *params_note_refused(const char *why);

#endif
