/* test_probe_helpers.h - helpers shared by test_compdb.c and test_probe.c:
 * a scratch copy of a fixture project, a `find` snapshot of a tree (to prove
 * the probe left the user's tree alone), stderr capture (to check that an
 * error is exactly one line naming the file), and small store queries.
 * Header-only because each unit test is its own program. */
#ifndef TEST_PROBE_HELPERS_H
#define TEST_PROBE_HELPERS_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"

/* cp -a FIXTURES_DIR/name into dir/name; returns that path. */
static inline char *copy_fixture_to(const char *name, const char *dir)
{
    char *src = xasprintf("%s/%s/.", FIXTURES_DIR, name);
    char *dst = path_join(dir, name);
    mkdir_p(dst, 0755);
    char *argv[] = {"cp", "-a", src, dst, NULL};
    struct run_opts o = {.null_stdout = 1};
    if (run_argv(argv, &o, NULL) != 0) {
        fprintf(stderr, "cannot copy fixture %s\n", src);
        abort();
    }
    free(src);
    return dst;
}

static inline int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every path under dir with its size, mtime and mode, sorted: equal
 * snapshots mean nothing was created, removed or rewritten. */
static inline char *tree_snapshot(const char *dir)
{
    char *argv[] = {"find", (char *)dir, "-printf", "%P\t%s\t%T@\t%m\n", NULL};
    struct run_opts o = {.capture_stdout = 1};
    struct run_result r;
    if (run_argv(argv, &o, &r) != 0) abort();
    struct strvec lines = STRVEC_INIT;
    char *save = NULL;
    for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) sv_push(&lines, l);
    run_result_free(&r);
    qsort(lines.v, lines.n, sizeof *lines.v, cmp_lines);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < lines.n; i++) sb_addf(&sb, "%s\n", lines.v[i]);
    sv_free(&lines);
    return sb_detach(&sb);
}

/* stderr into a temp file between begin and end; end returns the text. */
struct stderr_capture {
    int saved;
    FILE *f;
};
static inline void stderr_capture_begin(struct stderr_capture *c)
{
    fflush(stderr);
    c->f = tmpfile();
    c->saved = dup(2);
    dup2(fileno(c->f), 2);
}
static inline char *stderr_capture_end(struct stderr_capture *c)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    rewind(c->f);
    while ((n = fread(buf, 1, sizeof buf, c->f)) > 0) sb_add(&sb, buf, n);
    fclose(c->f);
    return sb_detach(&sb);
}
static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* First column of the first row of a query with one optional text and one
 * optional integer parameter (bound in that order when given). */
static inline long long query_int(struct store *st, const char *sql, const char *text)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) != SQLITE_OK) {
        fprintf(stderr, "bad test SQL: %s\n", sql);
        abort();
    }
    if (text) sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
    long long v = -1;
    if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

static inline int have_program(const char *name)
{
    char *argv[] = {(char *)name, "--version", NULL};
    struct run_opts o = {.null_stdout = 1, .null_stderr = 1};
    return run_argv(argv, &o, NULL) == 0;
}

#endif
