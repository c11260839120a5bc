/* ranwhat.c - see ranwhat.h. */
#include "select/ranwhat.h"

#include <stdlib.h>
#include <string.h>

#include "elf/fmvnames.h"

static int inside(const char *path, const char *dir)
{
    if (!dir || !*dir) return 0;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0);
}

enum ranwhat_place ranwhat_classify(const char *path, const struct ranwhat_places *pl)
{
    if (!path || path[0] != '/') return RANWHAT_SYSTEM;
    if (inside(path, pl->this_copy) || inside(path, pl->this_dir)) return RANWHAT_THIS;
    if (inside(path, pl->work)) return RANWHAT_OTHER;
    if (inside(path, pl->root) || inside(path, pl->builddir)) return RANWHAT_USER;
    return RANWHAT_SYSTEM;
}

/* The executable of the process that made map i: the latest map of its
 * pid marked first, at or before i. */
static const char *executable_of(const struct profile *p, size_t i)
{
    for (size_t j = i + 1; j-- > 0;)
        if (p->maps[j].pid == p->maps[i].pid && p->maps[j].first) return p->maps[j].path;
    return NULL;
}

int ranwhat_check_run(const struct profile *p, const struct ranwhat_places *pl, struct ranwhat_finding *f)
{
    memset(f, 0, sizeof *f);
    const char *worst = NULL;
    long worst_samples = 0;
    enum ranwhat_place worst_place = RANWHAT_SYSTEM;
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !e->dso) continue;
        enum ranwhat_place place = ranwhat_classify(e->dso, pl);
        if (place != RANWHAT_USER && place != RANWHAT_OTHER) continue;
        long n = 0;   /* the object's samples, over all its symbols */
        for (size_t j = 0; j < p->n; j++)
            if (!p->entries[j].kernel && p->entries[j].dso && !strcmp(p->entries[j].dso, e->dso)) n += p->entries[j].samples;
        if (n > worst_samples) worst = e->dso, worst_samples = n, worst_place = place;
    }
    if (!worst) return 0;
    f->place = worst_place;
    f->path = xstrdup(worst);
    f->samples = worst_samples;
    for (size_t i = 0; i < p->n_maps && !f->loader; i++) {
        if (strcmp(p->maps[i].path, worst) != 0) continue;
        f->is_program = p->maps[i].first;
        const char *exe = executable_of(p, i);
        if (exe) f->loader = xstrdup(exe);
    }
    return 1;
}

static int libtool_program(const char *path)
{
    return path && (strstr(path, "/.libs/") || str_starts_with(path_basename(path), "lt-"));
}

char *ranwhat_describe(const struct ranwhat_finding *f, const struct ranwhat_places *pl, const char *variant,
                       const char *workload, const char *why_no_ns)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s: %s's run of '%s' ran this file (%ld samples), ", f->path, variant, workload, f->samples);
    if (f->place == RANWHAT_OTHER) sb_addf(&sb, "from another variant's copy under %s", pl->work);
    else sb_addf(&sb, "from the user's tree %s", inside(f->path, pl->root) ? pl->root : pl->builddir);
    sb_addf(&sb, ", not from the variant's own build in %s", pl->this_dir);
    if (f->is_program) sb_adds(&sb, " (a program the workload started)");
    else if (f->loader) sb_addf(&sb, ", loaded by %s", f->loader);
    sb_adds(&sb, "; likely cause: ");
    if (f->place == RANWHAT_OTHER) {
        sb_adds(&sb, "a path to another variant's copy got into this one (a cache shared between the builds?); "
                     "build without such caches");
    } else if (f->is_program) {
        sb_adds(&sb, "the build command does not rebuild that program in the copy, or the workload names it by "
                     "its absolute path; make --build rebuild every program the workloads run, and run them by "
                     "paths relative to the build directory");
    } else {
        if (libtool_program(f->loader))
            sb_adds(&sb, "a libtool wrapper script, which runs .libs/PROGRAM with an LD_LIBRARY_PATH naming the "
                         "original tree");
        else
            sb_adds(&sb, "the program's RUNPATH, or an LD_LIBRARY_PATH that a wrapper script sets, names the "
                         "original tree");
        sb_adds(&sb, ", or --build does not rebuild the program or its wrapper; make --build rebuild and relink "
                     "every program, library and wrapper");
    }
    if (f->place == RANWHAT_USER) {
        if (why_no_ns)
            sb_addf(&sb, ", or let select run each variant with its copy at the project's path in a private mount "
                         "namespace, not used here: %s", why_no_ns);
        else
            sb_adds(&sb, " (the copy was mounted at the project's path: the run reached the user's tree by "
                         "another path - a symbolic link, or a second mount of it?)");
    }
    sb_adds(&sb, "; no verdict from such runs, nothing selected");
    return sb_detach(&sb);
}

void ranwhat_finding_free(struct ranwhat_finding *f)
{
    free(f->path);
    free(f->loader);
    memset(f, 0, sizeof *f);
}

/* ---- check 2 ---- */

static int belongs_to(const char *symbol, const char *function)
{
    char *host = elf_fmv_lambda_host(symbol);   /* patch/lambda.h */
    if (host) {
        int r = !strcmp(host, function);
        free(host);
        return r;
    }
    const char *start;
    size_t n = elf_fmv_base(symbol, &start);
    return strlen(function) == n && !strncmp(start, function, n);
}

int ranwhat_is_clone_symbol(const char *symbol, const char *function)
{
    /* fmvgen's dispatch (elf/fmvnames.h): its copies, resolver, trampoline
     * code and renamed body exist only in a patched build */
    struct elf_fmv_name nm;
    if (elf_fmv_name(symbol, &nm) != ELF_FMV_NONE)
        return nm.ident && nm.ident_len == strlen(function) && !strncmp(nm.ident, function, nm.ident_len);
    /* a lambda-dispatched function's lambdas exist only in a patched build too */
    char *host = elf_fmv_lambda_host(symbol);
    if (host) {
        int r = !strcmp(host, function);
        free(host);
        return r;
    }
    size_t n = strlen(function);
    if (strncmp(symbol, function, n) != 0 || symbol[n] != '.' || !symbol[n + 1]) return 0;
    static const char *const pieces[] = {"constprop", "part", "isra", "cold", "lto_priv", "localalias", "llvm",
                                         "specialized", NULL};
    const char *s = symbol + n + 1;
    size_t len = strcspn(s, ".");
    for (const char *const *q = pieces; *q; q++)
        if (len == strlen(*q) && !strncmp(s, *q, len)) return 0;
    return 1;
}

void ranwhat_tally_add(struct ranwhat_tally *t, const struct profile *p, const char *function)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !belongs_to(e->symbol, function)) continue;
        t->samples += e->samples;
        if (ranwhat_is_clone_symbol(e->symbol, function)) {
            t->clone_samples += e->samples;
        } else if (e->samples > t->plain_dso_samples && e->dso) {
            free(t->plain_dso);
            t->plain_dso = xstrdup(e->dso);
            t->plain_dso_samples = e->samples;
        }
    }
}

int ranwhat_clones_missing(const struct ranwhat_tally *t, double baseline_per_run, int clones_found,
                           long min_samples)
{
    return clones_found && baseline_per_run >= (double)min_samples && t->samples >= min_samples &&
           t->clone_samples == 0;
}

char *ranwhat_describe_missing(const struct ranwhat_tally *t, const char *function, const char *variant,
                               const char *build_dir, const char *why_no_ns)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s: %s ran plain %s here (%ld samples), never one of its clones, which the variant's build in "
                 "%s holds; likely cause: this program or library is not the one the variant's build made (the "
                 "build command does not rebuild it, or the workload runs a copy of it elsewhere)",
            t->plain_dso ? t->plain_dso : "?", variant, function, t->samples, build_dir);
    if (why_no_ns) sb_addf(&sb, "; private mount namespaces were not used: %s", why_no_ns);
    sb_adds(&sb, "; make --build rebuild everything the workloads run; no verdict from such runs, nothing selected");
    return sb_detach(&sb);
}

void ranwhat_tally_free(struct ranwhat_tally *t)
{
    free(t->plain_dso);
    memset(t, 0, sizeof *t);
}

/* ---- check 3 ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *ranwhat_project_objects(const struct profile *p, const struct ranwhat_places *pl)
{
    struct strvec v = STRVEC_INIT;
    for (size_t i = 0; i < p->n_maps; i++) {
        const char *path = p->maps[i].path;
        if (ranwhat_classify(path, pl) != RANWHAT_THIS) continue;
        char *rel = inside(path, pl->this_copy) ? path_relative_to(path, pl->this_copy) : NULL;
        char *name = rel ? xstrdup(rel) : xasprintf("BUILD/%s", path + strlen(pl->this_dir) + (path[strlen(pl->this_dir)] == '/'));
        free(rel);
        if (!sv_contains(&v, name)) sv_push(&v, name);
        free(name);
    }
    if (v.n) qsort(v.v, v.n, sizeof *v.v, cmp_str);
    struct strbuf sb = STRBUF_INIT;
    sb_add_joined(&sb, &v, "\n");
    sv_free(&v);
    return sb_detach(&sb);
}

/* The first line of a that is not a line of b, or NULL. */
static char *line_not_in(const char *a, const char *b)
{
    const char *s = a;
    while (*s) {
        size_t n = strcspn(s, "\n");
        int found = 0;
        for (const char *t = b; *t && !found;) {
            size_t m = strcspn(t, "\n");
            found = m == n && !strncmp(s, t, n);
            t += m;
            if (*t) t++;
        }
        if (!found) return xstrndup(s, n);
        s += n;
        if (*s) s++;
    }
    return NULL;
}

char *ranwhat_same_objects(const char *first, const char *first_what, const char *objects, const char *what,
                           const char *workload)
{
    if (!strcmp(first, objects)) return NULL;
    char *extra = line_not_in(objects, first), *missing = extra ? NULL : line_not_in(first, objects);
    char *msg = xasprintf("%s: %s of '%s' loaded it, %s did not: a workload must run the same programs and "
                          "libraries in every run and every variant (a program that moves between runs cannot be "
                          "compared); no verdict, nothing selected",
                          extra ? extra : missing ? missing : "?", extra ? what : first_what, workload,
                          extra ? first_what : what);
    free(extra);
    free(missing);
    return msg;
}
