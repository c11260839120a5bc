/* ltwrapper.c - see ltwrapper.h. */
#include "verify/ltwrapper.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* The script's line that starts (after blanks) with key, or NULL; *len gets
 * the rest of the line's length from the returned pointer (key included). */
static const char *find_line(const char *text, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *p = line;
        while (p < line + n && (*p == ' ' || *p == '\t')) p++;
        if ((size_t)(line + n - p) >= klen && !strncmp(p, key, klen)) {
            *len = (size_t)(line + n - p);
            while (*len && (p[*len - 1] == ' ' || p[*len - 1] == '\t' || p[*len - 1] == '\r')) (*len)--;
            return p;
        }
        line += n + (end ? 1 : 0);
    }
    return NULL;
}

/* One shell word made of unquoted, '...' and "..." parts (no expansion
 * allowed): program=lt-'NAME'. NULL when it holds a $ or ` or is not closed. */
static char *shell_word(const char *s, size_t len)
{
    struct strbuf sb = STRBUF_INIT;
    const char *end = s + len;
    while (s < end) {
        if (*s == '\'') {
            const char *q = memchr(s + 1, '\'', (size_t)(end - s - 1));
            if (!q) goto bad;
            sb_add(&sb, s + 1, (size_t)(q - s - 1));
            s = q + 1;
        } else if (*s == '"') {
            for (s++; s < end && *s != '"'; s++) {
                if (*s == '$' || *s == '`') goto bad;
                if (*s == '\\' && s + 1 < end && strchr("\\\"$`", s[1])) s++;
                sb_add(&sb, s, 1);
            }
            if (s == end) goto bad;
            s++;
        } else if (*s == '$' || *s == '`' || *s == ' ' || *s == '\t' || *s == ';') {
            goto bad;
        } else {
            sb_add(&sb, s, 1);
            s++;
        }
    }
    return sb_detach(&sb);
bad:
    sb_free(&sb);
    return NULL;
}

/* KEY="...SUFFIX" (the quoted text before SUFFIX, unescaped; no other
 * expansion allowed), or NULL. */
static char *quoted_before(const char *line, size_t len, const char *key, const char *suffix)
{
    size_t klen = strlen(key), slen = strlen(suffix);
    if (len < klen + slen + 1 || strncmp(line, key, klen) != 0 || line[len - 1] != '"') return NULL;
    const char *s = line + klen, *end = line + len - 1 - slen;
    if (end < s || strncmp(end, suffix, slen) != 0) return NULL;
    struct strbuf sb = STRBUF_INIT;
    for (; s < end; s++) {
        if (*s == '$' || *s == '`' || *s == '"') {
            sb_free(&sb);
            return NULL;
        }
        if (*s == '\\' && s + 1 < end && strchr("\\\"$`", s[1])) s++;
        sb_add(&sb, s, 1);
    }
    return sb_detach(&sb);
}

int ltwrapper_read(const char *path, struct ltwrapper *w)
{
    memset(w, 0, sizeof *w);
    size_t len;
    char *text = read_file(path, &len);
    if (!text || len < 2 || strncmp(text, "#!", 2) != 0 || memchr(text, '\0', len)) {
        free(text);
        return 0;
    }
    /* The header is in the first lines; the rest of a large script is not looked at. */
    char *head = xstrndup(text, len < 1024 ? len : 1024);
    int is_wrapper = strstr(head, "temporary wrapper script for") && strstr(head, "libtool");
    free(head);
    if (!is_wrapper) {
        free(text);
        return 0;
    }
    int rc = -1;
    char *name = NULL, *dir = NULL, *real = NULL, *here = NULL;
    size_t n;
    const char *line = find_line(text, "program=", &n);
    if (!line || !(name = shell_word(line + 8, n - 8)) || !*name || strchr(name, '/')) {
        fmv_error("%s: a libtool wrapper script without a readable program='NAME' line", path);
        goto out;
    }
    line = find_line(text, "progdir=", &n);
    if (!line || !(dir = quoted_before(line, n, "progdir=\"$thisdir/", "")) || !*dir) {
        fmv_error("%s: a libtool wrapper script without a readable progdir=\"$thisdir/DIR\" line", path);
        goto out;
    }
    char *resolved = realpath(path, NULL);
    here = path_dirname(resolved ? resolved : path);
    free(resolved);
    char *progdir = path_join(here, dir);
    real = path_join(progdir, name);
    free(progdir);
    if (!file_exists(real)) {
        if (str_starts_with(name, "lt-"))
            fmv_error("%s: a libtool wrapper script whose program %s is not built yet: the script relinks it at "
                      "its first run (run it once), or give verify the program itself", path, real);
        else
            fmv_error("%s: a libtool wrapper script whose program %s does not exist", path, real);
        goto out;
    }
    line = find_line(text, "LD_LIBRARY_PATH=\"", &n);
    char *dirs = NULL;
    if (line) {
        dirs = quoted_before(line, n, "LD_LIBRARY_PATH=\"", ":$LD_LIBRARY_PATH");
        if (!dirs) dirs = quoted_before(line, n, "LD_LIBRARY_PATH=\"", "$LD_LIBRARY_PATH");
        if (!dirs) {
            fmv_error("%s: a libtool wrapper script whose LD_LIBRARY_PATH line cannot be read: %.*s", path, (int)n,
                      line);
            goto out;
        }
    }
    w->program = real;
    real = NULL;
    w->library_path = dirs ? dirs : xstrdup("");
    rc = 1;
out:
    free(name);
    free(dir);
    free(real);
    free(here);
    free(text);
    return rc;
}

void ltwrapper_free(struct ltwrapper *w)
{
    free(w->program);
    free(w->library_path);
    memset(w, 0, sizeof *w);
}

char *ltwrapper_run_library_path(const struct ltwrapper *w, const char *inherited)
{
    const char *mine = w->library_path ? w->library_path : "";
    if (!inherited || !*inherited) return xstrdup(mine);
    if (!*mine) return xstrdup(inherited);
    return xasprintf("%s:%s", mine, inherited);
}
