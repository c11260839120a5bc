/* header.h - static, non-inline functions defined in a project header
 * that TUs #include as a code template (libsoxr's poly-fir.h: cr32.c and
 * cr32s.c include it after their own #defines; in cr32s.c its macros
 * expand to SSE intrinsics). One attribute line in the header would clone
 * the function in every including TU, so the line is switched per TU:
 *
 *     #ifdef FMVGEN_CLONE_poly_fir_h_vpoly3      (the header, at the definition)
 *     FMVGEN_CLONES_STATIC
 *     #endif
 *     #define FMVGEN_CLONE_poly_fir_h_vpoly3 1   (each eligible TU's own source,
 *                                                 above its first directive)
 *
 * A TU that does not define the switch compiles the header as before. The
 * function is sighted in every TU that includes the header (included.h's
 * sightings); each TU has its own verdict (eligibility.h's rules in that
 * TU). The rows of the eligible TUs get the "header-switch" note:
 *   {"kind": "header-switch", "detail": sentence, "tag": the switch macro,
 *    "tus": [{"source", "output", "symbol"}] (the TUs that define it),
 *    "symbols": [distinct symbols], "static": true,
 *    "off": [{"source", "reason", "detail"}] (the TUs that do not)}
 * Excluded everywhere, with the reason:
 *   - one TU defines it more than once from that place (the header
 *     included twice with other macros: vpoly1, vpoly2, vpoly3), as the
 *     switch is per TU, not per expansion;
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
    json_t *note;                   /* the note of the eligible TUs' rows; NULL: none is */
};

/* The macro name of the switch: FMVGEN_CLONE_ + the header's basename and
 * the symbol, other characters than letters and digits as '_'. Caller
 * frees. */
char *header_switch_tag(const char *file, const char *symbol);

/* Judges the definition at one (header, insert_offset) over every sighting
 * of it in all[0..n); tus[c] names compile c. Caller frees with
 * header_verdict_free. */
void header_verdict(const struct sighting *const *all, size_t n, const struct included_tu *tus,
                    struct header_verdict *out);
void header_verdict_free(struct header_verdict *v, size_t n);

#endif
