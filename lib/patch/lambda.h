/* lambda.h - lambda dispatch of a C++ virtual member function defined out
 * of class (its "lambda-dispatch" note, candidates/lambdadisp.h): GCC 12
 * refuses target_clones on a virtual function, so its body is duplicated
 * in the source, one lambda per target of its set, each with a `target`
 * attribute, chosen once per process by a static local:
 *
 *   float K::run(const float *x, int n)
 *   {
 *   #if defined(__x86_64__) && defined(__GNUC__) && !defined(FMVGEN_NO_CLONES)  (+ a comment)
 *       static const int fmvgen_sel = (__builtin_cpu_init(), (COND_v4) ? 1 : (COND_v3) ? 2 : 0);
 *       if (fmvgen_sel == 1) return [&]() __attribute__((target("arch=x86-64-v4"))) -> float {
 *       BODY (its lines, copied)
 *       }();
 *       if (fmvgen_sel == 2) return [&]() __attribute__((target("arch=x86-64-v3"))) -> float {
 *       BODY
 *       }();
 *       return [&]() -> float {
 *   #endif
 *       BODY (the original lines: the default)
 *   #if ... (the same condition)
 *       }();
 *   #endif
 *   }
 *
 * Whole lines are inserted: the body's "{" must end its line and its "}"
 * start one (else the function is left out, said why). Targets are tried
 * from the highest level down (v4, v3, avx2, v2); COND is
 * __builtin_cpu_supports of the level's features (clang 14 knows no
 * "x86-64-vN" names there), so libgcc's (compiler-rt's) CPU model is
 * linked; the cpuid preamble's fmvgen_cpu_levels is C-only top-level asm
 * that FMVGEN_CPU_ON keeps out of C++. `this` and the parameters are
 * captured by reference; a `return` in BODY returns from its lambda, whose
 * result is the function's (the canonical result type, the note's
 * "result"). With -DFMVGEN_NO_CLONES, or off x86-64 or GCC/clang, the
 * function is the plain one. Its lambdas' code lands in local symbols of
 * the function (_ZZ<its encoding>E...clEv): select credits them to it
 * (elf/fmvsyms.h). */
#ifndef FMVGEN_PATCH_LAMBDA_H
#define FMVGEN_PATCH_LAMBDA_H

#include <stddef.h>

#include "patch/diff.h"
#include "patch/preamble.h"

struct patch_function;

/* 1 when f is dispatched by lambdas (its note). */
int patch_lambda_of(const struct patch_function *f);

/* Why f's lines cannot be placed in text (NULL: they can): its braces are
 * not alone on their lines, or not where the scan saw them. */
const char *patch_lambda_refused(const struct patch_function *f, const char *text, size_t len);

/* f's two insertions (after the "{" line, before the "}" line) for set;
 * texts[0], texts[1] get the caller-freed texts. -1 after a one-line error
 * (a target it has no CPU test for), else 0. */
int patch_lambda_lines(const struct patch_function *f, const char *text, size_t len,
                       const struct patch_target_set *set, struct insertion ins[2], char *texts[2]);

#endif
