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

size_t patch_marker_at(const char *text, size_t len, size_t offset, size_t *at)
{
    if (!text || offset > len) return 0;
    size_t n = marker_word(text, len, offset, at);
    if (n || offset == 0) return n;
    size_t start = offset - 1;   /* the '\n' ending the previous line */
    while (start > 0 && text[start - 1] != '\n') start--;
    return marker_word(text, offset - 1, start, at);
}
