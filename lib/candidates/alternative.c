/* alternative.c - see alternative.h. */
#include "candidates/alternative.h"
#include "store/notes.h"
#include "util/util.h"

#include <stdlib.h>

static const char *name_of(const struct fn_def *d)
{
    return d->display_name ? d->display_name : d->symbol;
}

json_t *alternative_note(const struct fn_def *host, const struct fn_def *callee, const struct strvec *lines,
                         size_t host_loops, int isa_score, int declared_inline)
{
    const char *hn = name_of(host), *cn = name_of(callee);
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s (line %u) holds ", cn, callee->line);
    if (lines->n) {
        sb_addf(&sb, "%zu of %s's %zu vectorized loop lines (line ", lines->n, hn, host_loops);
        sb_add_joined(&sb, lines, ", ");
        sb_adds(&sb, ")");
    }
    if (isa_score > 0) sb_addf(&sb, "%sISA gains at the target scoring %d in %s's code", lines->n ? " and " : "", isa_score, hn);
    sb_addf(&sb, ": where %s's clone does not fit the code-growth budget, select may clone %s alone instead; "
                 "its clones stay out of line, one call more at each call from %s",
            hn, cn, hn);
    if (declared_inline) sb_adds(&sb, " (the patch drops its inline keyword)");
    sb_addf(&sb, ". Without select, the patch clones %s", hn);
    json_t *c = json_object();
    json_object_set_new(c, "name", json_string(callee->symbol));
    json_object_set_new(c, "display_name", json_string(cn));
    json_object_set_new(c, "line", json_integer(callee->line));
    json_object_set_new(c, "end_line", json_integer(callee->end_line));
    json_object_set_new(c, "insert_offset", json_integer(callee->insert_offset));
    json_object_set_new(c, "insert_line", json_integer(callee->insert_line));
    if (declared_inline) json_object_set_new(c, "declared_inline", json_true());
    json_t *ls = json_array();
    for (size_t i = 0; i < lines->n; i++) json_array_append_new(ls, json_integer(atoi(lines->v[i])));
    json_t *n = note_new(NOTE_ALTERNATIVE_CALLEE, sb_str(&sb));
    json_object_set_new(n, "callee", c);
    json_object_set_new(n, "lines", ls);
    json_object_set_new(n, "host_loops", json_integer((json_int_t)host_loops));
    json_object_set_new(n, "isa_score", json_integer(isa_score));
    sb_free(&sb);
    return n;
}
