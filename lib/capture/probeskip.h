/* probeskip.h - which compiles the target probe (probe.h) may leave out
 * because their code cannot differ at the target: a TU whose build object
 * defines no function (a data table: speex's exc_*_table.c, gain_table.c)
 * gets no function at the target either unless its text changes there,
 * and its text can only change through the predefined macros the target's
 * flags define differently (__AVX2__, __FMA__, __FP_FAST_FMA, ...). So a
 * compile is left out when all of:
 *   - its object (the wrapper's kept copy) is an x86-64 relocatable
 *     object that defines no function symbol, and the compile has no
 *     -flto (an LTO object holds no code at all);
 *   - no file the TU can include mentions, as an identifier outside
 *     comments, an x86 builtin (__builtin_ia32_*: GCC and clang 19 answer
 *     __has_builtin for them by the enabled ISA) or a macro whose
 *     predefinition differs between the compile's own machine and
 *     optimization flags and the same plus the probe's flags. The macros
 *     come from the compiler itself (`-E -dM` of an empty file at both,
 *     once per compiler, language and flags); the files are a superset of
 *     what the preprocessor reads: the source, -include/-imacros files,
 *     stdc-predef.h, and, transitively, every file an #include /
 *     #include_next names, in every directory that could hold it (the
 *     including file's, -iquote, -I, -isystem, -idirafter and the
 *     compiler's own, from `-E -v`), whatever #if surrounds it.
 * An #include no directory holds is passed over: the build's preprocessor
 * succeeded, so it did not read it (another platform's header under #if),
 * and the target's would only if an #if changed, which takes a mention.
 * Not seen: a differing or builtin name that only ## pasting forms. Anything it
 * cannot follow keeps the probe: an #include whose name is a
 * macro, a file it cannot read, a compiler whose macros or include
 * directories cannot be listed, options that move the headers (--sysroot,
 * -isysroot, -iprefix, -B, -target, --gcc-toolchain, -nostdinc, -stdlib=,
 * -specs=, -I=DIR, -F, --include-directory...). */
#ifndef FMVGEN_CAPTURE_PROBESKIP_H
#define FMVGEN_CAPTURE_PROBESKIP_H

#include "util/util.h"

struct compile_row;

/* What the answers for one probe run share: the compilers' macro
 * differences and include directories. */
struct probeskip_cache {
    struct strvec keys;       /* compiler, language and flags */
    struct strvec values;     /* per key: "\n"-joined differing macro names then "\t" then
                               * "\n"-joined include dirs; "" when they cannot be known */
};
void probeskip_cache_free(struct probeskip_cache *c);

/* 1 when the probe of compile c with the flags extra_flags (the probe's,
 * e.g. -march=x86-64-v4) can be left out by the rule above; object is the
 * build's object to read (the wrapper's kept copy: probe_run skips
 * nothing without one, e.g. for a compile database, whose outputs may be
 * older than the sources). 0 otherwise (also on any doubt). */
int probeskip_codeless(const struct compile_row *c, const char *object, char *const *extra_flags,
                       struct probeskip_cache *cache);

/* The object part of that rule alone (for libtool's twin of a compile
 * that passed it: the same TU but for the PIC options): 1 when object is
 * a readable x86-64 relocatable object that defines no function. */
int probeskip_object_codeless(const char *object);

/* The tu_notes 'probe-skipped' detail for a compile left out at variant. Caller frees. */
char *probeskip_note(const char *variant);

#endif
