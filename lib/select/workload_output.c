/* workload_output.c - see workload_output.h. Lines are the text between
 * '\n's; a masked line is replaced by an empty one, so line numbers in the
 * comparison's answer stay those of the real output. */
#include "select/workload_output.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; n++) {
        const char *nl = strchr(s, '\n');
        if (!nl) return n + 1;
        s = nl + 1;
    }
    return n;
}

/* text with every masked line emptied (lines past the mask kept). */
static char *blank_masked(const struct workload_output *o, const char *text)
{
    struct strbuf sb = STRBUF_INIT;
    const char *s = text;
    for (size_t i = 0; *s; i++) {
        size_t n = strcspn(s, "\n");
        if (i >= o->n_lines || !o->masked[i]) sb_add(&sb, s, n);
        s += n;
        if (*s) {
            sb_addc(&sb, '\n');
            s++;
        }
    }
    return sb_detach(&sb);
}

void workload_output_learn(struct workload_output *o, const char *first, const char *second)
{
    memset(o, 0, sizeof *o);
    o->reference = xstrdup(first);
    o->n_lines = count_lines(first);
    o->masked = xcalloc(o->n_lines + 1, 1);
    if (!strcmp(first, second)) return;
    if (count_lines(second) != o->n_lines) {
        o->mode = WORKLOAD_OUTPUT_NOT_COMPARED;
        return;
    }
    o->mode = WORKLOAD_OUTPUT_MASKED;
    const char *a = first, *b = second;
    for (size_t i = 0; i < o->n_lines; i++) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        if (na != nb || memcmp(a, b, na) != 0) {
            o->masked[i] = 1;
            o->n_masked++;
            if (!o->first_masked) o->first_masked = (int)i + 1;
        }
        a += na + (a[na] == '\n');
        b += nb + (b[nb] == '\n');
    }
    if (!o->n_masked) o->mode = WORKLOAD_OUTPUT_NOT_COMPARED;   /* only a final '\n' differed */
}

void workload_output_compare(const struct workload_output *o, const char *got, size_t got_len, double tolerance,
                             struct output_diff *d)
{
    if (o->mode == WORKLOAD_OUTPUT_NOT_COMPARED) {
        memset(d, 0, sizeof *d);
        d->match = OUTPUT_IDENTICAL;
        return;
    }
    if (o->mode == WORKLOAD_OUTPUT_ALL) {
        output_compare(o->reference, strlen(o->reference), got, got_len, tolerance, d);
        return;
    }
    char *ref = blank_masked(o, o->reference), *mine = blank_masked(o, got);
    output_compare(ref, strlen(ref), mine, strlen(mine), tolerance, d);
    free(ref);
    free(mine);
}

void workload_output_free(struct workload_output *o)
{
    free(o->reference);
    free(o->masked);
    memset(o, 0, sizeof *o);
}
