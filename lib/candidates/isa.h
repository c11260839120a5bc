/* isa.h - ISA-sensitive functions: what a function's code at the target
 * (the target probe's object) does that the build's code does not, scored,
 * with a readable evidence line. A function whose score is above 0 becomes
 * a candidate of kind "isa" even when no loop of it vectorized; a loop
 * candidate carries its score and evidence too.
 *
 * Counted (weights are ISA_W_*): a call the build makes to a function the
 * target does in an instruction (libgcc __popcountdi2/__clzdi2/__ctzdi2,
 * libm floor/ceil/rint/trunc/nearbyint/round/lrint/fma and their f/l
 * variants) that the target's code no longer makes; instructions that
 * replace a sequence (popcnt, lzcnt, tzcnt, BMI1/2, movbe, round/rndscale);
 * FMA (less when it adds into a loop-carried accumulator); SSE3+/AVX2/AVX-512 operations SSE2 lacks (elf/funcisa.h FOP_SIMD);
 * instructions on wider vector registers than the build's widest. NOT
 * counted: the encoding alone (VEX/EVEX for the same xmm operation). */
#ifndef FMVGEN_CANDIDATES_ISA_H
#define FMVGEN_CANDIDATES_ISA_H

#include "elf/funcisa.h"
#include "store/kinds.h"
#include "util/util.h"

struct store;
struct compile_row;

#define ISA_W_CALL 8      /* per call site removed */
#define ISA_W_SINGLE 4    /* per popcnt/lzcnt/tzcnt/BMI/movbe/round instruction added */
#define ISA_W_FMA 2       /* per FMA instruction added */
#define ISA_W_FMA_CHAIN 1 /* for all FMAs added on loop-carried accumulators together
                           * (`s += a[i] * b[i]`, however unrolled): each waits for the
                           * one before, so the loop is no faster (an FMA's latency against
                           * an add's; slower on AMD Zen); only the multiply off the chain
                           * is saved. Weak evidence: a candidate, below --min-score */
#define ISA_W_SIMD 2      /* per SSE3+/AVX2/AVX-512 operation added */
#define ISA_W_SHIFTX 1    /* per sarx/shlx/shrx/rorx added */
#define ISA_W_WIDE 1      /* per instruction on registers wider than the build's widest */

/* The default of `patch --min-score`: one call removed, or as much in
 * replaced instructions. */
#define ISA_MIN_SCORE_DEFAULT 8

/* Compares one function's build and target profiles: the score (0: no
 * evidence) and, when above 0, the evidence ("popcnt replaces
 * __popcountdi2; 12 FMA; ymm (build: xmm)"; caller frees), else NULL.
 * When above 0 and dropped is not NULL, the library calls the target's
 * code no longer makes (__popcountdi2, floorf, ...) are appended to it,
 * each once: the data the evidence's "X replaces a, b" parts are rendered
 * from, stored as functions.dropped_calls for select (libcalls.h). */
int isa_compare(const struct func_isa *build, const struct func_isa *target, char **evidence,
                struct strvec *dropped);
/* The part of that score FMA makes (fma() calls removed, FMA instructions
 * added): what FMA-free clones (`patch --exact`) do not get. */
int isa_fma_score(const struct func_isa *build, const struct func_isa *target);
/* The part of that score operations only AVX-512 has make (vcvtusi2sd,
 * vpternlog, ...: elf/funcisa.h simd_avx512). */
int isa_avx512_score(const struct func_isa *build, const struct func_isa *target);
/* isa_fma_score + isa_avx512_score: the part of the score that `patch
 * --exact`'s FMA-free avx2 clones cannot get (stored as fma_score). */
int isa_exact_loss(const struct func_isa *build, const struct func_isa *target);

struct isa_function {
    char *name;          /* folded function name (elf/funcisa.h) */
    char *host;          /* NULL; for isa_result.inl the function whose build
                          * code holds name's inlined (elf/funcisa.h shares) */
    int score;
    int fma_score;       /* isa_exact_loss: what --exact's avx2 clones cannot get */
    char *evidence;
    struct strvec dropped;   /* isa_compare's dropped calls */
};

struct isa_result {
    struct isa_function *v;   /* functions of both codes with score > 0 */
    size_t n;
    /* Callees with no code of their own in the build, inlined into host
     * there, whose share of host's code scores > 0: the target's share
     * (or, where the target kept the callee out of line, its own code)
     * against the build's share (none: an empty profile; a build without
     * inline frames, no -g: what the share holds beyond its host's whole
     * gain, isa.c host_gain_share). */
    struct isa_function *inl;
    size_t ninl;
    struct strvec notes;      /* tu_notes 'isa-unmatched' details for the compile */
};

/* One compile: the target probe's stored profiles against the build's
 * (stored for the scan's own compile, else read from compiles.output).
 * Nothing to compare (no probe profiles) is no note; a build object that
 * cannot be read, and target functions with evidence that have no
 * counterpart in the build's code (inlined there, or renamed), are notes. */
void isa_compare_compile(struct store *st, const struct compile_row *c, struct isa_result *out);
void isa_result_free(struct isa_result *r);


#endif
