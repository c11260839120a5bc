/* dropped.c - see dropped.h. */
#include "store/dropped.h"

#include <jansson.h>
#include <stdlib.h>

char *dropped_calls_encode(const struct strvec *calls)
{
    json_t *a = json_array();
    for (size_t i = 0; i < calls->n; i++) json_array_append_new(a, json_string(calls->v[i]));
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return text ? text : xstrdup("[]");
}

int dropped_calls_decode(const char *text, struct strvec *out)
{
    if (!text) return 1;
    json_error_t e;
    json_t *a = json_loads(text, 0, &e);
    int ok = json_is_array(a);
    size_t i;
    json_t *s;
    json_array_foreach(a, i, s) ok = ok && json_is_string(s);
    json_array_foreach(ok ? a : NULL, i, s) if (!sv_contains(out, json_string_value(s))) sv_push(out, json_string_value(s));
    json_decref(a);
    return ok ? 0 : -1;
}
