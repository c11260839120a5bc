/* plan.h - patch assembly: from the store's candidate functions to the
 * patch fmvgen writes or applies.
 *
 * For each source file with candidates (files sorted by path relative to
 * the project root, meta 'root'):
 *   - the preamble (patch_preamble) is inserted once, before the first
 *     candidate - or, when that line sits inside an #if block, before the
 *     #if that opens it - so its macros are defined wherever they are used;
 *   - the line "FMVGEN_CLONES(symbol)" ("FMVGEN_CLONES_STATIC" when the
 *     definition has internal linkage) is inserted before each candidate's
 *     first line (insert_offset), with that line's indentation and line
 *     ending.
 *   - a static (or external C) function of a project header (its "header-switch" note,
 *     candidates/header.h) gets its line between "#ifdef TAG" and
 *     "#endif", and the source of each TU the scan found eligible gets
 *     "#define TAG 1" above its first directive: the other TUs that
 *     include the header compile it as before; a header expanded under
 *     several names from one place (candidates/header.h) gets instead an
 *     empty default per name and "FMVGEN_CLONES_IN_TU(place, NAME_MACRO)",
 *     and each TU "#define TAG FMVGEN_CLONES_STATIC" (its set's; an external
 *     function's "FMVGEN_CLONES[_HIDDEN](symbol)") and once
 *     "#define FMVGEN_CLONES_ON_<place> 1": without that gate (a TU the
 *     scan never saw, a name it never saw) the line expands to nothing;
 *   - a function used above its definition (its "redeclared" note) also
 *     gets its declaration with the same macro, one line above the first
 *     use (patch/redecl.h); the preamble then goes above that line.
 * A plan may give functions different target sets (patch_plan_build_assigned,
 * what `fmvgen select` writes): then each distinct set gets its own macro
 * pair, FMVGEN_CLONES_<SET>(symbol) / FMVGEN_CLONES_<SET>_STATIC, <SET> made
 * from its targets (patch_macro_name: "avx2" -> FMVGEN_CLONES_AVX2), and each
 * file's preamble defines the macros its functions use. With one set the
 * macros are FMVGEN_CLONES / FMVGEN_CLONES_STATIC, whatever the set, so a
 * one-set patch reads as it always has. A candidate already preceded by any
 * FMVGEN_CLONES* line is left alone (counted in already).
 * A function's inlined helpers (candidates/helpers.h) get the line
 * "FMVGEN_CLONES_INLINE" (always_inline: inlined into each of its clones,
 * compiled for each clone's target), its macro defined by
 * patch_preamble_inline, and are listed in the header.
 * Each file's content must still hash to the source_hash of the scan (a
 * file edited since then is refused: its offsets are stale). The text is a
 * header comment (functions and why, targets, the FMA warning, version)
 * followed by the unified diff of every file. */
#ifndef FMVGEN_PATCH_PLAN_H
#define FMVGEN_PATCH_PLAN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "patch/pointer.h"
#include "patch/preamble.h"
#include "store/kinds.h"
#include "util/util.h"

struct store;

struct patch_function {
    char *file, *rel;          /* absolute; relative to the root */
    char *name, *display_name;
    int line;                  /* the definition's line (shown in the header) */
    int end_line, end_col;     /* where its body ends (functions.end_line/end_col; 0: unknown) */
    int insert_line;           /* where the attribute goes (1-based) */
    size_t offset;             /* insert_offset; below the leading [[...]] lines of a C++ definition */
    size_t start;              /* insert_offset as scanned: the preamble goes above it */
    char *source_hash;
    int build_loops, build_bytes;   /* vectorized loops in the user's build, widest vector */
    int probe_loops, probe_bytes;   /* same at the probe target (0: none) */
    char *probe_target;             /* e.g. "arch=x86-64-v4", or NULL */
    /* store/kinds.h (KIND_NONE from a store before schema 3); the score
     * of what its code at the target changes and its evidence (NULL:
     * none). */
    enum candidate_kind kind;
    int score, fma_score;           /* fma_score: the part of score --exact's avx2 clones cannot get:
                                     * FMA and AVX-512-only operations (candidates/isa.h isa_exact_loss) */
    char *evidence;
    /* store/dropped.h: the library calls its target code drops, the data
     * its evidence's "X replaces a, b" is rendered from; dropped_known 0
     * for a row of an analysis before schema 4 (calls not known). */
    struct strvec dropped_calls;
    int dropped_known;
    json_t *notes;                  /* array of {kind, detail}; never NULL */
    size_t set;                     /* its targets: the plan's sets[set] */
    /* A definition in a source file TUs #include (candidates/included.h):
     * every TU's compiled symbol (name among them; a macro may rename it
     * per TU), what FMVGEN_CLONES(...) gets (the name as spelled when the
     * symbols differ, else name). Empty / NULL for other functions.
     * linkage: libclang's, from that note or a "static-macro" note (a
     * static hidden behind METHODDEF(void)); 0: not known, the text
     * decides. */
    struct strvec symbols;
    char *clones_arg;
    enum { PATCH_LINKAGE_UNKNOWN = 0, PATCH_LINKAGE_STATIC, PATCH_LINKAGE_EXTERNAL } linkage;
    int is_static;                  /* internal linkage (static, C++ anonymous
                                     * namespace): FMVGEN_CLONES_STATIC */
    int static_earlier;             /* static from an earlier declaration: the
                                     * head has no word (or macro) that says it
                                     * ("static-macro" note's "earlier") */
    int hidden;                     /* hidden visibility as the scan saw it (its
                                     * "visibility" note): <SET>_HIDDEN(sym) */
    int pointer;                    /* reached through a pointer (patch/pointer.h;
                                     * with --dispatch cpuid its own copies,
                                     * patch/cpuid.h), set by patch_build_file; 0: IFUNC */
    int plain_symbol;               /* exported through a list libtool made with nm
                                     * (patch/ltexports.h): must keep a plain symbol, so it
                                     * is reached through a pointer whatever the dispatch
                                     * (cpuid: its trampoline, no IFUNC); set by patch_build_file */
    /* A static function of a project header (candidates/header.h, its
     * "header-switch" note): the macro that switches its line on, and the
     * sources of the TUs that define it (absolute, each once). NULL /
     * empty for other functions. */
    char *switch_tag;
    struct strvec switch_sources;
    /* A header expanded under several names from one place (its note's
     * "expansion"): the macro written as the name, the tag's middle part
     * (FMVGEN_CLONE_<place>_<name>) and every name of that place. The line
     * is then FMVGEN_CLONES_IN_TU(place, spelled) after an empty default
     * per name, and a TU's switch defines the set's _STATIC macro. */
    char *expansion_spelled, *expansion_place;
    struct strvec expansion_symbols;
    /* Not a function but a line: "#define <switch_of> 1" in file, a TU's
     * source, above its first directive (patch_add_switches); NULL for
     * functions and helpers. */
    char *switch_of;
    char *switch_header;            /* then: the header's rel */
    int switch_pasted;              /* then: the value is the set's _STATIC macro
                                     * (an expansion's switch), not 1; expansion_place
                                     * its place: the file's first such line for a place
                                     * also defines FMVGEN_CLONES_ON_<place> */
    /* NULL for a candidate. For a helper (candidates/helpers.h: a static
     * function whose loops the candidate inlined, used by no one else):
     * the candidate's display name; set is the candidate's, the targets
     * its code is compiled for inside the candidate's clones. */
    char *helper_of;
    /* For a helper: the source declares it inline already (static inline):
     * it gets PATCH_ALWAYS_INLINE_MACRO (always_inline alone: a second
     * 'inline' is a clang warning in C and an error in C++). */
    int declared_inline;
    /* 1 + the offset mod 64 of its symbol in the build without clones, for
     * a function kept where it was (patch_pin_in): not cloned, only the
     * attribute line "FMVGEN_PIN" (patch/pin.c) before it; 0: not pinned. */
    int pin;
    /* For a pinned function that is no candidate (patch_pin_at): what it
     * is, shown in the header ("not a candidate", "excluded: main"); NULL
     * otherwise. */
    char *pin_note;
    /* With --dispatch cpuid, a cloned function's copies kept at the offsets
     * mod 64 they had in the build its gain was measured in
     * (patch_copy_pin_in): "SLUG=K" per copy fmvgen_cp_<name>_<SLUG>; the
     * copy's line gets the pin attribute of patch_pin_line. Empty: none. */
    struct strvec copy_pins;
};

/* The names of f's inlined helpers (its "inlined-helper" notes), appended
 * to names: inlined into f's clones wherever f is patched. */
void patch_function_helpers(const struct patch_function *f, struct strvec *names);

/* Which targets each function gets (patch_plan_build_assigned). */
struct patch_assignment {
    char *name;                     /* struct patch_function's name */
    char *rel;                      /* NULL: every candidate of that name; else
                                     * only the one defined in this file (its rel):
                                     * static functions of one name in different
                                     * files are different functions */
    struct strvec targets;          /* without "default"; not empty */
};
/* A candidate that is not cloned but kept at the offset mod 64 its code
 * had in a build without clones (fmvgen select: a hot function the clones
 * would otherwise move; on some CPUs a loop that crosses a 64-byte line
 * where it did not runs at half speed). Its definition gets the line
 *   __attribute__((__aligned__(64), __patchable_function_entry__(K, K)))
 * K = offset (no K: aligned(64) alone): the function starts K bytes after a
 * 64-byte boundary, the K no-op bytes before its entry never run (GCC >= 8,
 * Clang >= 10; measured with gcc 12, clang 14 and clang 19). */
struct patch_pin {
    char *name, *rel;               /* rel: the file defining it */
    unsigned offset;                /* 0..63 */
    /* A function that is no candidate (patch_pin_at): where the line goes,
     * as the caller located it; file NULL for a candidate's pin. */
    char *file, *display_name, *source_hash, *note;
    size_t insert_offset;
    int line;
};
/* One copy of a cloned function (--dispatch cpuid: fmvgen_cp_<name>_<slug>)
 * kept at the offset mod 64 it had where its gain was measured: fmvgen
 * select's all-candidates build: the same clone's loop further along a
 * 64-byte line can lose the whole gain (docs/DESIGN.md, "Copy pins"). */
struct patch_copy_pin {
    char *name, *rel, *slug;
    unsigned offset;                /* 0..63 */
};
struct patch_assignments {
    struct patch_assignment *v;
    size_t n, cap;
    struct patch_pin *pins;         /* functions kept in place, not cloned */
    size_t n_pins, cap_pins;
    struct patch_copy_pin *copy_pins;   /* copies of cloned functions kept in place */
    size_t n_copy_pins, cap_copy_pins;
    /* --dispatch cpuid: bytes of the pad before .text's functions
     * (patch/cpuid.h, patch_text_pad_block; fmvgen select measures it,
     * select/textpad.h); 0: none */
    unsigned text_pad;
};

struct patch_file {
    char *path, *rel, *hash;
    char *old, *new_data;
    size_t old_len, new_len;
    size_t nfunctions;
};

struct patch_plan {
    char *root;
    struct strvec targets;          /* without "default": the one set's, or the union of sets */
    struct patch_target_set *sets;  /* the distinct sets the functions use (one unless assigned) */
    size_t nsets;
    int fma;                        /* some target may contract a*b+c */
    int exact;
    struct patch_function *functions;   /* sorted by rel, then offset */
    size_t nfunctions;
    /* The functions' inlined helpers (their "inlined-helper" notes), each
     * with the set of the function it serves; sorted like functions. Not
     * among the functions: nothing is decided about a helper on its own. */
    struct patch_function *helpers;
    size_t nhelpers;
    /* The pinned candidates (patch_pin_in), sorted like functions; not
     * among the functions either. */
    struct patch_function *pinned;
    size_t npinned;
    /* The switch lines of the functions' header switches (switch_of), one
     * per TU source and function; sorted like functions. */
    struct patch_function *switches;
    size_t nswitches;
    struct patch_file *files;
    size_t nfiles;
    struct strvec skipped;          /* "REL:LINE NAME: why" of candidates left out */
    enum patch_dispatch dispatch;   /* how the clones are reached (--dispatch) */
    unsigned text_pad;              /* patch_assignments.text_pad (cpuid dispatch) */
    struct strvec ifunc_fallback;   /* with dispatch pointer: "REL:LINE NAME: why" of the
                                     * functions dispatched by IFUNC instead */
    /* The names libtool exports through lists it made with nm under the
     * build directory (patch/ltexports.h), and "REL:LINE NAME: why" of the
     * functions that are therefore reached through a pointer (or, with
     * cpuid, its trampoline) instead of an IFUNC symbol. */
    struct strvec lt_exports;
    struct strvec plain_symbol;
    /* "REL:LINE NAME" of the functions compiled with floating-point
     * reassociation (patch/fastmath.h): FMA-free clones do not give them
     * bit-identical results; the header says so. */
    struct strvec reassoc;
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

/* Gives function name the targets (copied); a name given twice keeps the
 * last targets. */
void patch_assign(struct patch_assignments *a, const char *name, const struct strvec *targets);
/* The same for the candidate of that name defined in file rel only. */
void patch_assign_in(struct patch_assignments *a, const char *name, const char *rel, const struct strvec *targets);
void patch_assignments_free(struct patch_assignments *a);
/* Pins the candidate name of file rel at offset mod 64 (struct
 * patch_pin); a function also assigned targets is cloned, not pinned. */
void patch_pin_in(struct patch_assignments *a, const char *name, const char *rel, unsigned offset);
/* Pins a function that is no candidate (a hot function select does not
 * clone, candidates/pinsite.h): its line goes at insert_offset of file
 * (absolute; rel relative to the root), whose content must still hash to
 * source_hash (NULL: not checked); line and display_name for the header,
 * note (may be NULL) says what it is. Ignored when a candidate of that
 * name and file exists (patch_pin_in pins candidates). */
void patch_pin_at(struct patch_assignments *a, const char *name, const char *file, const char *rel,
                  size_t insert_offset, int line, const char *display_name, const char *source_hash, const char *note,
                  unsigned offset);
/* Pins the copy fmvgen_cp_<name>_<slug> of the cloned candidate name of
 * file rel at offset mod 64 (struct patch_copy_pin; --dispatch cpuid only:
 * other dispatches make no per-target copy of their own). */
void patch_copy_pin_in(struct patch_assignments *a, const char *name, const char *rel, const char *slug,
                       unsigned offset);

/* patch_validate_targets (every compiler of the candidates) for each
 * distinct set of a, once per set. 0, or -1 after the error. */
int patch_validate_assignments(struct store *st, const struct patch_assignments *a);

/* Builds the plan (reads every file; nothing is written). Returns 0 (with
 * nfunctions 0 when there is nothing to do), or -1 after a one-line error. */
int patch_plan_build(struct store *st, const struct strvec *targets, int exact, struct patch_plan *out);

/* The plan `fmvgen patch` writes: patch_plan_build, less the isa-kind
 * candidates whose score (without its FMA part when exact: FMA-free clones
 * do not get it) is below min_score (patch/threshold.h), each
 * listed in skipped ("REL:LINE NAME: score below threshold: ...") and said
 * on stderr. Loop candidates are always taken: the compiler's records say
 * what changes. min_score <= 0 takes every candidate. */
int patch_plan_build_scored(struct store *st, const struct strvec *targets, int exact, int min_score,
                            struct patch_plan *out);

/* patch_plan_build_scored with the clones reached as dispatch says
 * (patch/pointer.h): IFUNC, or a pointer where each function's shape
 * allows it (the others by IFUNC, listed in ifunc_fallback). */
int patch_plan_build_dispatch(struct store *st, const struct strvec *targets, int exact, int min_score,
                              enum patch_dispatch dispatch, struct patch_plan *out);

/* The same restricted to the candidates whose name (struct patch_function's
 * name) is in only; NULL: all of them. `fmvgen select` uses it to patch the
 * functions its measurements selected, and no others. */
int patch_plan_build_only(struct store *st, const struct strvec *targets, int exact, const struct strvec *only,
                          struct patch_plan *out);

/* The plan of the candidates named in a, each with its own targets (the
 * per-function choice of `fmvgen select`). exact is set when no set enables
 * FMA. Returns 0 (nfunctions 0 when none is left), or -1 after the error. */
int patch_plan_build_assigned(struct store *st, const struct patch_assignments *a, struct patch_plan *out);
/* The same with the copies reached as dispatch says (patch/pointer.h,
 * patch/cpuid.h; with cpuid, every set's targets must be ones
 * patch_cpuid_unknown_target knows; functions whose shape does not allow
 * it by IFUNC, in ifunc_fallback): what `fmvgen select` builds and writes
 * with its --dispatch. */
int patch_plan_build_assigned_dispatch(struct store *st, const struct patch_assignments *a, enum patch_dispatch dispatch,
                                       struct patch_plan *out);

/* The --json summary: files, functions (each with its targets), targets,
 * sets, fma. */
json_t *patch_plan_to_json(const struct patch_plan *p);

void patch_plan_free(struct patch_plan *p);

#endif
