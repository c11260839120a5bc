/* intrinsics.h - a function body's intrinsics and asm, judged against the
 * ISA every clone of the build can assume (its baseline).
 *
 * The default clone of target_clones (and cpuid's default copy) compiles
 * with the build's own flags, and so does every other clone plus its
 * target: an intrinsic the build's flags allow compiles in all of them,
 * and its code can still differ at the target (VEX encoding, fused loads),
 * which the ISA scoring then judges like any other code. The baseline:
 *   - x86-64: MMX, SSE, SSE2 (mmintrin.h, xmmintrin.h, emmintrin.h), raised
 *     by the build's flags, left to right: -msse3 (pmmintrin.h), -mssse3
 *     (tmmintrin.h), -msse4.1 (smmintrin.h), -msse4.2 / -msse4
 *     (nmmintrin.h; GCC's smmintrin.h holds SSE4.2's too), -mavx
 *     (avxintrin.h), -mavx2 (avx2intrin.h), -march=x86-64-v2 (to SSE4.2),
 *     -march=x86-64-v3 (to AVX2); -mno-<isa> lowers it below <isa>;
 *     any other -march (native, a CPU name) leaves it at SSE2 (not known
 *     here);
 *   - none with -m32 (i386 has no SSE2 baseline) or for another
 *     architecture's headers (arm_neon.h, altivec.h, ...).
 * Above it stay: every other x86 header (AVX-512, FMA, BMI, AES, ...),
 * a __builtin_ia32_* (or NEON, AltiVec) builtin written in the source
 * (one a baseline header's macro expands to counts as that header's), and
 * an intrinsic of another architecture. */
#ifndef FMVGEN_INTRINSICS_H
#define FMVGEN_INTRINSICS_H

#include <clang-c/Index.h>

/* The baseline levels, in order: each includes those below. */
enum base_isa {
    BASE_NONE = -1,   /* no SIMD baseline (-m32) */
    BASE_SSE2 = 2,    /* x86-64's MMX, SSE, SSE2 */
    BASE_SSE3,
    BASE_SSSE3,
    BASE_SSE41,
    BASE_SSE42,
    BASE_AVX,
    BASE_AVX2,
    BASE_ABOVE = 99   /* what no baseline here includes */
};

/* The baseline of a compile's argv (NULL-terminated; NULL: x86-64's). */
enum base_isa intrinsics_baseline(char *const *argv);

/* The level an ISA macro of a preprocessor test names: __SSE2__ ->
 * BASE_SSE2, __SSE4_1__ -> BASE_SSE41, HAVE_AVX2 -> BASE_AVX2 (an '_'-word
 * of the name), BASE_ABOVE for any other (AVX-512, NEON, ...). */
enum base_isa intrinsics_macro_level(const char *macro);

struct body_scan {
    char *intrinsic;      /* the first use above the baseline, as a sentence (NULL: none) */
    char *baseline;       /* the first baseline intrinsic, as a sentence (NULL: none) */
    unsigned asm_line;    /* the first asm statement (0: none) */
};

struct parsed_tu;

/* Visits body (a function's compound statement of tu) against baseline.
 * Caller frees the sentences with body_scan_free. */
void intrinsics_scan_body(struct parsed_tu *tu, CXCursor body, enum base_isa baseline, struct body_scan *out);
void body_scan_free(struct body_scan *s);

#endif
