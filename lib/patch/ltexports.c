/* ltexports.c - see ltexports.h. */
#include "patch/ltexports.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 8

static int is_identifier(const char *s, size_t n)
{
    if (!n || (s[0] >= '0' && s[0] <= '9')) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(c == '_' || c == '$' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

static void read_list(const char *path, struct strvec *out)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) return;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        size_t a = i, b = j;
        while (a < b && (text[a] == ' ' || text[a] == '\t')) a++;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r')) b--;
        if (is_identifier(text + a, b - a)) {
            char *name = xstrndup(text + a, b - a);
            if (!sv_contains(out, name)) sv_push(out, name);
            free(name);
        }
        i = j + 1;
    }
    free(text);
}

static void walk(const char *dir, int objdir, int depth, struct strvec *out)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..")) continue;
        char *child = path_join(dir, n);
        struct stat st;
        if (lstat(child, &st) == 0) {
            size_t len = strlen(n);
            if (S_ISREG(st.st_mode) && objdir && len > 4 && !strcmp(n + len - 4, ".exp")) {
                read_list(child, out);
            } else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH && (n[0] != '.' || !strcmp(n, ".libs"))) {
                walk(child, !strcmp(n, ".libs"), depth + 1, out);
            }
        }
        free(child);
    }
    closedir(d);
}

void patch_libtool_exports(const char *dir, struct strvec *out)
{
    if (dir) walk(dir, 0, 0, out);
}
