/* plan_internal.h - the pieces patch assembly (plan.c) is built from,
 * shared by the files of lib/patch/ only; callers outside use plan.h.
 *
 *   load.c     the candidates read from the store, targets resolved and
 *              test-compiled with the project's compilers
 *   place.c    where each line goes in a file's text ([[...]] lists, lines
 *              already patched), and a file's new content and diff
 *   assign.c   per-function target sets and their macro names
 *   helpers.c  the functions' inlined helpers
 *   switch.c   the per-TU switch lines of header functions
 *   header.c   the header comment and the --json summary
 *
 * All work on a struct patch_plan being built (plan.h); none writes a
 * file. Errors are reported with fmv_error (one line) and returned as -1. */
#ifndef FMVGEN_PATCH_PLAN_INTERNAL_H
#define FMVGEN_PATCH_PLAN_INTERNAL_H

#include "patch/plan.h"

/* plan.c: frees what f holds (not f). */
void patch_function_free(struct patch_function *f);

/* load.c: appends to p->functions the store's candidates (one per file
 * and offset: a TU compiled twice is one function), with rel relative to
 * root, their notes (never NULL), linkage and symbols from an
 * "included-source" note, and loop counts; sorted by patch_function_cmp.
 * One on a line shared with other code, or whose symbol the preamble
 * cannot name, is left out (p->skipped, and said on stderr). 0, or -1
 * after the error: a candidate without a located definition, a file
 * outside root, a store that cannot be read. */
int patch_load_functions(struct store *st, const char *root, struct patch_plan *p);

/* load.c: qsort order of functions: by rel, then offset. */
int patch_function_cmp(const void *a, const void *b);

/* place.c: settles fs[0..*n) against their files' text, each file read
 * once: each line placed after [[...]] lists (or left out, said why in
 * p->skipped and on stderr), then dropped when it already carries an
 * FMVGEN_CLONES* line - after the placement, so a patched file's line below
 * the lists counts as patched - and counted in *already (NULL: not
 * counted). A file that cannot be read is left for patch_build_file to
 * report. Dropped functions are freed; fs is compacted. */
void patch_settle_in_files(struct patch_plan *p, struct patch_function *fs, size_t *n, size_t *already);

/* place.c: reads fs[0]'s file into pf (path, rel, hash, old), checks it
 * is the scanned version (source_hash) and that each stored offset starts
 * the line it names, then computes pf's new content and appends its
 * unified diff to diff: the preamble blocks the file still lacks, a line
 * per function of fs[0..n) (one file, sorted by offset; helpers among
 * them), their redeclarations (patch/redecl.h). Sets each function's
 * is_static, and with p->dispatch pointer its pointer flag (patch/pointer.h;
 * the functions left to IFUNC are added to p->ifunc_fallback). 0, or -1 after the error (an unreadable or changed file, a
 * stale offset, a redeclaration patch_redecl_check refuses). */
int patch_build_file(struct patch_file *pf, struct patch_function **fs, size_t n, struct patch_plan *p,
                     struct strbuf *diff);

/* place.c: 1 when text[0, offset) holds the line "#ifndef word" (word
 * whole: followed by a blank or the line's end), a preamble block's guard. */
int patch_guard_defined(const char *text, size_t offset, const char *word);

/* place.c: the 1-based line of offset in text. */
size_t patch_line_of_offset(const char *text, size_t offset);

/* assign.c: the index of targets in p->sets, added (copied) when new. */
size_t patch_plan_set(struct patch_plan *p, const struct strvec *targets);
/* assign.c: names the sets' macros (FMVGEN_CLONES when there is one,
 * distinct names made from the targets otherwise) and fills p->targets
 * (their union) and p->fma. */
void patch_name_sets(struct patch_plan *p);
/* assign.c: keeps the functions a names (by name, and by file when it gives
 * one), each given its assignment's set; frees the others. */
void patch_keep_assigned(struct patch_plan *p, const struct patch_assignments *a);

/* helpers.c: fills p->helpers with the helpers of p's functions, each
 * once, sorted like functions, with the set of the function it serves.
 * One that is a function of p already (a candidate of its own) is not
 * added; one already patched is dropped, not counted in already. */
void patch_add_helpers(struct patch_plan *p);

/* switch.c: fills p->switches with the "#define TAG 1" line (an
 * expansion's: "#define TAG <set macro>_STATIC") of each function with a
 * switch_tag, one per TU source, placed above the first
 * preprocessor directive of that source (outside comments: it opens no
 * #if, so the line stands at file level; offset 0 when there is none).
 * A function with a source outside the root or unreadable is dropped,
 * said why in p->skipped and on stderr. */
void patch_add_switches(struct patch_plan *p);

/* header.c: the header comment of p's patch (functions and why, targets,
 * helpers, what was left out, the FMA warning, version), ending in a blank
 * line. p must be complete but for text. Caller frees. */
char *patch_render_header(const struct patch_plan *p);

/* pin.c: moves the candidates a pins (and does not assign targets) from
 * p->functions to p->pinned, each with its pin set. */
void patch_take_pins(struct patch_plan *p, const struct patch_assignments *a);
/* pin.c: the attribute line of pinned function f (indent and eol as the
 * definition's line has them). Caller frees. */
char *patch_pin_line(const struct patch_function *f, const char *indent, const char *eol);
/* The pin attribute for offset k (0..63), without indent or end of line. */
char *patch_pin_attribute(int k);
/* f's pin offset for its copy SLUG (copy_pins), or -1. */
int patch_copy_pin_of(const struct patch_function *f, const char *slug);

#endif
