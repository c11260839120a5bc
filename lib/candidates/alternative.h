/* alternative.h - a candidate's alternative: the static callee holding its
 * loops, whose clone alone select may take when the candidate's does not
 * fit the code-growth budget.
 *
 * A function F whose hot loops are in a static callee the build inlines
 * into it (libsamplerate's sinc_stereo_vari_process and its static inline
 * calc_output_stereo) is cloned whole: F and the helper inlined into each
 * clone (helpers.h). On a small library that clone alone can be more than
 * the budget (select/budget.h), while the callee's clone, called out of
 * line from F's one copy, would fit.
 *
 * The alternative of candidate F is the helper of F (helpers.h: defined in
 * F's file with internal linkage, used only inside F and its helpers, no
 * loop records of its own) that
 *   - holds F's loop records (the innermost definition at their positions,
 *     the credit rule of inlined.h), or a share of F's code whose ISA gains
 *     at the target score (isa.h's isa_result.inl, the credit rule of
 *     analyze_isainl.c: clang leaves loop records of an inlined helper's
 *     unrolled loops without its lines); of several, the one holding the
 *     most loop lines, then the most ISA score (ties: the first found),
 *   - passes the target_clones rules (eligibility.h) but for being declared
 *     inline: a plain static function, or a `static inline` one without
 *     attributes, whose clone drops the inline keyword (a target_clones
 *     function is called through its dispatcher, never inlined).
 * It goes into F's notes as
 *   {"kind": "alternative-callee", "detail",
 *    "callee": {name, display_name, line, end_line, insert_offset,
 *               insert_line, declared_inline (present when true)},
 *    "lines": [F's loop lines it holds], "host_loops": F's loop lines,
 *    "isa_score": its share's ISA score (0: none)}.
 * The patch without select clones F as before; the note only names what
 * select may clone instead. */
#ifndef FMVGEN_ALTERNATIVE_H
#define FMVGEN_ALTERNATIVE_H

#include <jansson.h>
#include <stddef.h>

#include "candidates/locate.h"

struct strvec;

/* The "alternative-callee" note of host (F) for callee, which holds lines
 * (text, "45") of F's host_loops loop lines and a share of F's code scoring
 * isa_score; declared_inline: the source declares callee `static inline`.
 * New reference. */
json_t *alternative_note(const struct fn_def *host, const struct fn_def *callee, const struct strvec *lines,
                         size_t host_loops, int isa_score, int declared_inline);

#endif
