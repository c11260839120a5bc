/* preamble.c - see preamble.h. The text of the preamble each patched file
 * gets: the guarded macro blocks that turn FMVGEN_CLONES* into
 * target_clones attributes, or into nothing. */
#include "patch/preamble.h"
#include "targets/targets.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MACRO PATCH_DEFAULT_MACRO
#define INLINE_MACRO PATCH_INLINE_MACRO
#define ALWAYS_MACRO PATCH_ALWAYS_INLINE_MACRO

/* Clang before 18 emits the dispatcher of a target_clones function under
 * "f.ifunc" and no symbol "f" (measured with clang 14: callers in other
 * files fail to link; LLVM pull request 71706 renamed it for clang 18).
 * The preamble then defines f as an alias of f.ifunc with a top-level
 * ".set" (measured: clang 14 makes f a global IFUNC symbol; C and C++,
 * executables and shared libraries link and dispatch). That needs the
 * symbol, so external functions get FMVGEN_CLONES(symbol). */
#define EXTERN_DISPATCHER_MISNAMED "defined(__clang__) && __clang_major__ < 18"

/* ---- the preamble ---- */

void patch_text_line(struct strbuf *sb, const char *eol, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    if (vasprintf(&p, fmt, ap) < 0) p = NULL;
    va_end(ap);
    if (!p) {
        fputs("fmvgen: out of memory\n", stderr);
        abort();
    }
    sb_adds(sb, p);
    sb_adds(sb, eol);
    free(p);
}

static void clones_list(struct strbuf *sb, const struct strvec *spelled)
{
    for (size_t i = 0; i < spelled->n; i++) sb_addf(sb, "\"%s\", ", spelled->v[i]);
    sb_adds(sb, "\"default\"");
}

void patch_clones_spellings(const struct patch_target_set *set, struct strbuf *modern, struct strbuf *features)
{
    struct strvec m = STRVEC_INIT, f = STRVEC_INIT;
    targets_spell(&set->targets, "gcc", 12, &m);
    targets_spell(&set->targets, "clang", 14, &f);
    clones_list(modern, &m);
    clones_list(features, &f);
    sv_free(&m);
    sv_free(&f);
}

/* The clones need IFUNC: a resolver the C library's loader (or, in a
 * static program, its startup code) calls to pick a clone. glibc resolves
 * them in dynamic, -static and -static-pie programs, before any
 * .preinit_array function or constructor runs (measured, docs/DESIGN.md).
 * musl does not: a musl program with clones fails to load ("unsupported
 * relocation type 37"), a static one jumps into unresolved slots and
 * crashes or silently does nothing. musl defines no macro of its own, so the test is
 * for glibc: __GLIBC__, which glibc's features.h defines, and which every C
 * library header brings in. uClibc defines __GLIBC__ too (and __UCLIBC__,
 * which rules it out). In a file that included no C library header before
 * the preamble (__GLIBC__ and features.h's guard _FEATURES_H, which musl's
 * features.h shares, both undefined), the preamble includes <limits.h>:
 * standard (C89, hosted and freestanding), macros only, so it is harmless
 * inside extern "C" or a namespace, and on glibc and musl it includes
 * features.h. Where the C library cannot be told (no such header, a
 * freestanding clang, another libc): no __GLIBC__, plain functions. */
#define IFUNC_LIBC PATCH_IFUNC_LIBC

void patch_libc_probe(struct strbuf *sb, const char *eol, const char *depth)
{
    patch_text_line(sb, eol, "%sif !defined(__GLIBC__) && !defined(_FEATURES_H)", depth);
    patch_text_line(sb, eol, "%s include <limits.h>", depth);
    patch_text_line(sb, eol, "%sendif", depth);
}

void patch_no_ipa_ra_macro(struct strbuf *sb, const char *eol)
{
    patch_text_line(sb, eol, "#ifndef FMVGEN_NO_IPA_RA_");
    patch_text_line(sb, eol, "# if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)");
    patch_text_line(sb, eol, "   /* a vzeroupper before calls into this file's functions (GCC's IPA-RA drops it) */");
    patch_text_line(sb, eol, "#  define FMVGEN_NO_IPA_RA_ , optimize(\"no-ipa-ra\")");
    patch_text_line(sb, eol, "# else");
    patch_text_line(sb, eol, "#  define FMVGEN_NO_IPA_RA_");
    patch_text_line(sb, eol, "# endif");
    patch_text_line(sb, eol, "#endif");
}

/* The outer condition of every block and the include that tells the C
 * library (above); leaves one #if open, at depth "# if". */
static void libc_lines(struct strbuf *sb, const char *eol)
{
    patch_text_line(sb, eol, "# if !defined(FMVGEN_NO_CLONES) && defined(__has_attribute) && defined(__x86_64__) && defined(__ELF__)");
    patch_libc_probe(sb, eol, "#  ");
}

/* The preamble's comment on it (four lines, the last ending the comment). */
#define LIBC_SENTENCE_1 "glibc has it, recognized by __GLIBC__ (not uClibc); where no C library"
#define LIBC_SENTENCE_2 "header came before, <limits.h> is included to tell. Other C libraries (musl),"
#define LIBC_SENTENCE_3 "compilers without target_clones, non-x86-64 or non-ELF builds, and"
#define LIBC_SENTENCE_4 "-DFMVGEN_NO_CLONES get plain functions. */"

/* One set's guarded block: NAME_STATIC and NAME(sym), or both empty. The
 * comments explaining the spellings and the clang < 18 alias are written
 * once per preamble (*said_spelling, *said_alias). */
static void preamble_block(struct strbuf *sb, const struct patch_target_set *set, int *said_spelling, int *said_alias,
                           const char *eol)
{
    struct strbuf m = STRBUF_INIT, f = STRBUF_INIT;
    patch_clones_spellings(set, &m, &f);
    const char *n = set->macro;
    patch_text_line(sb, eol, "#ifndef %s_STATIC", n);
    libc_lines(sb, eol);
    patch_text_line(sb, eol, "#  if " IFUNC_LIBC " && __has_attribute(target_clones)");
    if (strcmp(sb_str(&m), sb_str(&f)) != 0) {
        if (!*said_spelling)
            patch_text_line(sb, eol, "    /* clang < 19 mis-dispatches arch=x86-64-vN, gcc < 11 lacks it: feature names */");
        *said_spelling = 1;
        patch_text_line(sb, eol, "#   if %s", TARGETS_FEATURE_SPELLING_CONDITION);
        patch_text_line(sb, eol, "#    define %s_STATIC __attribute__((target_clones(%s) FMVGEN_NO_IPA_RA_))", n, sb_str(&f));
        patch_text_line(sb, eol, "#   else");
        patch_text_line(sb, eol, "#    define %s_STATIC __attribute__((target_clones(%s) FMVGEN_NO_IPA_RA_))", n, sb_str(&m));
        patch_text_line(sb, eol, "#   endif");
    } else {
        patch_text_line(sb, eol, "#   define %s_STATIC __attribute__((target_clones(%s) FMVGEN_NO_IPA_RA_))", n, sb_str(&m));
    }
    patch_text_line(sb, eol, "#   if %s", EXTERN_DISPATCHER_MISNAMED);
    if (!*said_alias) {
        patch_text_line(sb, eol, "     /* clang < 18 names the dispatcher SYMBOL.ifunc, not SYMBOL: an alias");
        patch_text_line(sb, eol, "      * SYMBOL is added, or calls from other files would not link. */");
    }
    /* clang < 18 is also < 19: the feature spelling, written out because
     * NAME_STATIC is emptied below. sym goes through a second macro, so it
     * is macro-expanded before it is made a string: a function renamed by
     * macro per TU (a source file several TUs #include) gets each TU's
     * symbol. */
    {   /* in each block: an earlier file's preamble may have run only some */
        patch_text_line(sb, eol, "#    ifndef FMVGEN_IFUNC_ALIAS_");
        patch_text_line(sb, eol, "#     define FMVGEN_IFUNC_ALIAS_(sym) __asm__(\".globl \" #sym \"\\n\\t.set \" #sym \", \" "
                          "#sym \".ifunc\");");
        patch_text_line(sb, eol, "#    endif");
    }
    patch_text_line(sb, eol, "#    define %s(sym) FMVGEN_IFUNC_ALIAS_(sym) __attribute__((target_clones(%s)))", n, sb_str(&f));
    if (!*said_alias) {
        patch_text_line(sb, eol, "     /* It also makes the resolver of a static function a global symbol: two");
        patch_text_line(sb, eol, "      * files' static functions of one name would not link. No clones. */");
    }
    *said_alias = 1;
    patch_text_line(sb, eol, "#    undef %s_STATIC", n);
    patch_text_line(sb, eol, "#    define %s_STATIC", n);
    patch_text_line(sb, eol, "#   else");
    patch_text_line(sb, eol, "#    define %s(sym) %s_STATIC", n, n);
    patch_text_line(sb, eol, "#   endif");
    patch_text_line(sb, eol, "#  endif");
    patch_text_line(sb, eol, "# endif");
    patch_text_line(sb, eol, "# ifndef %s_STATIC", n);
    patch_text_line(sb, eol, "#  define %s_STATIC", n);
    patch_text_line(sb, eol, "#  define %s(sym)", n);
    patch_text_line(sb, eol, "# endif");
    patch_text_line(sb, eol, "#endif");
    sb_free(&m);
    sb_free(&f);
}

char *patch_preamble_sets(const struct patch_target_set *sets, size_t n, const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    /* Plain C89 preprocessor only: nested #if so a compiler without
     * __has_attribute never parses __has_attribute(...); object-like
     * _STATIC macros (no variadic macros); #ifndef so that two patched
     * files in one TU, or -DFMVGEN_CLONES_STATIC= on the command line, win. */
    if (n == 1) {
        patch_text_line(&sb, eol, "/* fmvgen: %s(symbol) - %s_STATIC for static functions -", sets[0].macro, sets[0].macro);
        patch_text_line(&sb, eol, " * makes the function after it multi-versioned: one clone per target");
        patch_text_line(&sb, eol, " * (target_clones), the best for the CPU chosen at load time. Clones need IFUNC:");
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_1);
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_2);
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_3);
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_4);
    } else {
        patch_text_line(&sb, eol, "/* fmvgen: FMVGEN_CLONES_<SET>(symbol) - FMVGEN_CLONES_<SET>_STATIC for static");
        patch_text_line(&sb, eol, " * functions - makes the function after it multi-versioned for the target set");
        patch_text_line(&sb, eol, " * <SET>: one clone per target (target_clones), the best for the CPU chosen at");
        patch_text_line(&sb, eol, " * load time. Sets:");
        for (size_t i = 0; i < n; i++) {
            struct strbuf t = STRBUF_INIT;
            for (size_t k = 0; k < sets[i].targets.n; k++) sb_addf(&t, "%s, ", sets[i].targets.v[k]);
            patch_text_line(&sb, eol, " *   %s: %sdefault", sets[i].macro, sb_str(&t));
            sb_free(&t);
        }
        patch_text_line(&sb, eol, " * Clones need IFUNC:");
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_1);
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_2);
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_3);
        patch_text_line(&sb, eol, " * %s", LIBC_SENTENCE_4);
    }
    patch_no_ipa_ra_macro(&sb, eol);
    int said_spelling = 0, said_alias = 0;
    for (size_t i = 0; i < n; i++) preamble_block(&sb, &sets[i], &said_spelling, &said_alias, eol);
    patch_text_line(&sb, eol, "%s", "");
    return sb_detach(&sb);
}

char *patch_preamble_inline(const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    patch_text_line(&sb, eol, "/* fmvgen: %s marks a static helper whose loops a multi-versioned", INLINE_MACRO);
    patch_text_line(&sb, eol, " * function inlined: always_inline inlines it into each of that function's");
    patch_text_line(&sb, eol, " * clones, as the unpatched build inlined it, so its loops are compiled for each");
    patch_text_line(&sb, eol, " * clone's target (--dispatch cpuid: each copy's). Empty where there are no");
    patch_text_line(&sb, eol, " * clones (see FMVGEN_CLONES, FMVGEN_CPU_ON). %s: the same for a helper", ALWAYS_MACRO);
    patch_text_line(&sb, eol, " * declared inline already (a clone of another target would call it out of line). */");
    patch_text_line(&sb, eol, "#ifndef %s", INLINE_MACRO);
    libc_lines(&sb, eol);
    patch_text_line(&sb, eol, "#  if (" IFUNC_LIBC " && __has_attribute(target_clones) && __has_attribute(always_inline)) || defined(FMVGEN_CPU_ON)");
    patch_text_line(&sb, eol, "#   define %s __attribute__((always_inline)) __inline__", INLINE_MACRO);
    patch_text_line(&sb, eol, "#   define %s __attribute__((always_inline))", ALWAYS_MACRO);
    patch_text_line(&sb, eol, "#  endif");
    patch_text_line(&sb, eol, "# endif");
    patch_text_line(&sb, eol, "# ifndef %s", INLINE_MACRO);
    patch_text_line(&sb, eol, "#  define %s", INLINE_MACRO);
    patch_text_line(&sb, eol, "#  define %s", ALWAYS_MACRO);
    patch_text_line(&sb, eol, "# endif");
    patch_text_line(&sb, eol, "#endif");
    patch_text_line(&sb, eol, "%s", "");
    return sb_detach(&sb);
}

char *patch_preamble_hidden(const struct patch_target_set *sets, size_t n, const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    patch_text_line(&sb, eol, "/* fmvgen: <SET>_HIDDEN(symbol) is <SET>(symbol) for a function of hidden");
    patch_text_line(&sb, eol, " * visibility: GCC exports a target_clones dispatcher (symbol, symbol.resolver)");
    patch_text_line(&sb, eol, " * whatever -fvisibility or a visibility attribute says, clang < 18 its alias,");
    patch_text_line(&sb, eol, " * symbol.ifunc and resolver, clang 19 its resolver: marked .hidden here. */");
    patch_text_line(&sb, eol, "#ifndef FMVGEN_HIDE_");
    libc_lines(&sb, eol);
    patch_text_line(&sb, eol, "#  if " IFUNC_LIBC " && __has_attribute(target_clones)");
    patch_text_line(&sb, eol, "#   if %s", EXTERN_DISPATCHER_MISNAMED);
    patch_text_line(&sb, eol, "#    define FMVGEN_HIDE_(sym) __asm__(\".hidden \" #sym \"\\n\\t.hidden \" #sym \".ifunc\\n\\t.hidden \" "
                       "#sym \".resolver\");");
    patch_text_line(&sb, eol, "#   else");
    patch_text_line(&sb, eol, "#    define FMVGEN_HIDE_(sym) __asm__(\".hidden \" #sym \"\\n\\t.hidden \" #sym \".resolver\");");
    patch_text_line(&sb, eol, "#   endif");
    patch_text_line(&sb, eol, "#  endif");
    patch_text_line(&sb, eol, "# endif");
    patch_text_line(&sb, eol, "# ifndef FMVGEN_HIDE_");
    patch_text_line(&sb, eol, "#  define FMVGEN_HIDE_(sym)");
    patch_text_line(&sb, eol, "# endif");
    patch_text_line(&sb, eol, "#endif");
    for (size_t i = 0; i < n; i++) {
        patch_text_line(&sb, eol, "#ifndef %s_HIDDEN", sets[i].macro);
        patch_text_line(&sb, eol, "# define %s_HIDDEN(sym) FMVGEN_HIDE_(sym) %s(sym)", sets[i].macro, sets[i].macro);
        patch_text_line(&sb, eol, "#endif");
    }
    patch_text_line(&sb, eol, "%s", "");
    return sb_detach(&sb);
}

char *patch_preamble(const struct strvec *targets, const char *eol)
{
    struct patch_target_set one = {.targets = *targets, .macro = (char *)DEFAULT_MACRO};
    return patch_preamble_sets(&one, 1, eol);
}

char *patch_macro_name(const struct strvec *targets)
{
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, DEFAULT_MACRO);
    for (size_t i = 0; i < targets->n; i++) {
        const char *t = targets->v[i];
        if (!strncmp(t, "arch=", 5)) t += 5;
        sb_addc(&sb, '_');
        for (; *t; t++) {
            char c = *t;
            if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
            else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
            sb_addc(&sb, c);
        }
    }
    return sb_detach(&sb);
}
