/* dispatch.h - the dispatch map of `fmvgen verify`: for every
 * multiversioned function of a program and of the build's shared libraries
 * (libdeps.h), which clone its resolver picks on a given CPU.
 *
 * The answer comes from the resolvers themselves: libfmvgen-dispatch.so
 * (src/preload/dispatch.c) is preloaded into the program, natively or under
 * qemu-x86_64 -cpu MODEL; its constructor calls each resolver listed in a
 * request file, writes the returned addresses relative to the object's load
 * base, and exits before main. Those offsets are mapped back to clone names
 * with lib/elf (elf_mv_clone_at). The helper also reports the CPU's x86-64
 * level as CPUID shows it to the program.
 *
 * A static executable cannot take a preloaded helper: its resolvers are
 * called through gdb instead (dispatch_gdb.h), and when gdb is not
 * installed the plan says why there is no map (plan.unavailable). */
#ifndef FMVGEN_VERIFY_DISPATCH_H
#define FMVGEN_VERIFY_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "elf/clones.h"
#include "util/util.h"

struct dispatch_object {
    char *path;                 /* the program as given, or the library's resolved path */
    int is_main;
    struct elf_mv_list mv;
};

/* One multiversioned function with a resolver the helper can call. */
struct dispatch_entry {
    size_t object;              /* index in plan.objects */
    const struct elf_mv_function *fn;   /* in objects[object].mv */
    uint64_t resolver;          /* file address of the resolver */
};

struct dispatch_plan {
    struct dispatch_object *objects;    /* [0] is the program */
    size_t n_objects;
    struct dispatch_entry *entries;
    size_t n_entries;
    struct strvec system_libs;  /* DT_NEEDED names left to the system (not examined) */
    struct strvec missing_libs; /* names found nowhere (the program may not start) */
    char *unavailable;          /* why no map can be made, or NULL */
    char *gdb;                  /* static executable: the gdb that calls its resolvers */
    char *request_path;         /* the helper's request file (in the scratch dir) */
    char *library_path;         /* the LD_LIBRARY_PATH the program runs with (a libtool
                                 * wrapper's, verify/ltwrapper.h); NULL: ours */
};

/* Reads the program and its build libraries, and writes the request file
 * into scratch_dir. Returns -1 after an error line when the program is not
 * an x86-64 ELF file; a library that cannot be read is warned about and
 * left out. */
int dispatch_plan_build(const char *program, const char *ld_library_path, const char *scratch_dir,
                        struct dispatch_plan *plan);
void dispatch_plan_free(struct dispatch_plan *plan);

/* A plan without resolvers, whose only use is the helper's CPU line: what
 * level a CPU model shows to a program, when the program itself cannot take
 * the helper (a static executable). Run it on any small dynamic program of
 * the system (dispatch_level_probe_argv). Returns -1 after an error line. */
int dispatch_plan_level_only(const char *scratch_dir, struct dispatch_plan *plan);
/* {"true", NULL} resolved in PATH, or NULL when there is none. Caller
 * frees with sv_free. */
int dispatch_level_probe_argv(struct strvec *argv);

struct dispatch_result {
    char *level;          /* "x86-64-v3": the CPU as the program sees it; NULL if unknown */
    char *features;       /* "sse3 ssse3 ... avx2 fma" */
    size_t n;             /* plan entries */
    const struct elf_clone **picks;  /* per plan entry; NULL when unknown */
    uint64_t *offsets;    /* per plan entry: what the resolver returned (minus load base) */
    int *answered;        /* per plan entry: the helper reported it */
    char **other;         /* per plan entry, when the answer is no clone of the
                           * function: "NULL", "linux-vdso.so.1+0x830" (an
                           * address in another object), "0x1234 (not a known
                           * clone)"; else NULL */
    char *error;          /* the helper did not finish: why; NULL when it did */
};

/* Runs the helper in the program (argv: PROG ARGS...). qemu NULL: natively;
 * else under `qemu -cpu model`. out_path: where the helper writes. */
int dispatch_run(const struct dispatch_plan *plan, const char *helper, char *const *argv, const char *qemu,
                 const char *model, double timeout_s, const char *out_path, struct dispatch_result *res);
void dispatch_result_free(struct dispatch_result *res);

/* libfmvgen-dispatch.so: $FMVGEN_DISPATCH_LIB, else next to this fmvgen
 * binary in its build tree (preload/), else the install's lib/fmvgen/.
 * NULL when not found. */
char *dispatch_find_helper(void);

#endif
