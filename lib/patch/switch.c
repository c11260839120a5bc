/* switch.c - see plan_internal.h (patch_add_switches): the line
 * "#define TAG 1" each eligible TU's source gets for a static or external
 * function of a project header (candidates/header.h), which turns that function's
 * guarded attribute line on in that TU only. */
#include "patch/plan_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The start of the first line whose first non-blank is '#' outside a
 * block comment; 0 when there is none. Nothing before it opens an #if, so
 * a line there stands at file level, above every #include. */
static size_t first_directive(const char *text, size_t len)
{
    int in_comment = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        size_t c = pos;
        if (!in_comment) {
            while (c < end && (text[c] == ' ' || text[c] == '\t')) c++;
            if (c < end && text[c] == '#') return pos;
        }
        for (size_t i = pos; i + 1 < end; i++) {
            if (!in_comment && text[i] == '/' && text[i + 1] == '/') break;
            if (!in_comment && text[i] == '/' && text[i + 1] == '*') in_comment = 1, i++;
            else if (in_comment && text[i] == '*' && text[i + 1] == '/') in_comment = 0, i++;
        }
        pos = end;
    }
    return 0;
}

/* Appends f's switch lines to *out (cap *cap); returns why f cannot be
 * switched on (NULL: its lines were added). */
static char *add_lines(struct patch_plan *p, const struct patch_function *f, struct patch_function **out, size_t *n,
                       size_t *cap)
{
    size_t first = *n;
    char *why = NULL;
    for (size_t i = 0; i < f->switch_sources.n && !why; i++) {
        const char *src = f->switch_sources.v[i];
        char *rel = path_relative_to(src, p->root);
        size_t len = 0;
        char *text = rel ? read_file(src, &len) : NULL;
        if (!rel) why = xasprintf("its TU source %s is outside the project root %s", src, p->root);
        else if (!text) why = xasprintf("its TU source %s cannot be read: %s", src, strerror(errno));
        if (why) {
            free(rel);
            free(text);
            break;
        }
        if (*n == *cap) *out = xrealloc(*out, (*cap = *cap ? *cap * 2 : 8) * sizeof **out);
        struct patch_function *x = &(*out)[(*n)++];
        memset(x, 0, sizeof *x);
        x->file = xstrdup(src);
        x->rel = rel;
        x->name = xstrdup(f->name);
        x->display_name = xstrdup(f->display_name);
        x->offset = x->start = first_directive(text, len);
        x->line = (int)patch_line_of_offset(text, x->offset);
        x->notes = json_array();
        x->set = f->set;
        x->switch_of = xstrdup(f->switch_tag);
        x->switch_header = xstrdup(f->rel);
        x->switch_pasted = f->expansion_place != NULL;
        x->linkage = f->linkage;   /* external: the switch names the symbol (place.c) */
        x->hidden = f->hidden;
        x->expansion_place = f->expansion_place ? xstrdup(f->expansion_place) : NULL;
        free(text);
    }
    if (why)
        while (*n > first) patch_function_free(&(*out)[--(*n)]);
    return why;
}

void patch_add_switches(struct patch_plan *p)
{
    size_t cap = 0, kept = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        char *why = NULL;
        if (f->switch_tag && !f->switch_sources.n) why = xstrdup("its header-switch note names no TU");
        else if (f->switch_tag) why = add_lines(p, f, &p->switches, &p->nswitches, &cap);
        if (why) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, why);
            fmv_warn("%s:%d: %s not patched: %s", f->file, f->line, f->display_name, why);
            free(why);
            patch_function_free(f);
            continue;
        }
        p->functions[kept++] = *f;
    }
    p->nfunctions = kept;
}
