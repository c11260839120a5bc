/* plan.h - patch assembly: from the store's candidate functions to the
 * patch fmvgen writes or applies.
 *
 * For each source file with candidates (files sorted by path relative to
 * the project root, meta 'root'):
 *   - the preamble (patch_preamble) is inserted once, before the first
 *     candidate - or, when that line sits inside an #if block, before the
 *     #if that opens it - so its macros are defined wherever they are used;
 *   - the line "FMVGEN_CLONES" ("FMVGEN_CLONES_STATIC" when the definition
 *     starts with static) is inserted before each candidate's first line
 *     (insert_offset), with that line's indentation and line ending.
 * Each file's content must still hash to the source_hash of the scan (a
 * file edited since then is refused: its offsets are stale). The text is a
 * header comment (functions and why, targets, the FMA warning, version)
 * followed by the unified diff of every file. */
#ifndef FMVGEN_PATCH_PLAN_H
#define FMVGEN_PATCH_PLAN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct store;

struct patch_function {
    char *file, *rel;          /* absolute; relative to the root */
    char *name, *display_name;
    int line;                  /* the definition's line (shown in the header) */
    int insert_line;           /* where the attribute goes (1-based) */
    size_t offset;             /* insert_offset */
    char *source_hash;
    int build_loops, build_bytes;   /* vectorized loops in the user's build, widest vector */
    int probe_loops, probe_bytes;   /* same at the probe target (0: none) */
    char *probe_target;             /* e.g. "arch=x86-64-v4", or NULL */
    json_t *notes;                  /* array of {kind, detail}; never NULL */
};

struct patch_file {
    char *path, *rel, *hash;
    char *old, *new_data;
    size_t old_len, new_len;
    size_t nfunctions;
};

struct patch_plan {
    char *root;
    struct strvec targets;          /* without "default" */
    int fma;                        /* some target may contract a*b+c */
    int exact;
    struct patch_function *functions;   /* sorted by rel, then offset */
    size_t nfunctions;
    struct patch_file *files;
    size_t nfiles;
    struct strvec skipped;          /* "REL:LINE NAME: why" of candidates left out */
    size_t already;                 /* candidates already preceded by an FMVGEN_CLONES line */
    char *text;                     /* header comment + unified diff ("" when nothing to do) */
};

/* The targets to use: spec (--targets) if given, else TARGETS_EXACT with
 * exact, else meta 'targets', else TARGETS_DEFAULT. With exact, every
 * target must be FMA-free. Returns 0, or -1 after a one-line error naming
 * the target (a usage error: exit 2). */
int patch_resolve_targets(struct store *st, const char *spec, int exact, struct strvec *out);

/* Test-compiles the targets with compiler (--compiler, identified by the
 * caller as kind "gcc"/"clang" and major version) or, when NULL, with every
 * compiler that compiled a candidate's TU. 0, or -1 after the error. */
int patch_validate_targets(struct store *st, const struct strvec *targets, const char *compiler,
                           const char *compiler_kind, int major);

/* The preamble defining FMVGEN_CLONES and FMVGEN_CLONES_STATIC, each line
 * ending in eol: plain C89 preprocessor, guarded by #ifndef so two patched
 * files in one TU do not redefine them. */
char *patch_preamble(const struct strvec *targets, const char *eol);

/* Builds the plan (reads every file; nothing is written). Returns 0 (with
 * nfunctions 0 when there is nothing to do), or -1 after a one-line error. */
int patch_plan_build(struct store *st, const struct strvec *targets, int exact, struct patch_plan *out);

/* The same restricted to the candidates whose name (struct patch_function's
 * name) is in only; NULL: all of them. `fmvgen select` uses it to patch the
 * functions its measurements selected, and no others. */
int patch_plan_build_only(struct store *st, const struct strvec *targets, int exact, const struct strvec *only,
                          struct patch_plan *out);

/* The --json summary: files, functions, targets, fma. */
json_t *patch_plan_to_json(const struct patch_plan *p);

void patch_plan_free(struct patch_plan *p);

#endif
