/* workload_output.h - which part of a workload's stdout `fmvgen select`
 * compares between the baseline and a variant, so that a variant is
 * judged correct before it is timed. A benchmark often prints its own timings ("lz4 -b", tjbench:
 * MB/s), which differ from run to run whatever the build: compared byte for
 * byte, every variant would look wrong. So the baseline runs each workload
 * twice, and
 *   - both runs print the same: the whole output is compared;
 *   - some lines differ between them (same number of lines): those lines are
 *     masked - blanked in both texts - and every other line must still match
 *     (the comparison is compare/compare.h's, tolerance and all);
 *   - even the number of lines differs: the output is not compared.
 * The caller says which in the report; the remedy for the user is a checksum
 * of the real output on stdout, or --test. */
#ifndef FMVGEN_SELECT_WORKLOAD_OUTPUT_H
#define FMVGEN_SELECT_WORKLOAD_OUTPUT_H

#include <stddef.h>

#include "compare/compare.h"

enum workload_output_mode {
    WORKLOAD_OUTPUT_ALL,            /* the baseline printed the same twice */
    WORKLOAD_OUTPUT_MASKED,         /* the lines that varied are ignored */
    WORKLOAD_OUTPUT_NOT_COMPARED,   /* the baseline's two outputs do not line up */
};

struct workload_output {
    enum workload_output_mode mode;
    char *reference;          /* the baseline's first output */
    unsigned char *masked;    /* [line, 0-based]: varied between the baseline's runs */
    size_t n_lines;           /* lines of the reference (a last line without '\n' counts) */
    size_t n_masked;
    int first_masked;         /* 1-based line number of the first masked line, 0 if none */
};

/* Learns what to compare from the baseline's two outputs (NUL-terminated). */
void workload_output_learn(struct workload_output *o, const char *first, const char *second);

/* Compares got (NUL-terminated at got[got_len]) with the reference, the
 * masked lines blanked on both sides. In WORKLOAD_OUTPUT_NOT_COMPARED mode
 * d->match is OUTPUT_IDENTICAL and nothing is compared. Free d with
 * output_diff_free. */
void workload_output_compare(const struct workload_output *o, const char *got, size_t got_len, double tolerance,
                             struct output_diff *d);

void workload_output_free(struct workload_output *o);

#endif
