/* tree.c - see tree.h. Copies with measure_copy_tree, moves copied CMake
 * build dirs with measure_relocate_cmake (lib/measure/build.h), runs the
 * user's commands through /bin/sh as argv (lib/run/spawn.h). */
#include "select/tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/spawn.h"
#include "select/isolation.h"

/* The build dir relative to the root when it lies strictly inside it, else
 * NULL. */
static const char *builddir_below_root(const struct select_tree *t)
{
    size_t n = strlen(t->root);
    if (strncmp(t->builddir, t->root, n) != 0 || t->builddir[n] != '/' || !t->builddir[n + 1]) return NULL;
    return t->builddir + n + 1;
}

static int in_tree(const struct select_tree *t)
{
    return !strcmp(t->builddir, t->root);
}

/* A fresh build dir beside a source copy (the third layout of tree.h). */
static int fresh_build_dir(const struct select_tree *t)
{
    return !in_tree(t) && (t->configure || !builddir_below_root(t));
}

int select_tree_check(const struct select_tree *t)
{
    if (in_tree(t) || builddir_below_root(t) || t->configure) return 0;
    return fmv_error("%s: the build directory is outside the project root %s: give --configure CMD, run in a "
                     "fresh private build directory with FMVGEN_SOURCE_DIR set to a private copy of the sources "
                     "(e.g. --configure 'cmake -S \"$FMVGEN_SOURCE_DIR\" -B .')", t->builddir, t->root);
}

void select_tree_command(const char *cmd, const char *source_dir, struct strvec *argv)
{
    sv_push(argv, "env");
    sv_pushf(argv, "FMVGEN_SOURCE_DIR=%s", source_dir);
    sv_push(argv, "/bin/sh");
    sv_push(argv, "-c");
    sv_push(argv, cmd);
}

void select_tree_variant_command(const struct select_tree *t, const char *copy, const char *dir, const char *cmd,
                                 struct strvec *argv)
{
    select_isolation_prefix(t, copy, dir, argv);
    select_tree_command(cmd, copy, argv);
}

/* The project's sources at dst, patched by plan; without the user's build
 * dir when exclude_builddir and it lies inside the root. */
static int copy_sources(const struct select_tree *t, const struct patch_plan *plan, const char *dst,
                        int exclude_builddir)
{
    if (measure_copy_tree(t->root, dst) != 0) return -1;
    const char *below = exclude_builddir ? builddir_below_root(t) : NULL;
    if (below) {
        /* the user's configured build dir: of no use beside a fresh one */
        char *p = path_join(dst, below);
        remove_tree(p);
        free(p);
    }
    for (size_t i = 0; plan && i < plan->nfiles; i++) {
        char *path = path_join(dst, plan->files[i].rel);
        int rc = write_file_atomic(path, plan->files[i].new_data, plan->files[i].new_len);
        if (rc != 0) fmv_error("%s: cannot write the patched file", path);
        free(path);
        if (rc != 0) return -1;
    }
    return 0;
}

/* Runs one step (configure or build) in dir; its output goes to log. NULL
 * on success, else why (caller frees). */
static char *run_step(const struct select_tree *t, const char *step, const char *cmd, const char *dir,
                      const char *source_dir, struct strbuf *log)
{
    struct strvec argv = STRVEC_INIT;
    select_tree_variant_command(t, source_dir, dir, cmd, &argv);
    struct run_opts opts = {.cwd = dir, .capture_stdout = 1, .capture_stderr = 1, .timeout_s = t->timeout_s,
                            .cancel = t->cancel};
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    if (res.out) sb_add(log, res.out, res.out_len);
    if (res.err) sb_add(log, res.err, res.err_len);
    char *why = NULL;
    if (rc != 0) {
        char *d = run_describe(&res);
        if (res.timed_out) {   /* say what gives it longer: a whole rebuild of a large project takes minutes */
            char *t2 = xasprintf("%s; select's --timeout S gives each build longer", d);
            free(d);
            d = t2;
        }
        why = strcmp(step, "build") ? xasprintf("%s: %s", step, d) : xstrdup(d);
        free(d);
    }
    run_result_free(&res);
    sv_free(&argv);
    return why;
}

int select_tree_build(const struct select_tree *t, const char *name, const struct patch_plan *plan,
                      const char *work, struct variant_build *out, char **source_dir)
{
    memset(out, 0, sizeof *out);
    int fresh = fresh_build_dir(t);
    char *copy = fresh ? xasprintf("%s/src-%s", work, name) : path_join(work, name);
    *source_dir = copy;
    const char *below = builddir_below_root(t);
    out->dir = fresh ? path_join(work, name) : below ? path_join(copy, below) : xstrdup(copy);
    if (copy_sources(t, plan, copy, fresh) != 0) {
        out->failure = xstrdup(plan ? "could not make the patched copy" : "could not copy the project");
        return -1;
    }
    char *log = NULL;
    if (fresh) {
        if (select_isolation_mount_points(t, copy) != 0) {
            out->failure = xstrdup("could not make the patched copy");
            return -1;
        }
        if (mkdir(out->dir, 0755) != 0) {
            out->failure = xasprintf("cannot create the build directory: %s", strerror(errno));
            return fmv_error("%s: %s", out->dir, out->failure);
        }
    } else if (measure_relocate_cmake_ex(copy, below ? below : "", NULL, t->cmake_launcher, &log) != 0) {
        out->failure = xstrdup("the copied CMake build directory could not be moved");
        out->log = log;
        return -1;
    }
    struct strbuf sb = STRBUF_INIT;
    if (log) sb_adds(&sb, log);
    free(log);
    if (t->configure) out->failure = run_step(t, "configure", t->configure, out->dir, copy, &sb);
    if (!out->failure) out->failure = run_step(t, "build", t->build, out->dir, copy, &sb);
    out->log = sb_detach(&sb);
    if (out->failure) return fmv_error("%s: build of variant '%s' failed (%s)", out->dir, name, out->failure);
    return 0;
}
