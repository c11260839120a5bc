/* gcc_json.c - reads GCC's -fsave-optimization-record files (gzip'd JSON,
 * format "1" as written by GCC 10-13) into loop records.
 *
 * The file is one array: [metadata, pass tree, records]. The records array
 * of a large TU runs to hundreds of megabytes once inflated, so it is not
 * loaded as one JSON tree: zlib inflates the (mapped) file into a stdio
 * stream as jansson reads it (gzread's rules, see struct gz_source), jansson
 * decodes the metadata, the pass tree and then ONE record at a time
 * (JSON_DISABLE_EOF_CHECK stops it right after each object), and only the
 * array punctuation between them ('[', ',', ']') is read here. */
#include "records/reader.h"
#include "records/records.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* gzread's rules on bytes in memory: gzip members, one after another, are
 * inflated (trailing bytes that start no member are ignored); data that
 * does not start with the gzip magic is read as it is. */
struct gz_source {
    const unsigned char *data;
    size_t len, pos;     /* pos: the next input byte */
    z_stream zs;
    int inflating;       /* zs is initialised */
    int direct;          /* no gzip magic: the bytes are the JSON */
    int done;            /* the end was reached cleanly */
    int failed;          /* a zlib error code (Z_BUF_ERROR: cut short), 0 while fine */
    const char *msg;     /* zlib's word for a Z_DATA_ERROR */
};

static int gz_magic_at(const struct gz_source *src, size_t at)
{
    return src->len - at >= 2 && src->data[at] == 0x1f && src->data[at + 1] == 0x8b;
}

static void gz_source_init(struct gz_source *src, const void *data, size_t len)
{
    memset(src, 0, sizeof *src);
    src->data = data;
    src->len = len;
    src->direct = !gz_magic_at(src, 0);
}

static void gz_source_end(struct gz_source *src)
{
    if (src->inflating) inflateEnd(&src->zs);
    src->inflating = 0;
}

static ssize_t gz_cookie_read(void *cookie, char *buf, size_t size)
{
    struct gz_source *src = cookie;
    if (src->failed) return -1;
    if (src->done || size == 0) return 0;
    if (src->direct) {
        size_t n = src->len - src->pos < size ? src->len - src->pos : size;
        memcpy(buf, src->data + src->pos, n);
        src->pos += n;
        src->done = src->pos == src->len;
        return (ssize_t)n;
    }
    if (!src->inflating) {
        if (inflateInit2(&src->zs, 15 + 16) != Z_OK) {
            src->failed = Z_MEM_ERROR;
            return -1;
        }
        src->inflating = 1;
    }
    if (size > (1u << 30)) size = 1u << 30;
    src->zs.next_out = (unsigned char *)buf;
    src->zs.avail_out = (unsigned)size;
    for (;;) {
        size_t in = src->len - src->pos < (1u << 30) ? src->len - src->pos : (1u << 30);
        src->zs.next_in = (unsigned char *)src->data + src->pos;
        src->zs.avail_in = (unsigned)in;
        int ret = inflate(&src->zs, Z_NO_FLUSH);
        src->pos += in - src->zs.avail_in;
        if (ret == Z_STREAM_END) {
            /* Another member may follow; anything else is ignored. */
            if (!gz_magic_at(src, src->pos)) {
                src->done = 1;
                break;
            }
            inflateReset(&src->zs);
            continue;
        }
        if (ret == Z_DATA_ERROR) {
            src->failed = Z_DATA_ERROR;
            src->msg = src->zs.msg;
            break;
        }
        if (ret != Z_OK && ret != Z_BUF_ERROR) {
            src->failed = ret == Z_MEM_ERROR ? Z_MEM_ERROR : Z_STREAM_ERROR;
            break;
        }
        if (src->zs.avail_out != size) break;   /* some output: hand it over */
        if (src->pos == src->len) {
            src->failed = Z_BUF_ERROR;           /* the data stops inside a member */
            break;
        }
    }
    size_t n = size - src->zs.avail_out;
    if (n == 0 && src->failed) return -1;
    return (ssize_t)n;
}

/* Why the gzip layer failed, in words. */
static char *gz_problem(const struct gz_source *src)
{
    if (src->failed == Z_BUF_ERROR) return xstrdup("truncated gzip stream (unexpected end of file)");
    if (src->failed == Z_MEM_ERROR) return xstrdup("corrupt gzip data (out of memory)");
    if (src->failed == Z_DATA_ERROR)
        return xasprintf("corrupt gzip data (%s)", src->msg ? src->msg : "compressed data error");
    return xstrdup("corrupt gzip data (internal error: inflate stream corrupt)");
}

/* Next non-blank character of the stream, EOF at the end. */
static int next_token(FILE *fp)
{
    int c;
    do c = getc(fp);
    while (c != EOF && isspace(c));
    return c;
}

struct reader {
    const char *path;
    FILE *fp;
    struct gz_source *src;
    struct record_list found;
    size_t index;        /* of the current record, for error messages */
};

/* The failure of a read at this point: the gzip layer's if it failed
 * (that is the real cause of any JSON error that follows), else what. */
static int read_failed(struct reader *r, const char *what)
{
    /* Damaged deflate data often inflates to plausible bytes for a while
     * and breaks the JSON before zlib reaches the checksum: read on to the
     * end, so that the gzip damage is named rather than its symptom. */
    char sink[16384];
    while (!r->src->failed && gz_cookie_read(r->src, sink, sizeof sink) > 0) {}
    if (r->src->failed) {
        char *p = gz_problem(r->src);
        int rc = rec_fail(r->path, "%s", p);
        free(p);
        return rc;
    }
    return rec_fail(r->path, "%s", what);
}

static int expect(struct reader *r, int want, const char *where)
{
    int c = next_token(r->fp);
    if (c == want) return 0;
    char *what = c == EOF ? xasprintf("truncated JSON: end of file %s", where)
                          : xasprintf("not a GCC optimization record: '%c' %s, expected '%c'", c, where, want);
    int rc = read_failed(r, what);
    free(what);
    return rc;
}

/* The next array element. JSON_DECODE_ANY so that a scalar where an object
 * belongs is reported as the wrong shape, not as a syntax error. */
static json_t *decode_value(struct reader *r, const char *what)
{
    json_error_t e;
    json_t *v = json_loadf(r->fp, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &e);
    if (!v) {
        char *msg = feof(r->fp) ? xasprintf("truncated JSON in %s: %s", what, e.text)
                                : xasprintf("invalid JSON in %s: %s", what, e.text);
        read_failed(r, msg);
        free(msg);
    }
    return v;
}

/* The message as GCC prints it: strings, and the text of embedded items
 * ({"expr": ...}, {"stmt": ...}, {"symtab_node": ...}). */
static char *render_message(json_t *message)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    json_t *item;
    json_array_foreach(message, i, item) {
        if (json_is_string(item)) {
            sb_adds(&sb, json_string_value(item));
        } else if (json_is_object(item)) {
            const char *key;
            json_t *v;
            json_object_foreach(item, key, v) if (json_is_string(v) && strcmp(key, "location")) {
                sb_adds(&sb, json_string_value(v));
                break;
            }
        }
    }
    while (sb.len && isspace((unsigned char)sb.buf[sb.len - 1])) sb.buf[--sb.len] = '\0';
    return sb_detach(&sb);
}

/* See reader.h. The epilogue of a vectorized loop is another "loop
 * vectorized" record (GCC 12); later GCCs say "epilogue loop vectorized". */
int rec_classify_gcc(const char *text, enum loop_kind *kind, int *bytes)
{
    static const struct {
        const char *prefix;
        enum loop_kind kind;
    } known[] = {
        {"loop vectorized", LOOP_VECTORIZED},
        {"epilogue loop vectorized", LOOP_VECTORIZED},
        {"basic block part vectorized", LOOP_SLP},
        {"basic block vectorized", LOOP_SLP},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        size_t n = strlen(known[i].prefix);
        if (strncmp(text, known[i].prefix, n) || (text[n] && text[n] != ' ')) continue;
        *kind = known[i].kind;
        *bytes = 0;
        /* " using N byte vectors": anything else (a sign, a width no
         * vector has, other words) leaves the width unknown. */
        const char *w = text + n;
        if (str_starts_with(w, " using ") && isdigit((unsigned char)w[7])) {
            char *end;
            long v = strtol(w + 7, &end, 10);
            if (str_starts_with(end, " byte vectors") && v > 0 && v <= 1 << 16) *bytes = (int)v;
        }
        return 1;
    }
    return 0;
}

static int read_location(json_t *loc, struct loop_record *rec)
{
    if (!loc) return 0;
    if (!json_is_object(loc)) return -1;
    json_t *file = json_object_get(loc, "file");
    rec->file = json_is_string(file) ? (char *)json_string_value(file) : NULL;
    rec->line = (int)json_integer_value(json_object_get(loc, "line"));
    rec->column = (int)json_integer_value(json_object_get(loc, "column"));
    return 0;
}

/* One record and its children (which inherit the function when they
 * lack one). */
static int visit(struct reader *r, json_t *obj, const char *parent_function, int depth)
{
    json_t *kind = json_object_get(obj, "kind");
    json_t *message = json_object_get(obj, "message");
    json_t *children = json_object_get(obj, "children");
    json_t *function = json_object_get(obj, "function");
    if (!json_is_object(obj) || !json_is_string(kind) || !json_is_array(message) ||
        (children && !json_is_array(children)) || (function && !json_is_string(function)) || depth > 64)
        return rec_fail(r->path, "not a GCC optimization record: record %zu has no kind/message", r->index);
    const char *fn_name = function ? json_string_value(function) : parent_function;

    if (!strcmp(json_string_value(kind), "success")) {
        char *text = render_message(message);
        struct loop_record rec = {0};
        if (rec_classify_gcc(text, &rec.kind, &rec.vector_bytes)) {
            if (read_location(json_object_get(obj, "location"), &rec) != 0) {
                free(text);
                return rec_fail(r->path, "not a GCC optimization record: record %zu has a bad location", r->index);
            }
            rec.function = rec_function_name(fn_name);
            rec.message = text;
            record_list_add(&rec, &r->found);
            free(rec.function);
        }
        free(text);
    }
    size_t i;
    json_t *child;
    json_array_foreach(children, i, child) if (visit(r, child, fn_name, depth + 1) != 0) return -1;
    return 0;
}

static int read_records(struct reader *r)
{
    if (expect(r, '[', "at the start") != 0) return -1;
    json_t *meta = decode_value(r, "the metadata");
    if (!meta) return -1;
    int ok = json_is_object(meta) && json_is_string(json_object_get(meta, "format"));
    json_decref(meta);
    if (!ok) return rec_fail(r->path, "not a GCC optimization record: no {\"format\": ...} metadata first");
    if (expect(r, ',', "after the metadata") != 0) return -1;
    json_t *passes = decode_value(r, "the pass list");
    if (!passes) return -1;
    ok = json_is_array(passes);
    json_decref(passes);
    if (!ok) return rec_fail(r->path, "not a GCC optimization record: the pass list is not an array");
    if (expect(r, ',', "after the pass list") != 0 || expect(r, '[', "before the records") != 0) return -1;

    int c = next_token(r->fp);
    if (c != ']') {
        ungetc(c, r->fp);
        for (;;) {
            char what[64];
            snprintf(what, sizeof what, "record %zu", r->index);
            json_t *rec = decode_value(r, what);
            if (!rec) return -1;
            int rc = visit(r, rec, NULL, 0);
            json_decref(rec);
            if (rc != 0) return -1;
            r->index++;
            c = next_token(r->fp);
            if (c == ']') break;
            if (c != ',') {
                snprintf(what, sizeof what, "after record %zu", r->index - 1);
                return expect(r, ',', what);   /* reports c */
            }
        }
    }
    if (expect(r, ']', "at the end") != 0) return -1;
    if (next_token(r->fp) != EOF) return read_failed(r, "not a GCC optimization record: data after the end");
    if (r->src->failed) return read_failed(r, "");
    return 0;
}

int records_read_gcc_json_buf(const struct records_buf *in, record_fn fn, void *ctx)
{
    rec_begin();
    if (in->len == 0) return rec_fail(in->name, "empty file");
    struct gz_source src;
    gz_source_init(&src, in->data, in->len);
    cookie_io_functions_t io = {.read = gz_cookie_read};
    struct reader r = {.path = in->name, .src = &src, .found = RECORD_LIST_INIT};
    r.fp = fopencookie(&src, "r", io);
    if (!r.fp) return rec_fail(in->name, "cannot read record file: %s", strerror(errno));
    /* jansson reads with fgetc: without per-call locking (the stream is
     * ours alone) a gigabyte of records parses several times faster. */
    __fsetlocking(r.fp, FSETLOCKING_BYCALLER);
    setvbuf(r.fp, NULL, _IOFBF, 1 << 16);
    int rc = read_records(&r);
    fclose(r.fp);
    gz_source_end(&src);
    if (rc != 0) {
        record_list_free(&r.found);
        return -1;
    }
    return rec_deliver(&r.found, fn, ctx);
}

int records_read_gcc_json(const char *path, record_fn fn, void *ctx)
{
    struct rec_file f;
    int rc = rec_file_load(path, 0, "cannot read record file", &f);
    if (rc == 0) rc = records_read_gcc_json_buf(&(struct records_buf){path, f.data, f.len}, fn, ctx);
    rec_file_release(&f);
    return rc;
}
