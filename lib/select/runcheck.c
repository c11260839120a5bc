/* runcheck.c - see runcheck.h. */
#include "select/runcheck.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf/codesize.h"
#include "select/cloneisa.h"
#include "select/hostlines.h"
#include "select/isolation.h"
#include "select/ranwhat.h"
#include "select/session.h"
#include "select/variants.h"

struct select_runcheck {
    size_t nv, nf, nw;
    struct ranwhat_tally *tally;   /* [v * nf + f] */
    char **objects;                /* [w]: the project objects of the workload's first run */
    char **objects_what;           /* [w]: which run that was */
    struct strvec hosts;           /* the hosts of the candidates' "inlined-into" notes:
                                    * their samples by address (hostlines.h) */
};

struct select_runcheck *select_runcheck_new(const struct select_session *s)
{
    struct select_runcheck *c = xcalloc(1, sizeof *c);
    c->nv = s->rep.n_variants;
    c->nf = s->rep.n_functions;
    c->nw = s->rep.n_workloads;
    c->tally = xcalloc(c->nv * c->nf + 1, sizeof *c->tally);
    c->objects = xcalloc(c->nw + 1, sizeof *c->objects);
    c->objects_what = xcalloc(c->nw + 1, sizeof *c->objects_what);
    c->hosts = (struct strvec)STRVEC_INIT;
    for (size_t f = 0; f < c->nf; f++) hostlines_hosts_of(s->candidates.functions[f].notes, &c->hosts, NULL);
    return c;
}

void select_runcheck_free(struct select_runcheck *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nv * c->nf; i++) ranwhat_tally_free(&c->tally[i]);
    for (size_t w = 0; w < c->nw; w++) {
        free(c->objects[w]);
        free(c->objects_what[w]);
    }
    free(c->tally);
    free(c->objects);
    free(c->objects_what);
    sv_free(&c->hosts);
    free(c);
}

static const char *copy_of(const struct select_session *s, size_t v)
{
    return s->sources[v] ? s->sources[v] : s->builds[v].dir;
}

/* The paths of p as the variant's processes saw them, mapped to where
 * they are outside its namespace. */
static void map_outside(const struct select_session *s, size_t v, struct profile *p)
{
    if (!s->tree.ns_helper) return;
    const char *copy = copy_of(s, v), *dir = s->builds[v].dir;
    for (size_t i = 0; i < p->n; i++) {
        if (!p->entries[i].dso) continue;
        char *out = select_isolation_outside(&s->tree, copy, dir, p->entries[i].dso);
        free(p->entries[i].dso);
        p->entries[i].dso = out;
    }
    for (size_t i = 0; i < p->n_maps; i++) {
        char *out = select_isolation_outside(&s->tree, copy, dir, p->maps[i].path);
        free(p->maps[i].path);
        p->maps[i].path = out;
    }
    for (size_t i = 0; i < p->n_sites; i++) {
        char *out = select_isolation_outside(&s->tree, copy, dir, p->sites[i].dso);
        free(p->sites[i].dso);
        p->sites[i].dso = out;
    }
}

/* Variant v's name; v == n_variants is the selected build. */
static const char *name_of(const struct select_session *s, size_t v)
{
    return v < s->rep.n_variants ? s->rep.variants[v].name : "the selected build";
}

static void places_of(const struct select_session *s, size_t v, struct ranwhat_places *pl)
{
    *pl = (struct ranwhat_places){.this_copy = copy_of(s, v), .this_dir = s->builds[v].dir, .root = s->root,
                                  .builddir = s->builddir, .work = s->work};
}

/* Checks 1 and 3 on one run. */
static int check_run(struct select_runcheck *c, struct select_session *s, size_t v, size_t w, size_t round,
                     const struct profile *p)
{
    const char *workload = s->o->runs_cmd->v[w];
    struct ranwhat_places pl;
    places_of(s, v, &pl);
    struct ranwhat_finding f;
    if (ranwhat_check_run(p, &pl, &f)) {
        char *msg = ranwhat_describe(&f, &pl, name_of(s, v), workload, s->tree.ns_off);
        fmv_error("%s", msg);
        free(msg);
        ranwhat_finding_free(&f);
        return -1;
    }
    char *objects = ranwhat_project_objects(p, &pl);
    char *what = xasprintf("run %zu of %s", round + 1, name_of(s, v));
    if (!c->objects_what[w]) {
        c->objects[w] = objects;
        c->objects_what[w] = what;
        return 0;
    }
    char *msg = ranwhat_same_objects(c->objects[w], c->objects_what[w], objects, what, workload);
    free(objects);
    free(what);
    if (!msg) return 0;
    fmv_error("%s", msg);
    free(msg);
    return -1;
}

static void tally_run(struct select_runcheck *c, const struct select_session *s, size_t v, const struct profile *p)
{
    for (size_t f = 0; f < c->nf; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        struct ranwhat_tally *t = &c->tally[v * c->nf + f];
        if (!pf->symbols.n) ranwhat_tally_add(t, p, pf->name);
        for (size_t i = 0; i < pf->symbols.n; i++) ranwhat_tally_add(t, p, pf->symbols.v[i]);
    }
}

int select_runcheck_profile(struct select_runcheck *c, struct select_session *s, size_t v, size_t w, size_t round,
                            struct profile *p)
{
    const char *workload = s->o->runs_cmd->v[w];
    const char *copy = copy_of(s, v), *dir = s->builds[v].dir;
    struct strvec argv = STRVEC_INIT, prefix = STRVEC_INIT;
    select_tree_command(workload, copy, &argv);
    select_isolation_prefix(&s->tree, copy, dir, &prefix);
    /* the workload's period, whatever the arm (sampling.h) */
    struct profile_opts opts = {.prefix = prefix.n ? sv_argv(&prefix) : NULL, .maps = 1,
                               .sites = c->hosts.n ? sv_argv(&c->hosts) : NULL,
                               .period_ns = s->rep.workloads[w].sampling.period_ns};
    char *why = NULL;
    int rc = profile_run_with(sv_argv(&argv), dir, s->work, &opts, p, &why);
    sv_free(&argv);
    sv_free(&prefix);
    if (rc != 0) {
        fmv_error("%s: cannot profile '%s' on %s: %s", s->root, workload, name_of(s, v), why);
        free(why);
        return -1;
    }
    map_outside(s, v, p);
    if (v < c->nv) tally_run(c, s, v, p);
    if (check_run(c, s, v, w, round, p) != 0) {
        profile_free(p);
        return -1;
    }
    return 0;
}

int select_runcheck_finish(struct select_runcheck *c, struct select_session *s)
{
    const struct select_report *r = &s->rep;
    double nr = s->o->runs > 0 ? s->o->runs : 1;
    int rc = 0;
    for (size_t v = 1; v < c->nv && rc == 0; v++) {
        const struct clone_isa *isa = NULL;
        for (size_t f = 0; f < c->nf && rc == 0; f++) {
            const struct ranwhat_tally *t = &c->tally[v * c->nf + f];
            double base = (double)c->tally[f].samples / nr;
            if (!ranwhat_clones_missing(t, base, 1, SELECT_MIN_SAMPLES)) continue;
            if (!isa) isa = session_clone_isa(s, v);   /* only when some hot candidate ran no clone */
            if (!ranwhat_clones_missing(t, base, isa[f].found, SELECT_MIN_SAMPLES)) continue;
            char *msg = ranwhat_describe_missing(t, r->functions[f].display_name, r->variants[v].name,
                                                 s->builds[v].dir, s->tree.ns_off);
            rc = fmv_error("%s", msg);
            free(msg);
        }
    }
    return rc;
}

int select_runcheck_rebuilt(const struct select_session *s, size_t v, const struct timespec *since)
{
    const char *dir = s->builds[v].dir;
    struct strvec files = STRVEC_INIT;
    elf_find_linked(dir, &files);
    int fresh = files.n == 0;
    for (size_t i = 0; i < files.n && !fresh; i++) {
        struct stat st;
        /* the copy kept the user's times; anything the build wrote is newer
         * (a coarse file-system clock may lag the real one by a tick) */
        fresh = stat(files.v[i], &st) == 0 &&
                (st.st_mtim.tv_sec > since->tv_sec ||
                 (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec + 50000000L >= since->tv_nsec));
    }
    int rc = 0;
    if (!fresh)
        rc = fmv_error("%s: the build of %s ('%s') changed none of its %zu programs and libraries, which are still "
                       "the copies of the user's build: it does not compile the patched sources into them, so no run "
                       "could measure a clone; give --build a command that rebuilds them; nothing selected",
                       dir, s->rep.variants[v].name, s->o->build, files.n);
    sv_free(&files);
    return rc;
}
