/* isolation.c - see isolation.h. */
#include "select/isolation.h"

#include <stdlib.h>
#include <string.h>

/* The build dir relative to the root when it lies strictly inside it. */
static const char *below_root(const struct select_tree *t)
{
    size_t n = strlen(t->root);
    if (strncmp(t->builddir, t->root, n) != 0 || t->builddir[n] != '/' || !t->builddir[n + 1]) return NULL;
    return t->builddir + n + 1;
}

static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0);
}

/* Whether the variant at copy/dir is a fresh build dir beside a source
 * copy: its build dir is not inside its copy. */
static int fresh(const char *copy, const char *dir)
{
    return !inside(dir, copy);
}

void select_isolation_free(struct select_tree *t)
{
    free(t->ns_helper);
    free(t->ns_off);
    t->ns_helper = t->ns_off = NULL;
}

void select_isolation_setup(struct select_tree *t, const char *work, int disabled)
{
    select_isolation_free(t);
    char **why_not = &t->ns_off;
    if (disabled) {
        *why_not = xstrdup("--no-namespaces was given");
        return;
    }
    if (!strcmp(t->root, "/")) {
        *why_not = xstrdup("the project root is /");
        return;
    }
    if (inside(work, t->root) || inside(work, t->builddir)) {
        *why_not = xasprintf("the temp directory %s lies inside the project (set TMPDIR elsewhere)", work);
        return;
    }
    char *why = NULL;
    char *helper = ns_helper_path(&why);
    if (!helper) {
        *why_not = why;
        return;
    }
    /* the real thing, harmlessly: the root mounted onto itself */
    struct ns_bind self = {t->root, t->root};
    if (ns_probe(helper, &self, 1, &why) != 0) {
        *why_not = xasprintf("private mount namespaces are not permitted here (%s)", why);
        free(why);
        free(helper);
        return;
    }
    t->ns_helper = helper;
}

size_t select_isolation_binds(const struct select_tree *t, const char *copy, const char *dir, struct ns_bind *out)
{
    if (!t->ns_helper || !copy) return 0;
    size_t n = 0;
    out[n++] = (struct ns_bind){copy, t->root};
    if (dir && fresh(copy, dir) && (below_root(t) || is_directory(t->builddir)))
        out[n++] = (struct ns_bind){dir, t->builddir};
    return n;
}

void select_isolation_prefix(const struct select_tree *t, const char *copy, const char *dir, struct strvec *argv)
{
    struct ns_bind b[2];
    size_t n = select_isolation_binds(t, copy, dir, b);
    if (n) ns_command_prefix(t->ns_helper, b, n, argv);
}

char *select_isolation_outside(const struct select_tree *t, const char *copy, const char *dir, const char *path)
{
    struct ns_bind b[2];
    size_t n = select_isolation_binds(t, copy, dir, b);
    return ns_outside_path(path, b, n);
}

int select_isolation_mount_points(const struct select_tree *t, const char *copy)
{
    const char *below = below_root(t);
    if (!t->ns_helper || !below) return 0;
    char *p = path_join(copy, below);
    int rc = mkdir_p(p, 0755);
    if (rc != 0) fmv_error("%s: cannot create the mount point of the build directory", p);
    free(p);
    return rc;
}
