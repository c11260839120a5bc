/* query.h - the SQL of lib/patch: what a patch reads from the store (the
 * candidate rows, their loop counts, their compilers and compile flags),
 * so that the rest of lib/patch handles rows, not SQL. For lib/patch/
 * only. Errors are one line naming the store (fmv_error). */
#ifndef FMVGEN_PATCH_QUERY_H
#define FMVGEN_PATCH_QUERY_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct patch_plan;
struct strvec;

/* One functions row of status 'candidate'. Strings may be NULL and stay
 * valid until the next patch_candidates_next or patch_candidates_close. */
struct patch_candidate_row {
    int64_t compile_id;
    const char *name, *display_name, *file;
    int line;                 /* 0 when NULL */
    int located;              /* insert_offset is set and not negative */
    int64_t insert_offset;
    int insert_line;
    const char *source_hash, *notes, *kind, *evidence;
    const char *dropped_calls;   /* store/dropped.h text, NULL before schema 4 */
    int score, fma_score;
    int end_line, end_col;    /* the definition's end (its closing brace); 0 when NULL */
};

/* The candidate rows ordered by file, insert_offset, id: open, then
 * patch_candidates_next until it returns 0, then close. NULL after an
 * error line. */
struct patch_candidates;
struct patch_candidates *patch_candidates_open(struct store *st);
/* 1 with *row filled, 0 at the end. */
int patch_candidates_next(struct patch_candidates *c, struct patch_candidate_row *row);
void patch_candidates_close(struct patch_candidates *c);

/* The loops of function in compile_id per variant, in variant order: a
 * call each(ctx, variant, count, widest vector_bytes) per variant. Nothing
 * is called when the store cannot say (not printed). */
typedef void patch_loop_count_fn(void *ctx, const char *variant, int count, int max_bytes);
void patch_query_loop_counts(struct store *st, int64_t compile_id, const char *function, patch_loop_count_fn *each,
                             void *ctx);

/* The distinct compilers (path, kind, version; kind or version may be
 * NULL) of the compiles that hold a candidate, by path: each is called
 * until it returns non-zero, which is returned. 0, or -1 after an error
 * line. */
typedef int patch_compiler_fn(void *ctx, const char *compiler, const char *kind, const char *version);
int patch_query_candidate_compilers(struct store *st, patch_compiler_fn *each, void *ctx);

/* "REL:LINE NAME" of each function i of p (each with want[i] set, or all
 * when want is NULL) that some compile holding it as a candidate (same
 * name and file) built with an argv (JSON text, compiles.argv) that match
 * accepts, appended to out in plan order. 0, or -1 after an error line. */
typedef int patch_argv_match_fn(const char *argv_json);
int patch_query_functions_compiled_with(struct store *st, const struct patch_plan *p, const unsigned char *want,
                                        patch_argv_match_fn *match, struct strvec *out);

#endif
