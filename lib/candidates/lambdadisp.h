/* lambdadisp.h - whether a C++ virtual member function can be dispatched by
 * lambdas (patch/lambda.h), and the note that tells the patch how.
 *
 * GCC 12 refuses target_clones on a virtual function ("virtual function
 * multiversioning not supported"), so such a function's body is kept and
 * duplicated instead: one lambda per target carrying a `target` attribute,
 * [&]-capturing `this` and the parameters, chosen at run time. That works
 * for an out-of-class definition whose body means the same inside a lambda.
 * Refused, each with its reason (lambda_dispatch_refused):
 *   - a definition inside the class body (implicitly inline: every TU that
 *     sees the class has a copy);
 *   - a function-try-block (no compound body to move);
 *   - a static or thread_local local variable (each lambda would hold its
 *     own copy: state no longer shared between the targets' code);
 *   - __func__, __FUNCTION__, __PRETTY_FUNCTION__, and assert() where it is
 *     compiled in (it calls __assert_fail with __PRETTY_FUNCTION__): inside
 *     a lambda they name "operator()", so the text the program prints
 *     changes; under -DNDEBUG assert expands to nothing and is no obstacle;
 *   - __builtin_return_address / __builtin_frame_address (they would see
 *     the lambda's frame);
 *   - a result type that has no spelling valid in the body (an unnamed
 *     or anonymous-namespace type: clang spells it "(anonymous ...)").
 * Variadic functions, coroutines, destructors, templates and `= default`
 * are refused by eligibility.c's own rules before or after this one.
 *
 * The note (NOTE_LAMBDA_DISPATCH, "lambda-dispatch"): detail, "result" (the
 * canonical spelling of the result type, what the lambdas' "-> R" gets),
 * "body" and "end" (offsets in the definition's file of the body's "{"
 * and "}"). */
#ifndef FMVGEN_LAMBDADISP_H
#define FMVGEN_LAMBDADISP_H

#include <jansson.h>

#include "candidates/locate.h"

/* Why def (a virtual member function) cannot be lambda-dispatched, or NULL
 * when it can; then, unless note is NULL, *note (else untouched) is its new
 * note. Caller frees the string and owns the note. */
char *lambda_dispatch_refused(struct parsed_tu *tu, const struct fn_def *def, json_t **note);

#endif
