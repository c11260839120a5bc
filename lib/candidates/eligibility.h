/* eligibility.h - the rules that say whether a located function may get a
 * target_clones attribute, and if not, why (a reason code of the functions
 * table, store/reasons.h, and a sentence for the user).
 *
 * Never patched, checked in this order (the first that applies is given):
 *   parse-error libclang reports an error inside the definition (the
 *               compiler built it: a GCC extension libclang lacks)
 *   main        the program's entry point
 *   header      defined in a header (or a file the TU includes that is no
 *               C/C++ source: .inc, .def); a source file the TU includes
 *               (a wrapper TU's #include "kernel.c") is judged like the
 *               TU's own, and analyze.c checks it in every including TU
 *   macro       the definition comes out of a macro expansion
 *   template    function template, member of a class template, explicit
 *               specialization, or an instance of one
 *   lambda      a lambda's call operator
 *   virtual     a C++ virtual member function defined in its class, or
 *               one whose body lambdas cannot hold (lambdadisp.h); the
 *               others are candidates with the note "lambda-dispatch"
 *   coroutine   co_await / co_yield / co_return in the body
 *   inline      inline, static inline, extern inline, __inline__,
 *               always_inline, constexpr, C++ members defined in their class;
 *               except (eligibility_check_emitted) a C function or free C++
 *               one with internal linkage, not always_inline, that the
 *               build compiled out of line: a static function like any
 *   variadic    takes "..."
 *   attribute   already carries target, target_clones, ifunc, naked, weak
 *               (also target_version, cpu_dispatch, cpu_specific), in
 *               __attribute__((...)) or [[gnu::...]] syntax; or stands
 *               under a '#pragma GCC target' (GCC then ignores target_clones);
 *               or, on the definition itself, one clang cannot combine with
 *               target_clones (noinline, cold, hot, flatten, used,
 *               visibility, pure, const, section, aligned, ...)
 *   constructor a C++ constructor or destructor (GCC aliases their
 *               symbols; target_clones cannot be combined with an alias)
 *   tag-name    a function at file scope whose name is also the tag of a
 *               struct, union or enum declared at file scope ("struct spec"
 *               and "struct spec spec(int)", legal C): clang 19 crashes on
 *               target_clones there (a segfault in emitMultiVersionFunctions;
 *               gcc 12 and clang 14 build it)
 *   intrinsics  calls a function declared in the compiler's *intrin.h /
 *               arm_neon.h headers or a __builtin_ia32_* builtin: the
 *               default clone would not compile
 *   inline-asm  asm statements: the same
 *   used-before-definition  called or address taken earlier in its file
 *               (clang rejects target_clones then, GCC does not), and no
 *               attributed redeclaration can go before that use (redecl.h
 *               says why); where one can, the function is a candidate and
 *               the patch inserts it (note "redeclared")
 *   declared-after-definition  declared again below its definition where
 *               the patch cannot put the attribute line above that
 *               declaration (a header #included below it, ...: laterdecl.h
 *               says why); where it can, the note "declared-later" says where
 *   internal-template  C++, static or in an anonymous namespace, and calls
 *               template code: clang 19 leaves those instances undefined
 *   not-found   no definition located (compiler-generated, ...), or a
 *               defaulted one (= default: no body in the source) */
#ifndef FMVGEN_ELIGIBILITY_H
#define FMVGEN_ELIGIBILITY_H

#include <jansson.h>

#include "candidates/locate.h"
#include "store/reasons.h"

struct eligibility {
    enum exclusion_reason reason;   /* REASON_NONE: a candidate */
    char *detail;         /* why, for the user; NULL for a candidate. Caller frees. */
    json_t *note;         /* a candidate's note from the rules (redecl.h's "redeclared"),
                           * or NULL. Caller decrefs. */
};

/* pp: the TU's directives (simdifdef.h), for target pragmas. */
struct pp_directives;
void eligibility_check(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def,
                       struct eligibility *out);
/* The same, for a function the build's object defines as a symbol of its
 * own (emitted = 1: a static inline function it did not inline everywhere),
 * which the inline rule then lets through as above. */
void eligibility_check_emitted(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def,
                               int emitted, struct eligibility *out);

/* Why always_inline may not be added to def, a static helper the build
 * inlined into a candidate (candidates/helpers.h), or NULL: an attribute
 * that contradicts inlining or gives the helper a target of its own
 * (noinline, optnone, noipa, target, target_clones, ifunc, naked, weak,
 * constructor, ...), written on any declaration or by a macro; the target
 * of an alias;
 * fmvgen's own markers; a target pragma in force; always_inline itself
 * (nothing to add: each clone inlines it). The attributes clang
 * only refuses beside target_clones (no_sanitize, hot, cold, visibility,
 * pure, ...: the attribute rule above) do not: always_inline combines with
 * them in gcc, clang 14 and clang 19. Caller frees. */
char *eligibility_inline_conflict(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def);

/* The attribute that keeps def's body out of line whatever calls it -
 * "noinline", "optnone" or "noipa", on any declaration or written by a
 * macro - or NULL. */
const char *eligibility_body_kept_out(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *def);

#endif
