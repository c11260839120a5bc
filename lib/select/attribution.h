/* attribution.h - a profile's samples folded onto the functions fmvgen
 * patches. A multiversioned function shows up in a profile under its clones'
 * symbols (GCC: foo.arch_x86_64_v3, foo.avx2, foo.default; Clang:
 * foo.avx2.0, foo.default.1, foo.ifunc) and its compiler-made pieces
 * (foo.cold, foo.part.0, foo.constprop.0): all of them are foo's time.
 * C and mangled C++ names hold no '.', so everything from the first '.' on
 * is such a suffix. fmvgen's own dispatch names (elf/fmvnames.h) are foo's
 * too: its copies fmvgen_cp_foo_x86_64_v3 (--dispatch cpuid), the renamed
 * body's clones fmvgen_mv_foo.avx2 (pointer), the resolver
 * fmvgen_resolve_foo and the trampoline's foo.fmvgen_init/.fmvgen_ctor.
 *
 * The profile comes from lib/measure/profile.h, which runs `perf record -e
 * cpu-clock` with its default inheritance: child processes of the workload
 * (a shell, a test driver) are sampled too.
 *
 * Names are not always enough: static functions of one name in different
 * files (libjpeg-turbo's three `start_pass`) are different symbols with the
 * same name. Each profile entry names its file and an address, and
 * lib/elf/symsource.h maps those to the symbol's source file (the STT_FILE
 * of its TU), so such a function is counted BY FILE: only the entries of
 * its name from its own TU. Where that cannot be told (a stripped file, a
 * file gone), the entry's origin is unknown and the caller keeps counting
 * by name. Clones and compiler pieces (work.avx2, work.resolver,
 * work.constprop.0) are local symbols of the same TU and follow it.
 * External functions of one name in different programs (or shared objects)
 * have global symbols, which name no file: they are counted by LINKED file
 * instead (select/linkedfile.h sets each entry's linked_owner). */
#ifndef FMVGEN_SELECT_ATTRIBUTION_H
#define FMVGEN_SELECT_ATTRIBUTION_H

#include <jansson.h>

#include "measure/profile.h"
#include "util/util.h"

struct elf_symsource_cache;

/* The function a symbol belongs to: "foo" for "foo.avx2.0" and for
 * "fmvgen_cp_foo_avx2". Caller frees. */
char *attribution_base_name(const char *symbol);

/* The clone suffix of a symbol ("avx2", "arch_x86_64_v3", "default"), without
 * Clang's ".N"; a cpuid copy's slug ("x86_64_v3"); "" for a plain symbol.
 * Caller frees. */
char *attribution_clone_suffix(const char *symbol);

/* User-space samples of function (all its clones and pieces). */
long attribution_samples(const struct profile *p, const char *function);

/* The symbol of function that collected the most samples (the clone that
 * ran here), or NULL when none did; the dispatcher (foo.resolver, Clang's
 * foo.ifunc, fmvgen_resolve_foo, foo.fmvgen_init) is not a clone and never
 * the answer. Points into p. */
const char *attribution_hottest_symbol(const struct profile *p, const char *function);

/* ---- by source file ---- */

/* Where one entry of a profile came from. */
struct attribution_origin {
    int known;          /* its ELF symbol was found at its address */
    int local;          /* STB_LOCAL */
    const char *file;   /* a local symbol's source file, basename ("a.c": GCC and
                         * Clang write the basename even for sub/a.c); NULL for
                         * a global one. Points into the cache. */
    /* For a name whose candidates are told apart by linked file
     * (attribution_function.linked; select/linkedfile.h): the linked id of
     * the candidate whose definition the entry's file holds, set by the
     * caller after attribution_locate; 0: not known; -1: no candidate's. */
    long linked_owner;
};

/* The origin of each entry of p (p->n of them; kernel entries, files
 * that cannot be read or have no .symtab, and local symbols whose STT_FILE
 * names no source - after LTO: "" or "ld-temp.o" - stay unknown), files
 * read through cache. Caller
 * frees the array; it lives no longer than the cache. */
struct attribution_origin *attribution_locate(const struct profile *p, struct elf_symsource_cache *cache);

/* Is basename (an STT_FILE name) the basename of one of files (NULL-
 * terminated, any paths)? */
int attribution_file_among(char *const *files, const char *basename);

/* A candidate as the profile must find it. */
struct attribution_function {
    const char *name;
    char *const *files; /* NULL-terminated: the sources of the TUs that compile
                         * it (any path: basenames are compared) - its own file,
                         * and the TUs that #include it (attribution_sources) */
    int is_static;      /* internal linkage: none of its symbols is global */
    /* > 0: it shares its external name with other candidates, each in its
     * own linked file, and this is its id there (select/linkedfile.h): an
     * entry of its name is its own when the entry's linked_owner is this
     * id, whatever the symbol's binding (a global symbol names no file, its
     * clones' STT_FILE only a basename the namesakes may share); 0: not */
    long linked;
};

/* The sources whose STT_FILE a function's symbols carry, into out: file
 * (where it is defined), then the TU sources of an "included-source" note
 * (candidates/included.h: libjpeg-turbo 3's jclossls.c is compiled as
 * jclossls-8.c, -12.c and -16.c, and the STT_FILE of its static functions
 * names those - measured), or of a "header-switch" note (candidates/
 * header.h: only the TUs that switch the header's function on; the other
 * TUs' copies of that static function are namesakes, not its time).
 * notes: the function's notes array, or NULL. */
void attribution_sources(const char *file, const json_t *notes, struct strvec *out);

/* 1 when the profile cannot tell f from a namesake by file whatever it
 * holds: another of the n candidates fs has f's name and a source basename
 * of f's (a/util.c and b/util.c: STT_FILE holds the basename only), or both
 * have external linkage (one name in two programs: global symbols have no
 * STT_FILE) - unless both are told by linked file (their .linked). */
int attribution_files_clash(const struct attribution_function *fs, size_t n, size_t f);

enum attribution_need {
    ATTRIBUTION_BY_NAME,        /* as before: every symbol of the name */
    ATTRIBUTION_BY_FILE,        /* other candidates share the name */
    ATTRIBUTION_BY_FILE_IF_NAMESAKES,   /* the name is the candidate's alone:
                                 * by file only when the profile shows local
                                 * symbols of the name from other files than
                                 * its sources (non-candidate namesakes); else
                                 * by name, exactly as before */
};

struct attribution_count {
    long samples;           /* the function's (by file when by_file) */
    long name_samples;      /* every symbol of its name (attribution_samples) */
    const char *hottest;    /* its clone that collected the most, or NULL */
    int by_file;            /* counted by file */
    int undecided;          /* by file was needed but an entry of its name has no
                             * known origin: counted by name */
};

/* Counts function f in p with the origins from attribution_locate (NULL:
 * by name). By file, an entry of f's name is f's when its origin is known
 * and it is a local symbol of one of f's source basenames, or a global
 * symbol and f is not static; for f told by linked file (f->linked), when
 * its linked_owner is f's (a local symbol of another source basename is
 * not), unknown when that owner is not known. */
void attribution_count(const struct profile *p, const struct attribution_origin *origins,
                       const struct attribution_function *f, enum attribution_need need,
                       struct attribution_count *out);

#endif
