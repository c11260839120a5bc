/* ingest.c - from record files and build logs to loop rows in the store
 * (see ingest.h for the rules). The readers (records.h) collect a whole
 * file before anything is written, so a corrupt file never reaches the
 * store half-read; the store writes each file's rows in one transaction. */
#include "scan/ingest.h"
#include "records/records.h"
#include "store/store.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Location files as absolute paths taken from dir; compiler pseudo-files
 * ("<built-in>", "<command-line>") stay as they are. Then one row per key. */
static void normalize_records(struct record_list *l, const char *dir)
{
    for (size_t i = 0; i < l->n; i++) {
        char *file = l->v[i].file;
        if (!file || file[0] == '<') continue;
        l->v[i].file = path_absolute(file, dir);
        free(file);
    }
    record_list_dedup(l);
}

/* Replaces the loops of (compile, variant) with recs in one transaction.
 * With a record file (id > 0), that file is marked read in the same
 * transaction, and nothing is written unless it was still pending.
 * Returns 1 written, 0 skipped, -1 store error (rolled back). */
static int replace_loops(struct store *st, int64_t compile_id, const char *variant, const struct loop_record *recs,
                         size_t n, int64_t record_file_id, const char *record_path)
{
    if (store_begin(st) != 0) return -1;
    if (record_file_id > 0) {
        int claimed = store_claim_record_file(st, record_file_id, record_path, "read", NULL);
        if (claimed <= 0) {
            store_rollback(st);
            return claimed;
        }
    }
    if (store_clear_loops(st, compile_id, variant) != 0) goto fail;
    for (size_t i = 0; i < n; i++)
        if (store_add_loop(st, compile_id, variant, &recs[i]) != 0) goto fail;
    if (store_commit(st) != 0) goto fail;
    return 1;
fail:
    store_rollback(st);
    return -1;
}

/* Orders pending files so that those sharing one file (a probe's records
 * counted for twin compiles, probe.h) are neighbours, first one first. */
static int same_source_cmp(const void *a, const void *b)
{
    const struct pending_record_file *x = *(const struct pending_record_file *const *)a;
    const struct pending_record_file *y = *(const struct pending_record_file *const *)b;
    int c = strcmp(x->path, y->path);
    if (!c) c = strcmp(x->format, y->format);
    if (!c) c = strcmp(x->directory, y->directory);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int same_source(const struct pending_record_file *x, const struct pending_record_file *y)
{
    return !strcmp(x->path, y->path) && !strcmp(x->format, y->format) && !strcmp(x->directory, y->directory);
}

int records_ingest_pending(struct store *st, struct ingest_stats *stats)
{
    struct ingest_stats local = {0};
    if (!stats) stats = &local;
    size_t n;
    int failed;
    struct pending_record_file *files = store_pending_record_files(st, &n, &failed);
    int result = failed ? -1 : 0;
    /* A file that several compiles' rows name is read once: next[i] is the
     * next pending row of the same file, lead[i] whether i is its first. */
    struct pending_record_file **order = xcalloc(n ? n : 1, sizeof *order);
    size_t *next = xcalloc(n ? n : 1, sizeof *next);
    char *lead = xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) order[i] = &files[i];
    qsort(order, n, sizeof *order, same_source_cmp);
    for (size_t i = 0; i < n; i++) {
        size_t at = (size_t)(order[i] - files);
        next[at] = SIZE_MAX;
        lead[at] = i == 0 || !same_source(order[i - 1], order[i]);
        if (!lead[at]) next[order[i - 1] - files] = at;
    }
    for (size_t i = 0; i < n && result >= 0; i++) {
        if (!lead[i]) continue;
        struct pending_record_file *f = &files[i];
        struct record_list recs = RECORD_LIST_INIT;
        if (records_read_file(f->format, f->path, record_list_add, &recs) != 0) {
            /* The reader printed the error; keep it for `list`. */
            for (size_t k = i; k != SIZE_MAX && result >= 0; k = next[k]) {
                int settled = store_claim_record_file(st, files[k].id, files[k].path, "corrupt", records_error());
                if (settled < 0) {
                    result = -1;
                } else if (settled > 0) {
                    result = 1;
                    stats->files_corrupt++;
                }
            }
            record_list_free(&recs);
            continue;
        }
        normalize_records(&recs, f->directory);
        for (size_t k = i; k != SIZE_MAX && result >= 0; k = next[k]) {
            int written = replace_loops(st, files[k].compile_id, files[k].variant, recs.v, recs.n, files[k].id,
                                        files[k].path);
            if (written < 0) {
                result = -1;
            } else if (written > 0) {
                stats->files_read++;
                stats->loops += (int)recs.n;
            }
        }
        record_list_free(&recs);
    }
    free(order);
    free(next);
    free(lead);
    for (size_t i = 0; i < n; i++) {
        free(files[i].variant);
        free(files[i].format);
        free(files[i].path);
        free(files[i].directory);
    }
    free(files);
    return result;
}

/* The driver a plain compile of this file would use. */
static int is_cxx_file(const char *path)
{
    static const char *const exts[] = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C",
                                       ".ii", ".hh", ".hpp", ".hxx", ".h++", ".H", ".tcc"};
    const char *dot = strrchr(path_basename(path), '.');
    for (size_t i = 0; dot && i < sizeof exts / sizeof *exts; i++)
        if (!strcmp(dot, exts[i])) return 1;
    return 0;
}

/* One compiles row for a file named in the log, and its loops. */
static int import_file(struct store *st, const char *log_path, const char *root, const char *source,
                       const struct loop_record *recs, size_t n)
{
    if (!file_exists(source))
        fmv_warn("%s: names %s, which does not exist (relative names are taken from %s)", log_path, source, root);
    int cxx = is_cxx_file(source);
    const char *driver = cxx ? "c++" : "cc";
    char *argv[] = {(char *)driver, "-c", (char *)source, NULL};
    char *hash = hash_file_hex(source);
    struct compile_info ci = {
        .directory = root,
        .argv = argv,
        .compiler = driver,
        .compiler_kind = "unknown",
        .source = source,
        .language = cxx ? "c++" : "c",
        .source_hash = hash,
    };
    int64_t id = store_add_compile(st, &ci);
    free(hash);
    if (id < 0) return -1;
    return replace_loops(st, id, "build", recs, n, 0, NULL) < 0 ? -1 : 0;
}

int records_import_log(struct store *st, const char *log_path, const char *root_dir, struct ingest_stats *stats)
{
    struct ingest_stats local = {0};
    if (!stats) stats = &local;
    struct record_list recs = RECORD_LIST_INIT;
    if (records_read_optinfo_log(log_path, record_list_add, &recs) != 0) return -1;
    char *root = path_absolute(root_dir, NULL);
    /* Every function is NULL, so the dedup's order groups rows by file. */
    normalize_records(&recs, root);
    int rc = 0;
    for (size_t start = 0, end; start < recs.n && rc == 0; start = end) {
        for (end = start + 1; end < recs.n && !strcmp(recs.v[end].file, recs.v[start].file); end++) {}
        rc = import_file(st, log_path, root, recs.v[start].file, &recs.v[start], end - start);
        if (rc == 0) {
            stats->files_read++;
            stats->loops += (int)(end - start);
        }
    }
    free(root);
    record_list_free(&recs);
    return rc;
}
