/* budget.h - the code-growth budget of `fmvgen select`: the selection may
 * add at most a given share of a second whole build in code.
 *
 * Definitions (what the report states):
 *   - a second whole build: the code bytes (allocated executable sections
 *     of every linked ELF file, elf/codesize.h) of the -march=x86-64-v3
 *     reference when it was built and measured - what shipping a second
 *     whole build beside the baseline (glibc-hwcaps) adds - else the
 *     baseline's own code bytes;
 *   - the limit: max_growth percent of it (--max-growth, default
 *     SELECT_DEFAULT_MAX_GROWTH);
 *   - a selection's predicted growth: the bytes its functions' clones and
 *     resolvers add in their chosen sets' all-candidates builds
 *     (bytes_added: with the alignment padding after each - fmvgen's
 *     copies, resolvers and trampolines too, elf/fmvpadding.h - and the PLT
 *     entries their resolvers fill that the baseline did not have, for
 *     compiler-made resolvers, and the change of their default copies
 *     against the code they replace, select/codecost.h), plus the fixed
 *     parts: for
 *     each linked file that holds a selected function's clones reached
 *     through a compiler-made resolver (IFUNC target_clones, an IFUNC
 *     fallback of --dispatch cpuid, pointer), the CPU-detection code the
 *     compiler runtime links into a file with a resolver (libgcc's
 *     cpuinfo.o, elf/cpudetect.h), as much as that file of the
 *     all-candidates build holds beyond the baseline's (the largest over
 *     the sets used), counted once per file however many functions it
 *     holds; for each linked file (executable or shared library) that
 *     holds a selected function's cpuid copies, its one fmvgen_cpu_levels
 *     (elf/cpuidcode.h: the weak hidden COMDAT definition every patched
 *     object file carries and the link keeps once, patch/cpuid.h) with
 *     its padding (elf/fmvpadding.h), counted once per linked file however
 *     many of its object files hold copies; for each such object file, the
 *     padding before a run of its fmvgen code that ends .text (and an older
 *     fmvgen's static fmvgen_cpu_levels, one per object file, where a build
 *     has them). The bytes are those the all-candidates build's file holds
 *     (the largest over the sets used), so they are exact for the
 *     selected build as long as the same linked files hold its copies;
 *     the selected build's measured growth is still checked against the
 *     limit (budget_check_measured).
 *     Where that cannot be told (a stripped
 *     file, clones found in
 *     no file), the set's all-candidates growth beyond its clones' own
 *     bytes stands for it (an overestimate: it also holds the changes to
 *     every other candidate's default and callers), and the report says
 *     so;
 *   - the predicted growth the report states (budget_predicted): the
 *     fit's, and the placement pins' padding at its worst case in every
 *     linked compile of each pinned function (budget_take_pin, below);
 *   - a function's gain: the share of each workload's baseline samples its
 *     chosen clones saved in the profiled runs (decision_saved_share),
 *     averaged over the workloads; for a function the confirmation
 *     selected, in its fresh runs (decision_estimate_saved: the first runs
 *     picked it, so they overstate its gain).
 * The fit and the pins keep BUDGET_UNPREDICTED_SHARE of the limit free
 * (fit_limit): the selected build's growth, measured, is checked against
 * the limit itself (budget_check_measured).
 * When the prediction is above the fit limit, the fit puts workloads first:
 *   1. each workload's best function - the selected function saving the
 *      largest share of that workload's time (decision_estimate_saved; ties:
 *      fewer bytes), when that is at least BUDGET_BEST_MIN_SAVED (less
 *      serves the workload with nothing a user would notice) - is fitted
 *      first, alone: if these do not all fit, the
 *      ones with the least gain per byte added (their bytes and the fixed
 *      parts no other kept one needs) are dropped until they do, and then
 *      each dropped one that fits again (best gain per byte first) is taken
 *      back. A dropped one is then tried kept, the others fitted around it
 *      the same way, and that fit replaces the first when it keeps more
 *      workloads' best functions, or as many and more gain counting what it
 *      keeps instead at the low end of its interval (the speedup interval
 *      its verdict rests on) and what it gives up at its estimate: a
 *      workload's best function is never given up for a gain within the
 *      noise, nor for functions serving no workload as their best;
 *   2. the room left goes to the other selected functions, the kept best
 *      functions counted and never dropped: the least gain per byte are
 *      dropped until within the limit, then each dropped one that fits
 *      again (best gain per byte first) is taken back; then each dropped one
 *      is tried kept, the rest fitted around it the same way, and the fit
 *      keeping the most gain wins (per byte, one big function with the
 *      largest gain can lose to many small ones gaining less).
 * Before any of that drops a function, the copies that never ran where
 * the gain was measured go first (select/trimcopies.h): when the fit of
 * the selection as given drops anything, each selected function whose set
 * has other non-default copies than the one that ran keeps that one alone
 * (and the default; select_function.copy_only) and the fit is redone; then
 * each kept function's left-out copies are given back, the most gain
 * first, while the fit still drops no more and stays within the limit.
 * The gain measured is the copy that ran: it is kept whole; a CPU with the
 * left-out copies' targets but not the kept one's runs the default code.
 * A workload left with nothing costs more than a slightly lower mean gain:
 * that is why step 1 comes first. With one workload step 1 keeps the
 * function saving the most, when it fits alone.
 * A function whose bytes are unknown is never dropped (dropping it would
 * save nothing measurable); the report says so.
 * A function the fit drops that another target set also qualified for (its
 * verdict's rules: eligible, significantly faster after Holm or the
 * confirmation's retest, slower on no workload) with clones of fewer bytes
 * is tried again with that set (budget_cheaper_set), and the fit is redone,
 * until no dropped one has such a set. When the fit still drops a function,
 * every selected function's cheaper qualifying sets are searched
 * (select/budget_sets.h: at most BUDGET_SETS_MAX fits): a function kept with
 * its timings' set can take a cheaper one so that others fit beside it.
 * The assignment kept serves the most workloads (their best function in the
 * fit of the timings' sets kept), then keeps the most gain (each function's
 * with its set), and replaces the fit above only when it does better by
 * those two; each fit in it follows the rules above. A function kept with a
 * cheaper set names in decision_function.budget_from the set its timings
 * chose; its note and a report note give both sets' bytes and speedups, and
 * the functions the move let the budget keep (decision_function.budget_room).
 * The cheaper sets are tried before the copies that never ran are left out
 * (the search runs again with them left out). The selected build is built
 * with the sets kept, so the prediction and the measured growth are those of
 * the sets kept. */
#ifndef FMVGEN_SELECT_BUDGET_H
#define FMVGEN_SELECT_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "select/budget_sets.h"   /* budget_cheaper_set, the sets a function may keep */

#define SELECT_DEFAULT_MAX_GROWTH 10.0   /* percent of a second whole build */
#define BUDGET_BEST_MIN_SAVED 0.01       /* a workload's best function: 1% of its time saved */
/* The share of the limit the fit and the pins leave for code the
 * prediction cannot see: callers a clone's dispatch changes (a call through
 * the PLT instead of a direct one, GCC's split-off parts), which the
 * all-candidates builds, cloning those callers too, never show. */
#define BUDGET_UNPREDICTED_SHARE 0.02

/* The pure rule, on hand-made or measured inputs. selected[f]: in the
 * selection; bytes[f]: what f adds (< 0 unknown); gain[f]: its gain (any
 * sign). overhead: the fixed part (>= 0), counted while anything is
 * selected. limit: bytes allowed (< 0: no limit). Sets dropped[f] (0/1) and
 * returns the number dropped; *before and *after (each may be NULL) get the
 * predicted growth of the selection as given and once fitted. */
size_t budget_fit(size_t n, const int *selected, const double *bytes, const double *gain, double overhead,
                  double limit, int *dropped, double *before, double *after);

/* The same with fixed parts that only some functions need (one per linked
 * file: its CPU-detection code). n functions as above; fixed[k] (>= 0) the
 * bytes of part k; needs[f * n_fixed + k] 1 when f, kept, brings part k. A
 * part counts once while any kept function needs it. budget_fit is this
 * with one part every function needs. */
/* n_workloads and saved (saved[f * n_workloads + w]: the share of workload
 * w's time f saves) give the workloads' best functions (step 1 above);
 * saved NULL: no step 1, the fit is step 2 alone. gain_low[f]: f's gain at
 * the low end of its interval (NULL: its gain). */
struct budget_parts {
    size_t n;
    const int *selected;
    const double *bytes, *gain;
    size_t n_fixed;
    const double *fixed;
    const unsigned char *needs;
    size_t n_workloads;
    const double *saved;
    const double *gain_low;
};
size_t budget_fit_parts(const struct budget_parts *p, double limit, int *dropped, double *before, double *after);

/* Each workload's best function among p's selected: best[w] is the one
 * saving the largest share of w (ties: fewer bytes), -1 when none saves
 * BUDGET_BEST_MIN_SAVED of it. p->saved must be set; best holds p->n_workloads entries. */
void budget_best_per_workload(const struct budget_parts *p, long *best);

struct select_report;
struct decision_input;

/* What budget_apply did, for the report (result.h keeps one). */
struct select_budget {
    int applied;            /* 1: a limit was known (and checked, when anything
                             * was selected) */
    double max_growth;      /* percent */
    double whole_bytes;     /* a second whole build's code bytes */
    const char *whole_what; /* "the -march=x86-64-v3 reference" or "the baseline" */
    double limit;           /* bytes */
    double fit_limit;       /* limit less BUDGET_UNPREDICTED_SHARE of it: what the
                             * fit and the pins may use */
    double overhead;        /* the fixed parts of the selection as given, bytes */
    size_t n_fixed_files;   /* linked files whose runtime CPU-detection code counts */
    size_t n_fixed_levels;  /* linked files whose one fmvgen_cpu_levels counts (cpuid) */
    size_t n_fixed_units;   /* object files whose own fmvgen code counts (cpuid: an
                             * older fmvgen's fmvgen_cpu_levels, or the padding
                             * before their run at the end of .text) */
    int fixed_residue;      /* 1: some fixed part is an all-candidates residue
                             * (the CPU-detection code could not be told) */
    double before, after;   /* predicted growth, bytes */
    size_t n_dropped;
    size_t n_best_dropped;  /* of them, workloads' best functions (step 1) */
    size_t n_served, n_to_serve;   /* workloads whose best function is kept, of
                                    * those some selected function saves on */
    size_t n_cheaper;       /* kept with a cheaper set than their timings chose */
    size_t n_room;          /* kept with their timings' set only because others took
                             * cheaper sets (the fit of the timings' sets dropped them) */
    size_t n_unknown;       /* selected functions whose bytes were unknown */
    double pin_bytes;       /* the placement pins' padding, at its worst case,
                             * summed over their linked compiles (budget_take_pin) */
    size_t n_pins;          /* pins taken */
    size_t n_pin_copies;    /* their linked compiles, each paying its padding */
    double pad_bytes;       /* the pad before .text's functions (select/textpad.h):
                             * its bytes in each linked file holding it
                             * (budget_take_pad) */
    size_t n_pad_files;     /* those files */
};

/* The smallest whole --max-growth percent whose fit (the limit less
 * BUDGET_UNPREDICTED_SHARE) holds bytes added against b's second whole
 * build; 0 when b knows no whole build. */
int budget_growth_for(const struct select_budget *b, double bytes);

/* Applies the budget to r->decision (after decide(), before
 * select_apply_decision): each dropped function gets reason
 * DECISION_CODE_BUDGET (chosen -1), a note with its bytes and gain, and
 * its decision's budget_alone: what it would add selected alone, with the
 * fixed parts it needs; where that is above the fit's limit, the note also
 * names the --max-growth that leaves room for it. r gets a note naming
 * them, with the --max-growth that keeps the whole selection; r->budget is
 * filled. in: the decision's input
 * (its samples give the gains). max_growth < 0: no budget. Needs the
 * baseline's and the variants' code measured (select_measure_code);
 * without them, a note says no budget was checked. */
void budget_apply(struct select_report *r, const struct decision_input *in, double max_growth);

/* One sentence on the budget for the writers ("code-growth budget: ..."),
 * without a trailing newline; NULL when none was applied. Caller frees. */
char *budget_sentence(const struct select_report *r);

/* What the measured selected build's growth is made of, against the
 * baseline: the clones and resolvers of its multiversioned functions with
 * their alignment padding and new PLT entries, the runtime's CPU detection
 * with its padding (-1: could not be told), and the rest (the default
 * clones' and callers' changes). 0 when the selected
 * build or the baseline was not measured, else 1. */
int budget_measured_parts(const struct select_report *r, int64_t *clones, int64_t *cpu_detect, int64_t *rest);

/* Placement pins (select/placement_pins.c, patch/pin.c) add alignment
 * padding the all-candidates builds never had: a pin at offset K mod 64
 * costs at most BUDGET_PIN_BYTES(K) (the padding up to a 64-byte boundary
 * and K no-op bytes) in each linked compile of the pinned function - its
 * line goes on the source, and a project can link one source into several
 * files (libtool: a program and a shared library; select/pinoffset.h,
 * pin_linked_copies). They are kept within what the budget leaves after
 * the fit: budget_pin_room is that room in bytes (the fit's limit less the
 * predicted growth and the pins taken so far, never below 0; a huge value
 * when no budget was applied), and budget_take_pin takes a pin at offset k
 * of a function n_files linked compiles hold (0 counts as 1) when its worst
 * case, n_files * BUDGET_PIN_BYTES(k), fits in the room (returns 1, and
 * b->pin_bytes, n_pins, n_pin_copies count it), else takes nothing
 * (returns 0). The caller asks in priority order: the selected copies'
 * pins first. budget_predicted is the growth the report states as
 * predicted: the fit's (b->after), the pins' worst case and the pad. */
#define BUDGET_PIN_BYTES(k) (63.0 + (double)(k))
double budget_pin_room(const struct select_budget *b);
int budget_take_pin(struct select_budget *b, unsigned k, size_t n_files);
double budget_predicted(const struct select_budget *b);

/* The pad before .text's functions (select/textpad.h) is charged as pins
 * are, from the same room, in each of the n_files linked files that will
 * hold it (0 counts as 1), at its exact size: it has alignment 1 and a
 * multiple of 16 bytes, so it adds no alignment padding of its own. Takes
 * it when n_files * bytes fits (returns 1; b->pad_bytes, n_pad_files count
 * it), else nothing (returns 0). budget_predicted includes it. */
int budget_take_pad(struct select_budget *b, unsigned bytes, size_t n_files);

/* After the selected build was measured: its real growth above the limit
 * is said in a note (the prediction was wrong). */
void budget_check_measured(struct select_report *r);

#endif
