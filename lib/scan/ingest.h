/* ingest.h - moves record files named in the store (record_files, status
 * 'pending') into loop rows, and imports a plain build log (scan --log).
 *
 * Rules of the loop rows written here:
 *   - one row per (function, file, line, column, kind) of a compile and
 *     variant, with the widest vector size seen (GCC reports a loop and its
 *     vectorized epilogue separately);
 *   - `file` is absolute: resolved against compiles.directory (the
 *     compiler's cwd), so that two compiles naming "a.c" stay apart;
 *   - each file replaces its compile+variant's rows in ONE transaction: all
 *     of its loops or none;
 *   - a file that several record_files rows name (a probe counted for twin
 *     compiles, capture/probe.h) is read once, and its loops go to each of
 *     those compiles (or it is corrupt for each, said once).
 * A corrupt file is marked 'corrupt' with its error (records_error()),
 * named on stderr, and skipped; its compile's rows stay as they were, every
 * other file is still read and nothing already stored is dropped. Record
 * files are only read, never removed (they live in .fmvgen/records, and a
 * rescan overwrites them). */
#ifndef FMVGEN_SCAN_INGEST_H
#define FMVGEN_SCAN_INGEST_H

struct store;

struct ingest_stats {
    int files_read;
    int files_corrupt;
    int loops;           /* rows added */
};

/* Returns 0 when every pending file was read, 1 when some were corrupt
 * (their errors printed), -1 on a store error. stats may be NULL; it is
 * added to, not reset. Reading a file twice (a rerun, or two ingests at
 * once) leaves the same rows: a file's rows are replaced, never appended. */
int records_ingest_pending(struct store *st, struct ingest_stats *stats);

/* `fmvgen scan --log LOG`: reads the -fopt-info-vec / -Rpass remarks of a
 * build log (records_read_optinfo_log) and stores, for every file the log
 * names, one compiles row (compiler_kind 'unknown', compiler "cc" or "c++"
 * by the file's extension, argv {cc|c++, "-c", FILE}, directory root_dir,
 * source FILE absolute - relative names are taken from root_dir) with its
 * loops as variant 'build' and function NULL: a log does not say which
 * function was compiled, the analysis takes the enclosing function of each
 * line. A file named in the log that does not exist is warned about and
 * still stored (the analysis then reports it as not found). Importing the
 * same log again replaces those rows (compiles are keyed by source).
 * Returns 0, or -1 with the error printed (unreadable log: nothing stored;
 * store error). files_read counts the source files, loops the rows. */
int records_import_log(struct store *st, const char *log_path, const char *root_dir, struct ingest_stats *stats);

#endif
