/* analyze.h - turns the loop records of the store into the functions table:
 * for every function the compiler vectorized (in the build or in a probe),
 * find its definition with libclang using the TU's own flags, apply the
 * eligibility rules, and store it as 'candidate' or 'excluded' with a reason.
 * Also stores per-candidate notes (SIMD #ifdefs inside the body, ...). */
#ifndef FMVGEN_ANALYZE_H
#define FMVGEN_ANALYZE_H

struct store;

struct analyze_stats {
    int candidates;
    int excluded;
    int unparsable_tus;   /* TUs libclang could not parse (each named on stderr) */
};

/* Replaces the functions rows of every compile. Returns 0, or -1 on a store
 * error; a TU that no longer parses is reported and skipped, not fatal. */
int candidates_analyze(struct store *st, struct analyze_stats *stats);

#endif
