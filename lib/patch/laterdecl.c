/* laterdecl.c - see laterdecl.h. */
#include "patch/laterdecl.h"
#include "store/notes.h"
#include "util/util.h"

#include <jansson.h>
#include <string.h>

/* The "lines" array of f's "declared-later" note, or NULL. */
static json_t *lines_of(const struct patch_function *f)
{
    if (f->helper_of || f->switch_of) return NULL;
    json_t *lines = json_object_get(notes_find(f->notes, NOTE_DECLARED_LATER), "lines");
    return json_is_array(lines) ? lines : NULL;
}

const char *patch_laterdecl_plain(const struct patch_function *f)
{
    if (f->helper_of || f->switch_of) return NULL;
    return json_string_value(json_object_get(notes_find(f->notes, NOTE_DECLARED_LATER), "plain"));
}

size_t patch_laterdecl_count(struct patch_function *const *fs, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += json_array_size(lines_of(fs[i]));
    return c;
}

int patch_laterdecl_check(struct patch_function *const *fs, size_t n, const char *path, const char *old, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        size_t j;
        json_t *l;
        json_array_foreach(lines_of(fs[i]), j, l) {
            json_int_t off = json_integer_value(json_object_get(l, "offset"));
            json_int_t line = json_integer_value(json_object_get(l, "line"));
            int ok = off > 0 && (size_t)off > fs[i]->start && (size_t)off < len &&
                     diff_is_line_start(old, len, (size_t)off);
            if (ok) {
                json_int_t at = 1;
                for (size_t c = 0; c < (size_t)off; c++) at += old[c] == '\n';
                ok = at == line;
            }
            if (!ok)
                return fmv_error("%s: the stored place of a declaration of %s below its definition (offset %lld, "
                                 "line %lld) is not the start of a line there; run 'fmvgen scan' again",
                                 path, fs[i]->display_name, (long long)off, (long long)line);
        }
    }
    return 0;
}

void patch_laterdecl_insert(struct patch_function *const *fs, size_t n, const struct patch_target_set *sets,
                            const char *old, size_t len, struct insertion *ins, size_t *k, char **texts)
{
    for (size_t i = 0; i < n; i++) {
        const struct patch_function *f = fs[i];
        if (f->pointer) continue;   /* its declarations below declare the plain trampoline */
        size_t j;
        json_t *l;
        json_array_foreach(lines_of(f), j, l) {
            size_t off = (size_t)json_integer_value(json_object_get(l, "offset"));
            size_t blanks = 0;
            while (off + blanks < len && (old[off + blanks] == ' ' || old[off + blanks] == '\t')) blanks++;
            const char *nl = memchr(old + off, '\n', len - off);
            const char *eol = nl && nl > old && nl[-1] == '\r' ? "\r\n" : "\n";
            const char *macro = sets[f->set].macro;
            char *text = f->is_static ? xasprintf("%.*s%s_STATIC%s", (int)blanks, old + off, macro, eol)
                                      : xasprintf("%.*s%s(%s)%s", (int)blanks, old + off, macro,
                                                  f->clones_arg ? f->clones_arg : f->name, eol);
            texts[*k] = text;
            ins[*k].offset = off;
            ins[*k].text = text;
            (*k)++;
        }
    }
}
