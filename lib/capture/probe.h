/* probe.h - extra records-only compiles of the stored compiles, run in
 * parallel (-j): the user's own argv with the output sent to a temp file,
 * dependency-file flags removed (the user's build tree is never touched),
 * the compiler's record flags added, and optionally extra flags. Used for:
 *   - re-running a compile database's compiles  (variant "build")
 *   - the target-ISA probe, e.g. -march=x86-64-v4 (variant "probe:<target>")
 *   - the -O3 comparison of TUs built at -O2      (variant "probe:O3")
 * Each compile's record file is registered in record_files (format
 * "gcc-json" or "clang-yaml") for records_ingest_pending(). */
#ifndef FMVGEN_PROBE_H
#define FMVGEN_PROBE_H

struct store;

struct probe_request {
    const char *variant;          /* "build", "probe:arch=x86-64-v4", "probe:O3" */
    char *const *extra_flags;     /* appended after the user's flags; may be NULL */
    int only_O2;                  /* 1: only TUs whose last -O level is -O2 */
};

/* Runs the request for every stored successful compile, at most jobs at a
 * time. Failures are stored as tu_notes 'probe-failed' and reported, not
 * fatal. Returns the number of compiles that failed, or -1 on a store error. */
int probe_run(struct store *st, const struct probe_request *req, int jobs);

#endif
