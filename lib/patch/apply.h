/* apply.h - replacing several source files in place, all or none. Every
 * file's current content is checked against the hash recorded at scan time
 * first (a file edited since the scan is refused, nothing is touched); the
 * new contents go to temp files next to their originals (same file system,
 * same mode), and only when all are written are they renamed over the
 * originals. If a rename fails, the files already replaced get their
 * original bytes back. */
#ifndef FMVGEN_PATCH_APPLY_H
#define FMVGEN_PATCH_APPLY_H

#include <stddef.h>

struct file_update {
    const char *path;            /* absolute */
    const char *expected_hash;   /* hash_file_hex at scan time; NULL: don't check */
    const char *data;            /* the new content */
    size_t len;
};

/* Fault injection for tests: the rename used to install each file. */
typedef int (*apply_rename_fn)(const char *from, const char *to);

/* Returns 0 when every file was replaced, -1 (after a one-line error naming
 * the file) when none was. */
int apply_updates(const struct file_update *updates, size_t n);
int apply_updates_with(const struct file_update *updates, size_t n, apply_rename_fn rename_fn);

/* 0 when path's content still hashes to expected_hash, else -1 after
 * "fmvgen: PATH: changed since the scan ...". */
int apply_check_unchanged(const char *path, const char *expected_hash);

#endif
