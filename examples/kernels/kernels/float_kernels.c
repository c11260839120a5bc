/* float_kernels.c - the float kernels of the example: a loop (saxpy) and
 * straight-line code that only the SLP vectorizer handles (mat4_mul). */
#include "kernels.h"

void saxpy(float a, const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* 4x4 matrix product, row-major. GCC unrolls the fixed-size loops completely
 * and vectorizes the resulting straight-line code ("basic block part
 * vectorized"): an SLP candidate. */
void mat4_mul(float *restrict out, const float *restrict a, const float *restrict b)
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            out[4 * r + c] = a[4 * r + 0] * b[0 + c] + a[4 * r + 1] * b[4 + c]
                           + a[4 * r + 2] * b[8 + c] + a[4 * r + 3] * b[12 + c];
}
