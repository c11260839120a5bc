/* textpad.h - the pad before .text's functions: how many bytes keep the
 * project's functions at the offsets mod 64 they had in the baseline build
 * when the selection's IFUNCs add PLT entries before .text.
 *
 * With --dispatch cpuid the copies and resolvers go after the linked
 * .text (patch/cpuid.h), so a function the selection does not change keeps
 * its place in .text; but each IFUNC a linked file calls through its PLT
 * adds a PLT entry (16 bytes with GNU ld) before .text, which moves .text
 * and all of it (liblc3: 3 IFUNCs, 48 bytes). The patch then puts, once
 * per linked file, an input section of that many bytes where the default
 * linker script places it before every other .text input of the patched
 * objects (patch/textpad.h): the functions after it are back at their
 * offsets mod 64.
 *
 * The number comes from the builds select made, measured as the pins'
 * offsets are (select/pinoffset.h), never from a rule of thumb: the patch
 * cannot know it (which IFUNCs a file calls through its PLT, the entry
 * size, whether the PLT lies before .text and whether .text's alignment
 * absorbs it depend on the linker, its options and the program). For one
 * linked file:
 *   - the baseline's .text starts at B (alignment a_b), right after what
 *     precedes it, ending at E_b (elf/textstart.h);
 *   - in each all-candidates build v whose functions the selection takes,
 *     the same file's .text follows E_v, and E_v - E_b must be its PLT's
 *     growth, all of it the candidates' new PLT entries there (all_slots:
 *     an IRELATIVE or JUMP_SLOT entry reaching a candidate's IFUNC that the
 *     baseline's file did not have; elf/pltslots.h) - the model checked on
 *     a build that exists (it fails with lld, whose PLT follows .text and
 *     whose tables before it grow; with gold and with -z noseparate-code,
 *     where the relocation tables before .text grow too);
 *   - the selected build then ends what precedes .text at
 *     E_s = E_b + the selected functions' entries (sel_slots, measured in
 *     their set's build), its .text starts at P = E_s aligned to a_s
 *     (the largest of a_b, the builds' and 64 when a placement pin, whose
 *     function is aligned to 64, lies in this file's .text), and the pad is
 *     (B - P) mod 64 bytes.
 * Where the baseline's .text is aligned to 64 (-static: the C library's
 * objects) it starts at 0 mod 64 in every build: the pad is 0.
 * A pad of 0 is no pad: nothing shifts, nothing is added. The pad must be
 * a multiple of 16 (every function input at -O2 is 16-aligned: a smaller
 * step would be undone by the next input's alignment). What comes before
 * the pad in .text is not restored: other objects' .text.unlikely sections
 * linked before the first patched object (cold code). */
#ifndef FMVGEN_SELECT_TEXTPAD_H
#define FMVGEN_SELECT_TEXTPAD_H

#include <stddef.h>
#include <stdint.h>

#include "elf/textstart.h"

/* One all-candidates build's copy of the file. */
struct textpad_variant {
    const char *name;             /* the build's name, for a note */
    struct elf_text_start start;
    uint64_t all_slots;           /* bytes of the candidates' new PLT entries
                                   * below .text */
    uint64_t sel_slots;           /* of them, the selected functions' */
};

struct textpad_file {
    const char *path;             /* for a note: relative to the build */
    struct elf_text_start base;
    const struct textpad_variant *vars;   /* the builds the selection takes functions from */
    size_t n_vars;
    int pinned;                   /* a placement pin (aligned to 64) lies in its .text */
};

/* The pad of f (0..48, a multiple of 16) in *pad: returns 0. Returns -1
 * when the model does not hold for f (*why: one sentence without a final
 * period, caller frees). */
int textpad_of_file(const struct textpad_file *f, unsigned *pad, char **why);

#endif
