/* dispatch.c - see dispatch.h. */
#include "verify/dispatch.h"
#include "run/spawn.h"
#include "verify/cpus.h"
#include "verify/dispatch_gdb.h"
#include "verify/libdeps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#define HELPER_NAME "libfmvgen-dispatch.so"

char *dispatch_find_helper(void)
{
    const char *env = getenv("FMVGEN_DISPATCH_LIB");
    if (env && *env) return file_exists(env) ? path_absolute(env, NULL) : NULL;
    char *self = self_exe_path();
    char *found = NULL;
    if (self) {
        char *dir = path_dirname(self);
        char *build = xasprintf("%s/preload/%s", dir, HELPER_NAME);     /* build tree: src/ */
        char *installed = xasprintf("%s/../lib/fmvgen/%s", dir, HELPER_NAME);  /* prefix/bin */
        if (file_exists(build)) found = path_absolute(build, NULL);
        else if (file_exists(installed)) found = path_absolute(installed, NULL);
        free(build);
        free(installed);
        free(dir);
        free(self);
    }
    if (!found) {
        char *pkg = xasprintf("%s/%s", FMVGEN_PKGLIBDIR, HELPER_NAME);
        if (file_exists(pkg)) found = pkg;
        else free(pkg);
    }
    return found;
}

/* ---- the plan ---- */

static void add_object(struct dispatch_plan *plan, const char *path, int is_main, const struct elf_mv_list *mv)
{
    plan->objects = xrealloc(plan->objects, (plan->n_objects + 1) * sizeof *plan->objects);
    struct dispatch_object *o = &plan->objects[plan->n_objects++];
    o->path = xstrdup(path);
    o->is_main = is_main;
    o->mv = *mv;
}

int dispatch_plan_build(const char *program, const char *ld_library_path, const char *scratch_dir,
                        struct dispatch_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    struct elf_mv_list mv;
    if (elf_mv_read(program, &mv) != 0) return -1;
    add_object(plan, program, 1, &mv);
    if (mv.is_static) {
        /* No preload into a static program: gdb calls its resolvers. */
        plan->gdb = find_in_path("gdb");
        if (!plan->gdb)
            plan->unavailable = xstrdup("static executable: gdb is needed to call its resolvers (apt-get install gdb)");
    } else {
        struct lib_dep *deps;
        size_t n;
        if (libdeps_resolve(program, ld_library_path, &deps, &n) == 0) {
            for (size_t i = 0; i < n; i++) {
                if (!deps[i].path) {
                    sv_push(deps[i].missing ? &plan->missing_libs : &plan->system_libs, deps[i].name);
                    continue;
                }
                /* The request file is tab- and line-separated. */
                if (strpbrk(deps[i].path, "\t\n")) {
                    fmv_warn("%s: a tab or newline in the path; left out of the dispatch map", deps[i].path);
                    continue;
                }
                struct elf_mv_list lib;
                if (elf_mv_read(deps[i].path, &lib) != 0) {
                    fmv_warn("%s: left out of the dispatch map", deps[i].path);
                    continue;
                }
                add_object(plan, deps[i].path, 0, &lib);
            }
            libdeps_free(deps, n);
        }
    }

    /* Every function whose resolver has an address the helper can call. */
    struct strbuf req = STRBUF_INIT;
    for (size_t o = 0; o < plan->n_objects; o++) {
        const struct elf_mv_list *list = &plan->objects[o].mv;
        for (size_t f = 0; f < list->n_functions; f++) {
            const struct elf_mv_function *fn = &list->functions[f];
            uint64_t resolver = fn->resolver_addr ? fn->resolver_addr : fn->ifunc_addr;
            if (!resolver) continue;
            plan->entries = xrealloc(plan->entries, (plan->n_entries + 1) * sizeof *plan->entries);
            plan->entries[plan->n_entries++] = (struct dispatch_entry){o, fn, resolver};
            /* The helper recognises the main program by position, libraries
             * by device and inode: an absolute path is all it needs. */
            char *abs = path_absolute(plan->objects[o].path, NULL);
            sb_addf(&req, "%s\t%" PRIx64 "\n", plan->objects[o].is_main ? "" : abs, resolver);
            free(abs);
        }
    }
    plan->request_path = path_join(scratch_dir, "dispatch-request");
    int rc = 0;
    if (write_file_atomic(plan->request_path, sb_str(&req), req.len) != 0)
        rc = fmv_error("%s: cannot write: %s", plan->request_path, strerror(errno));
    sb_free(&req);
    return rc;
}

void dispatch_plan_free(struct dispatch_plan *plan)
{
    for (size_t i = 0; i < plan->n_objects; i++) {
        free(plan->objects[i].path);
        elf_mv_list_free(&plan->objects[i].mv);
    }
    free(plan->objects);
    free(plan->entries);
    sv_free(&plan->system_libs);
    sv_free(&plan->missing_libs);
    free(plan->unavailable);
    free(plan->gdb);
    free(plan->request_path);
    free(plan->library_path);
    memset(plan, 0, sizeof *plan);
}

int dispatch_plan_level_only(const char *scratch_dir, struct dispatch_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->request_path = path_join(scratch_dir, "level-request");
    if (write_file_atomic(plan->request_path, "", 0) != 0)
        return fmv_error("%s: cannot write: %s", plan->request_path, strerror(errno));
    return 0;
}

int dispatch_level_probe_argv(struct strvec *argv)
{
    char *prog = find_in_path("true");
    if (!prog) return -1;
    sv_push(argv, prog);
    free(prog);
    return 0;
}

/* ---- one run of the helper ---- */

void dispatch_record_answer(const struct dispatch_plan *plan, struct dispatch_result *res, size_t idx,
                            uint64_t file_addr)
{
    res->offsets[idx] = file_addr;
    res->picks[idx] = elf_mv_clone_at(plan->entries[idx].fn, file_addr);
    if (!res->picks[idx]) res->other[idx] = xasprintf("0x%" PRIx64 " (not a known clone)", file_addr);
}

/* Reads the helper's lines (see src/preload/dispatch.c). Returns 1 when its
 * "done" line is there. */
static int parse_helper_output(const struct dispatch_plan *plan, char *text, struct dispatch_result *res)
{
    int done = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "cpu ", 4)) {
            char *level = line + 4;
            char *sp = strchr(level, ' ');
            free(res->level);
            free(res->features);
            res->level = sp ? xstrndup(level, (size_t)(sp - level)) : xstrdup(level);
            res->features = xstrdup(sp ? sp + 1 : "");
        } else if (!strcmp(line, "done")) {
            done = 1;
        } else {
            char *end;
            unsigned long idx = strtoul(line, &end, 10);
            if (end == line || idx >= plan->n_entries) continue;
            res->answered[idx] = 1;
            free(res->other[idx]);
            res->other[idx] = NULL;
            if (!strncmp(end, " ok ", 4)) {
                dispatch_record_answer(plan, res, idx, strtoull(end + 4, NULL, 16));
            } else if (!strncmp(end, " elsewhere ", 11)) {
                char *name;
                uint64_t off = strtoull(end + 11, &name, 16);
                while (*name == ' ') name++;
                res->other[idx] = xasprintf("%s+0x%" PRIx64, path_basename(name), off);
            } else if (!strcmp(end, " null")) {
                res->other[idx] = xstrdup("NULL");
            } else if (!strcmp(end, " no-object")) {
                res->other[idx] = xstrdup("(object not loaded)");
            }
        }
    }
    return done;
}

int dispatch_run(const struct dispatch_plan *plan, const char *helper, char *const *argv, const char *qemu,
                 const char *model, double timeout_s, const char *out_path, struct dispatch_result *res)
{
    memset(res, 0, sizeof *res);
    size_t n = plan->n_entries;
    res->n = n;
    res->picks = xcalloc(n + 1, sizeof *res->picks);
    res->offsets = xcalloc(n + 1, sizeof *res->offsets);
    res->answered = xcalloc(n + 1, sizeof *res->answered);
    res->other = xcalloc(n + 1, sizeof *res->other);
    if (plan->unavailable) {
        res->error = xstrdup(plan->unavailable);
        return -1;
    }
    if (plan->gdb) return dispatch_gdb_run(plan, argv, qemu, model, timeout_s, res);
    /* A preload the user already has stays, after the helper. */
    const char *user_preload = getenv("LD_PRELOAD");
    struct strvec vars = STRVEC_INIT;
    if (user_preload && *user_preload) sv_pushf(&vars, "LD_PRELOAD=%s:%s", helper, user_preload);
    else sv_pushf(&vars, "LD_PRELOAD=%s", helper);
    sv_pushf(&vars, "FMVGEN_DISPATCH_REQUEST=%s", plan->request_path);
    sv_pushf(&vars, "FMVGEN_DISPATCH_OUT=%s", out_path);
    if (plan->library_path) sv_pushf(&vars, "LD_LIBRARY_PATH=%s", plan->library_path);

    struct strvec cmd = STRVEC_INIT, env = STRVEC_INIT;
    if (qemu) {
        cpus_qemu_argv(&cmd, qemu, model, sv_argv(&vars));
    } else {
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "LD_PRELOAD=", 11) != 0 &&
                !(plan->library_path && strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0))
                sv_push(&env, *e);
        sv_push_all(&env, sv_argv(&vars));
    }
    sv_push_all(&cmd, argv);
    remove(out_path);
    struct run_opts o = {.env = qemu ? NULL : sv_argv(&env), .null_stdout = 1, .capture_stderr = 1,
                         .timeout_s = timeout_s};
    struct run_result r;
    run_argv(sv_argv(&cmd), &o, &r);
    char *text = read_file(out_path, NULL);
    int done = text ? parse_helper_output(plan, text, res) : 0;
    free(text);
    if (!done) {
        char *how = run_describe(&r);
        size_t answered = 0;
        for (size_t i = 0; i < n; i++) answered += res->answered[i];
        if (answered < n && r.spawned && (r.signal || r.timed_out))
            res->error = xasprintf("the helper stopped (%s) in the resolver of %s", how,
                                   plan->entries[answered].fn->name);
        else {
            char *tail = cpus_stderr_tail(r.err);
            res->error = xasprintf("the helper did not run (%s)%s%s", how, tail ? ": " : "", tail ? tail : "");
            free(tail);
        }
        free(how);
    }
    run_result_free(&r);
    sv_free(&cmd);
    sv_free(&env);
    sv_free(&vars);
    return done ? 0 : -1;
}

void dispatch_result_free(struct dispatch_result *res)
{
    free(res->level);
    free(res->features);
    free(res->picks);
    free(res->offsets);
    free(res->answered);
    for (size_t i = 0; res->other && i < res->n; i++) free(res->other[i]);
    free(res->other);
    free(res->error);
    memset(res, 0, sizeof *res);
}
