/* test_records_util.h - helpers shared by the records tests
 * (test_records_*.c, test_ingest.c): compile a fixture of
 * tests/fixtures/records with gcc or clang into a temp dir so that it writes
 * optimization records, collect what a reader finds, find a marked line,
 * and capture the error line a reader prints. Included once per program;
 * `static inline` keeps unused helpers silent. */
#ifndef TEST_RECORDS_UTIL_H
#define TEST_RECORDS_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/records.h"
#include "run/spawn.h"
#include "util/util.h"

#define RECORDS_FIXTURES FIXTURES_DIR "/records"

/* Each test gets a scratch directory of its own (cmocka setup/teardown). */
static inline int records_tmp_setup(void **state)
{
    *state = make_temp_dir("test-records");
    return *state ? 0 : -1;
}

static inline int records_tmp_teardown(void **state)
{
    remove_tree(*state);
    free(*state);
    return 0;
}

static inline char *fixture_path(const char *name) { return path_join(RECORDS_FIXTURES, name); }

/* Compiles fixture `src` with gcc -O3 + extra flags (NULL-terminated) in
 * its own directory under tmp; returns the record file GCC wrote there. */
static inline char *gcc_records(const char *tmp, const char *tag, const char *src, const char *const *extra)
{
    char *dir = path_join(tmp, tag);
    assert_int_equal(mkdir_p(dir, 0755), 0);
    char *source = fixture_path(src);
    char *obj = path_join(dir, "out.o");
    char *dumpdir = xasprintf("%s/", dir);
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, strstr(src, ".cpp") ? "g++" : "gcc");
    sv_push(&argv, "-O3");
    for (; extra && *extra; extra++) sv_push(&argv, *extra);
    sv_push(&argv, "-c");
    sv_push(&argv, source);
    sv_push(&argv, "-o");
    sv_push(&argv, obj);
    sv_push(&argv, "-fsave-optimization-record");
    sv_push(&argv, "-dumpdir");
    sv_push(&argv, dumpdir);
    struct run_opts opts = {.capture_stderr = 1};
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    if (rc != 0) fprintf(stderr, "%s", res.err ? res.err : "gcc did not run\n");
    assert_int_equal(rc, 0);
    run_result_free(&res);
    char *found = NULL;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".opt-record.json.gz")) found = path_join(dir, e->d_name);
    closedir(d);
    assert_non_null(found);
    sv_free(&argv);
    free(dir);
    free(source);
    free(obj);
    free(dumpdir);
    return found;
}

/* Compiles fixture `src` with clang-ish compiler cc -O3 + extra flags,
 * records to tmp/tag.yaml (the way the wrapper does it); returns that path. */
static inline char *clang_records(const char *cc, const char *tmp, const char *tag, const char *src,
                                  const char *const *extra)
{
    char *yaml = xasprintf("%s/%s.yaml", tmp, tag);
    char *obj = xasprintf("%s/%s.o", tmp, tag);
    char *source = fixture_path(src);
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, cc);
    sv_push(&argv, "-O3");
    for (; extra && *extra; extra++) sv_push(&argv, *extra);
    sv_pushf(&argv, "-x%s", strstr(src, ".cpp") ? "c++" : "c");
    sv_push(&argv, "-c");
    sv_push(&argv, source);
    sv_push(&argv, "-o");
    sv_push(&argv, obj);
    sv_push(&argv, "-Xclang");
    sv_push(&argv, "-opt-record-file");
    sv_push(&argv, "-Xclang");
    sv_push(&argv, yaml);
    struct run_opts opts = {.capture_stderr = 1};
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    if (rc != 0) fprintf(stderr, "%s", res.err ? res.err : "clang did not run\n");
    assert_int_equal(rc, 0);
    run_result_free(&res);
    sv_free(&argv);
    free(obj);
    free(source);
    return yaml;
}

/* Whether a compiler is on PATH (clang-19 is optional: tests skip without). */
static inline int have_compiler(const char *cc)
{
    char *p = find_in_path(cc);
    free(p);
    return p != NULL;
}

/* The 1-based line of fixture `src` holding "MARK:<mark>". */
static inline int marked_line(const char *src, const char *mark)
{
    char *path = fixture_path(src);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    char *needle = xasprintf("MARK:%s", mark);
    char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (char *p = text; p < at; p++) line += *p == '\n';
    free(needle);
    free(text);
    free(path);
    return line;
}

/* The first record of (function, kind) in l, or NULL. */
static inline const struct loop_record *find_record(const struct record_list *l, const char *function,
                                                    enum loop_kind kind)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct loop_record *r = &l->v[i];
        if (r->kind == kind && ((!function && !r->function) || (function && r->function && !strcmp(function, r->function))))
            return r;
    }
    return NULL;
}

/* How many records name this function (any kind). */
static inline int count_function(const struct record_list *l, const char *function)
{
    int n = 0;
    for (size_t i = 0; i < l->n; i++) n += l->v[i].function && !strcmp(l->v[i].function, function);
    return n;
}

/* Runs read(path) with stderr redirected to a file; returns the reader's
 * result and puts what it printed in *err (caller frees). */
typedef int (*reader_fn)(const char *path, record_fn fn, void *ctx);
static inline int read_capturing_stderr(reader_fn read, const char *path, struct record_list *out, char **err)
{
    char *tmp = make_temp_dir("test-records-stderr");
    char *errfile = path_join(tmp, "stderr");
    fflush(stderr);
    int saved = dup(2);
    int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    int rc = read(path, record_list_add, out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *err = read_file(errfile, NULL);
    assert_non_null(*err);
    remove_tree(tmp);
    free(tmp);
    free(errfile);
    return rc;
}

#endif
