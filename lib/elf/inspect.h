/* inspect.h - everything `fmvgen inspect` says about one ELF file, computed
 * once so that the human table and --json agree: the multiversioned
 * functions (clones.h), what each clone's code needs (isa.h) compared with
 * its default clone, and the code-size account of the article:
 *
 *   C = text bytes without the extra clones (text as built minus the
 *       non-default clones, the resolvers and the trampolines of the
 *       counted functions)
 *   R = share of C taken by the default clones of those functions
 *   N = versions per function, default included
 *   predicted text = (1-R)*C + R*C*N, i.e. growth R*C*(N-1); with N
 *   differing between functions, the growth is summed per function:
 *   sum(default_size * (N_f - 1)).
 * "Counted" functions are the compiler-made ones (GCC/Clang) and fmvgen's
 * cpuid copies, with a known default; hand-written ifuncs have no default
 * to measure against. */
#ifndef FMVGEN_ELF_INSPECT_H
#define FMVGEN_ELF_INSPECT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/clones.h"
#include "elf/isa.h"

enum inspect_verdict {
    VERDICT_NONE,      /* the default clone itself, or nothing to compare with */
    VERDICT_USEFUL,    /* needs something the default clone does not */
    VERDICT_USELESS,   /* needs nothing beyond the default clone: bytes for nothing */
};

struct inspect_clone {
    const struct elf_clone *clone;   /* in report.list */
    int analyzed;                    /* 0: no code bytes in the file */
    uint64_t size;                   /* the symbol's size, or when the symbol is
                                      * gone the bytes its reachable code spans */
    int size_estimated;              /* size is that estimate */
    int inferred_default;            /* no symbol names the default, but this is
                                      * the only version needing nothing beyond
                                      * baseline x86-64 (MMX/SSE/SSE2) */
    struct isa_usage isa;
    isa_set beyond_default;          /* needs minus the default clone's needs */
    int wider_than_default;          /* wider vector registers than the default */
    int same_as_default;             /* its code is the default clone's code, its
                                      * addresses set aside (samecode.h) */
    enum inspect_verdict verdict;
};

struct inspect_function {
    const struct elf_mv_function *fn;   /* in report.list */
    struct inspect_clone *clones;       /* parallel to fn->clones */
    int counted;                        /* enters the code-size account */
};

struct inspect_size {
    size_t n_counted;            /* functions in the account */
    uint64_t text;               /* allocated executable sections, as built */
    uint64_t clone_bytes;        /* non-default clones of counted functions */
    uint64_t resolver_bytes;     /* their resolvers */
    uint64_t trampoline_bytes;   /* their trampolines (pointer and cpuid dispatch) */
    uint64_t text_without;       /* C = text - clone_bytes - resolver_bytes - trampoline_bytes */
    uint64_t default_bytes;      /* R*C: their default clones */
    double r;                    /* default_bytes / C */
    int n_versions;              /* N when the same for all counted functions, else 0 */
    double n_mean;               /* N averaged, weighted by default clone size */
    uint64_t predicted_growth;   /* sum(default_size * (N_f - 1)) */
    int64_t cpu_detect_bytes;    /* the CPU detection of the file, both kinds
                                  * below (elf/cpudetect.h, elf/cpukind.h), part
                                  * of text and of C; -1: no .symtab to tell */
    uint64_t runtime_cpu_detect_bytes;  /* the compiler runtime's, which an
                                  * IFUNC resolver links in */
    const char *runtime_cpu_detect;     /* its kind ("libgcc cpuinfo"), or NULL */
    uint64_t own_cpu_detect_bytes;      /* fmvgen_cpu_levels (--dispatch cpuid) */
    size_t own_cpu_detect_copies;       /* its symbols: one per linked file, or
                                  * an older fmvgen's, one per object file */
    size_t own_cpu_detect_linked;       /* of them, the linked file's one */
    size_t own_cpu_detect_inlined;      /* fmvgen_resolve_* resolvers holding the
                                  * detection themselves (fmvgen_cpu_levels
                                  * inlined: counted in resolver_bytes) */
};

struct inspect_report {
    char *path;
    int elf_type, is_pie, is_static, has_symtab;
    struct elf_mv_list list;
    struct inspect_function *functions;   /* parallel to list.functions */
    struct inspect_size size;
};

/* Returns 0, or -1 after one line naming the file. */
int inspect_file(const char *path, struct inspect_report *out);
void inspect_free(struct inspect_report *r);

/* "executable", "PIE executable", "shared library" (+ " (static)"). */
const char *inspect_kind(const struct inspect_report *r);
/* The stripped-file explanation (what is still known, how to keep the
 * symbols), or NULL when the file has its .symtab. Caller frees. */
char *inspect_stripped_note(const struct inspect_report *r);

json_t *inspect_to_json(const struct inspect_report *r);

#endif
