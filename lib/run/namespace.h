/* namespace.h - running a command in a private mount namespace where some
 * directories are bind-mounted over others: a private copy of a project
 * seen at the project's own absolute path, so that everything in the copy
 * naming that path (a configured autotools tree, libtool .la files and
 * wrapper scripts, a build RPATH) names the copy. The mounts exist only
 * inside the namespace: the directories mounted over are never written, and
 * other processes still see them as they are.
 *
 * The namespace is entered by the helper program fmvgen-ns
 * (src/fmvgen-ns.c), installed next to fmvgen: run_argv cannot run code in
 * the child between fork and exec, and a small helper keeps fmvgen's own
 * start-up (libclang) out of every run it prefixes:
 *
 *   fmvgen-ns [--bind SRC DST]... -- PROGRAM ARGS...
 *
 * As root: unshare(CLONE_NEWNS), every mount made private (nothing
 * propagates back), then each bind in order (a later DST may lie inside an
 * earlier one), then exec. Not root, or root without CAP_SYS_ADMIN: a user
 * namespace first, the caller's uid and gid mapped to themselves. */
#ifndef FMVGEN_RUN_NAMESPACE_H
#define FMVGEN_RUN_NAMESPACE_H

#include <stddef.h>

#include "util/util.h"

#define NS_HELPER_NAME "fmvgen-ns"

struct ns_bind {
    const char *src;   /* an existing directory, absolute */
    const char *dst;   /* an existing directory, absolute: shows src inside */
};

/* Enters a new mount namespace (a user namespace too where needed) in the
 * calling process and makes the n binds. 0, or -1 with *why (caller frees)
 * one line: "unshare: Operation not permitted", "mount --bind A B: ...". */
int ns_enter(const struct ns_bind *binds, size_t n, char **why);

/* The path outside the namespace of path as seen inside it: path under a
 * bind's dst (the last such bind wins, as its mount lies on top) rewritten
 * under its src; a copy of path when no bind covers it. Caller frees. */
char *ns_outside_path(const char *path, const struct ns_bind *binds, size_t n);

/* Appends {helper, "--bind", src, dst, ..., "--"} to argv. */
void ns_command_prefix(const char *helper, const struct ns_bind *binds, size_t n, struct strvec *argv);

/* fmvgen-ns next to the running executable; NULL (with *why) when missing. */
char *ns_helper_path(char **why);

/* Whether helper can make these binds here: runs `helper --bind ... --
 * true`. 0, or -1 with *why (caller frees) saying what failed. */
int ns_probe(const char *helper, const struct ns_bind *binds, size_t n, char **why);

/* The helper's main: parses its argv as above, enters the namespace, execs.
 * Returns only on error (125: bad usage or namespace failure, 127: exec
 * failed), after one line "fmvgen-ns: ..." on stderr. */
int ns_helper_main(int argc, char **argv);

#endif
