/* compare.h - does a run's output (stdout, or a file it wrote) match the
 * reference run's? A service below the two stages that ask: verify (each
 * CPU's run against the native one) and select (a variant's workload
 * output against the baseline's, select/workload_output.h). Byte for byte first; when not, the text is walked as
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
 * (relative for large values, absolute below 1). Blanks that pad a number
 * to a column (right before or after it) may differ in number where a float
 * printed shorter or longer moved them ("%12g", od -f); when no float
 * differs, such a change is a text difference.
 *
 * fmvgen verify compares through output_compare_filtered, which adds two
 * rules on top:
 *  - binary data: output that contains a NUL byte (on either side) is not
 *    text; it must be identical, and a difference is reported as the first
 *    differing byte offset (0-based, as in a hex dump) instead of a line;
 *  - ignored lines (--ignore-lines): text lines matching any of a list of
 *    POSIX extended regexes (a match anywhere in the line, without its '\n')
 *    are left out on both sides before comparing, so that a program printing
 *    its own timings ("21 tests ran. (4110 ms total)") can be verified. Line
 *    numbers in the result are still those of the unfiltered output. */
#ifndef FMVGEN_COMPARE_H
#define FMVGEN_COMPARE_H

#include <regex.h>
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
    int binary;            /* output_compare_filtered: the data has a NUL byte */
    size_t byte;           /* binary and different: first differing offset (0-based) */
    int ignored;           /* lines of this run's output left out (struct line_ignore) */
};

/* The --ignore-lines patterns, compiled. */
struct line_ignore {
    regex_t *res;
    char **patterns;
    size_t n;
};
/* Compiles PATTERN (REG_EXTENDED); -1 after one error line naming it. */
int line_ignore_add(struct line_ignore *ig, const char *pattern);
void line_ignore_free(struct line_ignore *ig);
/* How many lines of buf ig leaves out (0 for binary data or ig NULL/empty). */
int line_ignore_count(const struct line_ignore *ig, const char *buf, size_t len);

/* tolerance < 0: no tolerance (floats differing at all are FLOATS_DIFFER).
 * Both buffers must be NUL-terminated at [len] (read_file and spawn capture
 * are). */
void output_compare(const char *ref, size_t ref_len, const char *got, size_t got_len, double tolerance,
                    struct output_diff *d);
/* The binary rule: data (not NULL) containing a NUL byte. */
int output_is_binary(const char *s, size_t len);

/* output_compare with the binary rule and ignored lines (ig may be NULL). */
void output_compare_filtered(const char *ref, size_t ref_len, const char *got, size_t got_len, double tolerance,
                             const struct line_ignore *ig, struct output_diff *d);
void output_diff_free(struct output_diff *d);

/* "identical", "within-tolerance", "floats-differ", "different", "missing". */
const char *output_match_name(enum output_match m);

#endif
