/* store.h - the project store: one SQLite database in <builddir>/.fmvgen/,
 * holding every compile a scan saw, the loop records read from it, and the
 * candidates and exclusions derived from them.
 *
 * Many compiler wrappers write at once under `make -j`: the database runs in
 * WAL mode with a generous busy timeout, and every write is a transaction,
 * so parallel writers queue instead of corrupting or losing rows.
 *
 * Schema (the contract between modules; see store.c for the SQL):
 *   meta(key, value)                      root, tool version, targets, ...
 *   compiles(id, directory, argv, compiler, compiler_kind, compiler_version,
 *            source, output, language, exit_status, source_hash, scan_id)
 *   record_files(id, compile_id, variant, format, path, status, error)
 *   loops(id, compile_id, variant, function, file, line, col, kind,
 *         vector_bytes, message, vector_lanes)
 *   tu_notes(id, compile_id, kind, detail)
 *   object_functions(compile_id, name)    functions a compile emitted (scan's own compiles)
 *   function_profiles(compile_id, variant, name, profile)   ISA profile (elf/funcisa.h
 *                                         JSON) per folded function name of a compile's code
 *   functions(id, compile_id, name, display_name, file, line, col,
 *             end_line, end_col, insert_offset, insert_line, status, reason,
 *             detail, notes, source_hash, kind, score, evidence, fma_score,
 *             dropped_calls)                store/dropped.h
 * variant is "build" for the user's own compile and "probe:<what>" for the
 * extra records-only compiles (e.g. "probe:arch=x86-64-v4", "probe:O3"). */
#ifndef FMVGEN_STORE_H
#define FMVGEN_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/loops.h"
#include "store/notes.h"

#define STORE_DIRNAME ".fmvgen"

struct store;

/* Opens (create=1: creates) the store of builddir. Errors are printed. */
int store_open(const char *builddir, int create, struct store **out);
/* Finds the build directory whose .fmvgen/ holds a store, walking up from
 * start (like git finds .git). Returns NULL when there is none. */
char *store_find_builddir(const char *start);
void store_close(struct store *st);
/* Leaves the WAL checkpoint to the next connection that closes with it on
 * (the last connection to close would otherwise write the WAL into the
 * database, a cost each compiler wrapper would pay: docs/FINDINGS.md,
 * "Store"). */
void store_skip_checkpoint_on_close(struct store *st);

sqlite3 *store_db(struct store *st);
const char *store_builddir(struct store *st);
const char *store_path(struct store *st);          /* <builddir>/.fmvgen */
/* Where record files of this store live (created on demand). */
const char *store_records_dir(struct store *st);

int store_begin(struct store *st);      /* BEGIN IMMEDIATE */
int store_commit(struct store *st);
void store_rollback(struct store *st);

int store_meta_set(struct store *st, const char *key, const char *value);
char *store_meta_get(struct store *st, const char *key);   /* NULL if unset */

struct compile_info {
    const char *directory;        /* absolute working directory of the compile */
    char *const *argv;            /* the build's argv, without fmvgen's flags */
    const char *compiler;         /* real compiler, absolute path */
    const char *compiler_kind;    /* "gcc" or "clang" */
    const char *compiler_version; /* "12.2.0", "14.0.6", ... */
    const char *source;           /* absolute path */
    const char *output;           /* absolute path, or NULL */
    const char *language;         /* "c" or "c++" */
    int exit_status;
    const char *source_hash;      /* hash_file_hex of the source at compile time */
};

/* Inserts or replaces the compile of (source, output): a rescan updates it
 * and drops its old records. Returns the row id, or -1. Runs in its own
 * transaction, or in the caller's when one is open (store_begin; then a
 * failure leaves the rollback to the caller). */
int64_t store_add_compile(struct store *st, const struct compile_info *ci);
int64_t store_add_record_file(struct store *st, int64_t compile_id, const char *variant,
                              const char *format, const char *path);
int store_set_record_file_status(struct store *st, int64_t record_file_id,
                                 const char *status, const char *error);
/* Sets the status (and error, may be NULL) of a record file only while it
 * is still pending at path: 1 when it was, 0 when another ingest (or a
 * rescan that replaced the compile) got there first, -1 on a store error
 * (printed). */
int store_claim_record_file(struct store *st, int64_t record_file_id, const char *path, const char *status,
                            const char *error);
/* A record file still to be read, with its compile's directory. */
struct pending_record_file {
    int64_t id, compile_id;
    char *variant, *format, *path, *directory;   /* never NULL ("" or "/") */
};
/* The pending record files in id order, read out whole so that no query
 * is open while their rows are written; *n gets the count. On a store
 * error (printed) *failed is 1 and the files read so far are returned.
 * Caller frees each string and the array. */
struct pending_record_file *store_pending_record_files(struct store *st, size_t *n, int *failed);
int store_add_loop(struct store *st, int64_t compile_id, const char *variant,
                   const struct loop_record *rec);
/* Drops the loops of one compile and variant (before re-reading its file). */
int store_clear_loops(struct store *st, int64_t compile_id, const char *variant);
/* Forgets what a variant gave a compile: its record_files row, loops and
 * function profiles (a probe that no longer runs for it). 0 or -1. */
int store_clear_variant(struct store *st, int64_t compile_id, const char *variant);
/* A tu_notes row; -1 (said) for TU_NOTE_UNKNOWN or a store error. */
int store_add_tu_note(struct store *st, int64_t compile_id, enum tu_note_kind kind, const char *detail);
/* The functions a compile emitted as code of their own (see the schema):
 * replaces the compile's list; 0 or -1. */
struct strvec;
int store_set_object_functions(struct store *st, int64_t compile_id, const struct strvec *names);
/* Appends the compile's list to out; 1 when one was stored, else 0. */
int store_object_functions(struct store *st, int64_t compile_id, struct strvec *out);

/* The ISA profiles of a compile's code in one variant ("build",
 * "probe:<target>"): replaces that (compile, variant)'s rows; names and
 * profiles (JSON text) pair up. 0 or -1. */
int store_set_function_profiles(struct store *st, int64_t compile_id, const char *variant, const struct strvec *names,
                                const struct strvec *profiles);
/* Appends them to names/profiles; 1 when some were stored, else 0. */
int store_function_profiles(struct store *st, int64_t compile_id, const char *variant, struct strvec *names,
                            struct strvec *profiles);

/* Reads one compile back; argv is rebuilt from the stored JSON. */
struct compile_row {
    int64_t id;
    char *directory, *compiler, *compiler_kind, *compiler_version;
    char *source, *output, *language, *source_hash;
    char **argv;      /* NULL-terminated */
    int exit_status;
};
int store_get_compile(struct store *st, int64_t id, struct compile_row *out);
/* All successful compiles, in id order; *n gets the count. */
struct compile_row *store_list_compiles(struct store *st, size_t *n);
void compile_row_free(struct compile_row *row);
void compile_rows_free(struct compile_row *rows, size_t n);

#endif
