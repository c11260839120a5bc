/* threshold.h - which candidates `fmvgen patch` leaves out without
 * measurements: an isa-kind candidate (candidates/isa.h) whose score is
 * below the threshold (`patch --min-score N`, default
 * ISA_MIN_SCORE_DEFAULT: one library call removed, or as much in replaced
 * instructions), and, whatever its score, an isa-kind candidate the build
 * inlined into an excluded host (its "inlined-into" note,
 * candidates/analyze_isainl.c): out of line, its clones lose what inlining
 * gave (a kernel inlined into main sees its array sizes as constants;
 * measured: 0.60x), which no static score can weigh - `--min-score 0`
 * takes it. Loop candidates always pass: the compiler's own records say
 * what changes. `select` measures instead, and takes every candidate. */
#ifndef FMVGEN_PATCH_THRESHOLD_H
#define FMVGEN_PATCH_THRESHOLD_H

struct patch_function;

/* NULL when f is taken; else why not (caller frees): "score below
 * threshold: 4 < 8 (isa: 1 bzhi); --min-score 4 takes it". With exact
 * (FMA-free avx2 targets) the part of the score those clones cannot get
 * (FMA, AVX-512-only operations) does not count: "score without FMA and
 * AVX-512 (--exact) below threshold: 0 < 8 (isa: 13 FMA)", "inlined
 * into main in the build: ... left to select, which measures it;
 * --min-score 0 takes it". */
char *patch_below_threshold(const struct patch_function *f, int min_score, int exact);

#endif
