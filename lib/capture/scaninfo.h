/* scaninfo.h - what a scan leaves in the store besides compiles and loops:
 * the per-TU notes on what defeats vectorization (from each compile's own
 * flags, and the -O2 vs -O3 loop counts of the probes), and the counts of
 * the summary `fmvgen scan` prints. */
#ifndef FMVGEN_SCANINFO_H
#define FMVGEN_SCANINFO_H

struct store;
struct strvec;

/* Replaces the notes of kinds no-vectorize-flag, low-opt and o2-cheap-model
 * of every successful compile: compile_args_vectorization_notes of its
 * argv, and for GCC compiles at -O2 whose -O3 probe vectorized more loops
 * (variant "probe:O3"), how many more. Returns 0, or -1 on a store error. */
int scaninfo_write_tu_notes(struct store *st);

/* Drops the tu_notes of one kind for every compile (e.g. 'probe-failed'
 * before the probes run again). Returns 0, or -1 on a store error. */
int scaninfo_clear_tu_notes(struct store *st, const char *kind);

struct scan_summary {
    int compiles;            /* compiles rows */
    int failed_compiles;     /* of which the compiler failed */
    int record_files;        /* record_files rows read without error */
    int corrupt_files;
    struct strvec *corrupt;  /* paths of the corrupt ones (caller-owned vector, may be NULL) */
    int pending_files;       /* registered but not read (should be 0) */
    int build_loops;         /* loops of variant "build" */
    int probe_only_loops;    /* loops (function, file, line, kind) seen only in probe:<target> */
    int candidates;
    int exclusions;
    int tu_notes;            /* notes on what defeats vectorization (not 'probe-skipped') */
    int probe_skipped;       /* compiles the target probe left out (tu_notes 'probe-skipped') */
    int no_records;          /* successful wrapped compiles that gave no records (tu_notes 'no-records') */
    struct strvec *no_records_sources;  /* their sources (caller-owned vector, may be NULL) */
};

/* Counts what the store holds now. Returns 0, or -1 on a store error. */
int scaninfo_summarize(struct store *st, struct scan_summary *out);

#endif
