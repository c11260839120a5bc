/* notes.h - the kinds of the store's notes, typed: what lib/candidates and
 * lib/capture write and lib/patch, lib/select, lib/report and `list` read
 * back. The stored spellings (docs/DESIGN.md, store contract) are the
 * contract on disk; code names a kind by its enum and converts only here.
 *
 * Function notes: functions.notes is a JSON array of objects
 * {"kind": NAME, "detail": sentence, ...more fields per kind}.
 * TU notes: tu_notes.kind is a NAME, tu_notes.detail a sentence.
 *
 * Decoding an unknown or missing name gives *_UNKNOWN (a store written by
 * another version): readers skip such a note, never fail on it. */
#ifndef FMVGEN_NOTES_H
#define FMVGEN_NOTES_H

#include <jansson.h>

enum note_kind {
    NOTE_UNKNOWN = 0,
    NOTE_SIMD_IFDEF,       /* "simd-ifdef": a preprocessor SIMD switch in or around the body */
    NOTE_SHARED_LINE,      /* "shared-line": other code before the definition on its insert line */
    NOTE_STATIC_MACRO,     /* "static-macro": internal linkage the definition does not write out
                            * (a macro, or an earlier static declaration); "static": true */
    NOTE_REDECLARED,       /* "redeclared": the declaration the patch puts above the first use */
    NOTE_INLINED_HELPER,   /* "inlined-helper": a static helper the candidate inlined; "helper" */
    NOTE_HELPER_DECLARED_INLINE, /* "helper-declared-inline": such a helper, inline already */
    NOTE_HELPER_LEFT_OUT,  /* "helper-left-out": such a helper that cannot be always_inline */
    NOTE_INLINED_INTO,     /* "inlined-into": a static callee inlined into excluded hosts; "hosts" */
    NOTE_INCLUDED_SOURCE,  /* "included-source": defined in a source file TUs #include; "tus", "symbols" */
    NOTE_VISIBILITY,       /* "visibility": external but hidden (-fvisibility=hidden or an attribute) */
    NOTE_ISA_UNATTRIBUTED, /* "isa-unattributed": an excluded function's ISA evidence that no
                            * inlined callee was credited with, and why */
    NOTE_INLINE_EMITTED,   /* "inline-out-of-line": declared inline (internal linkage), but the
                            * build compiled it out of line: a candidate like any static function */
    NOTE_PARAMS,           /* "params": what --dispatch cpuid forwards (candidates/params.h):
                            * "names" and "void", or "refused" */
    NOTE_HEADER_SWITCH,    /* "header-switch": a static function of a project header, cloned in
                            * the including TUs that define its switch; "tag", "tus", "off" */
    NOTE_DECLARED_LATER,   /* "declared-later": declarations below the definition that the patch
                            * gives the attribute line (candidates/laterdecl.h); "lines" */
    NOTE_ALTERNATIVE_CALLEE, /* "alternative-callee": a candidate's static callee holding its loops,
                              * whose clone alone select may take instead of the candidate's when
                              * that does not fit the code-growth budget (candidates/alternative.h);
                              * "callee", "lines", "host_loops" */
    NOTE_LAMBDA_DISPATCH,  /* "lambda-dispatch": a virtual method dispatched by lambdas, its body
                            * duplicated (candidates/lambdadisp.h); "result", "body", "end" */
};

/* The stored name of k ("simd-ifdef", ...); NULL for NOTE_UNKNOWN. */
const char *note_kind_name(enum note_kind k);
/* The kind a stored name means; NOTE_UNKNOWN for NULL or an unknown name. */
enum note_kind note_kind_parse(const char *name);
/* The kind of a note object (its "kind" member); NOTE_UNKNOWN when it has
 * none or is no object. */
enum note_kind note_kind_of(const json_t *note);
/* A new note object {"kind": name of k, "detail": detail}; the caller adds
 * its other members and owns the reference. */
json_t *note_new(enum note_kind k, const char *detail);
/* The first note of kind k in a notes array, or NULL (a borrowed
 * reference; notes may be NULL). */
json_t *notes_find(const json_t *notes, enum note_kind k);

enum tu_note_kind {
    TU_NOTE_UNKNOWN = 0,
    TU_NOTE_ISA_UNMATCHED,     /* "isa-unmatched": code the ISA comparison could not pair or read */
    TU_NOTE_NO_VECTORIZE_FLAG, /* "no-vectorize-flag": -fno-tree-vectorize and the like */
    TU_NOTE_LOW_OPT,           /* "low-opt": -O0/-O1/-Os/-Oz/-Og */
    TU_NOTE_O2_CHEAP_MODEL,    /* "o2-cheap-model": more loops vectorize at -O3 (scan --o3) */
    TU_NOTE_PROBE_FAILED,      /* "probe-failed": the target probe's compile failed */
    TU_NOTE_NO_RECORDS,        /* "no-records": a wrapped compile gave no record file */
    TU_NOTE_PROBE_SKIPPED,     /* "probe-skipped": the target probe left out a TU whose code
                                * cannot differ there (capture/probeskip.h) */
};

/* The stored name of k; NULL for TU_NOTE_UNKNOWN. */
const char *tu_note_kind_name(enum tu_note_kind k);
/* The kind a stored name means; TU_NOTE_UNKNOWN for NULL or an unknown name. */
enum tu_note_kind tu_note_kind_parse(const char *name);

#endif
