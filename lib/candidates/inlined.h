/* inlined.h - loops of a static function the build inlined into a function
 * that is never patched.
 *
 * A loop record names the function compiled, after inlining. GCC inlines a
 * static kernel that main calls once into main (-finline-functions-called-
 * once), so every record of a numeric-kernel suite names main, and main is
 * excluded: no candidate at all. The same holds for a static callee inlined
 * into any excluded function (variadic, inline asm, ...). The record's
 * position still lies in the callee's definition: the callee is then the
 * candidate itself. Cloned, it stays out of line (a target_clones function
 * is called through its dispatcher, never inlined): one call more for each
 * call the host makes, which its note says.
 *
 * A callee found this way is
 *   - the innermost definition holding a loop record of an excluded host
 *     (any reason but "attribute": a host with target or target_clones of
 *     its own compiles the callee for its targets already),
 *   - in the TU's main file, with internal linkage (an external function is
 *     emitted out of line anyway, with records of its own),
 *   - without loop records of its own (else it has its own row).
 * It gets a row judged by the eligibility rules like any definition (a
 * "static inline" kernel stays excluded, as inline), with the note
 *   {"kind": "inlined-into", "detail", "hosts": [{"name", "symbol", "reason"}],
 *    "lines": [loop lines]}
 * naming every excluded host it was inlined into (a callee inlined into
 * several is one row, one note), and the candidates it was also inlined
 * into (their clones will call it out of line too).
 *
 * A callee used only inside another one that is a candidate (a kernel's own
 * static helper, inlined into the kernel and with it into main) is no
 * candidate but that kernel's helper (helpers.h's "inlined-helper" note:
 * FMVGEN_CLONES_INLINE keeps it inlined into each of the kernel's clones;
 * a candidate of its own, each clone would call it through its
 * dispatcher), when it could be a candidate itself (or only its use before
 * its definition stopped it) - transitively: a helper's helper is the
 * kernel's too. */
#ifndef FMVGEN_INLINED_H
#define FMVGEN_INLINED_H

#include <jansson.h>
#include <stddef.h>

#include "candidates/eligibility.h"
#include "candidates/helpers.h"
#include "candidates/locate.h"

struct pp_directives;

/* The "inlined-into" note (store/notes.h) of a callee the build inlined
 * into the excluded hosts (display names; symbols: their symbols as the ELF
 * spells them - "main", "_Z3mixiz" -, one a host, NULL or "" where unknown;
 * reasons: their exclusion reasons' names, one a host) and into the
 * candidates also (NULL or empty: none).
 * detail: "<what> into H1 (excluded: R1) and H2 (excluded: R2)", then for
 * a callee that is a candidate (reason REASON_NONE) ", so the candidate is
 * <callee> itself; cloned, it stays out of line: one call more at each call
 * from H1" ("from them" for several), else "; <callee> is no candidate
 * either (<reason>)"; then ". It was also inlined into C1, ..." when also
 * has any. JSON {kind, detail, hosts: [{name, symbol, reason}]} (no
 * "symbol" where it is unknown): the caller adds what its kind of note has
 * more ("lines", "isa"). New reference. */
json_t *inlined_into_note(const char *what, const char *callee, enum exclusion_reason reason,
                          const struct strvec *hosts, const struct strvec *symbols, const struct strvec *reasons,
                          const struct strvec *also);

/* A located function of the TU with its verdict and its loop positions. */
struct inlined_host {
    const struct fn_def *def;                  /* DEF_FOUND */
    enum exclusion_reason reason;              /* REASON_NONE: a candidate */
    const struct loop_position *positions;
    size_t n;
};

struct inlined_callee {
    struct fn_def def;
    struct eligibility el;      /* its own verdict: caller frees el.detail, decrefs el.note */
    json_t *notes;              /* its notes (array): "inlined-into", and "inlined-helper"
                                 * for each helper folded into it. Caller decrefs. */
};

/* The callees (see above) of hosts[0..nh); own[0..nown) are the
 * definitions with loop records of their own. Returns how many; *out
 * (caller frees, after fn_def_free of each def). */
size_t inlined_callees(struct parsed_tu *tu, const struct pp_directives *pp, const struct inlined_host *hosts,
                       size_t nh, const struct fn_def *own, size_t nown, struct inlined_callee **out);

#endif
