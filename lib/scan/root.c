/* root.c - see root.h. */
#include "scan/root.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/spawn.h"
#include "util/util.h"

char *scan_root_guess(int *from_git)
{
    char *argv[] = {"git", "rev-parse", "--show-toplevel", NULL};
    struct run_opts o = {.capture_stdout = 1, .null_stderr = 1};
    struct run_result r;
    char *root = NULL;
    if (run_argv(argv, &o, &r) == 0 && r.out && r.out[0] == '/') root = xstrndup(r.out, strcspn(r.out, "\n"));
    run_result_free(&r);
    *from_git = root != NULL;
    return root ? root : get_cwd();
}

/* The value of the first line of file dir/name that starts with key
 * (e.g. "CMAKE_HOME_DIRECTORY:INTERNAL=", "abs_top_srcdir = "), when it is
 * an absolute path; NULL otherwise. */
static char *line_value(const char *dir, const char *name, const char *key)
{
    char *path = path_join(dir, name);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f) return NULL;
    char *line = NULL, *out = NULL;
    size_t cap = 0, klen = strlen(key);
    while (!out && getline(&line, &cap, f) > 0) {
        if (strncmp(line, key, klen) != 0) continue;
        const char *v = line + klen;
        size_t n = strcspn(v, "\r\n");
        while (n > 1 && v[n - 1] == ' ') n--;
        if (v[0] == '/') out = xstrndup(v, n);
        break;
    }
    free(line);
    fclose(f);
    return out;
}

static char *meson_source(const char *builddir)
{
    char *path = path_join(builddir, "meson-info/meson-info.json");
    json_error_t e;
    json_t *j = file_exists(path) ? json_load_file(path, 0, &e) : NULL;
    free(path);
    const char *src = json_string_value(json_object_get(json_object_get(j, "directories"), "source"));
    char *out = src && src[0] == '/' ? xstrdup(src) : NULL;
    json_decref(j);
    return out;
}

char *scan_root_of_build(const char *builddir)
{
    char *top = line_value(builddir, "CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=");
    if (!top) top = line_value(builddir, "Makefile", "abs_top_srcdir = ");
    if (!top) top = meson_source(builddir);
    if (!top) return NULL;
    char *norm = path_absolute(top, NULL);
    free(top);
    return norm;
}

size_t scan_root_check(struct store *st, const char *root)
{
    size_t n = 0, outside = 0;
    struct compile_row *rows = store_list_compiles(st, &n);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].source) continue;
        char *src = path_absolute(rows[i].source, rows[i].directory);
        char *rel = path_relative_to(src, root);
        if (!rel && !outside++)
            fmv_warn("%s: outside the project root %s: a patch cannot name it (scan --root DIR names the "
                     "project's root)", src, root);
        free(rel);
        free(src);
    }
    compile_rows_free(rows, n);
    return outside;
}
