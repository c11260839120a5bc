/* isolation.h - each variant of `fmvgen select` runs as the project itself:
 * its configure, build, workloads, tests and profiled runs run in a private
 * mount namespace (run/namespace.h) where its copy is bind-mounted at the
 * project's own path, so that whatever in the tree names that path - a
 * configured autotools Makefile, libtool .la files and wrapper scripts
 * (LD_LIBRARY_PATH), a build RPATH, a CMake cache - names the variant's copy,
 * never the user's tree. The user's tree is never written: the mounts exist
 * only inside each command's own namespace, and every variant gets its own.
 *
 * Binds of a variant (tree.h's layouts):
 *   the copy of the root (in-tree, or build dir below the root) -> the root;
 *   a fresh build dir beside a source copy: the source copy -> the root, and
 *     the fresh build dir -> the scanned build dir (when it exists; one
 *     below the root gets an empty mount point in the source copy).
 * Commands keep running in the copy's own paths (cwd, FMVGEN_SOURCE_DIR);
 * the copy is reachable at both. Paths that perf records inside the
 * namespace (ROOT/lib/libk.so) are mapped back to the copy's
 * (select_isolation_outside) before anything outside reads the files.
 *
 * Always used where the kernel permits it (as root, or through a user
 * namespace); when it does not, or with --no-namespaces, variants run at
 * their copies' paths and the run check (ranwhat.h) refuses runs of the
 * user's code, naming why the namespace was not used. */
#ifndef FMVGEN_SELECT_ISOLATION_H
#define FMVGEN_SELECT_ISOLATION_H

#include <stddef.h>

#include "run/namespace.h"
#include "select/tree.h"

/* Decides whether t's variants run in namespaces: sets t->ns_helper (the
 * helper's path) when they do, else t->ns_off (one phrase saying why not).
 * disabled: --no-namespaces. work: the temp dir holding the copies (it must
 * stay visible: not inside the root or the build dir). */
void select_isolation_setup(struct select_tree *t, const char *work, int disabled);
void select_isolation_free(struct select_tree *t);

/* The binds of the variant whose source copy is copy and build dir dir
 * (out has room for 2); 0 when t->ns_helper is NULL. Points into t, copy,
 * dir. */
size_t select_isolation_binds(const struct select_tree *t, const char *copy, const char *dir, struct ns_bind *out);

/* Appends the namespace helper's prefix for that variant to argv (nothing
 * when namespaces are off). */
void select_isolation_prefix(const struct select_tree *t, const char *copy, const char *dir, struct strvec *argv);

/* path as a process of that variant saw it, mapped to where it is outside
 * (ROOT/lib/libk.so -> WORK/fma-levels/lib/libk.so). Caller frees. */
char *select_isolation_outside(const struct select_tree *t, const char *copy, const char *dir, const char *path);

/* Creates in a fresh layout's source copy the mount point of a build dir
 * that lies below the root (the copy leaves the user's build dir out). */
int select_isolation_mount_points(const struct select_tree *t, const char *copy);

#endif
