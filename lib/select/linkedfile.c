/* linkedfile.c - see linkedfile.h. */
#include "select/linkedfile.h"

#include <stdlib.h>
#include <string.h>

#include "capture/compiler.h"
#include "capture/wrapper.h"
#include "elf/elffile.h"
#include "elf/linkedcode.h"
#include "store/store.h"

struct answer {
    char *name, *path;
    long owner;
};

struct linked_files {
    size_t n;
    long *id;                  /* [f] */
    const char **names;        /* [f] */
    struct strvec *links;      /* [f]: linked files its compile-and-link commands wrote */
    struct strvec *objects;    /* [f]: objects its -c compiles wrote (the kept copies) */
    struct answer *answers;
    size_t n_answers;
    struct strvec notes;
};

/* Reads f's compiles from rows into lf; 0, or -1 when one cannot say where
 * its code went (no output, not a compile). */
static int take_compiles(struct linked_files *lf, size_t f, const char *store_dir, const struct patch_function *pf,
                         const struct compile_row *rows, size_t nrows)
{
    size_t seen = 0;
    for (size_t i = 0; i < nrows; i++) {
        const struct compile_row *c = &rows[i];
        if (!c->source || strcmp(c->source, pf->file) != 0) continue;
        seen++;
        struct compile_args a;
        compile_args_parse(c->argv, &a);
        int ok = a.is_compile && c->output && *c->output;
        if (ok && a.links) {
            if (!sv_contains(&lf->links[f], c->output)) sv_push(&lf->links[f], c->output);
        } else if (ok) {
            char *kept = wrapper_kept_object(store_dir, c->source, c->output);
            char *object = kept ? kept : path_absolute(c->output, c->directory);
            if (!sv_contains(&lf->objects[f], object)) sv_push(&lf->objects[f], object);
            free(object);
        }
        compile_args_free(&a);
        if (!ok) return -1;
    }
    return seen ? 0 : -1;
}

struct linked_files *linked_files_new(struct store *st, const char *store_dir, const struct patch_function *fs,
                                      size_t n)
{
    struct linked_files *lf = xcalloc(1, sizeof *lf);
    lf->n = n;
    lf->id = xcalloc(n + 1, sizeof *lf->id);
    lf->names = xcalloc(n + 1, sizeof *lf->names);
    lf->links = xcalloc(n + 1, sizeof *lf->links);
    lf->objects = xcalloc(n + 1, sizeof *lf->objects);
    lf->notes = (struct strvec)STRVEC_INIT;
    for (size_t f = 0; f < n; f++) lf->names[f] = fs[f].name;
    size_t nrows = 0;
    struct compile_row *rows = NULL;
    int *shared = xcalloc(n + 1, sizeof *shared);
    for (size_t f = 0; f < n; f++)
        for (size_t g = 0; g < n; g++)
            if (g != f && !strcmp(fs[f].name, fs[g].name)) shared[f] = 1;
    for (size_t f = 0; f < n && st; f++) {
        if (!shared[f]) continue;
        if (!rows) rows = store_list_compiles(st, &nrows);
        if (fs[f].is_static || take_compiles(lf, f, store_dir, &fs[f], rows, nrows) != 0) shared[f] = -1;
    }
    /* a name gets ids only when every candidate of it has them */
    long next = 1;
    for (size_t f = 0; f < n; f++) {
        if (shared[f] != 1) continue;
        int all = 1;
        for (size_t g = 0; g < n && all; g++)
            if (!strcmp(fs[f].name, fs[g].name)) all = shared[g] == 1;
        if (all) lf->id[f] = next++;
    }
    free(shared);
    compile_rows_free(rows, nrows);
    return lf;
}

void linked_files_free(struct linked_files *lf)
{
    if (!lf) return;
    for (size_t f = 0; f < lf->n; f++) {
        sv_free(&lf->links[f]);
        sv_free(&lf->objects[f]);
    }
    for (size_t i = 0; i < lf->n_answers; i++) {
        free(lf->answers[i].name);
        free(lf->answers[i].path);
    }
    free(lf->answers);
    free(lf->links);
    free(lf->objects);
    free(lf->names);
    free(lf->id);
    sv_free(&lf->notes);
    free(lf);
}

long linked_files_id(const struct linked_files *lf, size_t f)
{
    return lf && f < lf->n ? lf->id[f] : 0;
}

int linked_files_name(const struct linked_files *lf, const char *name)
{
    for (size_t f = 0; lf && f < lf->n; f++)
        if (lf->id[f] && !strcmp(lf->names[f], name)) return 1;
    return 0;
}

/* The answer from the compiles and, where they do not say, the baseline's
 * code; why: a reason when unknown (caller frees). */
static long find_owner(struct linked_files *lf, const char *name, const char *path, const char *baseline_path,
                       char **why)
{
    *why = NULL;
    long owner = LINKED_FILES_NONE;
    size_t with_objects = 0;
    for (size_t f = 0; f < lf->n; f++) {
        if (!lf->id[f] || strcmp(lf->names[f], name) != 0) continue;
        if (sv_contains(&lf->links[f], path)) {
            /* one program cannot link two definitions of a global name */
            if (owner != LINKED_FILES_NONE) {
                *why = xstrdup("two candidates' compile-and-link commands wrote it");
                return LINKED_FILES_UNKNOWN;
            }
            owner = lf->id[f];
        }
        with_objects += lf->objects[f].n > 0;
    }
    if (owner != LINKED_FILES_NONE || !with_objects) return owner;
    /* objects linked later: which one's code the baseline's file holds */
    struct elf_file ef;
    if (!baseline_path || elf_file_open(baseline_path, &ef) != 0) {
        *why = xasprintf("the baseline's %s cannot be read", baseline_path ? baseline_path : path);
        return LINKED_FILES_UNKNOWN;
    }
    size_t matched = 0;
    for (size_t f = 0; f < lf->n && !*why; f++) {
        if (!lf->id[f] || strcmp(lf->names[f], name) != 0) continue;
        int match = 0;
        for (size_t i = 0; i < lf->objects[f].n && !*why; i++) {
            char *err = NULL;
            int m = elf_linked_from_object(&ef, name, lf->objects[f].v[i], &err);
            if (m < 0) *why = err;
            else free(err);
            match |= m > 0;
        }
        if (match && !*why) {
            matched++;
            owner = lf->id[f];
        }
    }
    elf_file_close(&ef);
    if (*why) return LINKED_FILES_UNKNOWN;
    if (matched > 1) {
        *why = xasprintf("its %s is the code of %zu candidates' objects", name, matched);
        return LINKED_FILES_UNKNOWN;
    }
    return owner;   /* NONE when no object matched: another file's code */
}

long linked_files_owner(struct linked_files *lf, const char *name, const char *project_path, const char *baseline_path)
{
    if (!lf || !project_path) return LINKED_FILES_NONE;
    for (size_t i = 0; i < lf->n_answers; i++)
        if (!strcmp(lf->answers[i].name, name) && !strcmp(lf->answers[i].path, project_path))
            return lf->answers[i].owner;
    char *why = NULL;
    long owner = find_owner(lf, name, project_path, baseline_path, &why);
    if (why) sv_pushf(&lf->notes, "%s: the samples of %s in %s cannot be told apart by linked file: %s", name, name,
                      project_path, why);
    free(why);
    lf->answers = xrealloc(lf->answers, (lf->n_answers + 1) * sizeof *lf->answers);
    lf->answers[lf->n_answers++] = (struct answer){xstrdup(name), xstrdup(project_path), owner};
    return owner;
}

/* path below dir (dir/X): X, else NULL. */
static const char *below(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    while (n > 1 && dir[n - 1] == '/') n--;
    return n && !strncmp(path, dir, n) && path[n] == '/' ? path + n + 1 : NULL;
}

char *linked_files_project_path(const char *path, const char *copy, const char *dir, const char *root,
                                const char *builddir)
{
    const char *rest;
    /* the build dir first: it may lie inside the copy (WORK/NAME/build) */
    if (path && (rest = below(path, dir))) return xasprintf("%s/%s", builddir, rest);
    if (path && (rest = below(path, copy))) return xasprintf("%s/%s", root, rest);
    return NULL;
}

char *linked_files_copy_path(const char *project_path, const char *copy, const char *dir, const char *root,
                             const char *builddir)
{
    const char *a = below(project_path, builddir), *b = below(project_path, root);
    /* the deeper of the two: builddir may lie inside the root */
    if (a && (!b || strlen(builddir) >= strlen(root))) return xasprintf("%s/%s", dir, a);
    if (b) return xasprintf("%s/%s", copy, b);
    return NULL;
}

void linked_files_notes(const struct linked_files *lf, struct strvec *notes)
{
    for (size_t i = 0; lf && i < lf->notes.n; i++) sv_push(notes, lf->notes.v[i]);
}
