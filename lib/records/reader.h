/* reader.h - private to lib/records: the pieces the three readers (GCC
 * JSON, Clang YAML, build log) share, so each reader is only its format. */
#ifndef FMVGEN_RECORDS_READER_H
#define FMVGEN_RECORDS_READER_H

#include "records/records.h"
#include "util/util.h"

/* Records the failure for records_error(), prints "fmvgen: PATH: MSG" and
 * returns -1. */
int rec_fail(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks that path names a readable regular file before a reader opens it
 * (missing, directory, unreadable, and - unless empty_ok - empty are
 * errors). Returns 0 or rec_fail's -1. */
int rec_check_input(const char *path, int empty_ok);

/* Forgets an older failure: every read starts here (rec_check_input does
 * it for the path readers, the buffer readers call it themselves). */
void rec_begin(void);

/* A record file's bytes, for a path reader to hand to its buffer reader:
 * a regular file is mapped (memory stays flat on a large file), anything
 * else read whole. data is never NULL ("" when len is 0). */
struct rec_file {
    const char *data;
    size_t len;
    void *map;        /* the mapping (munmap'd by rec_file_release), or NULL */
    char *heap;       /* or the bytes read, or NULL */
};
/* rec_check_input(path, empty_ok), then the bytes into f. Returns 0, or
 * rec_fail's -1 with "WHAT: strerror" when the file cannot be read. */
int rec_file_load(const char *path, int empty_ok, const char *what, struct rec_file *f);
void rec_file_release(struct rec_file *f);

/* Iterates over the lines of a buffer the way getline() reads a stream:
 * each line with its '\n' (the last one may lack it), copied and
 * NUL-terminated (a NUL byte inside stays; the returned length tells). */
struct rec_lines {
    const char *p, *end;
    struct strbuf line;
};
#define REC_LINES_INIT(data, len) {(data), (data) + (len), STRBUF_INIT}
/* The next line in *line (valid until the next call) and its length, or
 * -1 at the end. rec_lines_free releases the copy. */
long rec_next_line(struct rec_lines *it, char **line);
void rec_lines_free(struct rec_lines *it);

/* The source-level function of a compiler's symbol: a copy of raw without
 * a clone suffix (".constprop.0", ".isra.0", ".part.0", ".specialized.1").
 * NULL for NULL or "". */
char *rec_function_name(const char *raw);

/* GCC's success message (the JSON record's, or an -fopt-info line's after
 * "optimized: "): "loop vectorized using 32 byte vectors" -> 1 with
 * LOOP_VECTORIZED, 32; "basic block part vectorized using 16 byte vectors"
 * -> 1 with LOOP_SLP, 16; anything else -> 0. */
int rec_classify_gcc(const char *text, enum loop_kind *kind, int *bytes);

/* Hands every collected record to fn (until it returns non-zero), frees the
 * list and returns 0: the one place where reading becomes delivering. */
int rec_deliver(struct record_list *l, record_fn fn, void *ctx);

#endif
