/* session.h - one run of `fmvgen select`, as a library: the CLI
 * (src/cli/select.c) parses options, opens the store, calls select_run,
 * then writes and prints what it found - like git's builtins over libgit.
 *
 *   1. the candidates of the last scan (lib/patch/plan.h);
 *   2. builds, in private copies under a temp dir (lib/select/tree.h: in-tree,
 *      build dir below the root, or a fresh build dir with --configure): the
 *      baseline, and one variant per target set (select_target_sets) with
 *      *all* candidates cloned - a constant number of builds, whatever the
 *      candidate count;
 *   3. correctness: every variant runs every workload once (stdout compared
 *      with the baseline's, lib/compare/compare.h) and passes --test; a
 *      variant that fails is reported and never selected. The baseline runs
 *      each workload twice: lines that differ between its own two runs
 *      (a benchmark's MB/s) are not compared (lib/select/workload_output.h);
 *      a workload whose end-to-end time stays the same although the
 *      selected functions' profiles say they saved time (it runs for a
 *      fixed time, not a fixed amount of work) is reported (step 5);
 *   4. runs interleaved (A B C A B C ...) under perf (lib/measure/profile.h),
 *      samples folded onto functions (lib/select/attribution.h), the rule of
 *      lib/select/decision.h; when Holm alone held comparisons back, fresh
 *      rounds of the arms they need retest them (decision_confirm.h);
 *   5. the selected patch - every selected function with the target set
 *      that made it fastest, one patch with several sets when functions
 *      differ (lib/select/assign.h, patch_plan_build_assigned) - built once
 *      more and timed against the baseline end to end, interleaved
 *      (lib/measure/timing.h), with an interval (lib/select/stats.h);
 *   6. select_write_outputs: .fmvgen/selected.patch, report.md, report.json,
 *      report.html (lib/select/report.h; the results in result.h).
 * With is_static nothing is timed: the all-candidates build is inspected
 * (lib/elf/inspect.h) and clones needing nothing beyond the default dropped.
 *
 * The temp dir is removed at the end of select_run (unless keep), and on
 * SIGINT/SIGTERM at the next step (select_run installs the handlers for its
 * duration and returns SELECT_INTERRUPTED). Progress goes through util/progress.h
 * (variants.h: session_step/session_say): one updating line with a bar on a terminal, plain
 * "select: ..." lines on stderr otherwise. */
#ifndef FMVGEN_SELECT_SESSION_H
#define FMVGEN_SELECT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "measure/build.h"
#include "patch/plan.h"
#include "select/result.h"
#include "select/tree.h"
#include "select/workload_output.h"
#include "util/util.h"

struct store;
struct placement_log;

#define SELECT_DEFAULT_RUNS 5
#define SELECT_DEFAULT_TIMEOUT_S 600
#define SELECT_DEFAULT_MIN_SHARE 0.02
/* Most extra builds telling which functions' FMA changes an output (fmabisect.h). */
#define SELECT_DEFAULT_FMA_BISECT 8
/* How the clones are reached when --dispatch does not say (select_options.dispatch). */
#define SELECT_DEFAULT_DISPATCH PATCH_DISPATCH_CPUID
/* Fewer baseline samples per run than this make no verdict. */
#define SELECT_MIN_SAMPLES 20

/* The target sets of the variants; variant v >= 1 builds set v - 1. */
struct select_target_set {
    const char *name;      /* "fma-levels", "fma-free" */
    const char *targets;   /* "arch=x86-64-v3,arch=x86-64-v4" */
    int exact;             /* FMA-free: clones compute bit-identical floats */
};
extern const struct select_target_set select_target_sets[];
extern const size_t select_n_target_sets;

struct select_options {
    const char *build, *test;     /* shell commands (run by /bin/sh -c) */
    const char *configure;        /* NULL, or run before build in each fresh build dir (tree.h) */
    const struct strvec *runs_cmd;   /* the workloads; at least one unless is_static */
    int runs;                     /* profiled (and timed) runs per variant and workload */
    int runs_auto;                /* --runs not given: runs is chosen by the noise probe
                                   * (select/runsauto.h) before the first profiled run */
    /* Fresh rounds confirming the comparisons Holm alone held back
     * (select/decision_confirm.h), of only the arms they need; < 0: runs;
     * 0 (or 1): no confirmation stage. */
    int confirm_runs;
    int is_static, keep;
    int no_namespaces;            /* 1: never run variants in mount namespaces (select/isolation.h) */
    int placement_pins;           /* keep hot functions not cloned at their baseline offset mod 64
                                   * (select/placement.h; --no-placement-pins: 0) */
    double timeout_s;             /* per build, workload or test */
    double tolerance;             /* < 0: outputs must be identical */
    double min_share;             /* of the baseline's samples, e.g. 0.02 */
    double max_growth;            /* code-growth budget, percent of a second whole build
                                   * (select/budget.h); 0: SELECT_DEFAULT_MAX_GROWTH;
                                   * < 0: none */
    /* The whole-program references (select/reference.h): -march=x86-64-v3,
     * its -mno-fma twin, and the twin also when FMA changed the outputs. */
    int reference_v3, reference_nofma, reference_nofma_auto;
    int seed_given;               /* 0: a fresh seed (util/shuffle.h) */
    /* The target sets compared (--set), NULL: select_target_sets. */
    const struct select_target_set *sets;
    size_t n_sets;
    uint64_t seed;                /* the arms' order in each round of runs */
    int fma_bisect;               /* most builds telling which functions' FMA changes an
                                   * output (select/fmabisect.h); 0: none */
    int fma_bisect_all;           /* search every function with FMA clones, not only those
                                   * that would take the FMA set */
    /* How every variant's clones are reached (--dispatch; patch/pointer.h),
     * the all-candidates builds, the FMA bisection's, the selected build and
     * selected.patch alike: what is measured is what is written. Functions
     * the patch cannot give it are dispatched by IFUNC (each plan's
     * ifunc_fallback; the report lists them). --static inspects an IFUNC
     * build (inspect reads target_clones' clones) and writes this. */
    enum patch_dispatch dispatch;
    const char *dispatch_why;     /* NULL, or why dispatch is not the default (a note) */
    /* cpu-clock's period of every profiled run (--sample-period), in ns;
     * 0: per workload, by the rule of select/sampling.h */
    long sample_period_ns;
};

struct select_session {
    const struct select_options *o;   /* &opts */
    struct select_options opts;       /* the caller's, copied: runsauto.h sets runs */
    const struct select_target_set *sets;   /* o->sets, or select_target_sets */
    size_t n_sets;
    struct store *st;
    char *root, *builddir, *work;   /* builddir: the scan's (absolute) */
    struct select_tree tree;        /* where variants build and run */
    struct patch_plan candidates;   /* all candidates, default targets */
    struct variant_build *builds;   /* [variant], then the selected build; dir: where commands run */
    char **sources;                 /* [variant], then the selected: its private source copy */
    struct clone_isa **clone_isa;   /* [variant]: per function, what its clones there need, read
                                     * once per build (variants.h's session_clone_isa) */
    struct workload_output *base_outputs;   /* [workload] what of the baseline's stdout is compared */
    /* [v * n_workloads + w]: the least CPU seconds of variant v's unprofiled
     * runs of workload w (the output checks), 0: none; for the sampling
     * period (sampling.h) */
    double *check_cpu;
    double *saved;                  /* [w * n_functions + f]: share of workload w's baseline
                                     * samples f's chosen clones saved (decision_saved_share) */
    struct placement_log *placement;   /* per-symbol samples of the baseline's profiled runs and
                                        * the selected build's (select/placement.h) */
    struct linked_files *linked;    /* external namesakes told by linked file (select/linkedfile.h):
                                     * session_linked_files makes it on first use */
    struct select_report rep;
    struct patch_plan final_plan;   /* the selected patch (valid with have_final) */
    int have_final;
};

enum select_status {
    SELECT_DONE,          /* rep and final_plan are ready for select_write_outputs */
    SELECT_NO_CANDIDATES, /* the scan found nothing to clone; nothing to write */
    SELECT_FAILED,        /* a one-line error was printed */
    SELECT_INTERRUPTED,   /* SIGINT/SIGTERM: the temp dir is removed */
};

/* Runs the whole selection with options o on the scanned project of st
 * (borrowed). s is filled in either case; free it with select_session_free. */
enum select_status select_run(struct select_session *s, const struct select_options *o, struct store *st);

/* Writes selected.patch, report.md, report.json and report.html into the
 * store's directory; *_path (each may be NULL) get their paths (caller
 * frees) and *json_text the report.json text (caller frees). 0, or -1 after
 * an error line per file that could not be written. */
struct select_outputs {
    char *patch, *markdown, *json, *html;   /* paths */
    char *json_text;
};
int select_write_outputs(const struct select_session *s, struct select_outputs *out);
void select_outputs_free(struct select_outputs *out);

void select_session_free(struct select_session *s);

#endif
