/* records.h - the compiler's own account of what it vectorized, read from
 * four sources into one type:
 *   - GCC's vectorizer dump files (-fdump-tree-vect/slp1/slp2-optimized=FILE;
 *     text, read line by line), what the wrapper asks GCC 12+ for
 *   - GCC's -fsave-optimization-record (gzip'd JSON; jansson + zlib)
 *   - Clang's optimization records (YAML; libyaml), as written by
 *     `-Xclang -opt-record-file -Xclang FILE`
 *   - a plain build log with GCC -fopt-info-vec lines and/or Clang
 *     -Rpass=loop-vectorize|slp-vectorizer remarks (text)
 *
 * Only successful vectorizations are reported: loop vectorization and SLP
 * (straight-line code, "basic block part vectorized"). Missed/analysis
 * remarks and GCC's per-function "vectorized N loops in function" notes
 * (a count without a location, implied by the loop records) are skipped.
 *
 * `function` is the function the compiler was compiling when it vectorized,
 * i.e. AFTER inlining - the one to clone - while file/line may point into an
 * inlined helper or a macro (docs/FINDINGS.md, "Records"):
 *   - it is the assembler name: plain C names ("foo"), and for C++ the
 *     MANGLED symbol ("_ZN2ns3Vec3addERKS0_" for ns::Vec::add(const Vec&);
 *     each overload has its own; extern "C" functions are plain). A loop
 *     in a lambda or method inlined into `use` carries use's symbol. So
 *     C++ functions are matched by mangled name.
 *   - Compiler-made clones carry a suffix after a '.', e.g. GCC's
 *     "scale.constprop.0", ".isra.0", ".part.0", Clang-19's ".specialized.1":
 *     the readers strip it (no C identifier or mangled name contains '.'),
 *     because the source function to clone is the one before the dot.
 * A build log cannot tell inlining apart: there `function` is NULL and the
 * location is all there is (the caller takes the enclosing function of the
 * line, which is the inlined helper, not its caller).
 *
 * Widths: GCC says bytes ("using 32 byte vectors"), Clang says elements
 * ("vectorization width: 8"); each fills the field it knows. GCC reports a
 * vectorized epilogue loop as a second record with the same location and a
 * narrower width; record_list_dedup keeps the widest. */
#ifndef FMVGEN_RECORDS_H
#define FMVGEN_RECORDS_H

#include <stddef.h>

#include "store/loops.h"   /* struct loop_record, enum loop_kind */

/* Receives each record; the callee may keep nothing it does not copy.
 * Return non-zero to stop reading. */
typedef int (*record_fn)(const struct loop_record *rec, void *ctx);

/* Each reader returns 0 on success, -1 on a corrupt/truncated/unreadable
 * file after printing one line "fmvgen: PATH: what is wrong". Records seen
 * before the damage are NOT delivered on failure (a half-read file is
 * treated as absent, so a report never silently mixes partial data): the
 * readers collect first and deliver only once the whole file was read.
 *
 * (zlib reads an uncompressed GCC .json as well, so either form works.)
 *
 * Empty files: GCC always writes a header, so an empty .json.gz is corrupt;
 * Clang writes a 0-byte YAML file for a TU without functions, so an empty
 * YAML file is valid and holds no records;
 * an empty build log is an error (nothing to read). */
int records_read_gcc_json(const char *path, record_fn fn, void *ctx);
/* GCC's vectorizer dumps of one compile: path is the loop vectorizer's
 * dump (-fdump-tree-vect-optimized=path), and the SLP vectorizer's two
 * pass instances' dumps are records_gcc_dump_file(path, "slp1"/"slp2").
 * All three must exist; an empty one holds no records (GCC writes a dump
 * only for functions the pass ran on, so whoever runs the compile creates
 * them empty first). Same `function` as the JSON records (the assembler
 * name, clone suffix stripped), same locations and widths. A dump whose
 * last line is cut off, or that does not start with a ";; Function"
 * header, is an error like a corrupt JSON file. */
int records_read_gcc_dump(const char *path, record_fn fn, void *ctx);
/* The pass instances whose dumps make one "gcc-dump" record:
 * {"vect", "slp1", "slp2", NULL}. */
extern const char *const records_gcc_dump_passes[];
/* The dump file of pass next to record_path: record_path with its ".vect"
 * suffix replaced by "." pass ("a/x.vect", "slp1" -> "a/x.slp1"). Caller
 * frees. */
char *records_gcc_dump_file(const char *record_path, const char *pass);
int records_read_clang_yaml(const char *path, record_fn fn, void *ctx);
/* A build log may hold many TUs and both compilers' lines, mixed with any
 * other build output (ignored). `function` is NULL: a log cannot tell
 * inlining apart. File names are as the compiler printed them (relative to
 * the directory the compiler ran in), except that after a recursive make's
 * "make[N]: Entering directory '/abs/dir'" line relative names are taken
 * from that directory (made absolute). ANSI colour codes are ignored. */
int records_read_optinfo_log(const char *path, record_fn fn, void *ctx);

/* The same readers on bytes in memory, which the path readers above hand
 * them once they have read the file (the fuzz targets call these
 * directly). name stands for the file in the error line. The rules are the
 * path readers', bar what only a file can be (missing, a directory,
 * unreadable): the same records, the same errors, nothing delivered on a
 * failure; an empty GCC JSON or build log is an error. */
struct records_buf {
    const char *name;
    const void *data;
    size_t len;
};
int records_read_gcc_json_buf(const struct records_buf *in, record_fn fn, void *ctx);
/* A "gcc-dump" record is several dumps (records_gcc_dump_passes: one per
 * pass instance): parts[0..n) are read in turn, as one record. */
int records_read_gcc_dump_buf(const struct records_buf *parts, size_t n, record_fn fn, void *ctx);
int records_read_clang_yaml_buf(const struct records_buf *in, record_fn fn, void *ctx);
int records_read_optinfo_log_buf(const struct records_buf *in, record_fn fn, void *ctx);

/* Dispatch on the store's record_files.format: "gcc-dump", "gcc-json",
 * "clang-yaml", "optinfo-log". An unknown format is an error like a corrupt file. */
int records_read_file(const char *format, const char *path, record_fn fn, void *ctx);

/* The error line (without "fmvgen: ") of the last failed read in this
 * thread, e.g. "a.c.opt-record.json.gz: truncated gzip stream"; "" if none.
 * Lets the ingest keep the reason in the store. */
const char *records_error(void);

/* A growable list of owned records: a record_fn that collects. */
struct record_list {
    struct loop_record *v;
    size_t n, cap;
};
#define RECORD_LIST_INIT {NULL, 0, 0}
int record_list_add(const struct loop_record *rec, void *list);   /* copies rec; always returns 0 */
/* One record per (function, file, line, column, kind), keeping the widest
 * (vector_bytes, then vector_lanes); order: by that key. */
void record_list_dedup(struct record_list *l);
void record_list_free(struct record_list *l);   /* frees the records; l is reset */

#endif
