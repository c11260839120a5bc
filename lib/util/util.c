/* util.c - see util.h. Nothing here knows about compilers or FMV. */
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void oom(void)
{
    fputs("fmvgen: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) oom();
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

int str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) oom();
    char *p = xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    return p;
}

/* ---- strbuf ---- */

static void sb_grow(struct strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1) cap *= 2;
    sb->buf = xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void sb_add(struct strbuf *sb, const char *data, size_t n)
{
    sb_grow(sb, n);
    memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = 0;
}

void sb_adds(struct strbuf *sb, const char *s) { sb_add(sb, s, strlen(s)); }
void sb_addc(struct strbuf *sb, char c) { sb_add(sb, &c, 1); }

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    sb_adds(sb, p);
    free(p);
}

const char *sb_str(struct strbuf *sb) { return sb->buf ? sb->buf : ""; }

char *sb_detach(struct strbuf *sb)
{
    char *p = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf) sb->buf[0] = 0;
}

void sb_free(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

/* ---- strvec ---- */

void sv_push(struct strvec *sv, const char *s)
{
    if (sv->n + 2 > sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 8;
        sv->v = xrealloc(sv->v, sv->cap * sizeof *sv->v);
    }
    sv->v[sv->n++] = xstrdup(s);
    sv->v[sv->n] = NULL;
}

void sv_pushf(struct strvec *sv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    sv_push(sv, p);
    free(p);
}

void sb_add_joined(struct strbuf *sb, const struct strvec *v, const char *sep)
{
    for (size_t i = 0; i < v->n; i++) {
        if (i) sb_adds(sb, sep);
        sb_adds(sb, v->v[i]);
    }
}

void sv_push_all(struct strvec *sv, char *const *argv)
{
    for (; argv && *argv; argv++) sv_push(sv, *argv);
}

char **sv_argv(struct strvec *sv)
{
    if (!sv->v) {
        sv->cap = 8;
        sv->v = xcalloc(sv->cap, sizeof *sv->v);
    }
    return sv->v;
}

int sv_contains(const struct strvec *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (!strcmp(sv->v[i], s)) return 1;
    return 0;
}

void sv_free(struct strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++) free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

/* ---- errors ---- */

static int quiet;
void fmv_set_quiet(int q) { quiet = q; }

static struct strbuf *error_capture;
void fmv_error_capture(struct strbuf *sb) { error_capture = sb; }

static void (*message_hook)(void *arg, int before);
static void *message_hook_arg;
void fmv_set_message_hook(void (*hook)(void *arg, int before), void *arg)
{
    message_hook = hook;
    message_hook_arg = arg;
}

/* One line on stderr; a progress bar (the hook) steps aside around it. */
__attribute__((format(printf, 2, 0))) static void emit_message(const char *prefix, const char *fmt, va_list ap)
{
    if (message_hook) message_hook(message_hook_arg, 1);
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (message_hook) message_hook(message_hook_arg, 0);
}

int fmv_error(const char *fmt, ...)
{
    va_list ap;
    if (error_capture) {
        va_start(ap, fmt);
        char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        if (error_capture->len) sb_adds(error_capture, "; ");
        sb_adds(error_capture, msg);
        free(msg);
        return -1;
    }
    if (quiet) return -1;
    va_start(ap, fmt);
    emit_message("fmvgen: ", fmt, ap);
    va_end(ap);
    return -1;
}

/* Inside fmv_say_once_begin/end, the warnings and notes said so far
 * (prefix and text). Guarded: the scan's jobs may warn from their threads. */
static struct strvec said;
static int said_scope;
static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;

void fmv_say_once_begin(void)
{
    pthread_mutex_lock(&said_lock);
    said_scope++;
    pthread_mutex_unlock(&said_lock);
}

void fmv_say_once_end(void)
{
    pthread_mutex_lock(&said_lock);
    if (said_scope > 0 && --said_scope == 0) sv_free(&said);
    pthread_mutex_unlock(&said_lock);
}

static int said_before(const char *line)
{
    pthread_mutex_lock(&said_lock);
    int seen = said_scope > 0 && sv_contains(&said, line);
    if (said_scope > 0 && !seen) sv_push(&said, line);
    pthread_mutex_unlock(&said_lock);
    return seen;
}

__attribute__((format(printf, 2, 0))) static void emit_once(const char *prefix, const char *fmt, va_list ap)
{
    char *msg = xvasprintf(fmt, ap);
    char *line = xasprintf("%s%s", prefix, msg);
    if (!said_before(line)) {
        if (message_hook) message_hook(message_hook_arg, 1);
        fputs(line, stderr);
        fputc('\n', stderr);
        if (message_hook) message_hook(message_hook_arg, 0);
    }
    free(line);
    free(msg);
}

void fmv_warn(const char *fmt, ...)
{
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    emit_once("fmvgen: warning: ", fmt, ap);
    va_end(ap);
}

void fmv_note(const char *fmt, ...)
{
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    emit_once("fmvgen: note: ", fmt, ap);
    va_end(ap);
}

/* ---- files ---- */

char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct strbuf sb = STRBUF_INIT;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            sb_free(&sb);
            errno = e;
            return NULL;
        }
        if (n == 0) break;
        sb_add(&sb, chunk, (size_t)n);
    }
    close(fd);
    if (len) *len = sb.len;
    return sb_detach(&sb);
}

/* Writes all of data to fd; -1 with errno on failure. */
static int write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        off += (size_t)n;
    }
    return 0;
}

/* The file path names after following symbolic links (also a dangling
 * one's target), newly allocated; path itself when it is no link. */
static char *follow_links(const char *path)
{
    char *cur = xstrdup(path);
    struct stat st;
    for (int hops = 0; hops < 40 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n <= 0) break;
        buf[n] = 0;
        char *next;
        if (buf[0] == '/') next = xstrdup(buf);
        else {
            char *dir = path_dirname(cur);
            next = path_join(dir, buf);
            free(dir);
        }
        free(cur);
        cur = next;
    }
    return cur;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* /dev/null, a FIFO, a terminal: written in place; a rename would
         * put a regular file where the device or pipe was. */
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) return -1;
        if (write_all(fd, data, len) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        return close(fd);
    }
    char *target = NULL;
    const char *dest = path;
    char *tmp = xasprintf("%s.fmvgen-tmp.%ld", dest, (long)getpid());
    mode_t mode = 0644;
    if (stat(dest, &st) == 0) mode = st.st_mode & 07777;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) goto fail;
    if (write_all(fd, data, len) != 0) {
        close(fd);
        goto fail_unlink;
    }
    if (fsync(fd) != 0 || close(fd) != 0) goto fail_unlink;
    if (rename(tmp, dest) != 0) goto fail_unlink;
    free(tmp);
    free(target);
    return 0;
fail_unlink: {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
fail: {
        int e = errno;
        free(tmp);
        free(target);
        errno = e;
    }
    return -1;
}

int write_output_file(const char *path, const char *data, size_t len)
{
    char *target = follow_links(path);
    int rc = write_file_atomic(target, data, len);
    int e = errno;
    free(target);
    errno = e;
    return rc;
}

int create_empty_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    return close(fd);
}

int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_p(const char *path, unsigned mode)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, mode) != 0 && errno != EEXIST) goto fail;
        *s = '/';
    }
    if (mkdir(p, mode) != 0 && errno != EEXIST) goto fail;
    free(p);
    return is_directory(path) ? 0 : -1;
fail:
    free(p);
    return -1;
}

int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return unlink(path);
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *child = path_join(path, e->d_name);
        if (remove_tree(child) != 0) rc = -1;
        free(child);
    }
    closedir(d);
    if (rmdir(path) != 0) rc = -1;
    return rc;
}

char *make_temp_dir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *tmpl = xasprintf("%s/fmvgen-%s.XXXXXX", base, tag);
    if (!mkdtemp(tmpl)) {
        free(tmpl);
        return NULL;
    }
    return tmpl;
}

/* ---- paths ---- */

char *path_join(const char *a, const char *b)
{
    if (!a || !*a || b[0] == '/') return xstrdup(b);
    size_t la = strlen(a);
    return xasprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

char *get_cwd(void)
{
    char *p = getcwd(NULL, 0);
    if (!p) return xstrdup(".");
    return p;
}

char *path_absolute(const char *path, const char *base)
{
    char *joined;
    if (path[0] == '/') {
        joined = xstrdup(path);
    } else {
        char *cwd = base ? xstrdup(base) : get_cwd();
        char *b = base && base[0] != '/' ? path_absolute(base, NULL) : cwd;
        if (b != cwd) free(cwd);
        joined = path_join(b, path);
        free(b);
    }
    /* Normalize component by component. */
    struct strvec parts = STRVEC_INIT;
    char *save = NULL;
    for (char *tok = strtok_r(joined, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (!strcmp(tok, ".")) continue;
        if (!strcmp(tok, "..")) {
            if (parts.n) free(parts.v[--parts.n]), parts.v[parts.n] = NULL;
            continue;
        }
        sv_push(&parts, tok);
    }
    struct strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < parts.n; i++) {
        sb_addc(&out, '/');
        sb_adds(&out, parts.v[i]);
    }
    if (!out.len) sb_addc(&out, '/');
    sv_free(&parts);
    free(joined);
    return sb_detach(&out);
}

char *path_relative_to(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (n == 1 && dir[0] == '/') return path[0] == '/' ? xstrdup(path + 1) : NULL;
    if (strncmp(path, dir, n) != 0 || path[n] != '/') return NULL;
    return xstrdup(path + n + 1);
}

const char *path_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

char *path_dirname(const char *path)
{
    const char *s = strrchr(path, '/');
    if (!s) return xstrdup(".");
    if (s == path) return xstrdup("/");
    return xstrndup(path, (size_t)(s - path));
}

int path_is_header(const char *path)
{
    static const char *const exts[] = {".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".tcc", ".ipp", NULL};
    const char *dot = strrchr(path_basename(path), '.');
    if (!dot) return 0;
    for (int i = 0; exts[i]; i++)
        if (!strcasecmp(dot, exts[i])) return 1;
    return 0;
}

char *self_exe_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return NULL;
    buf[n] = 0;
    return xstrdup(buf);
}

char *find_in_path(const char *name)
{
    if (strchr(name, '/')) return access(name, X_OK) == 0 && !is_directory(name) ? xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = xstrdup(path);
    char *save = NULL, *found = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *cand = path_join(dir, name);
        if (access(cand, X_OK) == 0 && !is_directory(cand)) found = cand;
        else free(cand);
    }
    free(copy);
    return found;
}

void env_without(const char *const *names, struct strvec *out)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        int drop = 0;
        for (size_t k = 0; names && names[k] && !drop; k++) {
            size_t n = strlen(names[k]);
            drop = !strncmp(*e, names[k], n) && (*e)[n] == '=';
        }
        if (!drop) sv_push(out, *e);
    }
}

/* ---- hashing ---- */

/* FNV-1a 64 plus the length: enough to notice an edited file, which is all
 * it is used for (not security). */
char *hash_bytes_hex(const char *data, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)data[i];
        h *= 1099511628211ULL;
    }
    return xasprintf("%016llx-%zu", (unsigned long long)h, len);
}

char *hash_file_hex(const char *path)
{
    size_t len;
    char *data = read_file(path, &len);
    if (!data) return NULL;
    char *h = hash_bytes_hex(data, len);
    free(data);
    return h;
}

char *shell_quote(const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == strlen(s))
        return xstrdup(s);
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '\'');
    for (; *s; s++) {
        if (*s == '\'') sb_adds(&sb, "'\\''");
        else sb_addc(&sb, *s);
    }
    sb_addc(&sb, '\'');
    return sb_detach(&sb);
}
