/* pinoffset.h - the offset mod 64 a placement pin keeps (select's
 * placement_pins.c): where the one function symbol of a name starts, from
 * a 64-byte boundary, in a build's linked files.
 *
 * A project can link one source into several files: libtool compiles each
 * file twice (the -fPIC objects of the shared library, the others of the
 * static one a program links), and the two compiles lay their code out
 * differently, so one function can sit at 48 mod 64 in the program the
 * workloads run and at 16 in a library none of them loads (LAME: the copy of
 * choose_table_nonMMX that ran). Where the files disagree, the files the
 * profiled runs sampled the function in decide: their offset is the one
 * its measured speed belongs to. A pin sets that offset in every compile
 * of the source (patch/plan.h, struct patch_pin), so the other files move
 * to it; their code never ran. But a file the runs ran code from (a
 * program of the suite, whatever it ran) must not move: SciMark2 links
 * Random.c into five programs at different offsets, and a pin at the
 * offset of the one that sampled Random_nextDouble most moved it, and
 * every function after it, in the other four (lu: 0.68x). */
#ifndef FMVGEN_SELECT_PINOFFSET_H
#define FMVGEN_SELECT_PINOFFSET_H

#include <stddef.h>

#include "elf/elffile.h"
#include "util/util.h"

enum {
    PIN_OFFSET_NONE = -1,       /* no function symbol of that name in the files */
    PIN_OFFSET_SEVERAL = -2,    /* several in one file, or files that disagree */
};

/* The offset mod 64 (0..63) of the function symbols named name in the n
 * files efs (paths[i] names efs[i]; an entry whose elf is NULL is skipped):
 *   - when ran_in (paths, may be NULL or empty) names some of the files
 *     holding such a symbol, only those count;
 *   - else every file holding one counts;
 * the counted files must each hold one such symbol and agree on its offset
 * (PIN_OFFSET_SEVERAL otherwise); PIN_OFFSET_NONE when none holds one.
 *   - running (paths, may be NULL) names the files the profiled runs
 *     sampled any code in: one of them holding the symbol at another
 *     offset than the one decided gives PIN_OFFSET_SEVERAL;
 * *disagree (may be NULL) gets 1 when the files holding the symbol, all
 * of them, do not agree (whatever ran_in decided). */
int pin_offset(const struct elf_file *efs, const char *const *paths, size_t n, const char *name,
               const struct strvec *ran_in, const struct strvec *running, int *disagree);

/* How many compiles of a pinned function the n files efs link (an entry
 * whose elf is NULL is skipped): the function symbols named name, each
 * address once per file. A pin's line goes on the source, so every one of
 * them pays its padding: libtool links one source into a program (its
 * static objects) and a shared library (its -fPIC ones), two paddings
 * (LAME: 18 pins, 832 bytes in each of frontend/lame and libmp3lame.so). */
size_t pin_linked_copies(const struct elf_file *efs, size_t n, const char *name);

#endif
