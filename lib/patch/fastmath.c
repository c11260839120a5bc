/* fastmath.c - see fastmath.h. Reads the candidates' compile argv from the
 * store (query.h), as visibility.c does. */
#include "patch/fastmath.h"
#include "patch/plan.h"
#include "patch/query.h"
#include "store/store.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int patch_argv_reassociates(const char *argv_json)
{
    json_t *a = argv_json ? json_loads(argv_json, 0, NULL) : NULL;
    int on = 0, by_ofast = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        const char *s = json_string_value(v);
        if (!s) continue;
        if (!strcmp(s, "-ffast-math") || !strcmp(s, "-fassociative-math") ||
            !strcmp(s, "-funsafe-math-optimizations")) {
            on = 1;
            by_ofast = 0;
        } else if (!strcmp(s, "-fno-fast-math") || !strcmp(s, "-fno-associative-math") ||
                   !strcmp(s, "-fno-unsafe-math-optimizations")) {
            on = 0;
            by_ofast = 0;
        } else if (!strcmp(s, "-Ofast")) {
            if (!on) by_ofast = 1;
            on = 1;
        } else if (s[0] == '-' && s[1] == 'O' && by_ofast) {
            on = 0;
            by_ofast = 0;
        }
    }
    json_decref(a);
    return on;
}

struct reassoc_walk {
    const struct patch_plan *plan;
    struct strvec *out;
};

/* The first compile of function i that reassociates names it. */
static int note_reassoc(void *ctx, size_t i, const char *argv_json)
{
    struct reassoc_walk *w = ctx;
    if (!patch_argv_reassociates(argv_json)) return 0;
    const struct patch_function *f = &w->plan->functions[i];
    sv_pushf(w->out, "%s:%d %s", f->rel, f->line, f->display_name);
    return 1;
}

int patch_reassoc_functions(struct store *st, const struct patch_plan *p, struct strvec *out)
{
    size_t n = p->nfunctions;
    const char **names = xcalloc(n ? n : 1, sizeof *names), **files = xcalloc(n ? n : 1, sizeof *files);
    for (size_t i = 0; i < n; i++) {
        names[i] = p->functions[i].name;
        files[i] = p->functions[i].file;
    }
    struct reassoc_walk w = {p, out};
    int rc = patch_query_candidate_argvs(st, names, files, n, note_reassoc, &w);
    free(names);
    free(files);
    return rc;
}
