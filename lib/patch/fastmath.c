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

int patch_reassoc_functions(struct store *st, const struct patch_plan *p, struct strvec *out)
{
    return patch_query_functions_compiled_with(st, p, NULL, patch_argv_reassociates, out);
}
