/* main.c - the driver of the kernels example: runs each kernel PASSES times,
 * prints one checksum line per kernel on stdout (the same for every correct
 * build, compared by `fmvgen demo`) and the time spent in each kernel on
 * stderr as "time KERNEL MS" (read by the demo's per-kernel table).
 *
 * main has vectorizable loops too, but main is never a candidate for
 * target_clones (GCC's clone of main crashes static binaries; clang rejects it).
 * Usage: kernels_demo [PASSES] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels.h"

#define N 2048              /* elements per vector: the data stay in cache */
#define ROWS 64
#define COLS 256
#define MATS 64
#define DEFAULT_PASSES 150000

static float x[N], y[N];
static int32_t p[N], q[N], scaled[N];
static int32_t m[ROWS * COLS], acc[COLS];
static float ma[MATS][16], mb[16], mout[MATS][16];

enum { K_SAXPY, K_DOT, K_ROWS, K_MAT4, K_SSE2, K_COUNT };
static const char *const kernel_names[K_COUNT] = {"saxpy", "dot_i32", "accumulate_rows", "mat4_mul", "sum_sse2"};
static double kernel_ms[K_COUNT];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    long passes = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_PASSES;
    if (passes <= 0) {
        fprintf(stderr, "usage: kernels_demo [PASSES>0]\n");
        return 2;
    }

    fill_inputs(x, y, p, q, N);
    for (int i = 0; i < ROWS * COLS; i++)
        m[i] = i % 13 - 6;
    for (int k = 0; k < MATS; k++)
        for (int e = 0; e < 16; e++)
            ma[k][e] = (float)((k + e) % 5);
    for (int e = 0; e < 16; e++)
        mb[e] = (float)(e % 3);

    double saxpy_sum = 0, mat_sum = 0;
    int64_t dot_sum = 0, rows_sum = 0, sse2_sum = 0;
    for (long pass = 0; pass < passes; pass++) {
        double t0 = now_ms();
        /* +0.5 then -0.5: y stays small, so every value is exact */
        saxpy(pass & 1 ? -0.5f : 0.5f, x, y, N);
        double t1 = now_ms();
        dot_sum += dot_i32(p, q, N);
        double t2 = now_ms();
        accumulate_rows(acc, m, ROWS, COLS);
        rows_sum += acc[pass % COLS];
        double t3 = now_ms();
        for (int k = 0; k < MATS; k++)
            mat4_mul(mout[k], ma[k], mb);
        mat_sum += mout[pass % MATS][pass % 16];
        double t4 = now_ms();
        sse2_sum += sum_sse2(scaled, p, N) + scaled[pass % N];
        double t5 = now_ms();
        kernel_ms[K_SAXPY] += t1 - t0;
        kernel_ms[K_DOT] += t2 - t1;
        kernel_ms[K_ROWS] += t3 - t2;
        kernel_ms[K_MAT4] += t4 - t3;
        kernel_ms[K_SSE2] += t5 - t4;
    }
    for (int i = 0; i < N; i++)
        saxpy_sum += y[i];

    printf("saxpy checksum %.1f\n", saxpy_sum);
    printf("dot_i32 checksum %lld\n", (long long)dot_sum);
    printf("accumulate_rows checksum %lld\n", (long long)rows_sum);
    printf("mat4_mul checksum %.1f\n", mat_sum);
    printf("sum_sse2 checksum %lld\n", (long long)sse2_sum);
    for (int k = 0; k < K_COUNT; k++)
        fprintf(stderr, "time %s %.3f\n", kernel_names[k], kernel_ms[k]);
    return 0;
}
