/* reference.c - see reference.h. */
#include "select/reference.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "patch/plan.h"
#include "store/store.h"
#include "util/util.h"

/* A flag that shapes the code or is needed to compile it, as one token. */
static int kept_flag(const char *a)
{
    if (a[0] != '-' || strpbrk(a, " \t\n'\"\\")) return 0;
    if (!strncmp(a, "-march=", 7) || !strncmp(a, "-mtune=", 7)) return 0;   /* ours comes last */
    if (!strncmp(a, "-O", 2) || !strncmp(a, "-g", 2) || !strncmp(a, "-std=", 5) || !strcmp(a, "-pthread"))
        return 1;
    if ((a[1] == 'f' || a[1] == 'm') && a[2]) return 1;
    if ((a[1] == 'D' || a[1] == 'U' || a[1] == 'I') && a[2]) return 1;
    return 0;
}

static int has_arg(char *const *argv, const char *a)
{
    for (; *argv; argv++)
        if (!strcmp(*argv, a)) return 1;
    return 0;
}

char *select_reference_flags_of(char **const *argvs, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    struct strvec seen = STRVEC_INIT;
    if (n > 0) {
        for (char *const *a = argvs[0] + 1; *a; a++) {
            if (!kept_flag(*a) || sv_contains(&seen, *a)) continue;
            int everywhere = 1;
            for (size_t i = 1; i < n && everywhere; i++) everywhere = has_arg(argvs[i] + 1, *a);
            if (!everywhere) continue;
            sv_push(&seen, *a);
            sb_adds(&sb, *a);
            sb_addc(&sb, ' ');
        }
    }
    sb_adds(&sb, SELECT_MARCH_FLAG);
    sv_free(&seen);
    return sb_detach(&sb);
}

char *select_reference_flags(struct store *st, const char *language)
{
    size_t n = 0;
    struct compile_row *rows = store_list_compiles(st, &n);
    char ***argvs = xcalloc(n + 1, sizeof *argvs);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].argv && rows[i].argv[0] && rows[i].language && !strcmp(rows[i].language, language))
            argvs[k++] = rows[i].argv;
    char *flags = select_reference_flags_of((char **const *)argvs, k);
    free(argvs);
    compile_rows_free(rows, n);
    return flags;
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

static void apply_one(const char *name, const char *value, char **old, int *set)
{
    if (!value) return;
    const char *v = getenv(name);
    *old = v ? xstrdup(v) : NULL;
    *set = 1;
    setenv(name, value, 1);
}

static void restore_one(const char *name, char **old, int *set)
{
    if (!*set) return;
    if (*old) setenv(name, *old, 1);
    else unsetenv(name);
    free(*old);
    *old = NULL;
    *set = 0;
}

void select_reference_env_apply(const char *cflags, const char *cxxflags, struct select_reference_env *saved)
{
    memset(saved, 0, sizeof *saved);
    apply_one("CFLAGS", cflags, &saved->cflags, &saved->set_c);
    apply_one("CXXFLAGS", cxxflags, &saved->cxxflags, &saved->set_cxx);
}

void select_reference_env_restore(struct select_reference_env *saved)
{
    restore_one("CFLAGS", &saved->cflags, &saved->set_c);
    restore_one("CXXFLAGS", &saved->cxxflags, &saved->set_cxx);
}
