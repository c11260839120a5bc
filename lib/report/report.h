/* report.h - what `fmvgen list` shows, gathered from the store in one place
 * so that the human table and --json say the same thing:
 *   - every function that vectorized (in the build or only in a probe) or
 *     whose code gains at the target ISA, as a candidate (with its kind,
 *     score and evidence) or as an exclusion with its reason - once per definition
 *     (file, line, name, status), however many compiles built it;
 *   - per loop: the vector width of the user's build vs the target probe;
 *   - per TU: flags that defeat vectorization, failed probes, and how many
 *     more loops vectorize at -O3 than at the build's -O2. */
#ifndef FMVGEN_REPORT_H
#define FMVGEN_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store/kinds.h"

struct store;

struct report_loop {
    char *file;          /* relative to the project root when inside it */
    int line, column;
    char *kind;          /* "loop" / "slp" */
    /* Width in the user's build and in the target probe: bytes (GCC) or
     * lanes, i.e. elements (Clang says only that); -1: not vectorized there. */
    int build_bytes, build_lanes;
    int target_bytes, target_lanes;
};

struct report_function {
    int64_t id;
    char *name, *display_name;
    char *file;          /* definition, relative to the root when inside it */
    int line;
    char *status;        /* "candidate" / "excluded" */
    char *reason, *detail;
    json_t *notes;       /* array of {kind, detail}; never NULL */
    char *tu;            /* the TU's source, relative to the root */
    /* The compiles it was found in, by their outputs (relative to the root):
     * one source built twice (a static and a shared library's objects) is
     * ONE function of the report - as it is one attribute in the patch -
     * with both compiles here and its loops merged (widest width). */
    char **outputs;
    size_t ncompiles;
    int only_at_target;  /* vectorizes only in the target probe */
    /* store/kinds.h (the one that says most over its compiles); the
     * score of what its code at the target changes, and the evidence
     * ("popcnt replaces __popcountdi2; 12 FMA"), NULL when none. */
    enum candidate_kind kind;
    int score;
    char *evidence;
    char *dropped_calls;   /* store/dropped.h text that goes with evidence (NULL: not known) */
    struct report_loop *loops;
    size_t nloops;
};

struct report_tu {
    char *source;
    json_t *notes;       /* array of {kind, detail} from tu_notes */
    int o3_extra_loops;  /* -1: no -O3 probe for this TU */
    char *compiler_kind; /* "gcc" / "clang": why -O3 does more depends on it */
    int compiler_major;
};

struct report {
    char *root;
    char *targets;
    char *probe_variant;        /* e.g. "probe:arch=x86-64-v4", or NULL */
    struct report_function *functions;
    size_t nfunctions, ncandidates, nexcluded;
    struct report_tu *tus;
    size_t ntus;
    int compiles, failed_compiles, corrupt_record_files;
};

int report_load(struct store *st, struct report *out);
/* Why more loops of t vectorize at -O3 than at -O2, for its compiler (a
 * clause for `list`: GCC's -O2 cost model is GCC's, not clang's). */
const char *report_o3_reason(const struct report_tu *t);
json_t *report_to_json(const struct report *r);
void report_free(struct report *r);

#endif
