/* inlname.c - see inlname.h. */
#include "candidates/inlname.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum def_match inline_name_locate(struct parsed_tu *tu, const char *source, const char *name, struct fn_def *out,
                                  size_t *nsame)
{
    *nsame = 0;
    enum def_match m = locate_by_name(tu, name, out);
    if (m == DEF_FOUND || m == DEF_TEMPLATE) {
        *nsame = 1;
        return m;
    }
    fn_def_free(out);
    memset(out, 0, sizeof *out);
    if (!source) return DEF_NOT_FOUND;
    char *base = xstrndup(name, strcspn(name, "<"));
    struct fn_def *defs = NULL;
    size_t n = locate_defs_in_file(tu, source, &defs), hit = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        char *spelled = cx_take(clang_getCursorSpelling(defs[i].cursor));
        if (spelled && !strcmp(spelled, base)) {
            (*nsame)++;
            hit = i;
        }
        free(spelled);
    }
    m = DEF_NOT_FOUND;
    for (size_t i = 0; i < n; i++) {
        if (*nsame == 1 && i == hit) {
            *out = defs[i];
            m = defs[i].match;
        } else {
            fn_def_free(&defs[i]);
        }
    }
    free(defs);
    free(base);
    return m;
}
