/* tree.h - where `fmvgen select` builds and runs a variant: always in a
 * private copy under its temp dir, never in the user's tree. Three layouts,
 * from where the scan's build directory is:
 *
 *   in the project root (in-tree): the root is copied to WORK/NAME, the
 *     patch's files written into the copy; --configure (if given) and
 *     --build run there;
 *   below the root (e.g. ROOT/build), no --configure: the same copy, built
 *     in WORK/NAME/build - a copied CMake build dir is moved first
 *     (measure_relocate_cmake: its caches hold absolute paths);
 *   elsewhere, or below the root with --configure: the root is copied to
 *     WORK/src-NAME (without the user's build dir when it lies inside) and
 *     patched; a fresh, empty WORK/NAME is the build dir, where --configure
 *     (required here) and then --build run, e.g.
 *     --configure 'cmake -S "$FMVGEN_SOURCE_DIR" -B .'.
 * Every command of a variant - configure, build, workloads, tests - runs in
 * its build dir with FMVGEN_SOURCE_DIR naming its source copy in the
 * environment (select_tree_command). */
#ifndef FMVGEN_SELECT_TREE_H
#define FMVGEN_SELECT_TREE_H

#include <signal.h>

#include "measure/build.h"
#include "patch/plan.h"
#include "util/util.h"

struct select_tree {
    const char *root;        /* the project root (absolute) */
    const char *builddir;    /* the scanned build dir (absolute) */
    const char *configure;   /* shell command, or NULL */
    const char *build;       /* shell command */
    double timeout_s;        /* per command; 0: none */
    const volatile sig_atomic_t *cancel;   /* NULL, or stop a command once non-zero (run/spawn.h) */
    /* put first in a moved CMake build dir's compiler launchers
     * (measure_relocate_cmake_ex), NULL: none - the references set it to
     * fmvgen's wrapper for their builds, since a configured cache runs its
     * compiler by absolute path, past the wrapper's links in PATH */
    const char *cmake_launcher;
    /* set by select_isolation_setup (select/isolation.h), freed by
     * select_isolation_free: the namespace helper when each variant's
     * commands run with its copy at the project's paths, else NULL and
     * ns_off says why not */
    char *ns_helper, *ns_off;
};

/* 0 when the layout can be built; else -1 after one error line saying what
 * to pass (the build dir is outside the root and no configure is given). */
int select_tree_check(const struct select_tree *t);

/* Builds variant name under work (an existing directory): copies, patches
 * with plan (NULL: unpatched), configures, builds. out->dir is the build
 * dir, where the variant's commands run; *source_dir its source copy
 * (caller frees; set even on failure). Returns 0, or -1 after one error
 * line, with out->failure saying which step failed and out->log the
 * commands' output. */
int select_tree_build(const struct select_tree *t, const char *name, const struct patch_plan *plan,
                      const char *work, struct variant_build *out, char **source_dir);

/* The argv running shell command cmd as the variant whose source copy is
 * copy and build dir dir: select_isolation_prefix (select/isolation.h),
 * then select_tree_command. */
void select_tree_variant_command(const struct select_tree *t, const char *copy, const char *dir, const char *cmd,
                                 struct strvec *argv);

/* Appends to argv the command that runs shell command cmd with
 * FMVGEN_SOURCE_DIR=source_dir: {"env", "FMVGEN_SOURCE_DIR=...", "/bin/sh",
 * "-c", cmd} (through env(1), so argv-only runners such as the profiler and
 * the timer pass it on too). */
void select_tree_command(const char *cmd, const char *source_dir, struct strvec *argv);

#endif
