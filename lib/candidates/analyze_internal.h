/* analyze_internal.h - the pieces of candidates_analyze (analyze.h), for
 * lib/candidates/analyze*.c only:
 *   analyze_wanted.c    what the store says each compile vectorized or
 *                       gained at the target (struct wanted_list)
 *   analyze_rows.c      the functions rows as they will be stored, with their
 *                       notes (struct row_list)
 *   analyze_jobs.c      one libclang parse per TU, on a few threads (struct
 *                       tu_job); GCC's own include directory
 *   analyze_included.c  definitions in source files TUs #include, judged over
 *                       every TU that compiles them (included.h)
 *   analyze.c           one TU's rows (analyze_tu), and the whole pass
 * The store is read and written through query.h. */
#ifndef FMVGEN_ANALYZE_INTERNAL_H
#define FMVGEN_ANALYZE_INTERNAL_H

#include <clang-c/Index.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "candidates/helpers.h"
#include "candidates/included.h"
#include "candidates/isa.h"
#include "candidates/locate.h"
#include "store/kinds.h"
#include "store/reasons.h"
#include "store/store.h"
#include "util/util.h"

struct eligibility;
struct pp_directives;

/* ---- analyze_wanted.c ---- */

/* A function some loop record names, or (function NULL) a loop position
 * from a plain log whose function must be found by its line. */
struct wanted {
    char *function;
    char *file;   /* loop position, for the row of an unlocated function */
    int line;
    /* Every loop position of a named function (helpers.h); the file
     * strings are owned by files. None for a position without function. */
    struct loop_position *positions;
    size_t npositions;
    struct strvec files;
    /* store/kinds.h, and what its code at the target changes. */
    enum candidate_kind kind;
    int score, fma_score;
    char *evidence;
    struct strvec dropped;   /* the library calls its target code drops (isa.h) */
};

struct wanted_list {
    struct wanted *v;
    size_t n, cap;
    /* What the compile emitted as functions of their own (helpers.h): as
     * the scan's own compile of it did (--compdb), or else the build's
     * object; known = 0 when neither can be read. */
    struct strvec object_functions;
    int object_known;
    struct strvec isa_notes;   /* tu_notes 'isa-unmatched' (isa.h) */
    /* isa.h's shares of callees inlined into a function (isa_result.inl),
     * taken over: caller frees with wanted_free. */
    struct isa_function *inl;
    size_t ninl;
};

/* The functions of compile c to analyze (appended to out): the build's and
 * the target probes' loop functions, the isa.h functions, each function's
 * loop positions, and what the compile emitted. 0, or -1 on a store error
 * (printed). */
int wanted_load(struct store *st, const struct compile_row *c, struct wanted_list *out);
void wanted_free(struct wanted_list *w);

/* ---- analyze_rows.c ---- */

/* One functions row, as it will be stored. */
struct fn_row {
    char *name, *display_name, *file;
    unsigned line, col, end_line, end_col;
    int located;                 /* positions and insert point are valid */
    unsigned insert_offset, insert_line;
    enum exclusion_reason reason;   /* REASON_NONE: candidate */
    char *detail, *notes, *source_hash;
    enum candidate_kind kind;
    int score, fma_score;
    char *evidence;
    struct strvec dropped;   /* functions.dropped_calls (isa.h) */
};

struct row_list {
    struct fn_row *v;
    size_t n, cap;
};

/* A new zeroed row at the end of rows. */
struct fn_row *fn_row_new(struct row_list *rows);
void fn_rows_free(struct row_list *rows);
/* Fills r for a located definition; takes el's detail and notes. */
void fn_row_located(struct fn_row *r, const struct fn_def *def, const struct eligibility *el, char *notes);
/* Adds the row of an unlocated function unless one of that name exists
 * ("foo" and "foo.part.0" both unlocated). Takes detail. */
void fn_rows_add_unlocated(struct row_list *rows, const struct wanted *w, const char *directory,
                           enum exclusion_reason reason, char *detail, const struct fn_def *def);
/* Appends note (a copy of the reference) to r's notes. */
void fn_row_add_note(struct fn_row *r, json_t *note);
/* The kind, score, evidence and dropped calls of a wanted function onto its row (r may be
 * NULL); "foo" and "foo.part.0" on one row keep the kind that says more. */
void fn_row_take_kind(struct fn_row *r, const struct wanted *w);
/* The notes of a located definition as JSON text (caller frees):
 * simd-ifdef, static-macro, shared-line. */
char *def_notes(const struct pp_directives *pp, struct parsed_tu *tu, const struct fn_def *def);

/* ---- analyze_isainl.c ---- */

/* Rows for the callees whose ISA gains the build compiled inlined into an
 * excluded function (wanted->inl; see analyze_isainl.c), and an
 * "isa-unattributed" note on each excluded host with ISA evidence that no
 * callee was credited with. seen[0..nseen) are the located definitions,
 * row_of[k] the row of seen[k] (SIZE_MAX: none). */
void analyze_isa_inlined(struct parsed_tu *tu, struct pp_directives *pp, const struct compile_row *c,
                         const struct wanted_list *wanted, const struct fn_def *seen, const size_t *row_of,
                         size_t nseen, struct row_list *rows);

/* ---- analyze_jobs.c ---- */

/* GCC's own header directory ("gcc -print-file-name=include"), asked once
 * per compiler: libclang then finds headers only GCC ships (omp.h). */
struct gcc_includes {
    struct strvec compilers, dirs;
};

/* GCC's include directory for c's compiler (NULL: not GCC, or unknown);
 * owned by cache. */
const char *gcc_include_dir(struct gcc_includes *cache, const struct compile_row *c);

/* One TU's work: read from the store before the workers start, rows
 * written to the store after they end (one SQLite connection, one writer). */
struct tu_job {
    const struct compile_row *compile;
    size_t index;                  /* in the compiles list */
    struct wanted_list wanted;
    const char *gcc_include;
    struct row_list rows;
    int unparsable;
    int done;                      /* the first pass ran */
    int parsed;                    /* parsed for its rows (the first pass) */
    struct strvec included;        /* source files the TU includes (included.h) */
    struct sightings sightings;    /* their definitions as this TU compiles them */
    /* The second pass (included.h): only sightings of the definitions in
     * these files, in a TU the first pass did not parse or whose own source
     * is one of them. */
    const struct strvec *sight_files;
    /* Twins (analyze_group_twins): the next job that takes this one's
     * parse in the first pass, unless the PIC options make it differ. */
    struct tu_job *twin_next;
    int twin_follower;             /* its first pass runs with its leader's */
    char *parse_args;              /* the key with the PIC options (shares_parse) */
};

/* Chains the busy jobs whose TU libclang would parse alike but for the
 * options libtool adds to a source's shared-library copy (-fPIC, -fpic,
 * -DPIC): the same source and hash, directory, compiler kind, language
 * and other arguments, which must not name PIC, __pic__, PIE or __pie__
 * themselves (-DX=__PIC__). The first in store order leads, and its first
 * pass analyzes the others on its parse unless the TU's files mention one
 * of those names (then each parses its own). The rows are those a parse of
 * each would give: one libclang parse for libtool's two compiles of a
 * source. */
void analyze_group_twins(struct tu_job *jobs, size_t n);

/* Runs every busy job (its first pass, or its second with sight_files set)
 * on up to MAX_PARSERS threads, each with its own libclang index. */
void analyze_run_jobs(struct tu_job *jobs, size_t n);

/* ---- analyze_included.c ---- */

/* The second pass and the verdicts: only when a candidate lives in a
 * source file some TU includes (rare: no extra work otherwise). */
void analyze_included_sources(struct tu_job *jobs, size_t n, struct gcc_includes *includes);

/* ---- analyze.c ---- */

/* One parsed TU's rows: each wanted function located, judged and noted;
 * its inlined helpers and inlined callees. */
void analyze_tu(struct parsed_tu *tu, struct pp_directives *pp, const struct compile_row *c,
                const struct wanted_list *wanted, struct row_list *rows);

#endif
