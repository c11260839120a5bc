/* compare.h - does a run's output (stdout, or a file it wrote) match the
 * reference run's? Byte for byte first; when not, the text is walked as
 * numbers and the text between them, so that a result differing only in the
 * last digits of floating-point numbers (FMA contraction in a clone, a
 * different summation order) is told apart from a real difference, and can
 * be accepted within a tolerance.
 *
 * Numbers are tokens that start with a digit, or a sign or '.' followed by
 * a digit, and do not continue a word ("x86", "v3" are text). A token with
 * '.', an exponent, or "inf"/"nan" is floating-point; integers must always be
 * equal. Two floats are within tolerance X when
 *     |a - b| <= X * max(1, |a|, |b|)
 * (relative for large values, absolute below 1). */
#ifndef FMVGEN_VERIFY_COMPARE_H
#define FMVGEN_VERIFY_COMPARE_H

#include <stddef.h>

enum output_match {
    OUTPUT_IDENTICAL,          /* byte for byte */
    OUTPUT_WITHIN_TOLERANCE,   /* only floats differ, each within the tolerance */
    OUTPUT_FLOATS_DIFFER,      /* only floats differ, some beyond the tolerance */
    OUTPUT_DIFFERENT,          /* text or integers differ */
    OUTPUT_MISSING,            /* the run did not produce it (file not written) */
};

struct output_diff {
    enum output_match match;
    double max_diff;       /* largest |a-b| / max(1,|a|,|b|) among differing floats */
    int line;              /* first line that differs (1-based), 0 when none */
    char *expected;        /* that line in the reference (shortened), or NULL */
    char *actual;          /* that line in this run (shortened), or NULL */
};

/* tolerance < 0: no tolerance (floats differing at all are FLOATS_DIFFER).
 * Both buffers must be NUL-terminated at [len] (read_file and spawn capture
 * are). */
void output_compare(const char *ref, size_t ref_len, const char *got, size_t got_len, double tolerance,
                    struct output_diff *d);
void output_diff_free(struct output_diff *d);

/* "identical", "within-tolerance", "floats-differ", "different", "missing". */
const char *output_match_name(enum output_match m);

#endif
