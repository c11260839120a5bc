/* fastmath.h - which patched functions were compiled with floating-point
 * reassociation (-ffast-math, -Ofast, -fassociative-math,
 * -funsafe-math-optimizations).
 *
 * FMA-free clones (--exact, avx2) contract nothing, but reassociation lets
 * the compiler sum a reduction in the order of its vector width: 4 float
 * lanes in the SSE2 default clone, 8 in the avx2 clone, so the clones'
 * results differ in the last bits (gcc 12 and clang 14, -O2 -ffast-math: a
 * 1024-float sum, 0x1.527004p+3 against 0x1.527008p+3). The patch must not
 * promise such functions bit-identical results (patch/header.c).
 * An option is read from the build's own argv (compiles.argv), left to
 * right, the last one deciding: -ffast-math, -Ofast, -fassociative-math,
 * -funsafe-math-optimizations turn it on; -fno-fast-math,
 * -fno-associative-math, -fno-unsafe-math-optimizations turn it off; an
 * -O other than -Ofast after -Ofast turns off what -Ofast turned on. */
#ifndef FMVGEN_PATCH_FASTMATH_H
#define FMVGEN_PATCH_FASTMATH_H

#include "util/util.h"

struct store;
struct patch_plan;

/* 1 when argv_json (a JSON array of strings) enables reassociation. */
int patch_argv_reassociates(const char *argv_json);

/* "REL:LINE NAME" of each of p's functions that some compile of its file
 * and name built with reassociation, appended to out in plan order. 0, or
 * -1 after an error line naming the store. */
int patch_reassoc_functions(struct store *st, const struct patch_plan *p, struct strvec *out);

#endif
