/* reference.c - see reference.h. */
#include "select/reference.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "patch/plan.h"
#include "store/store.h"
#include "util/util.h"

const struct select_reference_kind select_reference_kinds[] = {
    {"v3", "-march=x86-64-v3", SELECT_MARCH_FLAG},
    {"v3-nofma", "-march=x86-64-v3 -mno-fma", SELECT_MARCH_FLAG " -mno-fma"},
};
const size_t select_n_reference_kinds = sizeof select_reference_kinds / sizeof *select_reference_kinds;

const struct select_reference_kind *select_reference_kind(const char *name)
{
    for (size_t i = 0; i < select_n_reference_kinds; i++)
        if (!strcmp(select_reference_kinds[i].name, name)) return &select_reference_kinds[i];
    return NULL;
}

int select_reference_plan(struct store *st, const char *root, struct patch_plan *out)
{
    memset(out, 0, sizeof *out);
    out->root = xstrdup(root);
    size_t n = 0;
    struct compile_row *rows = store_list_compiles(st, &n);
    struct strvec seen = STRVEC_INIT;
    int rc = 0;
    out->files = xcalloc(n + 1, sizeof *out->files);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *rel = rows[i].source ? path_relative_to(rows[i].source, root) : NULL;
        if (!rel || sv_contains(&seen, rel)) {
            free(rel);
            continue;
        }
        sv_push(&seen, rel);
        size_t len = 0;
        char *data = read_file(rows[i].source, &len);
        if (!data && errno == ENOENT) {
            /* A source the build itself deleted again (lz4's Makefile
             * compiles a throw-away have_pthread.c to test for pthreads):
             * it cannot be part of the program, so it is no reason to give
             * up the whole comparison. */
            sv_pushf(&out->skipped, "%s: gone since the scan, not rewritten", rel);
            free(rel);
            continue;
        }
        if (!data) {
            rc = fmv_error("%s: cannot read the source for the -march=x86-64-v3 reference build (%s)",
                           rows[i].source, strerror(errno));
            free(rel);
            break;
        }
        struct patch_file *f = &out->files[out->nfiles++];
        f->path = xstrdup(rows[i].source);
        f->rel = rel;
        f->new_data = data;
        f->new_len = len;
    }
    out->text = xstrdup("");
    sv_free(&seen);
    compile_rows_free(rows, n);
    return rc;
}

/* path, resolved when it exists (the log and the plan may name one file
 * through different links: /tmp vs its real place). */
static char *resolved(const char *path)
{
    char *real = realpath(path, NULL);
    return real ? real : xstrdup(path);
}

/* rel under root, resolved, is one of logged. */
static int logged_under(const struct strvec *logged, const char *root, const char *rel)
{
    char *path = path_join(root, rel);
    char *real = resolved(path);
    int found = sv_contains(logged, real);
    free(real);
    free(path);
    return found;
}

void select_reference_check(const char *log_path, const char *copy_root, const char *seen_root,
                            const struct patch_plan *plan, struct select_reference_check *out)
{
    memset(out, 0, sizeof *out);
    struct strvec logged = STRVEC_INIT;
    char *text = file_exists(log_path) ? read_file(log_path, NULL) : NULL;
    for (char *line = text; line && *line;) {
        size_t n = strcspn(line, "\n");
        if (n) {
            char *one = xstrndup(line, n);
            char *real = resolved(one);
            if (!sv_contains(&logged, real)) sv_push(&logged, real);
            free(real);
            free(one);
        }
        line += n + (line[n] == '\n');
    }
    free(text);
    for (size_t i = 0; plan && i < plan->nfiles; i++) {
        const char *rel = plan->files[i].rel;
        out->n_sources++;
        if (logged_under(&logged, copy_root, rel) || (seen_root && logged_under(&logged, seen_root, rel)))
            out->n_flagged++;
        else if (out->missed.n < 5) sv_push(&out->missed, rel);
    }
    sv_free(&logged);
}
