/* simdifdef.h - finds where a function picks its SIMD code path with the
 * preprocessor (#ifdef __AVX2__, #if defined(__SSE4_1__), __ARM_NEON, ...),
 * inside its body or in the #if/#ifdef blocks around its definition. Also
 * through the project's own macros: one #defined under such a condition
 * (in the main file or a non-system header the TU includes), and one whose
 * name carries an instruction set as a word (HAVE_AVX2, PROJ_HAVE_SSSE3).
 *
 * Also the ISA a '#pragma GCC target' fixes for the functions after it.
 *
 * Such macros are fixed when the TU is compiled, before any cloning: every
 * target_clones clone gets the path the build's own flags selected, so the
 * clone for AVX2 may still run the SSE2 path. `list` tells the user, as the
 * note kind "simd-ifdef" of the functions table.
 *
 * The directives are read once per TU from libclang's tokens
 * (so comments and strings never look like directives, and blocks the
 * preprocessor skipped are seen too). */
#ifndef FMVGEN_SIMDIFDEF_H
#define FMVGEN_SIMDIFDEF_H

#include "candidates/locate.h"
#include "util/util.h"

struct pp_directives;

/* Reads the directives of the TU's main file and of its non-system
 * headers. */
struct pp_directives *pp_directives_scan(struct parsed_tu *tu);
void pp_directives_free(struct pp_directives *pp);

/* Appends one sentence per SIMD switch that governs def (a definition in
 * the main file, or in a project file the TU includes, where the main
 * file's blocks open around its #include count too): "#ifdef __AVX2__ at
 * line 12 ..." to details. */
void simd_ifdef_details(const struct pp_directives *pp, const struct fn_def *def, struct strvec *details);
/* The SIMD macros those tests name (__AVX2__, PROJ_HAVE_SSSE3), each once,
 * appended to macros. */
void simd_ifdef_macros(const struct pp_directives *pp, const struct fn_def *def, struct strvec *macros);

/* The '#pragma GCC target(...)' (or '#pragma clang attribute push' of a
 * target) in force at offset of file (the main file, or a project file it
 * includes: then the main file's pragmas before the #include count first),
 * push_options/pop_options followed; NULL when none. *line gets its line,
 * *in_file (may be NULL) the name of the file holding it. GCC ignores
 * target_clones on a function under such a pragma (its target wins). */
const char *pp_target_pragma_at(const struct pp_directives *pp, CXFile file, unsigned offset, unsigned *line,
                                const char **in_file);

/* 1 when the TU's main file or one of its project headers holds
 * "#define MACRO NAME": an object-like macro that renames to exactly NAME
 * (one of several #defines of MACRO under #if may be it: the compiled name
 * tells which one was in force), directly or through a chain of such
 * renames ("#define rdft lsx_rdft", "#define lsx_rdft _soxr_rdft"; at most
 * 8). included.h uses it for functions renamed per TU. */
int pp_renames(const struct pp_directives *pp, const char *macro, const char *name);

/* The attribute names that "#define MACRO ..." writes, in the TU's main
 * file or one of its project headers ("#define NEVER_INLINE(t) t
 * __attribute__((noinline))": noinline; "__hot__" as hot), appended to out
 * without repeats. libclang names an attribute a macro writes by the
 * macro, so eligibility.h reads them here. */
void pp_macro_attributes(const struct pp_directives *pp, const char *macro, struct strvec *out);

/* 1 when name is a compiler macro that says which SIMD instructions the
 * compile enables (__AVX2__, __SSE4_1__, __AVX512F__, __FMA__, __ARM_NEON). */
int is_simd_macro(const char *name);

#endif
