/* reader.h - private to lib/records: the pieces the three readers (GCC
 * JSON, Clang YAML, build log) share, so each reader is only its format. */
#ifndef FMVGEN_RECORDS_READER_H
#define FMVGEN_RECORDS_READER_H

#include "records/records.h"

/* Records the failure for records_error(), prints "fmvgen: PATH: MSG" and
 * returns -1. */
int rec_fail(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks that path names a readable regular file before a reader opens it
 * (missing, directory, unreadable, and - unless empty_ok - empty are
 * errors). Returns 0 or rec_fail's -1. */
int rec_check_input(const char *path, int empty_ok);

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
