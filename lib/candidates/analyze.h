/* analyze.h - turns the loop records of the store into the functions table:
 * for every function the compiler vectorized (in the build or in a probe),
 * or whose code at the target gains over the build's (isa.h: kind "isa"),
 * find its definition with libclang using the TU's own flags, apply the
 * eligibility rules, and store it as 'candidate' or 'excluded' with a reason.
 * Also stores per-candidate notes (SIMD #ifdefs inside the body, ...).
 *
 * The pieces: tuargs.h (argv -> libclang flags), locate.h (record name ->
 * definition, exact extent, insert point), eligibility.h (the rules and
 * their reason codes), simdifdef.h (preprocessor SIMD switches).
 *
 * Rows written (one per compile and function; see docs/DESIGN.md):
 *   name          the record's function without clone suffix: C name, or the
 *                 mangled C++ symbol; "file.c:LINE" for a log record whose
 *                 function was not found
 *   display_name  C: the name; C++: "ns::S::m(float *, int)", demangled for
 *                 instances, lambdas and unlocated symbols
 *   file          absolute path of the definition (of the loop when the
 *                 definition was not located)
 *   line,col .. end_line,end_col   the exact extent, from the first token
 *                 (storage class, return type, template<>, leading
 *                 attribute) to just past the closing brace (end_col);
 *                 NULL col when unlocated
 *   insert_offset byte offset of the start of the first token's line (just
 *                 after the previous '\n', so CRLF files work); insert_line
 *                 that line. NULL when unlocated.
 *   status/reason/detail   'candidate', or 'excluded' + code + sentence
 *   notes         JSON array of {kind, detail}: "simd-ifdef"; "shared-line"
 *                 when the insert line also holds other code before the
 *                 definition (`namespace { void f()`, `extern "C" void f()`)
 *   source_hash   hash_file_hex of file when analyzed
 *   kind, score, evidence   isa.h: vectorized / target-vectorized / isa, and
 *                 what the function's code at the target changes
 * A compile's isa.h notes (objects without code, target functions not in
 * the build's code) become tu_notes 'isa-unmatched'. */
#ifndef FMVGEN_ANALYZE_H
#define FMVGEN_ANALYZE_H

struct store;

struct analyze_stats {
    int candidates;
    int excluded;
    int unparsable_tus;   /* TUs libclang could not parse (each named on stderr) */
};

/* Replaces the functions rows of every compile (a compile without loops
 * gets none; rows of failed compiles are dropped). Returns 0, or -1 on a
 * store error; a TU that no longer parses (edited since the compile) is
 * reported in one line and its functions stored as 'parse-error'
 * exclusions, not fatal. When libclang fails on a source the compiler
 * built as it is (a GCC extension, a libstdc++ newer than libclang), only
 * the functions holding the errors are 'parse-error'. stats may be NULL. */
int candidates_analyze(struct store *st, struct analyze_stats *stats);

#endif
