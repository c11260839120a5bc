/* build.c - see build.h. The copy is made by cp -a (through run_argv, as all
 * spawning is): it keeps links, modes and times exactly, and a project tree
 * can be large, which a hand-written recursive copy would handle no better. */
#include "measure/build.h"
#include "run/spawn.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

int measure_copy_tree(const char *src, const char *dst)
{
    if (!is_directory(src))
        return fmv_error("%s: not a directory", src);
    if (file_exists(dst))
        return fmv_error("%s: already exists; will not copy a project over it", dst);
    /* "SRC/." copies the contents, so dst becomes the copy itself. */
    char *from = path_join(src, ".");
    char *const argv[] = {"cp", "-a", "--", from, (char *)dst, NULL};
    struct run_opts opts = {.capture_stderr = 1, .null_stdout = 1};
    struct run_result res;
    int rc = run_argv(argv, &opts, &res);
    if (rc != 0) {
        char *why = run_describe(&res);
        const char *msg = res.err && *res.err ? res.err : why;
        size_t n = strcspn(msg, "\n");
        fmv_error("%s: cannot copy to %s: %.*s", src, dst, (int)n, msg);
        free(why);
    }
    run_result_free(&res);
    free(from);
    return rc;
}

/* environ with the NAME=... entries of overrides replaced (or added). */
static void env_with(struct strvec *env, char *const *overrides)
{
    for (char **e = environ; *e; e++) {
        int replaced = 0;
        for (char *const *o = overrides; *o && !replaced; o++) {
            size_t name_len = strcspn(*o, "=") + 1;
            replaced = !strncmp(*e, *o, name_len);
        }
        if (!replaced) sv_push(env, *e);
    }
    for (char *const *o = overrides; *o; o++) sv_push(env, *o);
}

int measure_build_variant(const struct variant_spec *spec, struct variant_build *out)
{
    memset(out, 0, sizeof *out);
    out->dir = path_join(spec->work_dir, spec->name);
    if (measure_copy_tree(spec->source_dir, out->dir) != 0) {
        out->failure = xstrdup("could not copy the project");
        return -1;
    }

    struct strvec vars = STRVEC_INIT, argv = STRVEC_INIT, env = STRVEC_INIT;
    if (spec->cc) sv_pushf(&vars, "CC=%s", spec->cc);
    if (spec->cflags) sv_pushf(&vars, "CFLAGS=%s", spec->cflags);
    sv_push_all(&argv, spec->build_argv);
    if (spec->make_vars) sv_push_all(&argv, sv_argv(&vars));
    env_with(&env, sv_argv(&vars));

    struct run_opts opts = {
        .cwd = out->dir,
        .env = sv_argv(&env),
        .capture_stdout = 1,
        .capture_stderr = 1,
        .timeout_s = spec->timeout_s,
    };
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    struct strbuf log = STRBUF_INIT;
    if (res.out) sb_add(&log, res.out, res.out_len);
    if (res.err) sb_add(&log, res.err, res.err_len);
    out->log = sb_detach(&log);
    if (rc != 0) {
        out->failure = run_describe(&res);
        fmv_error("%s: build of variant '%s' failed (%s)", out->dir, spec->name, out->failure);
    }
    run_result_free(&res);
    sv_free(&vars);
    sv_free(&argv);
    sv_free(&env);
    return rc;
}

void variant_build_free(struct variant_build *b)
{
    free(b->dir);
    free(b->log);
    free(b->failure);
    memset(b, 0, sizeof *b);
}
