/* query.h - the SQL of lib/candidates: every statement the analysis runs on
 * the store (reading a compile's loops and profiles, writing the functions
 * table), so that the rest of lib/candidates handles rows, not SQL. For
 * lib/candidates/ only. Store errors are printed (one line naming the
 * store) and returned as -1. */
#ifndef FMVGEN_CANDIDATES_QUERY_H
#define FMVGEN_CANDIDATES_QUERY_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct row_list;

/* The loop records of a compile, build and target probes (never the -O3
 * comparison, variant probe:O3), one call per function they name - its
 * first loop's file and line, in_build 1 when a build loop names it - and
 * one per loop position (file, line) of records without a function
 * (function NULL, in_build 1); in the order of their first loop. */
typedef void candidates_loop_fn(void *ctx, const char *function, const char *file, int line, int in_build);
int candidates_query_loop_functions(struct store *st, int64_t compile_id, candidates_loop_fn *each, void *ctx);

/* The distinct loop positions (file not NULL) of each functions[i] (NULL
 * entries skipped) in the same variants, ordered by file and line: one
 * call each(ctx, i, file, line) per position. */
typedef void candidates_position_fn(void *ctx, size_t i, const char *file, int line);
int candidates_query_loop_positions(struct store *st, int64_t compile_id, const char *const *functions, size_t n,
                                    candidates_position_fn *each, void *ctx);

/* The variant of the compile's target probe that has stored function
 * profiles ("probe:arch=x86-64-v4"; the first by name), or NULL when none
 * (or the store cannot say: not printed). Caller frees. */
char *candidates_query_profile_variant(struct store *st, int64_t compile_id);

/* Replaces the compile's functions rows with rows (analyze_internal.h) in
 * one transaction: on an error, the previous rows stay. 0 or -1. */
int candidates_query_store_rows(struct store *st, int64_t compile_id, const struct row_list *rows);

/* Drops the functions rows of compiles that are not successful (any more). */
int candidates_query_drop_failed(struct store *st);

#endif
