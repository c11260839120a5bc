/* diff.c - see diff.h. The old text is cut into lines (each keeping its own
 * "\n" or "\r\n"); an insertion becomes "+" lines before the old line it
 * precedes, and hunks are grown around the insertion points. */
#include "patch/diff.h"

#include <stdlib.h>
#include <string.h>

int diff_is_line_start(const char *text, size_t len, size_t offset)
{
    if (offset == 0) return 1;
    if (offset > len) return 0;
    return text[offset - 1] == '\n';
}

char *diff_apply_insertions(const char *old, size_t old_len, const struct insertion *ins, size_t n,
                            size_t *new_len)
{
    struct strbuf sb = STRBUF_INIT;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        sb_add(&sb, old + pos, ins[i].offset - pos);
        sb_adds(&sb, ins[i].text);
        pos = ins[i].offset;
    }
    sb_add(&sb, old + pos, old_len - pos);
    *new_len = sb.len;
    return sb_detach(&sb);
}

struct line {
    const char *start;
    size_t len;          /* including its newline, if any */
};

/* Cuts text into lines; a final line without newline counts too. */
static struct line *split_lines(const char *text, size_t len, size_t *count)
{
    size_t cap = 64, n = 0;
    struct line *lines = xmalloc(cap * sizeof *lines);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        if (n == cap) lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
        lines[n].start = text + pos;
        lines[n].len = end - pos;
        n++;
        pos = end;
    }
    *count = n;
    return lines;
}

/* Index of the line that starts at offset (n_lines for the end). */
static size_t line_index(const struct line *lines, size_t n_lines, const char *text, size_t offset)
{
    size_t lo = 0, hi = n_lines;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((size_t)(lines[mid].start - text) < offset) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (*s == '\n') n++;
    return n;
}

/* One diff line: prefix, the bytes of the line, and the marker when the
 * line has no newline (the old file's last line, and the new file's when
 * text inserted at that end leaves it without one). */
static void emit(struct strbuf *out, char prefix, const char *start, size_t len)
{
    sb_addc(out, prefix);
    sb_add(out, start, len);
    if (len == 0 || start[len - 1] != '\n') sb_adds(out, "\n\\ No newline at end of file\n");
}

static void emit_inserted(struct strbuf *out, const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) + 1 : strlen(text);
        emit(out, '+', text, len);
        text += len;
    }
}

/* "@@ -start,count" uses the line before an empty range, as diff does. */
static void range(struct strbuf *out, char sign, size_t first, size_t count)
{
    sb_addf(out, "%c%zu,%zu", sign, count ? first + 1 : first, count);
}

void diff_write_insertions(struct strbuf *out, const char *rel, const char *old, size_t old_len,
                           const struct insertion *ins, size_t n, int context)
{
    if (n == 0) return;
    size_t n_lines;
    struct line *lines = split_lines(old, old_len, &n_lines);
    size_t *at = xmalloc(n * sizeof *at);
    for (size_t i = 0; i < n; i++) at[i] = line_index(lines, n_lines, old, ins[i].offset);

    /* GNU patch and git take the name up to a tab; a tab after a name with
     * spaces keeps it whole (as diff's timestamp column would). */
    const char *tab = strchr(rel, ' ') ? "\t" : "";
    sb_addf(out, "--- a/%s%s\n+++ b/%s%s\n", rel, tab, rel, tab);

    size_t added_before = 0;   /* lines inserted by earlier hunks */
    size_t i = 0;
    while (i < n) {
        /* Insertions i..j-1 share a hunk while the old lines between two
         * of them do not exceed twice the context. */
        size_t j = i + 1;
        while (j < n && at[j] - at[j - 1] <= (size_t)(2 * context)) j++;
        size_t first = at[i] > (size_t)context ? at[i] - (size_t)context : 0;
        size_t last = at[j - 1] + (size_t)context;   /* exclusive */
        if (last > n_lines) last = n_lines;
        size_t added = 0;
        for (size_t k = i; k < j; k++) added += count_lines(ins[k].text);
        /* Text inserted at the end of a file whose last line has no
         * newline: that line is replaced by itself followed by the text
         * ('-' it with the marker, '+' it joined with the text). */
        struct strbuf joined = STRBUF_INIT;
        int join_last = n_lines && last == n_lines && at[j - 1] == n_lines &&
                        lines[n_lines - 1].start[lines[n_lines - 1].len - 1] != '\n';
        if (join_last) {
            sb_add(&joined, lines[n_lines - 1].start, lines[n_lines - 1].len);
            for (size_t k = i; k < j; k++)
                if (at[k] == n_lines) sb_adds(&joined, ins[k].text);
            /* the new side: the old last line became count_lines(joined)
             * lines (one more when it still ends without a newline) */
            size_t now = count_lines(sb_str(&joined)) + (joined.len && joined.buf[joined.len - 1] != '\n');
            size_t was_added = 0;
            for (size_t k = i; k < j; k++)
                if (at[k] == n_lines) was_added += count_lines(ins[k].text);
            added = added - was_added + now - 1;
        }
        size_t old_count = last - first;
        sb_adds(out, "@@ ");
        range(out, '-', first, old_count);
        sb_addc(out, ' ');
        range(out, '+', first + added_before, old_count + added);
        sb_adds(out, " @@\n");
        size_t k = i;
        for (size_t l = first; l <= last; l++) {
            if (join_last && l == n_lines - 1) {
                while (k < j && at[k] == l) emit_inserted(out, ins[k++].text);
                emit(out, '-', lines[l].start, lines[l].len);
                emit_inserted(out, sb_str(&joined));
                break;
            }
            while (k < j && at[k] == l) emit_inserted(out, ins[k++].text);
            if (l < last) emit(out, ' ', lines[l].start, lines[l].len);
        }
        sb_free(&joined);
        added_before += added;
        i = j;
    }
    free(at);
    free(lines);
}
