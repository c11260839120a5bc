/* scan.h - the sequence of `fmvgen scan`: fill a build directory's store
 * with the compiles of a build and the compiler's vectorization records,
 * then the candidates. One of three sources:
 *
 *   build   run the build through the compiler wrapper (capture/wrapper.h)
 *   compdb  re-run a compile_commands.json's compiles (capture/compdb.h),
 *           each keeping its object for its functions and code profiles
 *   log     read an -fopt-info-vec / -Rpass build log (scan/ingest.h)
 *
 * then: ingest the records -> records-only probe compiles at the widest
 * target (unless no_probe or a log: a log has no commands; with o3 also at
 * -O3), ingested too -> per-TU notes (capture/scaninfo.h) -> candidates
 * (candidates/analyze.h) -> the summary counts. The store's meta gets the
 * root, the targets and the tool version.
 *
 * Errors and warnings go to stderr as `fmvgen:` lines while it runs: a
 * compiler neither GCC nor Clang, a corrupt record file, and a build that
 * succeeded without one compile through the wrapper (with why: a CMake tree
 * configured before the scan runs its cached compiler directly) are
 * errors; a CMake tree configured during the scan, which cached the
 * wrapper as its compiler, is a warning. With FMVGEN_SCAN_PHASES set in the
 * environment (bench/scan_overhead.sh) one stderr line per phase gives the
 * CPU seconds of fmvgen and of its children so far. */
#ifndef FMVGEN_SCAN_H
#define FMVGEN_SCAN_H

#include "capture/scaninfo.h"
#include "util/util.h"

struct scan_request {
    /* exactly one source */
    char *const *build;         /* the build command (argv, NULL-terminated) */
    const char *compdb;         /* a compile_commands.json */
    const char *log;            /* a build log with remarks */
    /* where the store goes (.fmvgen/ in it); NULL: the current directory.
     * Ignored with compdb: the database's directory. */
    const char *builddir;
    const char *root;           /* project root (made absolute); NULL: scan/root.h's guess, widened */
    const struct strvec *targets;   /* parsed target_clones targets (targets.h) */
    int no_probe, o3;
    int jobs;                   /* parallel probe/compdb compiles; 0: one per CPU */
    int quiet;                  /* no informational note on stderr (--json) */
};

struct scan_result {
    char *store_path;           /* the store's directory (.fmvgen) */
    const char *widest;         /* the widest of the targets (in req->targets); NULL: none */
    int probed;                 /* the probes ran at it (not no_probe, not a log) */
    int build_status;           /* the build's exit status (0 without a build) */
    int errors;                 /* 1 when an error line was printed (unsupported compiler,
                                 * corrupt record file, nothing captured) */
    size_t n_unsupported;       /* compilers neither GCC nor Clang (their compiles ran unscanned) */
    struct scan_summary sum;    /* what the store holds now */
    struct strvec corrupt;      /* sum.corrupt: corrupt record files */
    struct strvec no_records;   /* sum.no_records_sources: compiles without records */
};

/* Runs the scan (res is zeroed first). Returns 0 when it ran to the summary (res filled: also
 * when res->errors or res->build_status say it went wrong in part; what
 * compiled is still scanned), or -1 after an error line when it stopped
 * before (no such input file, store error, compile database unreadable);
 * res->build_status is set either way. The caller frees res with
 * scan_result_free. */
int scan_run(const struct scan_request *req, struct scan_result *res);
void scan_result_free(struct scan_result *res);

/* The warning that compiles gave no optimization records, so their
 * functions are not in the scan (never a silent loss): one line naming the
 * first, nothing when there are none. The CLI prints it after the summary. */
void scan_warn_no_records(const struct scan_result *res);

/* The exit status of `fmvgen scan` for what scan_run returned: the
 * build's status when it failed, else 1 on errors (rc < 0 or res->errors),
 * else 0. */
int scan_exit_status(int rc, const struct scan_result *res);

#endif
