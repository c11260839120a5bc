/* preamble.h - the preamble fmvgen inserts once per patched file: the
 * macros FMVGEN_CLONES(symbol) / FMVGEN_CLONES_STATIC (or one pair per
 * target set, FMVGEN_CLONES_<SET>) and FMVGEN_CLONES_INLINE, defined as
 * target_clones / always_inline attributes where the clones work and as
 * nothing elsewhere. Pure text: nothing here reads files or the store.
 * Where the preamble goes and which blocks a file needs: plan.h. */
#ifndef FMVGEN_PATCH_PREAMBLE_H
#define FMVGEN_PATCH_PREAMBLE_H

#include <stddef.h>

#include "util/util.h"

/* the macro of a one-set plan; what a candidate's inlined helpers get
 * (candidates/helpers.h) */
#define PATCH_DEFAULT_MACRO "FMVGEN_CLONES"
#define PATCH_INLINE_MACRO "FMVGEN_CLONES_INLINE"
#define PATCH_ALWAYS_INLINE_MACRO "FMVGEN_CLONES_ALWAYS_INLINE"

/* What the patch header says of the C library (lines ending in '\n'): the
 * clones need IFUNC, which the preamble finds in glibc only. */
#define PATCH_PREAMBLE_LIBC_NOTE \
    "The clones need IFUNC, which glibc resolves (dynamic, -static, -static-pie)\n" \
    "and musl does not. The preamble recognizes glibc by __GLIBC__ (uClibc, which\n" \
    "defines it too, by __UCLIBC__); in a file that included no C library header\n" \
    "before it, it includes <limits.h> (standard, macros only) to bring in the C\n" \
    "library's features.h. Wherever glibc cannot be told (musl, other C libraries,\n" \
    "freestanding builds), the functions stay plain.\n"

/* The preprocessor condition under which the C library runs IFUNC
 * resolvers (dynamic, -static and -static-pie programs): glibc, recognized
 * by __GLIBC__, not uClibc, which defines it too. The target_clones blocks
 * test it, and cpuid dispatch (patch/cpuid.h) to choose IFUNC over its
 * trampoline. Meaningful after patch_libc_probe's lines. */
#define PATCH_IFUNC_LIBC "defined(__GLIBC__) && !defined(__UCLIBC__)"

/* Appends (eol-terminated) the lines that include <limits.h> where no C
 * library header came before them (neither __GLIBC__ nor features.h's
 * guard _FEATURES_H, which musl shares, is defined), so that
 * PATCH_IFUNC_LIBC can tell the C library; depth is the '#' prefix of the
 * #if at the level they go ("#  "). */
void patch_libc_probe(struct strbuf *sb, const char *eol, const char *depth);

/* Appends the guarded definition of FMVGEN_NO_IPA_RA_: `, optimize("no-ipa-ra")`
 * under GCC, empty elsewhere (clang, icc). Written into the attribute list of
 * every clone (target_clones, cpuid's target copies): GCC's IPA-RA, seeing
 * that a same-file callee leaves some SSE registers alone, emits no
 * vzeroupper before the call, and the callee's legacy SSE code (built for
 * the baseline) then runs with dirty upper halves - 2.2x slower measured
 * (docs/FINDINGS.md, "vzeroupper"). Clang emits the vzeroupper. */
void patch_no_ipa_ra_macro(struct strbuf *sb, const char *eol);

/* One target set of a plan, and the macros that spell it. */
struct patch_target_set {
    struct strvec targets;          /* without "default" */
    char *macro;                    /* "FMVGEN_CLONES" (one set) or "FMVGEN_CLONES_AVX2"; + "_STATIC" */
    int fma;                        /* some target may contract a*b+c */
};

/* The preamble defining FMVGEN_CLONES and FMVGEN_CLONES_STATIC, each line
 * ending in eol: plain C89 preprocessor, guarded by #ifndef so two patched
 * files in one TU do not redefine them. */
char *patch_preamble(const struct strvec *targets, const char *eol);

/* Appends fmt's text and eol (the patched file's line ending) to sb: one
 * line of text the patch inserts (the preamble's, the trampolines'). */
void patch_text_line(struct strbuf *sb, const char *eol, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same for several sets: one guarded block per set defining
 * sets[i].macro(sym) and sets[i].macro_STATIC with sets[i].targets (one
 * explanatory comment above them). patch_preamble is this with the single
 * set {targets, "FMVGEN_CLONES"}. */
/* The set's clone list, "\"t1\", \"t2\", \"default\"", appended to modern as
 * the resolvers of gcc >= 11 and clang >= 19 dispatch it and to features in
 * the feature names the others need (targets_spell). */
void patch_clones_spellings(const struct patch_target_set *set, struct strbuf *modern, struct strbuf *features);
char *patch_preamble_sets(const struct patch_target_set *sets, size_t n, const char *eol);

/* The guarded block defining FMVGEN_CLONES_INLINE, what helpers get:
 * __attribute__((always_inline)) __inline__ where target_clones is there,
 * else empty; and FMVGEN_CLONES_ALWAYS_INLINE, what helpers the source
 * declares inline get: the attribute alone, or empty. Each line ending in
 * eol. */
char *patch_preamble_inline(const char *eol);

/* The guarded block defining, for each of sets[0..n), M_HIDDEN(sym): M(sym)
 * preceded by top-level .hidden directives for the dispatcher symbols that
 * GCC and clang < 18 export whatever visibility the function has (sym,
 * sym.resolver; clang < 18 also sym.ifunc; clang 19 exports the resolver),
 * where the clones are on; each line ending in eol. For external functions
 * the scan saw with hidden visibility. */
char *patch_preamble_hidden(const struct patch_target_set *sets, size_t n, const char *eol);

/* The macro name for a set in a plan with several: FMVGEN_CLONES_ then each
 * target upper-cased, "arch=" dropped, other characters than letters and
 * digits as '_', joined by '_' ("arch=x86-64-v3,arch=x86-64-v4" ->
 * FMVGEN_CLONES_X86_64_V3_X86_64_V4). A valid C identifier. */
char *patch_macro_name(const struct strvec *targets);

#endif
