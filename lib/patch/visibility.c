/* visibility.c - see visibility.h. Reads the candidates' compile argv from
 * the store (compiles.argv: the build's own, a JSON array). */
#include "patch/visibility.h"
#include "patch/plan.h"
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
    /* A scan that recorded visibility (candidates/analyze.c): the hidden
     * functions are hidden by the patch, the others are exported as their
     * source says. Nothing to say. */
    char *recorded = store_meta_get(st, "visibility_notes");
    free(recorded);
    if (recorded) return 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT c.argv FROM functions f JOIN compiles c ON c.id = f.compile_id "
                           "WHERE f.status = 'candidate' AND f.name = ? AND f.file = ?",
                           -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct patch_function *f = &p->functions[i];
        if (f->is_static || f->pointer || f->hidden) continue;   /* pointer: its trampoline is plain C, visibility as written */
        sqlite3_reset(q);
        sqlite3_bind_text(q, 1, f->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(q, 2, f->file, -1, SQLITE_TRANSIENT);
        int hidden = 0;
        while (!hidden && sqlite3_step(q) == SQLITE_ROW) hidden = argv_hides((const char *)sqlite3_column_text(q, 0));
        if (hidden) sv_pushf(out, "%s:%d %s", f->rel, f->line, f->display_name);
    }
    sqlite3_finalize(q);
    return 0;
}
