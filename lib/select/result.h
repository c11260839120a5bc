/* result.h - what one `fmvgen select` found, as plain structures: the
 * variants built, the candidate functions with their verdicts and the bytes
 * their clones add, the end-to-end intervals per workload, the code of every
 * build and the whole-program references. The session (session.h and its
 * phases) fills a struct select_report; the writers (report.h: report.md,
 * report.json, report.html, the terminal summary) only read it, so the
 * outputs cannot disagree. The queries below are the facts every writer
 * derives the same way. */
#ifndef FMVGEN_SELECT_RESULT_H
#define FMVGEN_SELECT_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "select/budget.h"
#include "select/decision.h"
#include "select/fmagroup.h"
#include "select/runsauto.h"
#include "select/sampling.h"
#include "select/stats.h"
#include "store/kinds.h"
#include "util/util.h"

/* The code of one build, measured in its linked x86-64 ELF files the way
 * `fmvgen inspect` measures them (elf/codesize.h). */
struct select_code {
    int measured;              /* the build exists and its linked files were read */
    size_t n_files;            /* executables and shared libraries found */
    uint64_t code_bytes;       /* allocated executable sections (.text, .init,
                                * .fini, .plt*) of those files */
    uint64_t clone_bytes;      /* non-default clones of the multiversioned functions */
    uint64_t resolver_bytes;   /* their resolvers */
    int64_t extra_bytes;       /* the alignment padding after those clones and
                                * resolvers, and the PLT entries the resolvers
                                * fill that the baseline did not have */
    uint32_t code_crc;         /* tells identical code apart from different code */
    int64_t cpu_detect_bytes;  /* the CPU-detection code in those files: the
                                * compiler runtime's (elf/cpudetect.h) and fmvgen's
                                * fmvgen_cpu_levels (cpuid dispatch); -1: some
                                * file could not tell (stripped) */
    int64_t cpu_levels_bytes;  /* of it, fmvgen's (-1 likewise) */
};

struct select_variant {
    char *name;         /* "baseline", "fma-levels", "fma-free", "selected" */
    char *targets;      /* "arch=x86-64-v3,arch=x86-64-v4"; "" for the baseline */
    int fma;            /* its clones may contract a*b+c */
    int built;
    char *failure;      /* NULL, or why it is not eligible (build, output, test) */
    char *output_match; /* "identical", "within-tolerance", ... ("" when not compared) */
    int eligible;
    struct select_code code;
};

/* The linked files of one build that hold a function's clones, and for
 * cpuid-dispatched copies the object files of that link holding them. */
struct select_clone_file {
    char *path;          /* relative to the build's directory */
    int64_t cpu_detect;  /* bytes; -1: unknown. With unit NULL, its clones are
                          * reached through a compiler-made resolver and this
                          * is the runtime's CPU detection this build's file
                          * holds beyond the baseline's (elf/cpudetect.h); else
                          * the unit's fmvgen_cpu_levels (and padding) */
    char *unit;          /* NULL, or the object file of path holding its cpuid
                          * copies ("a.c#0", elf/cpuidcode.h), or
                          * ELF_CPUID_LINKED_UNIT: path's one fmvgen_cpu_levels */
    uint64_t run_padding;   /* with unit NULL: the alignment padding before its
                             * runs of clones and resolvers (elf/codesize.h),
                             * counted once per file; 0 for a unit */
};
struct select_clone_files {
    struct select_clone_file *files;
    size_t n;
};

struct select_function {
    char *name, *display_name, *file;   /* file relative to the project root */
    int line;
    enum candidate_kind kind;   /* store/kinds.h */
    char *evidence;     /* what its code at the target changes, or NULL */
    char **ran;         /* [variant]: the symbol that collected its samples, or NULL */
    int in_patch;       /* in selected.patch */
    int set;            /* with in_patch: the variant whose targets it gets */
    char *note;         /* why chosen-but-not-patched, or NULL */
    char *outlined;     /* static helpers of its file that ran out of line only in
                         * the variants (their inlining into it was lost to the
                         * clones; outlined.h), counted as its time: "a, b"; NULL */
    int fma_free_code;  /* its clones in an FMA variant whose outputs differed hold
                         * no FMA instruction: eligible for that variant anyway
                         * (decision.h, function_eligible) */
    enum fma_verdict fma_verdict;   /* the FMA bisection's verdict (fmabisect.h) */
    char *fma_why;      /* with FMA_VERDICT_CHANGES_OUTPUT: the output that changed */
    /* Its inlined helpers (candidates/helpers.h), cloned with it: their
     * samples and their clones' bytes count as its own. */
    struct strvec helpers;
    /* Its "alternative-callee" note's callee (candidates/alternative.h):
     * the static callee holding its loops, whose clone alone would cost
     * less; NULL: none. Named when the budget drops it; not built. */
    char *alternative;
    int ifunc_fallback; /* the selection's dispatch is not IFUNC, but the patch
                         * dispatched it by IFUNC (its shape: r->ifunc_fallback) */
    int by_file;        /* other candidates share its name, and its samples were
                         * told from theirs by source file (attribution.h):
                         * not ambiguous */
    /* Bytes its clones add (non-default clones + resolver) in each build:
     * [variant], and [n_variants] = the selected build; -1 when that build
     * holds no clones of it (not cloned there, or not measured). NULL: no
     * build measured. */
    int64_t *bytes_added;
    /* [variant], [n_variants] = the selected build: the linked files holding
     * its clones there, each with the CPU-detection code a resolver brings
     * into it (select/codecost.h); NULL: no build measured. */
    struct select_clone_files *clone_files;
    /* [variant]: 1 when its clones in that build are its default's code
     * (decision.h, same_code); NULL: not known. */
    int *same_code;
    /* [variant], [n_variants] = the selected build: its non-default copies
     * by symbol, each with its bytes (symbol size and the padding after it,
     * elf/codesize.h); NULL: no build measured. */
    struct select_copies {
        char **symbols;
        int64_t *bytes;
        size_t n;
    } *copies;
    /* Set by the code-growth budget (select/trimcopies.h): the one target
     * of its set whose copy ran where its gain was measured, its copy's
     * symbol there, and the bytes the set's other non-default copies (left
     * out) held; copy_only NULL: its whole set. */
    char *copy_only, *copy_only_symbol;
    int64_t trimmed_bytes;
};

struct select_workload_result {
    char *command;
    struct stats_interval e2e;   /* baseline vs selected build, wall seconds */
    /* The same runs' CPU time (user + system of the workload and its
     * children): on a shared, loaded machine the wall time also counts the
     * waits for a CPU, the CPU time far less (docs/FINDINGS.md, "Select").
     * Not valid when the runs gave none. */
    struct stats_interval e2e_cpu;
    /* The baseline's wall times were DECISION_WAITS_RATIO times its CPU
     * times or more (decision_waits_dominate): the runs waited for a busy
     * machine, so the CPU-time interval decides for this workload. */
    int cpu_decides;
    int timed;
    char *failure;               /* the selected build failed it, or NULL */
    /* With the -march=x86-64-v3 reference timed in the same interleaved runs:
     * baseline vs it, and it vs the selected build (speedup > 1: the
     * selected build is faster than the whole-program -march build). */
    int march_timed;
    struct stats_interval march_e2e, selected_vs_march;
    char *march_failure;         /* the reference build failed it, or NULL */
    /* The same with the -march=x86-64-v3 -mno-fma reference (march_nofma). */
    int nofma_timed;
    struct stats_interval nofma_e2e, selected_vs_nofma;
    char *nofma_failure;
    /* Each all-candidates build against the baseline in the profiled runs,
     * [variant] (0 unused; not valid when that variant was not profiled):
     * the runs' total perf samples (their CPU time), widened by the A/A
     * calibration as the end-to-end intervals are. NULL: not profiled.
     * Shown in report.html's chart of the workload. */
    struct stats_interval *all_candidates;
    /* How often its profiled runs sampled, every arm alike (sampling.h);
     * period_ns 0: never profiled. */
    struct sampling_period sampling;
};

/* A whole second build of the unpatched project at -march=x86-64-v3: what
 * glibc-hwcaps packaging would ship beside the baseline (or its FMA-free
 * twin, -mno-fma: floats as the baseline's). select/reference.h. */
struct select_march {
    int attempted;               /* a build was tried */
    int built;
    const char *name, *title;    /* "v3", "-march=x86-64-v3" (select_reference_kinds) */
    char *flags;                 /* what fmvgen's wrapper appended to every compile */
    char *via;                   /* how the wrapper was reached: "PATH and CC/CXX", ... */
    char *why;                   /* why it was built ("--reference", "FMA changed the outputs") */
    size_t n_sources, n_flagged; /* the scan's sources; of them compiled with the flags */
    struct strvec missed;        /* some of those compiled without them */
    char *failure;               /* why there is no comparison with it, or NULL */
    struct select_code code;
};

/* What one stage of profiled rounds collected (report.json "run_records"):
 * the per-run numbers the decision took, after every count that credits
 * time to a candidate (libcalls.h, outlined.h, inlinedkernels.h, by name
 * where a file could not tell). Arm a is a variant (0..n_variants-1) or
 * the A/A arm (a = n_variants). */
struct select_run_stage {
    int confirmation;      /* 0: the profiled rounds; 1: the confirmation's fresh ones */
    size_t n_rounds;       /* rounds of the stage */
    size_t first_round;    /* the number of its first round in the seeded order */
    /* position[a * n_rounds + r]: the arm's place (0-based) among the arms
     * that ran in round r, -1 when it did not run in that round */
    int *position;
    /* decision_input's layouts: samples[((w * nv + v) * nf + f) * nr + r],
     * totals[(w * nv + v) * nr + r], aa_samples[(w * nf + f) * nr + r],
     * aa_totals[w * nr + r] */
    double *samples, *totals, *aa_samples, *aa_totals;
};

/* A hot function the selection did not clone, slower in the selected build
 * (select/placement.h): its samples per run, the interval, and whether its
 * code is the same code in both builds (lib/elf/samecode.h's
 * elf_code_same_moved) - then the difference is its placement. */
struct select_placement_function {
    char *symbol;
    char *file;                 /* the linked file, relative to the variant's copy */
    double base_mean, sel_mean; /* samples per run, summed over the workloads */
    struct stats_interval iv;   /* baseline vs selected: speedup < 1 is slower */
    int code_same;              /* 1 same code, 0 different, -1 not known (code_why) */
    char *code_why;
    uint64_t base_addr, sel_addr;   /* its symbol's address in each build; 0: not known */
};

/* The placement check after the confirmation (select/placement.h). */
struct select_placement {
    int checked;                /* the selected build was profiled and judged */
    char *why_not;              /* when not checked, or checked only in part, why */
    size_t n_runs;              /* profiled runs of the selected build (all workloads) */
    size_t n_tested;            /* hot symbols not cloned, judged */
    struct select_placement_function *slower;
    size_t n_slower;
    struct strvec pinned;       /* "NAME@K": functions kept at offset K mod 64 (not cloned) */
    struct strvec unpinned;     /* "NAME: why": hot, not cloned, not pinned */
    int pins_off;               /* --no-placement-pins */
};

/* A hot function of the baseline that is no candidate (hotrest.h). */
struct select_hot_rest {
    char *symbol;        /* as the ELF spells it */
    char *display_name;  /* the store's, else the symbol */
    char *file;          /* its linked file ("B/" + under the build, "S/" + under the source copy) */
    char *why;           /* "excluded: virtual", "no record: ..." */
    double share;        /* its largest share of a workload's baseline samples */
};

struct select_report {
    int static_mode;
    int runs;
    struct runs_auto runs_auto;    /* how runs was chosen with --runs auto (runsauto.h) */
    double min_share, tolerance;   /* tolerance < 0: none */
    uint64_t seed;                 /* the order of the arms in each round (util/shuffle.h) */
    size_t n_builds, n_profiled_runs, n_timed_runs;
    struct select_variant *variants;   /* [0] is the baseline */
    size_t n_variants;
    struct select_function *functions;
    size_t n_functions;
    struct decision decision;          /* parallel to functions (timed mode) */
    struct select_workload_result *workloads;
    size_t n_workloads;
    char *patch_targets;               /* the selected patch's targets, or NULL */
    const char *dispatch;              /* how every build's clones were reached (--dispatch,
                                        * patch_dispatch_name): "cpuid", "pointer", "ifunc"; NULL:
                                        * not said (static name, never freed) */
    struct strvec ifunc_fallback;      /* "REL:LINE NAME: why" of the candidates a plan of this
                                        * selection dispatched by IFUNC instead (select/dispatch.h) */
    size_t n_selected;
    struct strvec notes;               /* plain sentences: noise, held back, ... */
    struct select_code selected_code;  /* the selected build */
    struct select_march march;         /* the -march=x86-64-v3 reference */
    struct select_march march_nofma;   /* the -march=x86-64-v3 -mno-fma reference */
    struct select_budget budget;       /* the code-growth budget (budget.h) */
    struct select_fma_bisect fma_bisect;   /* the per-function FMA verdict (fmabisect.h) */
    /* The stages' per-run records: [0] the profiled rounds, [1] the
     * confirmation's; n_run_stages 0 when nothing was profiled. */
    struct select_run_stage run_stages[2];
    size_t n_run_stages;
    struct select_placement placement;
    struct select_hot_rest *hot_rest;  /* the hot functions that are no candidate (hotrest.h) */
    size_t n_hot_rest;
};

/* The code growth of a build against the baseline's code bytes: bytes and
 * percent; 0 when either was not measured. */
int64_t select_code_growth(const struct select_report *r, const struct select_code *c);
double select_code_growth_percent(const struct select_report *r, const struct select_code *c);

/* How many candidates (f included) have f's name. Above 1, perf's symbol
 * names alone cannot tell them apart: static functions of one name in
 * different files are one name to it. The session then counts each by its
 * source file (attribution.h: the ELF symbol table's STT_FILE) when it
 * can (by_file); when it cannot, each is credited with the samples of all
 * (select_name_ambiguous). */
size_t select_name_count(const struct select_report *r, size_t f);

/* Other candidates share f's name and its samples could not be told from
 * theirs by source file (select_name_count > 1 and not by_file): never
 * selected, flagged by every writer. */
int select_name_ambiguous(const struct select_report *r, size_t f);

/* A 95% interval wider than SELECT_WIDE_INTERVAL of its speedup (about
 * +-10%), or unbounded: the machine was noisy or the workload short. The
 * writers say so in plain words for the end-to-end intervals and the
 * selected functions' intervals. */
#define SELECT_WIDE_INTERVAL 0.2
int select_interval_wide(const struct stats_interval *iv);

/* The end-to-end interval that decides for a timed workload: CPU time when
 * the wall times measured waits for a busy machine (cpu_decides), else
 * wall time. */
const struct stats_interval *select_deciding_e2e(const struct select_workload_result *wr);

/* Why iv has no finite speedup to show, or NULL when it has one: the
 * baseline never sampled the function (with or without the variant), or
 * the variant never did (stats.h gives +inf then). */
const char *select_speedup_unknown(const struct stats_interval *iv);

/* The variant a function is shown with: its patch's set, else (timed) the
 * set the code-growth budget dropped it with, else the set that made it
 * fastest, else (static) the first one built. */
size_t select_shown_variant(const struct select_report *r, size_t f);

/* Bytes f's clones add in build v (0..n_variants-1, or n_variants: the
 * selected build); -1 when unknown. */
int64_t select_bytes_added(const struct select_report *r, size_t f, size_t v);

/* The baseline never sampled function f (timed mode): no share, no speedup
 * to show. */
int select_baseline_unsampled(const struct select_report *r, size_t f);

/* Why f is (not) in the patch, in words: its note, else the decision's
 * reason ("selected", "cold", ...); static: "selected" / "dropped". */
const char *select_function_verdict(const struct select_report *r, size_t f);

/* Copies one stage's rounds (decision_input's layouts, n_rounds runs) into
 * r->run_stages[r->n_run_stages++]; position as select_run_stage's. */
void select_keep_run_stage(struct select_report *r, int confirmation, size_t n_rounds, size_t first_round,
                           const int *position, const double *samples, const double *totals,
                           const double *aa_samples, const double *aa_totals);

void select_march_free(struct select_march *m);
/* Frees what c holds and empties it. */
void select_copies_clear(struct select_copies *c);
void select_report_free(struct select_report *r);

#endif
