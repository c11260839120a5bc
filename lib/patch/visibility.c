/* visibility.c - see visibility.h. Reads the candidates' compile argv from
 * the store (compiles.argv: the build's own, a JSON array; query.h). */
#include "patch/visibility.h"
#include "patch/plan.h"
#include "patch/query.h"
#include "store/store.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* 1 when the last -fvisibility= of argv (a JSON array) hides symbols. */
static int argv_hides(const char *argv_json)
{
    json_t *a = argv_json ? json_loads(argv_json, 0, NULL) : NULL;
    int hidden = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        const char *s = json_string_value(v);
        if (!s || strncmp(s, "-fvisibility=", 13) != 0) continue;
        hidden = !strcmp(s + 13, "hidden") || !strcmp(s + 13, "internal");
    }
    json_decref(a);
    return hidden;
}

int patch_hidden_functions(struct store *st, const struct patch_plan *p, struct strvec *out)
{
    /* A scan that recorded visibility (candidates/analyze_rows.c): the hidden
     * functions are hidden by the patch, the others are exported as their
     * source says. Nothing to say. */
    char *recorded = store_meta_get(st, "visibility_notes");
    free(recorded);
    if (recorded) return 0;
    unsigned char *want = xcalloc(p->nfunctions ? p->nfunctions : 1, 1);
    for (size_t i = 0; i < p->nfunctions; i++) {
        /* pointer: its trampoline is plain C, visibility as written */
        const struct patch_function *f = &p->functions[i];
        want[i] = !(f->is_static || f->pointer || f->hidden);
    }
    int rc = patch_query_functions_compiled_with(st, p, want, argv_hides, out);
    free(want);
    return rc;
}
