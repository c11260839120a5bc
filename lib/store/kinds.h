/* kinds.h - the candidate kinds of the functions table, typed: what made
 * lib/candidates take a function (candidates/isa.h). functions.kind stores
 * their names (docs/DESIGN.md, store contract), which stay the contract on
 * disk; code names a kind by its enum and converts only here. The values
 * are ordered by how much a kind says: a larger one says more. */
#ifndef FMVGEN_KINDS_H
#define FMVGEN_KINDS_H

#include <jansson.h>

enum candidate_kind {
    KIND_NONE = 0,           /* no kind: functions.kind NULL */
    KIND_UNKNOWN,            /* a stored name this version does not know */
    KIND_ISA,                /* "isa": no loop record, the ISA comparison found gains */
    KIND_TARGET_VECTORIZED,  /* "target-vectorized": loop records only at the target */
    KIND_VECTORIZED,         /* "vectorized": loop records in the build */
};

/* Encode: the stored name of k ("vectorized", ...); NULL for KIND_NONE and
 * KIND_UNKNOWN. */
const char *candidate_kind_name(enum candidate_kind k);
/* Decode: the kind a stored name means; KIND_NONE for NULL, KIND_UNKNOWN
 * for a name this version does not know. */
enum candidate_kind candidate_kind_parse(const char *name);
/* candidate_kind_name as JSON (reports, --json): a string, or null for
 * KIND_NONE and KIND_UNKNOWN. New reference. */
json_t *candidate_kind_json(enum candidate_kind k);
/* The kind that says more, of two: vectorized > target-vectorized > isa. */
enum candidate_kind candidate_kind_max(enum candidate_kind a, enum candidate_kind b);

#endif
