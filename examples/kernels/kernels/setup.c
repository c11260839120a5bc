/* setup.c - the inputs of the kernels example. fill_inputs vectorizes but runs
 * once per program: a cold function, where a clone costs bytes and buys
 * nothing measurable (the demo's clone table shows it never sampled). */
#include "kernels.h"

void fill_inputs(float *x, float *y, int32_t *p, int32_t *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(int32_t)(i & 15);
        y[i] = (float)(int32_t)(i & 7);
        p[i] = (int32_t)(i & 1023) - 512;
        q[i] = (int32_t)((i * 7) & 2047) - 1024;
    }
}
