/* int_kernels.c - the integer kernels of the example: a widening dot product,
 * a loop inside an inlined helper, and a kernel written with intrinsics. */
#include <emmintrin.h>

#include "kernels.h"

/* int32 x int32 summed into int64: the widening multiply needs pmuldq
 * (SSE4.1), so plain x86-64 (SSE2) leaves this loop scalar. */
int64_t dot_i32(const int32_t *p, const int32_t *q, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (int64_t)p[i] * q[i];
    return sum;
}

/* The loop is here, but after inlining the compiler compiles (and vectorizes)
 * it as part of accumulate_rows: that is the function to clone, and this
 * helper, being static inline, could not carry target_clones anyway. */
static inline void add_row(int32_t *restrict dst, const int32_t *restrict src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] += src[i];
}

void accumulate_rows(int32_t *acc, const int32_t *m, size_t rows, size_t cols)
{
    for (size_t c = 0; c < cols; c++)
        acc[c] = 0;
    for (size_t r = 0; r < rows; r++)
        add_row(acc, m + r * cols, cols);
}

/* Hand-vectorized with SSE2 intrinsics; the second loop is left to the
 * compiler and vectorizes. SSE2 is the x86-64 baseline, so every clone
 * compiles the intrinsics and fmvgen judges the function like any other;
 * intrinsics above the build's baseline would exclude it ("intrinsics"). */
int32_t sum_sse2(int32_t *scaled, const int32_t *v, size_t n)
{
    __m128i acc = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        acc = _mm_add_epi32(acc, _mm_loadu_si128((const __m128i *)(v + i)));
    int32_t lanes[4];
    _mm_storeu_si128((__m128i *)lanes, acc);
    int32_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; i < n; i++)
        sum += v[i];
    for (size_t j = 0; j < n; j++)
        scaled[j] = v[j] * 3;
    return sum;
}
