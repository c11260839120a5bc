/* records.h - the compiler's own account of what it vectorized, read from
 * three sources into one type:
 *   - GCC's -fsave-optimization-record (gzip'd JSON; jansson + zlib)
 *   - Clang's optimization records (YAML; libyaml)
 *   - a plain -fopt-info-vec build log (text), for users who only have a log
 *
 * Only successful vectorizations are reported: loop vectorization and SLP
 * ("basic block part vectorized"). `function` is the function the compiler
 * was compiling when it vectorized (after inlining) - the one to clone -
 * while file/line may point into an inlined helper or a macro. */
#ifndef FMVGEN_RECORDS_H
#define FMVGEN_RECORDS_H

#include <stddef.h>

enum loop_kind {
    LOOP_VECTORIZED = 0,   /* a loop was vectorized */
    LOOP_SLP = 1,          /* straight-line code vectorized (SLP) */
};

struct loop_record {
    char *function;     /* compiled function: GCC's plain/qualified name, Clang's (mangled) symbol */
    char *file;         /* location as written by the compiler; may be relative to the compile dir */
    int line, column;   /* 0 when unknown */
    enum loop_kind kind;
    int vector_bytes;   /* 16 / 32 / 64; 0 when the compiler did not say (Clang never does) */
    int vector_lanes;   /* elements per vector (Clang's VectorizationFactor); 0 when unknown (GCC) */
    char *message;      /* the compiler's text, for the report */
};

/* Receives each record; the callee may keep nothing it does not copy.
 * Return non-zero to stop reading. */
typedef int (*record_fn)(const struct loop_record *rec, void *ctx);

/* Each reader returns 0 on success, -1 on a corrupt/truncated/unreadable
 * file after printing one line "fmvgen: PATH: what is wrong". Records seen
 * before the damage are NOT delivered on failure (a half-read file is
 * treated as absent, so a report never silently mixes partial data). */
int records_read_gcc_json(const char *path, record_fn fn, void *ctx);
int records_read_clang_yaml(const char *path, record_fn fn, void *ctx);
/* A build log may hold many TUs; `function` comes from the log line when
 * GCC prints it, else it is NULL and the caller must resolve it. */
int records_read_optinfo_log(const char *path, record_fn fn, void *ctx);

const char *loop_kind_name(enum loop_kind k);   /* "loop" / "slp" */

#endif
