/* kernels.h - the kernels of the multi-file example of `fmvgen demo`.
 *
 * Each kernel shows one case fmvgen must get right:
 *   saxpy            a float loop, vectorized at any x86-64 level
 *   dot_i32          int32 products summed into int64: vectorizes only with
 *                    SSE4.1/AVX2 (pmuldq), so only the probe at the target finds it
 *   accumulate_rows  its loop lives in a static inline helper: the compiler
 *                    compiles it inside accumulate_rows, the function to patch
 *   mat4_mul         straight-line code, vectorized by SLP, not as a loop
 *   fill_inputs      vectorized but cold (runs once): FMV buys nothing there
 *   sum_sse2         written with SSE2 intrinsics (the x86-64 baseline): cloned
 *                    like the others (intrinsics above it would exclude it)
 * and the driver's main, which fmvgen must never patch either.
 *
 * All float data are small integers, so every product and sum is exact and
 * the checksums are the same whether or not a clone contracts a*x+y into an
 * FMA: the demo can demand equal outputs from every build. */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>
#include <stdint.h>

void fill_inputs(float *x, float *y, int32_t *p, int32_t *q, size_t n);
void saxpy(float a, const float *x, float *y, size_t n);
int64_t dot_i32(const int32_t *p, const int32_t *q, size_t n);
void accumulate_rows(int32_t *acc, const int32_t *m, size_t rows, size_t cols);
void mat4_mul(float *restrict out, const float *restrict a, const float *restrict b);  /* 4x4, row-major */
int32_t sum_sse2(int32_t *scaled, const int32_t *v, size_t n);

#endif
