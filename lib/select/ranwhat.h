/* ranwhat.h - proof of what a profiled run of `fmvgen select` executed:
 * that a variant's samples come from that variant's own build, never from
 * the user's tree or another variant's copy. Without it, a workload whose
 * program the build does not rebuild, or a libtool wrapper / RUNPATH /
 * LD_LIBRARY_PATH naming the original tree, runs the user's baseline code
 * in every arm, and the comparison says "no gain" with confidence.
 *
 * What perf says (measure/profile.h): the sampled objects (perf report's
 * dso column) and the mmap records (which process mapped which executable
 * or shared object, and each process's executable). Checks, each an error
 * that stops the selection (nothing is selected, no patch written):
 *   1. a sampled ELF object that lies in the user's tree (its root or its
 *      build dir) or in another variant's copy: named, with the program that
 *      loaded it, the likely cause and what to do (ranwhat_check_run);
 *   2. a hot candidate whose clones exist in the variant's linked files but
 *      none of whose samples landed in a clone (ranwhat_clones_missing): the
 *      program that ran is not the one the build made;
 *   3. a workload whose project programs (the objects of the variant's
 *      copy it mapped) differ between runs, or from the baseline's: the
 *      program moves between runs (ranwhat_same_objects).
 * Paths are compared as written, after select/isolation.h mapped the
 * namespace's view back to the copies. */
#ifndef FMVGEN_SELECT_RANWHAT_H
#define FMVGEN_SELECT_RANWHAT_H

#include <stddef.h>

#include "measure/profile.h"
#include "util/util.h"

enum ranwhat_place {
    RANWHAT_THIS,      /* this variant's copy (source copy or build dir) */
    RANWHAT_USER,      /* the user's tree: the root or the scanned build dir */
    RANWHAT_OTHER,     /* another variant's copy (under the work dir) */
    RANWHAT_SYSTEM,    /* anything else: /usr, the kernel, [vdso] ... */
};

struct ranwhat_places {
    const char *this_copy, *this_dir;   /* the variant's source copy and build dir */
    const char *root, *builddir;        /* the user's */
    const char *work;                   /* the temp dir holding every variant */
};

/* Where path lies. A path that is not absolute ("[vdso]") is SYSTEM. */
enum ranwhat_place ranwhat_classify(const char *path, const struct ranwhat_places *pl);

/* A sampled object that is not this variant's. */
struct ranwhat_finding {
    enum ranwhat_place place;   /* RANWHAT_USER or RANWHAT_OTHER */
    char *path;                 /* the object */
    long samples;               /* its samples in the run */
    char *loader;               /* the executable of a process that mapped it
                                 * (itself when it is a program), NULL if unknown */
    int is_program;             /* it was a process's executable */
};

/* Check 1 on one run: 1 with *f filled (the most sampled such object) when
 * some sampled object of p is the user's or another variant's, else 0. */
int ranwhat_check_run(const struct profile *p, const struct ranwhat_places *pl, struct ranwhat_finding *f);

/* The one-line error for f (without "fmvgen: "): variant, workload, the
 * object, where it was loaded from and by what, the likely cause and what to
 * do. why_no_ns: why private mount namespaces were not used (NULL: they
 * were). Caller frees. */
char *ranwhat_describe(const struct ranwhat_finding *f, const struct ranwhat_places *pl, const char *variant,
                       const char *workload, const char *why_no_ns);

void ranwhat_finding_free(struct ranwhat_finding *f);

/* ---- check 2: clones that never ran ---- */

/* A candidate's samples in one variant, summed over its runs. */
struct ranwhat_tally {
    long samples;        /* all its symbols' */
    long clone_samples;  /* in a clone, a clone's piece or a dispatcher */
    char *plain_dso;     /* the object its plain-symbol samples came from (most) */
    long plain_dso_samples;
};

/* Adds p's user-space samples of function (by symbol: "dot", "dot.avx2.0",
 * "dot.default", "dot.part.0" ...) to t. */
void ranwhat_tally_add(struct ranwhat_tally *t, const struct profile *p, const char *function);

/* 1 when symbol is a clone of function (or a piece of one, or its
 * dispatcher): a suffix other than a compiler's .constprop/.part/.isra/
 * .cold/.lto_priv/.localalias of the plain function; any of fmvgen's
 * dispatch names of it (elf/fmvnames.h: fmvgen_cp_f_avx2, fmvgen_resolve_f,
 * fmvgen_mv_f.avx2, f.fmvgen_init). */
int ranwhat_is_clone_symbol(const char *symbol, const char *function);

/* Check 2 for one candidate of one variant: 1 when it is hot
 * (baseline_per_run >= min_samples), its clones exist in the variant's
 * files (clones_found), and none of its samples there (at least
 * min_samples) landed in a clone: the program that ran is not the one the
 * build made. (Without clones in the files nothing is proven wrong: a
 * compiler may make none, as clang 14 for a static function.) */
int ranwhat_clones_missing(const struct ranwhat_tally *t, double baseline_per_run, int clones_found,
                           long min_samples);

/* The one-line error of check 2. Caller frees. */
char *ranwhat_describe_missing(const struct ranwhat_tally *t, const char *function, const char *variant,
                               const char *build_dir, const char *why_no_ns);

void ranwhat_tally_free(struct ranwhat_tally *t);

/* ---- check 3: the same programs every run ---- */

/* The objects of this variant's copy that p's processes mapped, relative to
 * the copy (the build dir's as "BUILD/..." when it lies elsewhere), sorted,
 * one per line. Caller frees. */
char *ranwhat_project_objects(const struct profile *p, const struct ranwhat_places *pl);

/* Check 3: NULL when objects (ranwhat_project_objects of a run) equal
 * first (those of the first run of the same workload, baseline's or this
 * variant's), else the one-line error naming the difference. Caller frees. */
char *ranwhat_same_objects(const char *first, const char *first_what, const char *objects, const char *what,
                           const char *workload);

#endif
