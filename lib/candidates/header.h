/* header.h - static (or external C), non-inline functions defined in a project header
 * that TUs #include as a code template (libsoxr's poly-fir.h: cr32.c and
 * cr32s.c include it after their own #defines; in cr32s.c its macros
 * expand to SSE intrinsics), and static inline ones a TU's build compiled
 * out of line (xz's rc_encode in range_encoder.h: on in the TUs whose
 * object defines it). One attribute line in the header would clone
 * the function in every including TU, so the line is switched per TU, and
 * on only in TUs whose object defines it (where the build inlined it into
 * every caller, or never used it, its clones would be calls instead:
 * "inline", in the note's "off"):
 *
 *     #ifdef FMVGEN_CLONE_poly_fir_h_vpoly3      (the header, at the definition)
 *     FMVGEN_CLONES_STATIC
 *     #endif
 *     #define FMVGEN_CLONE_poly_fir_h_vpoly3 1   (each eligible TU's own source,
 *                                                 above its first directive)
 *
 * A TU that does not define the switch compiles the header as before. The
 * function is sighted in every TU the scan parsed that includes the
 * header (included.h's sightings; a TU without vectorized or ISA-sensitive
 * code is not parsed again for it: its copy simply stays off); each TU has
 * its own verdict (eligibility.h's rules in that TU). The rows of the eligible TUs get the "header-switch" note:
 *   {"kind": "header-switch", "detail": sentence, "tag": the switch macro,
 *    "tus": [{"source", "output", "symbol"}] (the TUs that define it),
 *    "symbols": [distinct symbols], "static": true,
 *    "off": [{"source", "reason", "detail"}] (the TUs that do not)}
 * A header expanded more than once in one TU from the same place, under
 * names a macro writes (libsoxr's cr-core.c includes poly-fir.h with
 * "#define FUNCTION vpoly1", then vpoly2, vpoly3) gets one switch per
 * name, pasted from that macro (plan.h has the lines):
 *
 *     #ifndef FMVGEN_CLONE_poly_fir_h_vpoly1 ... (a default, empty, per name)
 *     FMVGEN_CLONES_IN_TU(poly_fir_h, FUNCTION)
 *     static void FUNCTION(...)
 *     #define FMVGEN_CLONES_ON_poly_fir_h 1                         (the TU: the gate)
 *     #define FMVGEN_CLONE_poly_fir_h_vpoly3 FMVGEN_CLONES_STATIC  (the TU)
 *
 * and its note an "expansion": {"spelled": the macro, "place": the tag's
 * middle part, "symbols": every name of that place in any TU}. Each name
 * is a candidate of its own.
 * An external (non-static, non-inline) C function of a header is switched
 * the same way (mpg123's synth.h, expanded under SYNTH_NAME with external
 * linkage): the note says "static": false; each TU's switch of an
 * expansion is "#define TAG FMVGEN_CLONES[_HIDDEN](symbol)" (clang < 18's
 * alias names the expansion's symbol), and a one-expansion header's line
 * is "#ifdef TAG / FMVGEN_CLONES(spelled) / #endif" (the note's "spelling":
 * the name as written, a plain rename of the symbol). Its symbols differing
 * between TUs need the pasted switch, as an expansion.
 * Excluded everywhere, with the reason:
 *   - static in one TU, external in another;
 *   - external and renamed by a macro FMVGEN_CLONES(spelled) cannot
 *     expand to the symbol ('macro');
 *   - expanded more than once in one TU, its name not written as one macro
 *     that differs from each symbol (no switch can tell the expansions
 *     apart), or in C++;
 *   - it is used above its definition in a TU (the redeclaration line
 *     would not be switched).
 * A source compiled twice (two compiles, one file) where one compile
 * excludes it is off in both: the switch goes into that file. */
#ifndef FMVGEN_HEADER_H
#define FMVGEN_HEADER_H

#include <jansson.h>
#include <stddef.h>

#include "candidates/included.h"
#include "store/reasons.h"

struct header_verdict {
    enum exclusion_reason reason;   /* != REASON_NONE: excluded in every TU */
    char *detail;
    /* per sighting all[i]: REASON_NONE when the switch is on in its TU */
    enum exclusion_reason *tu_reason;
    char **tu_detail;
    /* per sighting: the note of its row (one per symbol, owned by notes[]);
     * NULL when off */
    json_t **note_of;
    json_t **notes;
    size_t nnotes;
};

/* The macro name of the switch: FMVGEN_CLONE_ + the header's basename and
 * the symbol, other characters than letters and digits as '_'. Caller
 * frees. */
char *header_switch_tag(const char *file, const char *symbol);

/* Judges the definition at one (header, insert_offset) over every sighting
 * of it in all[0..n) (one per TU and symbol); tus[c] names compile c.
 * Caller frees with header_verdict_free. */
void header_verdict(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                    struct header_verdict *out);
void header_verdict_free(struct header_verdict *v, size_t n);

#endif
