/* included.h - functions defined in a C/C++ source file that TUs #include
 * (libjpeg-turbo 3 compiles jcdctmgr.c through the wrapper TUs
 * jcdctmgr-8.c, -12.c and -16.c, each '#include "../jcdctmgr.c"' after its
 * own #defines). The patch puts the attribute line into that file once, so
 * every TU that includes it compiles the clones. Hence:
 *   - the eligibility rules must hold in each including TU (one that defines
 *     BITS_IN_JSAMPLE differently may see other code); a definition
 *     excluded in one of them is excluded everywhere, with that TU's reason;
 *   - the candidate must know each TU's compiled symbol: a macro may rename
 *     the function per TU (#define _jpeg_fdct_islow jpeg12_fdct_islow).
 *     The patch's FMVGEN_CLONES(sym) names the symbol only for clang < 18's
 *     alias; the preamble macro-expands sym, so writing the name as spelled
 *     at the definition gives each TU its own symbol. That holds when the
 *     spelling is the name, or a macro #defined as exactly the name; other
 *     renames of an external function are excluded ('macro').
 * analyze.c records a sighting of every definition of such a file in every
 * TU that includes it (or compiles it as its own file); included_verdict
 * then judges each definition (file, insert_offset) once over all of them. */
#ifndef FMVGEN_INCLUDED_H
#define FMVGEN_INCLUDED_H

#include <jansson.h>
#include <stddef.h>

#include "candidates/locate.h"
#include "store/reasons.h"
#include "util/util.h"

struct pp_directives;

/* One definition as one TU compiles it. */
struct sighting {
    size_t compile;          /* the caller's index of the compile */
    char *file;              /* absolute path of the definition */
    unsigned insert_offset;
    char *symbol;            /* the compiled name in that TU (C: after macro expansion; C++: mangled) */
    char *spelled;           /* the identifier written at the name (NULL: none) */
    char *spelling_why;      /* NULL when FMVGEN_CLONES(spelled) expands to symbol; else why not */
    int is_static;           /* internal linkage */
    int cxx;
    enum exclusion_reason reason;   /* REASON_NONE: eligible in that TU */
    char *detail;
    char *redecl_text;       /* its redeclaration in that TU (redecl.h), NULL: none */
    unsigned redecl_offset;
};

struct sightings {
    struct sighting *v;
    size_t n, cap;
};

/* Records every function definition located in each of files (absolute
 * paths: the TU's own source or files it includes) as TU `compile` sees it,
 * with its eligibility there. object_functions: the functions the TU's
 * object defines (helpers_object_defines), or NULL when unknown: a
 * function declared inline that it defines was compiled out of line there
 * (eligibility_check_emitted). */
void sightings_collect(struct parsed_tu *tu, const struct pp_directives *pp, size_t compile,
                       const struct strvec *files, const struct strvec *object_functions, struct sightings *out);
void sightings_free(struct sightings *s);

/* What a TU is called in messages and in the note: its source and output. */
struct included_tu {
    const char *source, *output;
};

/* The verdict on the definition at (file, insert_offset) over every
 * sighting of it in all[0..n). reason REASON_NONE: a candidate, and note is the
 * "included-source" note for its rows:
 *   {"kind": "included-source", "detail": sentence naming each TU and its symbol,
 *    "tus": [{"source", "output", "symbol"}], "symbols": [distinct symbols],
 *    "static": bool, "spelling": the name as written (only when the symbols
 *    differ and the function is external: what FMVGEN_CLONES gets)}
 * Otherwise reason/detail say which TU excludes it and why (note NULL),
 * also when two TUs would redeclare it differently (used-before-definition:
 * the file gets one redeclaration line).
 * tus[i] names compile i. Caller frees detail and decrefs note. */
struct included_verdict {
    enum exclusion_reason reason;
    char *detail;
    json_t *note;
};
void included_verdict(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                      struct included_verdict *out);

#endif
