/* cloneisa.h - what the clones of each candidate need, read from a build's
 * linked programs and libraries (the ISA verdicts of lib/elf/inspect.h):
 * whether some non-default clone needs more than the default clone, and the
 * union of the extensions its non-default clones need. Two uses:
 *   - `select --static` keeps a candidate whose clones use more than the
 *     default, and drops one whose clones need nothing more (static.h);
 *   - a timed selection lets a function whose FMA-level clones hold no FMA
 *     instruction take those clones although the FMA variant's outputs
 *     differ (FMA contraction, in other functions, is what changes floats;
 *     decision.h's per-function eligibility).
 * Each file is inspected (disassembled) once, whatever the number of
 * candidates; a candidate is matched by its symbol with the clone suffix
 * folded (attribution.h). */
#ifndef FMVGEN_SELECT_CLONEISA_H
#define FMVGEN_SELECT_CLONEISA_H

#include <stddef.h>

#include "elf/isa.h"

struct clone_isa {
    int found;        /* some linked file holds clones of it */
    int useful;       /* some non-default clone needs more than the default one */
    isa_set needs;    /* union of what its non-default clones need */
    int same_code;    /* found, and every non-default clone in every file is
                       * the default's code (elf/samecode.h): no timing of
                       * this build can show it gain */
};

/* For each of the n names, out[i] from the linked x86-64 ELF files under
 * build_dir. Returns the number of linked files found. */
size_t clone_isa_of_dir(const char *build_dir, const char *const *names, size_t n, struct clone_isa *out);

/* 1 when the found clones hold an FMA (or FMA4) instruction. */
int clone_isa_uses_fma(const struct clone_isa *c);

#endif
