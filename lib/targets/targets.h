/* targets.h - target_clones targets: parsing --targets, the defaults, the
 * FMA-free --exact set, the compiler flags equal to a target (for probes and
 * test builds), how each compiler version must spell a target so that its
 * resolver dispatches correctly, and validating a set by test-compiling a
 * one-function file with the chosen compiler before anything is written. */
#ifndef FMVGEN_TARGETS_H
#define FMVGEN_TARGETS_H

#include "util/util.h"

/* Default targets (besides "default"): the psABI levels. */
#define TARGETS_DEFAULT "arch=x86-64-v3,arch=x86-64-v4"
/* FMA-free targets for --exact: every clone computes bit-identical floats. */
#define TARGETS_EXACT "avx2"

/* Splits "a,b,c" into out (without "default", which is always implied and
 * dropped if given). Returns 0, or -1 after printing a one-line error naming
 * the unknown target. */
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

#endif
