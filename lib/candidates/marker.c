/* marker.c - see marker.h. */
#include "candidates/marker.h"

#include <string.h>

#define MARKER "FMVGEN_CLONES"

/* The marker word's length at pos (after blanks), or 0. */
static size_t marker_word(const char *text, size_t len, size_t pos, size_t *at)
{
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t')) pos++;
    size_t m = sizeof MARKER - 1;
    if (len - pos < m || strncmp(text + pos, MARKER, m) != 0) return 0;
    size_t end = pos + m;
    while (end < len && (text[end] == '_' || (text[end] >= 'A' && text[end] <= 'Z') ||
                         (text[end] >= '0' && text[end] <= '9')))
        end++;
    /* The whole line: the word, its "(sym)", blanks. A redeclaration line
     * (patch/redecl.h: "FMVGEN_CLONES(f) void f(int);") marks no
     * definition, not even the one below it. */
    size_t rest = end;
    if (rest < len && text[rest] == '(') {
        const char *close = memchr(text + rest, ')', len - rest);
        if (!close) return 0;
        rest = (size_t)(close - text) + 1;
    }
    while (rest < len && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\r')) rest++;
    if (rest < len && text[rest] != '\n') return 0;
    if (at) *at = pos;
    return end - pos;
}

/* The start of the line before the one starting at offset (> 0). */
static size_t line_above(const char *text, size_t offset)
{
    size_t start = offset - 1;   /* the '\n' ending the previous line */
    while (start > 0 && text[start - 1] != '\n') start--;
    return start;
}

size_t patch_marker_at(const char *text, size_t len, size_t offset, size_t *at)
{
    if (!text || offset > len) return 0;
    size_t n = marker_word(text, len, offset, at);
    if (n || offset == 0) return n;
    size_t start = line_above(text, offset);
    n = marker_word(text, offset - 1, start, at);
    if (n || start == 0) return n;
    /* a header function's switched line: the marker, then "#endif" */
    size_t c = start;
    while (c < offset && (text[c] == ' ' || text[c] == '\t')) c++;
    if (offset - c < 6 || strncmp(text + c, "#endif", 6) != 0) return 0;
    size_t above = line_above(text, start);
    return marker_word(text, start - 1, above, at);
}
