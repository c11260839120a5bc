/* report_mdhtml.c - the Markdown select's writers produce, as HTML
 * (report_write.h): report.html shows report.md's prose through this, so
 * its words are written once. Only what report_md.c writes is understood;
 * anything else is text, escaped. */
#include "select/report_write.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void report_html_text(struct strbuf *sb, const char *s)
{
    report_html_span(sb, s, strlen(s));
}

void report_html_span(struct strbuf *sb, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<') sb_adds(sb, "&lt;");
        else if (s[i] == '>') sb_adds(sb, "&gt;");
        else if (s[i] == '&') sb_adds(sb, "&amp;");
        else if (s[i] == '"') sb_adds(sb, "&quot;");
        else sb_addc(sb, s[i]);
    }
}

/* A '*' opening emphasis: at the start of a word, before a letter or digit
 * (so "a * b" and "operator*" stay text). */
static int opens(const char *s, size_t i, size_t n, size_t width)
{
    return (i == 0 || s[i - 1] == ' ' || s[i - 1] == '(') && i + width < n &&
           isalnum((unsigned char)s[i + width]);
}

/* Where the emphasis opened at i closes (the index of its closing marker),
 * or 0: a marker after a non-space, at the end of a word. */
static size_t closes(const char *s, size_t i, size_t n, const char *marker)
{
    size_t width = strlen(marker);
    for (size_t j = i + width + 1; j + width <= n; j++) {
        if (strncmp(s + j, marker, width) != 0 || s[j - 1] == ' ') continue;
        char after = j + width < n ? s[j + width] : ' ';
        if (width == 1 && after == '*') continue;
        if (!isalnum((unsigned char)after)) return j;
    }
    return 0;
}

static void inline_span(struct strbuf *sb, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] == '`') {
            const char *end = memchr(s + i + 1, '`', n - i - 1);
            if (end) {
                sb_adds(sb, "<code>");
                report_html_span(sb, s + i + 1, (size_t)(end - s) - i - 1);
                sb_adds(sb, "</code>");
                i = (size_t)(end - s) + 1;
                continue;
            }
        } else if (s[i] == '*') {
            int strong = i + 1 < n && s[i + 1] == '*';
            const char *marker = strong ? "**" : "*";
            size_t width = strong ? 2 : 1, end;
            if (opens(s, i, n, width) && (end = closes(s, i, n, marker)) != 0) {
                sb_adds(sb, strong ? "<strong>" : "<em>");
                inline_span(sb, s + i + width, end - i - width);
                sb_adds(sb, strong ? "</strong>" : "</em>");
                i = end + width;
                continue;
            }
        }
        report_html_span(sb, s + i, 1);
        i++;
    }
}

void report_html_inline(struct strbuf *sb, const char *s)
{
    inline_span(sb, s, strlen(s));
}

void report_html_blocks(struct strbuf *sb, const char *md)
{
    enum { NONE, PARA, LIST } open = NONE;
    static const char *const close[] = {"", "</p>\n", "</ul>\n"};
    const char *line = md;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char *text = xstrndup(line, n);
        int heading = 0;
        while (text[heading] == '#') heading++;
        if (!*text) {
            sb_adds(sb, close[open]);
            open = NONE;
        } else if (heading && heading <= 3 && text[heading] == ' ') {
            sb_adds(sb, close[open]);
            open = NONE;
            sb_addf(sb, "<h%d>", heading);
            report_html_inline(sb, text + heading + 1);
            sb_addf(sb, "</h%d>\n", heading);
        } else if (!strncmp(text, "- ", 2)) {
            if (open != LIST) {
                sb_adds(sb, close[open]);
                sb_adds(sb, "<ul>\n");
                open = LIST;
            }
            sb_adds(sb, "<li>");
            report_html_inline(sb, text + 2);
            sb_adds(sb, "</li>\n");
        } else {
            if (open == LIST) sb_adds(sb, close[open]);
            if (open != PARA) sb_adds(sb, "<p>");
            else sb_adds(sb, "\n");
            open = PARA;
            report_html_inline(sb, text);
        }
        free(text);
        line += n + (nl ? 1 : 0);
    }
    sb_adds(sb, close[open]);
}
