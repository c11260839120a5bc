/* shuffle.h - a seeded, reproducible order for interleaved measurements.
 * Measuring arms (builds) in the same order every round lets whatever
 * favours a position (a warm cache, a CPU clock ramping up, the arm after
 * the one that heated the core) pass for a difference between the arms;
 * a fresh random order each round turns it into noise the intervals cover.
 * The order depends only on (seed, round, n), so a run can be repeated
 * with the seed its report printed. */
#ifndef FMVGEN_UTIL_SHUFFLE_H
#define FMVGEN_UTIL_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

/* order[0..n-1] = a permutation of 0..n-1, the one of round `round` under
 * seed (Fisher-Yates driven by splitmix64). */
void shuffle_round_order(uint64_t seed, size_t round, size_t n, size_t *order);

/* A seed from the system's entropy (getrandom, else time and pid), kept
 * below 2^53 so it survives a JSON number. */
uint64_t shuffle_new_seed(void);

#endif
