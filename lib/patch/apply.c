/* apply.c - see apply.h. The originals are kept in memory (they were read
 * for the hash check anyway), so restoring needs no backup files that could
 * be left behind in the user's tree. */
#include "patch/apply.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int apply_check_unchanged(const char *path, const char *expected_hash)
{
    if (!expected_hash) return 0;
    char *now = hash_file_hex(path);
    if (!now) return fmv_error("%s: cannot read: %s", path, strerror(errno));
    int same = !strcmp(now, expected_hash);
    free(now);
    if (!same) return fmv_error("%s: changed since the scan; run 'fmvgen scan' again (nothing was modified)", path);
    return 0;
}

/* Writes data to a new temp file beside path with path's mode. */
static char *write_temp_beside(const char *path, const char *data, size_t len)
{
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? (st.st_mode & 07777) : 0644;
    char *tmp = xasprintf("%s.fmvgen-new.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        free(tmp);
        return NULL;
    }
    size_t off = 0;
    int ok = 1;
    while (off < len && ok) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) ok = 0;
        else off += (size_t)w;
    }
    if (fsync(fd) != 0) ok = 0;
    if (close(fd) != 0) ok = 0;
    /* fchmod-free: open() applied the umask; put the exact mode back. */
    if (ok && chmod(tmp, mode) != 0) ok = 0;
    if (!ok) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        errno = e;
        return NULL;
    }
    return tmp;
}

int apply_updates_with(const struct file_update *u, size_t n, apply_rename_fn rename_fn)
{
    if (!rename_fn) rename_fn = rename;
    char **old = xcalloc(n ? n : 1, sizeof *old);
    size_t *old_len = xcalloc(n ? n : 1, sizeof *old_len);
    char **tmp = xcalloc(n ? n : 1, sizeof *tmp);
    size_t installed = 0;
    int rc = -1;

    /* 1. Everything is as it was at scan time. */
    for (size_t i = 0; i < n; i++) {
        /* As GNU patch: a link or special file is not patched (a rename
         * would replace the link by a regular file). */
        struct stat st;
        if (lstat(u[i].path, &st) == 0 && !S_ISREG(st.st_mode)) {
            fmv_error("%s: is %s, not a regular file: not patched (nothing was modified)", u[i].path,
                      S_ISLNK(st.st_mode) ? "a symbolic link" : "a special file");
            goto out;
        }
        old[i] = read_file(u[i].path, &old_len[i]);
        if (!old[i]) {
            fmv_error("%s: cannot read: %s (nothing was modified)", u[i].path, strerror(errno));
            goto out;
        }
        if (u[i].expected_hash) {
            char *h = hash_bytes_hex(old[i], old_len[i]);
            int same = !strcmp(h, u[i].expected_hash);
            free(h);
            if (!same) {
                fmv_error("%s: changed since the scan; run 'fmvgen scan' again (nothing was modified)", u[i].path);
                goto out;
            }
        }
    }
    /* 2. Every new content is on disk beside its file. */
    for (size_t i = 0; i < n; i++) {
        tmp[i] = write_temp_beside(u[i].path, u[i].data, u[i].len);
        if (!tmp[i]) {
            fmv_error("%s: cannot write its new version: %s (nothing was modified)", u[i].path, strerror(errno));
            goto out;
        }
    }
    /* 3. Renames; on failure put the originals back. */
    for (; installed < n; installed++) {
        if (rename_fn(tmp[installed], u[installed].path) != 0) {
            int e = errno;
            size_t failed = installed;
            int restored = 1;
            while (installed > 0) {
                installed--;
                if (write_file_atomic(u[installed].path, old[installed], old_len[installed]) != 0) {
                    restored = 0;
                    fmv_error("%s: could not restore the original after a failed apply: %s", u[installed].path,
                              strerror(errno));
                }
            }
            fmv_error("%s: cannot replace: %s (%s)", u[failed].path, strerror(e),
                      restored ? "nothing was modified" : "SOME FILES COULD NOT BE RESTORED");
            goto out;
        }
        free(tmp[installed]);
        tmp[installed] = NULL;   /* it is the file now */
    }
    rc = 0;
out:
    for (size_t i = 0; i < n; i++) {
        if (tmp[i]) unlink(tmp[i]);
        free(tmp[i]);
        free(old[i]);
    }
    free(tmp);
    free(old);
    free(old_len);
    return rc;
}

int apply_updates(const struct file_update *u, size_t n) { return apply_updates_with(u, n, NULL); }
