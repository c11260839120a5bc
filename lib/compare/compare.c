/* compare.c - see compare.h. */
#include "compare/compare.h"
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

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* The length of the run of blanks at s[i] (0: none). */
static size_t blank_run(const char *s, size_t i, size_t len)
{
    size_t k = i;
    while (k < len && is_blank(s[k])) k++;
    return k - i;
}

/* Blanks at s[i] (n of them) that pad a number to a column: a number right
 * after them, or right before them ("%12g", od -f, "%-12g"). */
static int padding_run(const char *s, size_t i, size_t n, size_t len)
{
    return number_starts(s, i + n, len) || (i > 0 && isdigit((unsigned char)s[i - 1]));
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
    int have_first = 0, text_differs = 0, padding_differs = 0;
    while (i < ref_len || j < got_len) {
        /* Column padding: a float printed one digit shorter is padded one
         * blank wider ("  -18.284811" vs "   -18.28481"); the blanks are
         * not the difference, the float is. */
        size_t bi = i < ref_len ? blank_run(ref, i, ref_len) : 0, bj = j < got_len ? blank_run(got, j, got_len) : 0;
        if (bi && bj && bi != bj && padding_run(ref, i, bi, ref_len) && padding_run(got, j, bj, got_len)) {
            padding_differs = 1;
            if (!have_first) {
                have_first = 1;
                first_i = i;
                first_j = j;
            }
            i += bi;
            j += bj;
            continue;
        }
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
    /* padding that moved with no float beside it changing is a change of layout */
    if (text_differs || (padding_differs && !floats_differ)) d->match = OUTPUT_DIFFERENT;
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

/* ---- ignored lines and binary data (output_compare_filtered) ---- */

int line_ignore_add(struct line_ignore *ig, const char *pattern)
{
    regex_t re;
    int err = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (err) {
        char why[256];
        regerror(err, &re, why, sizeof why);
        return fmv_error("--ignore-lines: '%s' is not a valid extended regular expression: %s", pattern, why);
    }
    ig->res = xrealloc(ig->res, (ig->n + 1) * sizeof *ig->res);
    ig->patterns = xrealloc(ig->patterns, (ig->n + 1) * sizeof *ig->patterns);
    ig->res[ig->n] = re;
    ig->patterns[ig->n] = xstrdup(pattern);
    ig->n++;
    return 0;
}

void line_ignore_free(struct line_ignore *ig)
{
    for (size_t i = 0; i < ig->n; i++) {
        regfree(&ig->res[i]);
        free(ig->patterns[i]);
    }
    free(ig->res);
    free(ig->patterns);
    memset(ig, 0, sizeof *ig);
}

int output_is_binary(const char *s, size_t len)
{
    return s && memchr(s, '\0', len) != NULL;
}

/* The text without the lines ig matches. map[k] is the original (1-based)
 * number of kept line k+1; map[kept] is the line after the last, so that a
 * difference found at the very end maps too. */
struct filtered {
    struct strbuf text;
    int *map;
    int kept, ignored;
};

static void filter_lines(const struct line_ignore *ig, const char *s, size_t len, struct filtered *f)
{
    struct strbuf line = STRBUF_INIT;
    memset(f, 0, sizeof *f);
    int line_no = 0;
    size_t start = 0;
    while (start < len) {
        const char *nl = memchr(s + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - s) : len;
        line_no++;
        sb_reset(&line);
        sb_add(&line, s + start, end - start);
        int drop = 0;
        for (size_t i = 0; i < ig->n && !drop; i++) drop = regexec(&ig->res[i], sb_str(&line), 0, NULL, 0) == 0;
        if (drop) {
            f->ignored++;
        } else {
            sb_add(&f->text, s + start, (nl ? end + 1 : end) - start);
            f->map = xrealloc(f->map, (size_t)(f->kept + 2) * sizeof *f->map);
            f->map[f->kept++] = line_no;
        }
        start = nl ? end + 1 : len;
    }
    f->map = xrealloc(f->map, (size_t)(f->kept + 1) * sizeof *f->map);
    f->map[f->kept] = line_no + 1;
    sb_add(&f->text, "", 0);   /* NUL-terminated even when empty */
    sb_free(&line);
}

int line_ignore_count(const struct line_ignore *ig, const char *buf, size_t len)
{
    if (!ig || !ig->n || !buf || output_is_binary(buf, len)) return 0;
    struct filtered f;
    filter_lines(ig, buf, len, &f);
    int n = f.ignored;
    sb_free(&f.text);
    free(f.map);
    return n;
}

void output_compare_filtered(const char *ref, size_t ref_len, const char *got, size_t got_len, double tolerance,
                             const struct line_ignore *ig, struct output_diff *d)
{
    if (output_is_binary(ref, ref_len) || output_is_binary(got, got_len)) {
        /* Numbers and lines mean nothing in binary data: equal or not. */
        memset(d, 0, sizeof *d);
        d->binary = 1;
        size_t n = ref_len < got_len ? ref_len : got_len, k = 0;
        while (k < n && ref[k] == got[k]) k++;
        d->match = k == n && ref_len == got_len ? OUTPUT_IDENTICAL : OUTPUT_DIFFERENT;
        if (d->match == OUTPUT_DIFFERENT) d->byte = k;
        return;
    }
    if (!ig || !ig->n) {
        output_compare(ref, ref_len, got, got_len, tolerance, d);
        return;
    }
    struct filtered fr, fg;
    filter_lines(ig, ref, ref_len, &fr);
    filter_lines(ig, got, got_len, &fg);
    output_compare(sb_str(&fr.text), fr.text.len, sb_str(&fg.text), fg.text.len, tolerance, d);
    d->ignored = fg.ignored;
    /* Line numbers of the output as the program wrote it. */
    if (d->line > 0) d->line = d->line <= fr.kept + 1 ? fr.map[d->line - 1] : fr.map[fr.kept] + (d->line - fr.kept - 1);
    sb_free(&fr.text);
    sb_free(&fg.text);
    free(fr.map);
    free(fg.map);
}
