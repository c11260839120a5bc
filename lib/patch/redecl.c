/* redecl.c - see redecl.h. */
#include "patch/redecl.h"
#include "store/notes.h"
#include "util/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The "redeclared" note of f (candidates/redecl.h), or NULL. */
static json_t *redecl_note_of(const struct patch_function *f)
{
    return notes_find(f->notes, NOTE_REDECLARED);
}

/* Its offset, line and text; 0 when f has none or the note is not whole. */
static int redecl_of(const struct patch_function *f, size_t *offset, int *line, const char **text)
{
    json_t *note = f->helper_of ? NULL : redecl_note_of(f);
    json_t *off = json_object_get(note, "insert_offset");
    *text = json_string_value(json_object_get(note, "text"));
    if (!note || !json_is_integer(off) || json_integer_value(off) < 0 || !*text) return 0;
    *offset = (size_t)json_integer_value(off);
    *line = (int)json_integer_value(json_object_get(note, "insert_line"));
    return 1;
}

const char *patch_redecl_refuses_dispatch(const struct patch_function *f, enum patch_dispatch d)
{
    json_t *note = f->helper_of ? NULL : redecl_note_of(f);
    if (d == PATCH_DISPATCH_POINTER && json_is_true(json_object_get(note, "noproto")))
        return "defined without a prototype (\"()\"): the renamed body would have none, and clang multi-versions "
               "only a function with one";
    const char *attr = json_string_value(json_object_get(note, "attribute"));
    if (!attr) return NULL;
    if (d == PATCH_DISPATCH_POINTER)
        return "an attribute clang refuses beside target_clones on the renamed body's first declaration";
    return NULL;   /* cpuid: an attribute keeping the body out of line refuses the params note */
}

size_t patch_redecl_first_start(const struct patch_function *f)
{
    size_t offset;
    int line;
    const char *text;
    if (redecl_of(f, &offset, &line, &text) && offset < f->start) return offset;
    return f->start;
}

int patch_redecl_check(struct patch_function *const *fs, size_t n, const char *path, const char *old, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        size_t offset;
        int line;
        const char *text;
        if (!redecl_of(fs[i], &offset, &line, &text)) continue;
        int ok = offset <= fs[i]->start && diff_is_line_start(old, len, offset) && !strchr(text, '\n');
        if (ok && line > 0) {
            int at = 1;
            for (size_t k = 0; k < offset; k++) at += old[k] == '\n';
            ok = at == line;
        }
        if (!ok)
            return fmv_error("%s: the stored place of the redeclaration of %s (offset %zu, line %d) is not the start "
                             "of a line above its definition; run 'fmvgen scan' again",
                             path, fs[i]->display_name, offset, line);
    }
    return 0;
}

static const char *eol_at(const char *text, size_t len, size_t offset)
{
    const char *nl = offset < len ? memchr(text + offset, '\n', len - offset) : NULL;
    if (!nl) nl = memchr(text, '\n', len);
    return nl && nl > text && nl[-1] == '\r' ? "\r\n" : "\n";
}

void patch_redecl_insert(struct patch_function *const *fs, size_t n, const struct patch_target_set *sets,
                         const char *old, size_t len, struct insertion *ins, size_t *k, size_t npre, char **texts)
{
    struct insertion *r = xcalloc(n ? n : 1, sizeof *r);
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) {
        const struct patch_function *f = fs[i];
        size_t offset;
        int line;
        const char *decl;
        if (f->pointer) continue;   /* its uses reach the plain trampoline (patch/pointer.h) */
        if (!redecl_of(f, &offset, &line, &decl)) continue;
        size_t blanks = 0;
        while (offset + blanks < len && (old[offset + blanks] == ' ' || old[offset + blanks] == '\t')) blanks++;
        const char *macro = sets[f->set].macro;
        const char *eol = eol_at(old, len, offset);
        /* In C a function used before its definition is declared already:
         * the line repeats a declaration, which GCC's -Wredundant-decls
         * (xz's default warnings) reports; the pragmas keep it quiet there
         * alone (GCC, clang 14 and 19 know the group). */
        char *decl_line = f->is_static ? xasprintf("%.*s%s_STATIC %s%s", (int)blanks, old + offset, macro, decl, eol)
                                  : xasprintf("%.*s%s(%s) %s%s", (int)blanks, old + offset, macro,
                                              f->clones_arg ? f->clones_arg : f->name, decl, eol);
        char *text = xasprintf("#pragma GCC diagnostic push%s#pragma GCC diagnostic ignored \"-Wredundant-decls\"%s%s"
                               "#pragma GCC diagnostic pop%s",
                               eol, eol, decl_line, eol);
        free(decl_line);
        texts[*k + nr] = text;
        r[nr].offset = offset;
        r[nr++].text = text;
    }
    if (nr == 0) {
        free(r);
        return;
    }
    /* by offset, in the functions' order at one offset (insertion sort:
     * stable) */
    for (size_t i = 1; i < nr; i++)
        for (size_t j = i; j > 0 && r[j - 1].offset > r[j].offset; j--) {
            struct insertion t = r[j - 1];
            r[j - 1] = r[j];
            r[j] = t;
        }
    /* Merged after the preamble: a redeclaration before the attribute
     * lines at its offset. */
    size_t total = *k + nr;
    struct insertion *merged = xcalloc(total, sizeof *merged);
    size_t m = 0, a = npre, b = 0;
    for (size_t i = 0; i < npre; i++) merged[m++] = ins[i];
    while (a < *k || b < nr) {
        if (b < nr && (a == *k || r[b].offset <= ins[a].offset)) merged[m++] = r[b++];
        else merged[m++] = ins[a++];
    }
    memcpy(ins, merged, total * sizeof *ins);
    *k = total;
    free(merged);
    free(r);
}
