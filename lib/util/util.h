/* util.h - small helpers every module uses: allocation that never returns
 * NULL, growable strings and string vectors, whole-file I/O, paths, and the
 * one-line error style of the tool ("fmvgen: FILE: what is wrong").
 *
 * Written once here so that no module grows its own copy. */
#ifndef FMVGEN_UTIL_H
#define FMVGEN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Allocation: abort with a message on out-of-memory. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* 1 when s begins with prefix. */
int str_starts_with(const char *s, const char *prefix);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable, always NUL-terminated byte string. */
struct strbuf {
    char *buf;
    size_t len, cap;
};
#define STRBUF_INIT {NULL, 0, 0}
void sb_add(struct strbuf *sb, const char *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_addc(struct strbuf *sb, char c);
const char *sb_str(struct strbuf *sb);      /* "" when empty, never NULL */
char *sb_detach(struct strbuf *sb);          /* caller frees; sb is reset */
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* NULL-terminated vector of owned strings: argv lists and name lists. */
struct strvec {
    char **v;        /* v[n] == NULL */
    size_t n, cap;
};
#define STRVEC_INIT {NULL, 0, 0}
void sv_push(struct strvec *sv, const char *s);           /* copies s */
void sv_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sv_push_all(struct strvec *sv, char *const *argv);   /* copies a NULL-terminated list */
char **sv_argv(struct strvec *sv);                        /* never NULL */
int sv_contains(const struct strvec *sv, const char *s);
void sv_free(struct strvec *sv);
/* Appends v's strings to sb, sep between them. */
void sb_add_joined(struct strbuf *sb, const struct strvec *v, const char *sep);

/* Errors: one line on stderr, "fmvgen: " prefixed. Return -1 for chaining:
 *   return fmv_error("%s: not a JSON file", path); */
int fmv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fmvgen: warning: ...". */
void fmv_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fmvgen: note: ...": information, nothing wrong (e.g. what was skipped). */
void fmv_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Between fmv_say_once_begin and its fmv_say_once_end (they nest), a
 * warning or note whose whole line was said before in the scope is not
 * said again: for a phase that repeats work per build (select plans the
 * patch for every variant). */
void fmv_say_once_begin(void);
void fmv_say_once_end(void);
/* Quiet mode for unit tests that exercise error paths on purpose. */
void fmv_set_quiet(int quiet);
/* While sb is set, fmv_error appends its message (without "fmvgen: ",
 * several joined by "; ") to sb instead of printing it; NULL prints again.
 * Lets a caller fold a callee's error into its own one line that adds the
 * context (e.g. which compile_commands.json entry used that compiler). */
void fmv_error_capture(struct strbuf *sb);
/* Called around each line fmv_error and fmv_warn print on stderr:
 * hook(arg, 1) before, hook(arg, 0) after. Lets a progress bar on the
 * terminal step aside (util/progress.h). NULL removes it. */
void fmv_set_message_hook(void (*hook)(void *arg, int before), void *arg);

/* Files. read_file returns NULL and sets errno on failure; *len optional. */
char *read_file(const char *path, size_t *len);
/* Writes atomically: temp file in the same directory, fsync, rename, so a
 * symbolic link at path is replaced by the file (a tree's copy never
 * writes through a link into the original). A path that exists and is
 * not a regular file (/dev/null, a FIFO) is written in place instead. 0,
 * or -1 with errno. */
int write_file_atomic(const char *path, const char *data, size_t len);
/* write_file_atomic for a file the user named (-o, --report): a symbolic
 * link stays one and the file it names (also a dangling link's target)
 * gets the text. */
int write_output_file(const char *path, const char *data, size_t len);
/* Creates path empty (truncating a file already there), without
 * write_file_atomic's temp file, fsync and rename: for a scratch file a
 * tool writes into next (a compiler's dump file). 0, or -1 with errno. */
int create_empty_file(const char *path);
int file_exists(const char *path);
int is_directory(const char *path);
int mkdir_p(const char *path, unsigned mode);
/* rm -rf, for the tool's own scratch directories only. */
int remove_tree(const char *path);
/* A fresh directory under $TMPDIR (or /tmp), caller frees the string. */
char *make_temp_dir(const char *tag);

/* Paths. */
char *path_join(const char *a, const char *b);
/* Absolute, normalized ("." and ".." removed), without resolving links;
 * relative paths are taken from base (cwd when base is NULL). */
char *path_absolute(const char *path, const char *base);
/* path relative to dir when path is inside dir, else NULL. */
char *path_relative_to(const char *path, const char *dir);
const char *path_basename(const char *path);
char *path_dirname(const char *path);
int path_is_header(const char *path);   /* .h .hh .hpp .hxx .inc ... */
/* The current directory, caller frees. */
char *get_cwd(void);
/* Absolute path of the running executable. */
char *self_exe_path(void);
/* The executable NAME as the shell would find it: NAME itself when it has a
 * '/', else the first executable file NAME in $PATH; NULL when none. */
char *find_in_path(const char *name);
/* The process environment minus the variables named in names (NULL-
 * terminated), appended to out as "NAME=value" entries: the env of a child
 * that must not see them (e.g. GCC's DEPENDENCIES_OUTPUT). */
void env_without(const char *const *names, struct strvec *out);

/* Content fingerprint used to notice a source that changed since the scan. */
char *hash_bytes_hex(const char *data, size_t len);
char *hash_file_hex(const char *path);   /* NULL if unreadable */

/* JSON-ish quoting for the human tables and for argv dumps. */
char *shell_quote(const char *s);   /* for display only, never executed */

#endif
