/* demo.h - the engine of `fmvgen demo`: the whole pipeline on the bundled
 * examples (examples/array_addition, the FMV article's program, and
 * examples/kernels, a small multi-file project), each in a temp dir,
 * through a given fmvgen binary:
 *
 *   fmvgen scan -- make, fmvgen list, fmvgen patch --apply   (on a copy)
 *   build each variant of demo_builds[] in its own copy (measure/build.h)
 *   time them (medians of runs, runs interleaved: measure/timing.h), check
 *   that their outputs agree
 *   find the clones in the FMV binary (elf/clones.h) and which of them ran
 *   here, from a perf profile of the FMV build (measure/profile.h)
 *   for array_addition, run every build on emulated CPUs (qemu-x86_64 -cpu
 *   MODEL, through verify_program: the same runs as `fmvgen verify`) with a
 *   small pass count
 *
 * Every result of one build lives in struct demo_build_result, so a build
 * or a column is added without touching the pipeline. The human report
 * goes to stdout while it runs (progress lines, the fmvgen commands'
 * output, then per example a table of the builds' times and ratios - for
 * array_addition the FMV article's table: its five builds, each with its
 * native time and, per emulated CPU, OK or how it died, never an emulated
 * time - and a table of the clones that run on this machine); with json
 * set nothing goes to stdout and demo_to_json gives the results. Errors go
 * to stderr as `fmvgen:` lines. */
#ifndef FMVGEN_DEMO_H
#define FMVGEN_DEMO_H

#include <jansson.h>

#include "elf/clones.h"
#include "measure/build.h"
#include "measure/profile.h"
#include "measure/timing.h"
#include "util/util.h"
#include "verify/verify.h"

#define DEMO_DEFAULT_RUNS 5

/* One build of an example, as a row of the tables. */
struct demo_build_def {
    const char *key;      /* names its private copy and its JSON entry */
    const char *label;    /* the row's name */
    const char *cflags;
    int patched;          /* built from the tree `fmvgen patch --apply` patched */
    const char *only;     /* the one example it is built for; NULL: every example */
    int portable;         /* must run on every CPU: a failure there fails the demo */
};

/* In the article's order: None (-O0), -O3, -O3 -mavx, -O3 -mavx2, -O3 with
 * the FMV patch. The builds only array_addition gets are the article's own
 * rows: the kernels example would only take longer with them. */
#define DEMO_N_BUILDS 5
extern const struct demo_build_def demo_builds[DEMO_N_BUILDS];
/* The reference of the ratios (-O3): it applies to every example. */
#define DEMO_REF_BUILD 1
/* The build FMV is measured against natively, and the FMV build. */
#define DEMO_AVX2_BUILD 3
#define DEMO_FMV_BUILD 4

/* A bundled example: a directory of examples/ whose Makefile honours CC and
 * CFLAGS and builds one program that prints checksums on stdout. */
struct demo_example_def {
    const char *name;
    const char *program;      /* built by `make`, relative to the project */
    const char *quick_arg;    /* the program's work-size argument for quick */
    int kernel_times;         /* prints "time KERNEL MS" lines on stderr */
    /* The work-size argument under qemu, which only has to show whether a
     * build runs there (the dearest emulated instructions are in the first
     * pass); NULL: no emulated CPUs for this example. */
    const char *emulated_arg;
};

#define DEMO_N_EXAMPLES 2
extern const struct demo_example_def demo_examples[DEMO_N_EXAMPLES];

struct demo_build_result {
    struct variant_build build;
    int built;
    struct timing_result timing;
    int timed;                /* timing ran (it may still have failed) */
    struct verify_report cpus;   /* its runs on the emulated CPUs (runs[0] native) */
    int verified;             /* cpus holds a report */
};

/* One multiversioned function of the FMV binary and the samples perf gave
 * its clones. */
struct demo_clone_samples {
    const struct elf_mv_function *fn;
    long *samples;            /* per clone of fn */
    long total;
    const struct elf_clone *hottest;   /* NULL when never sampled */
};

struct demo_example {
    const struct demo_example_def *def;
    char *project;            /* the copy that is scanned and patched */
    char *step_failure;       /* the first pipeline step that failed */
    char *list_text;          /* `fmvgen list` (human) */
    json_t *list_json;        /* `fmvgen list --json` (with json) */
    char *patch_text;
    struct demo_build_result builds[DEMO_N_BUILDS];
    int outputs_compared, outputs_equal;
    struct elf_mv_list clones;
    int have_clones;
    struct demo_clone_samples *samples;   /* one per clones.functions[] */
    struct profile profile;
    char *profile_failure;
    struct strvec cpu_models;  /* the emulated CPUs of the table; empty: none */
    char *emulation_missing;   /* why there are no emulated runs (qemu not installed) */
};

struct demo_options {
    int runs;                 /* timed runs per build, >= 1 */
    int quick;                /* the examples' quick_arg: for tests, times become noise */
    int keep;                 /* the caller keeps the work directory (said in the JSON) */
    int json;                 /* nothing on stdout; results for demo_to_json */
    const char *self;         /* the fmvgen binary that runs the pipeline */
    const char *cc;           /* the compiler of the builds */
};

struct demo {
    char *examples_dir;       /* where the examples were copied from */
    char *workdir;            /* the temp dir holding every copy and build */
    struct demo_example examples[DEMO_N_EXAMPLES];
    int failed;               /* a step failed, a portable build failed on a CPU, or outputs differ */
};

/* The source tree's examples/ when self is the binary of a build tree, the
 * installed copy (FMVGEN_DATADIR) when it runs from the install prefix,
 * else whichever of the two exists (caller frees). */
char *demo_examples_dir(const char *self);

/* Runs every example in a new temp dir (d->workdir, left for the caller to
 * keep or remove). Returns 0 when the demo ran (d->failed says whether
 * every step worked), or -1 after an error line when it could not start
 * (the examples missing, no temp dir). Free d with demo_free either way. */
int demo_run(const struct demo_options *o, struct demo *d);
void demo_free(struct demo *d);

/* {"examples": [...], "workdir", "kept", "ok"}: every example's steps,
 * builds (times, outputs, emulated CPUs), clones and profile. */
json_t *demo_to_json(const struct demo *d, const struct demo_options *o);

#endif
