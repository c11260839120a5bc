/* compare.c - see compare.h. */
#include "verify/compare.h"
#include "util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *output_match_name(enum output_match m)
{
    switch (m) {
    case OUTPUT_IDENTICAL: return "identical";
    case OUTPUT_WITHIN_TOLERANCE: return "within-tolerance";
    case OUTPUT_FLOATS_DIFFER: return "floats-differ";
    case OUTPUT_DIFFERENT: return "different";
    case OUTPUT_MISSING: return "missing";
    }
    return "?";
}

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does a number start at s[i]? Not when it continues a word or a number
 * ("x86", "1e5" is one token, "v3"). */
static int number_starts(const char *s, size_t i, size_t len)
{
    if (i > 0 && (is_word_char(s[i - 1]) || s[i - 1] == '.')) return 0;
    size_t k = i;
    if (k < len && (s[k] == '+' || s[k] == '-')) k++;
    if (k < len && s[k] == '.') k++;
    return k < len && isdigit((unsigned char)s[k]);
}

/* Parses the number at s[i]; returns its length, sets *is_float. Hex
 * ("0x1f") is left to strtod like everything else, so both sides agree. */
static size_t parse_number(const char *s, size_t i, double *value, int *is_float)
{
    char *end;
    *value = strtod(s + i, &end);
    size_t n = (size_t)(end - (s + i));
    *is_float = 0;
    for (size_t k = i; k < i + n; k++)
        if (s[k] == '.' || s[k] == 'e' || s[k] == 'E' || s[k] == 'p' || s[k] == 'P') *is_float = 1;
    if (isnan(*value) || isinf(*value)) *is_float = 1;
    return n ? n : 1;
}

/* Plain comparisons rather than libm's fmax/fabs: fmvgen does not link libm
 * for two lines. */
static double magnitude(double x) { return x < 0 ? -x : x; }

static double float_distance(double a, double b)
{
    if (a == b) return 0;
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) return INFINITY;
    double scale = 1.0;
    if (magnitude(a) > scale) scale = magnitude(a);
    if (magnitude(b) > scale) scale = magnitude(b);
    return magnitude(a - b) / scale;
}

/* The line containing s[pos], at most 100 bytes of it. */
static char *line_at(const char *s, size_t len, size_t pos, int *line_no)
{
    size_t start = pos, end = pos;
    int line = 1;
    for (size_t k = 0; k < pos && k < len; k++) line += s[k] == '\n';
    while (start > 0 && s[start - 1] != '\n') start--;
    while (end < len && s[end] != '\n') end++;
    if (line_no) *line_no = line;
    size_t n = end - start;
    if (n > 100) return xasprintf("%.97s...", s + start);
    return xstrndup(s + start, n);
}

void output_compare(const char *ref, size_t ref_len, const char *got, size_t got_len, double tolerance,
                    struct output_diff *d)
{
    memset(d, 0, sizeof *d);
    if (ref_len == got_len && memcmp(ref, got, ref_len) == 0) {
        d->match = OUTPUT_IDENTICAL;
        return;
    }
    size_t i = 0, j = 0;
    int floats_differ = 0, beyond = 0;
    size_t first_i = 0, first_j = 0;
    int have_first = 0, text_differs = 0;
    while (i < ref_len || j < got_len) {
        if (i < ref_len && j < got_len && number_starts(ref, i, ref_len) && number_starts(got, j, got_len)) {
            double a, b;
            int fa, fb;
            size_t na = parse_number(ref, i, &a, &fa);
            size_t nb = parse_number(got, j, &b, &fb);
            int same_text = na == nb && memcmp(ref + i, got + j, na) == 0;
            if (!same_text) {
                if (!(fa || fb)) {
                    /* Integers are counts, sizes, exit codes: never noise. */
                    if (a != b) text_differs = 1;
                } else {
                    double dist = float_distance(a, b);
                    if (dist > 0 || na != nb) {
                        floats_differ = 1;
                        if (dist > d->max_diff) d->max_diff = dist;
                        if (tolerance < 0 || dist > tolerance) beyond = 1;
                    }
                }
                if (!have_first) {
                    have_first = 1;
                    first_i = i;
                    first_j = j;
                }
                if (text_differs) break;
            }
            i += na;
            j += nb;
            continue;
        }
        if (i < ref_len && j < got_len && ref[i] == got[j]) {
            i++;
            j++;
            continue;
        }
        text_differs = 1;
        if (!have_first) {
            have_first = 1;
            first_i = i;
            first_j = j;
        }
        break;
    }
    if (text_differs) d->match = OUTPUT_DIFFERENT;
    else if (floats_differ && beyond) d->match = OUTPUT_FLOATS_DIFFER;
    else d->match = OUTPUT_WITHIN_TOLERANCE;
    if (have_first) {
        d->expected = line_at(ref, ref_len, first_i < ref_len ? first_i : ref_len, &d->line);
        d->actual = line_at(got, got_len, first_j < got_len ? first_j : got_len, NULL);
    }
}

void output_diff_free(struct output_diff *d)
{
    free(d->expected);
    free(d->actual);
    d->expected = d->actual = NULL;
}
