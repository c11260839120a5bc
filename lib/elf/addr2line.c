/* addr2line.c - see addr2line.h. */
#include "elf/addr2line.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int is_address_line(const char *s)
{
    if (s[0] != '0' || s[1] != 'x' || !s[2]) return 0;
    for (s += 2; *s; s++)
        if (!strchr("0123456789abcdefABCDEF", *s)) return 0;
    return 1;
}

/* "FILE:LINE (discriminator N)" -> FILE ("" for "??"), *line (0: "?") */
static char *location_file(const char *loc, int *line)
{
    const char *colon = strrchr(loc, ':');
    size_t n = colon ? (size_t)(colon - loc) : strlen(loc);
    if (n == 2 && !strncmp(loc, "??", 2)) n = 0;
    *line = colon ? atoi(colon + 1) : 0;
    if (*line < 0) *line = 0;
    return xstrndup(loc, n);
}

struct chain {
    int open;
    unsigned long long addr;
    int unknown;
    struct strvec names, files;
    int lines[64];   /* the first 64 frames' lines */
};

static void chain_flush(struct chain *c, addr2line_frames_fn fn, void *ctx)
{
    if (c->open) {
        size_t n = c->unknown || !c->files.n || !*c->files.v[0] ? 0 : c->files.n;
        fn(c->addr, c->names.v, c->files.v, c->lines, n, ctx);
    }
    sv_free(&c->names);
    sv_free(&c->files);
    c->open = c->unknown = 0;
}

void addr2line_parse(const char *text, addr2line_frames_fn fn, void *ctx)
{
    struct chain c = {0};
    c.names = (struct strvec)STRVEC_INIT;
    c.files = (struct strvec)STRVEC_INIT;
    int want_name = 1;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        char *l = xstrndup(line, end ? (size_t)(end - line) : strlen(line));
        line = end ? end + 1 : NULL;
        size_t n = strlen(l);
        while (n && (l[n - 1] == '\r' || l[n - 1] == ' ')) l[--n] = 0;
        if (is_address_line(l)) {
            chain_flush(&c, fn, ctx);
            c.open = 1;
            c.addr = strtoull(l + 2, NULL, 16);
            want_name = 1;
        } else if (c.open && n) {
            if (want_name) {
                if (!strcmp(l, "??")) c.unknown = 1;
                sv_push(&c.names, l);
            } else {
                int line;
                char *file = location_file(l, &line);
                if (c.files.n < sizeof c.lines / sizeof *c.lines) c.lines[c.files.n] = line;
                sv_push(&c.files, file);
                free(file);
            }
            want_name = !want_name;
        }
        free(l);
    }
    chain_flush(&c, fn, ctx);
}
