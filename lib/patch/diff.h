/* diff.h - the unified diff of a file to which whole lines are inserted
 * (fmvgen only ever inserts: the attribute line before each candidate and
 * the preamble that defines it). The text applies with `patch -p1`,
 * `git apply` and quilt: paths a/REL and b/REL, hunks with `context` lines
 * of context, hunks closer than 2*context lines merged (as diff does),
 * exact @@ counts, CRLF lines kept byte for byte, and the
 * "\ No newline at end of file" marker for a last line without newline. */
#ifndef FMVGEN_PATCH_DIFF_H
#define FMVGEN_PATCH_DIFF_H

#include <stddef.h>

#include "util/util.h"

struct insertion {
    size_t offset;      /* byte offset of a line start in the old text (or its length) */
    const char *text;   /* whole lines, each ending in its newline */
};

/* 1 when offset is the start of a line of text (0, just after a '\n', or
 * the length of a text that ends in '\n'). */
int diff_is_line_start(const char *text, size_t len, size_t offset);

/* The new text: old with every insertion placed at its offset (insertions
 * at the same offset keep their order). Insertions must be sorted by offset
 * and at line starts. Caller frees; *new_len gets the length. */
char *diff_apply_insertions(const char *old, size_t old_len, const struct insertion *ins, size_t n,
                            size_t *new_len);

/* Appends to out the unified diff of those insertions for path REL
 * ("--- a/REL", "+++ b/REL"). Nothing is appended when n is 0. */
void diff_write_insertions(struct strbuf *out, const char *rel, const char *old, size_t old_len,
                           const struct insertion *ins, size_t n, int context);

#endif
