/* record.c - the loop_record type beyond its kind names (kinds.c): lists,
 * de-duplication, format dispatch, and the error/delivery rules the readers
 * share (see reader.h), so that every reader fails and delivers alike. */
#include "records/reader.h"
#include "records/records.h"
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static _Thread_local char last_error[1024];

const char *records_error(void) { return last_error; }

int rec_fail(const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof last_error, "%s: %s", path, msg);
    return fmv_error("%s", last_error);
}

void rec_begin(void) { last_error[0] = '\0'; }

int rec_check_input(const char *path, int empty_ok)
{
    rec_begin();
    struct stat sb;
    if (stat(path, &sb) != 0) return rec_fail(path, "cannot read record file: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode)) return rec_fail(path, "is a directory, not a record file");
    if (access(path, R_OK) != 0) return rec_fail(path, "cannot read record file: %s", strerror(errno));
    if (!empty_ok && S_ISREG(sb.st_mode) && sb.st_size == 0) return rec_fail(path, "empty file");
    return 0;
}

int rec_file_load(const char *path, int empty_ok, const char *what, struct rec_file *f)
{
    memset(f, 0, sizeof *f);
    f->data = "";
    if (rec_check_input(path, empty_ok) != 0) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return rec_fail(path, "%s: %s", what, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (sb.st_size == 0) {
            close(fd);
            return 0;
        }
        void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            close(fd);
            f->map = map;
            f->data = map;
            f->len = (size_t)sb.st_size;
            return 0;
        }
    }
    close(fd);
    /* A pipe, a device, or a file that cannot be mapped: read it. */
    f->heap = read_file(path, &f->len);
    if (!f->heap) return rec_fail(path, "%s: %s", what, strerror(errno));
    f->data = f->heap;
    return 0;
}

void rec_file_release(struct rec_file *f)
{
    if (f->map) munmap(f->map, f->len);
    free(f->heap);
    memset(f, 0, sizeof *f);
}

long rec_next_line(struct rec_lines *it, char **line)
{
    if (it->p >= it->end) return -1;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    size_t n = nl ? (size_t)(nl - it->p) + 1 : (size_t)(it->end - it->p);
    sb_reset(&it->line);
    sb_add(&it->line, it->p, n);
    it->p += n;
    *line = it->line.buf;
    return (long)n;
}

void rec_lines_free(struct rec_lines *it) { sb_free(&it->line); }

char *rec_function_name(const char *raw)
{
    if (!raw || !*raw) return NULL;
    /* C identifiers and Itanium-mangled names never contain '.', so a dot
     * starts a suffix the compiler added to a clone of the function. */
    const char *dot = strchr(raw, '.');
    return dot && dot > raw ? xstrndup(raw, (size_t)(dot - raw)) : xstrdup(raw);
}

int rec_deliver(struct record_list *l, record_fn fn, void *ctx)
{
    for (size_t i = 0; i < l->n; i++)
        if (fn(&l->v[i], ctx)) break;
    record_list_free(l);
    return 0;
}

int records_read_file(const char *format, const char *path, record_fn fn, void *ctx)
{
    if (format && !strcmp(format, "gcc-dump")) return records_read_gcc_dump(path, fn, ctx);
    if (format && !strcmp(format, "gcc-json")) return records_read_gcc_json(path, fn, ctx);
    if (format && !strcmp(format, "clang-yaml")) return records_read_clang_yaml(path, fn, ctx);
    if (format && !strcmp(format, "optinfo-log")) return records_read_optinfo_log(path, fn, ctx);
    return rec_fail(path, "unknown record format '%s'", format ? format : "(none)");
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

int record_list_add(const struct loop_record *rec, void *list)
{
    struct record_list *l = list;
    if (l->n == l->cap) l->v = xrealloc(l->v, (l->cap = l->cap ? l->cap * 2 : 16) * sizeof *l->v);
    struct loop_record *r = &l->v[l->n++];
    *r = *rec;
    r->function = dup_or_null(rec->function);
    r->file = dup_or_null(rec->file);
    r->message = dup_or_null(rec->message);
    return 0;
}

static void record_free(struct loop_record *r)
{
    free(r->function);
    free(r->file);
    free(r->message);
}

void record_list_free(struct record_list *l)
{
    for (size_t i = 0; i < l->n; i++) record_free(&l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* NULL sorts first and equals only NULL. */
static int cmp_str(const char *a, const char *b)
{
    if (!a || !b) return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_key(const struct loop_record *a, const struct loop_record *b)
{
    int c;
    if ((c = cmp_str(a->function, b->function))) return c;
    if ((c = cmp_str(a->file, b->file))) return c;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    if (a->column != b->column) return a->column < b->column ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

/* Within one key, the widest first, so that the merge keeps the first. */
static int cmp_key_then_widest(const void *pa, const void *pb)
{
    const struct loop_record *a = pa, *b = pb;
    int c = cmp_key(a, b);
    if (c) return c;
    if (a->vector_bytes != b->vector_bytes) return a->vector_bytes > b->vector_bytes ? -1 : 1;
    if (a->vector_lanes != b->vector_lanes) return a->vector_lanes > b->vector_lanes ? -1 : 1;
    return 0;
}

void record_list_dedup(struct record_list *l)
{
    if (l->n < 2) return;
    qsort(l->v, l->n, sizeof *l->v, cmp_key_then_widest);
    size_t out = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (out > 0 && cmp_key(&l->v[out - 1], &l->v[i]) == 0) {
            record_free(&l->v[i]);
            continue;
        }
        l->v[out++] = l->v[i];
    }
    l->n = out;
}
