/* targets.h - target_clones targets: parsing --targets, the defaults, the
 * FMA-free --exact set, the compiler flags equal to a target (for probes and
 * test builds), how each compiler version must spell a target so that its
 * resolver dispatches correctly, and validating a set by test-compiling a
 * one-function file with the chosen compiler before anything is written.
 *
 * The rules the tables follow (why: docs/FINDINGS.md, "Targets"):
 *   - "arch=x86-64-v3"/"arch=x86-64-v4" only for gcc >= 11 and clang >= 19;
 *     older compilers get feature names ("avx2", "avx512f"), which every
 *     resolver dispatches correctly;
 *   - "arch=CPU" clones (arch=haswell, ...) are accepted, with a warning:
 *     resolvers choose them by CPU model, not by features;
 *   - the FMA-free (bit-exact) set holds avx2 and below, never avx512* or
 *     the x86-64-v3/v4 levels, which let the compilers contract a*b+c. */
#ifndef FMVGEN_TARGETS_H
#define FMVGEN_TARGETS_H

#include "util/util.h"

/* Default targets (besides "default"): the psABI levels. */
#define TARGETS_DEFAULT "arch=x86-64-v3,arch=x86-64-v4"
/* FMA-free targets for --exact: every clone computes bit-identical floats. */
#define TARGETS_EXACT "avx2"

/* The preprocessor condition (for the patch's preamble) that is true for
 * exactly the compilers targets_spell() gives feature names: clang < 19 and
 * gcc < 11 (which has no x86-64-vN levels). Kept next to targets_spell so
 * the two cannot drift apart. */
#define TARGETS_FEATURE_SPELLING_CONDITION \
    "(defined(__clang__) && __clang_major__ < 19) || (!defined(__clang__) && __GNUC__ < 11)"

/* Splits "a,b,c" into out (without "default", which is always implied and
 * dropped if given; duplicates dropped). Returns 0, or -1 after printing a
 * one-line error naming the unknown target. */
int targets_parse(const char *spec, struct strvec *out);

/* Appends to flags the command-line options that compile for target, e.g.
 * "arch=x86-64-v4" -> "-march=x86-64-v4", "avx2" -> "-mavx2". Returns -1 for
 * an unknown target. */
int target_compile_flags(const char *target, struct strvec *flags);

/* The widest target of a set (the one the probe compiles for). */
const char *targets_widest(const struct strvec *targets);

/* 1 when some clone of the set may contract a*b+c into FMA (changes float
 * results in the last bits). */
int targets_enable_fma(const struct strvec *targets);
int target_enables_fma(const char *target);

/* 1 for "arch=CPU" targets that the resolvers pick by CPU model only. */
int target_is_cpu_model(const char *target);

/* How a compiler ("gcc"/"clang", major version) must spell target so its
 * resolver dispatches it: the psABI levels become feature names for the
 * compilers of TARGETS_FEATURE_SPELLING_CONDITION. Static string. */
const char *target_spell(const char *target, const char *compiler_kind, int major);
/* The whole set spelled for a compiler, duplicates removed, without
 * "default". */
void targets_spell(const struct strvec *targets, const char *compiler_kind, int major, struct strvec *out);

/* Asks compiler what the patch's preamble will see: its predefined
 * __clang__/__clang_major__/__GNUC__ (by preprocessing a probe), so the
 * spelling chosen for it is the branch its #if takes. *kind gets "gcc" or
 * "clang" (static). Returns 0, or -1 after "fmvgen: CC: ..." when it does
 * not run or is neither GCC nor Clang. */
int targets_compiler_macros(const char *compiler, const char **kind, int *major);

/* Test-compiles, for each target, a one-function file carrying
 * target_clones(<spelling for this compiler>, "default") with compiler
 * (path; kind/major as identified). Returns 0, or -1 after a one-line error
 * naming the first target the compiler rejects (and the compiler's reason),
 * or saying the compiler could not run. */
int targets_validate(const struct strvec *targets, const char *compiler, const char *compiler_kind, int major);

#endif
