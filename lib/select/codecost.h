/* codecost.h - what a selection costs in code, for the report: each
 * build's code bytes, measured in its
 * linked files by elf/codesize.h (the way `fmvgen inspect` measures one
 * file), and each candidate's bytes added by its clones in every build:
 * its clones' and resolvers' symbols, the alignment padding after each, and
 * the PLT entries that reach it (elf/codesize.h) less the JUMP_SLOT
 * entries the baseline's same file had for it already (an exported
 * function the library called through its PLT before it was cloned), plus
 * how much its default copies (target_clones' NAME.default, cpuid's
 * fmvgen_cp_NAME_default) differ from the function symbols of its name in
 * the baseline's linked files, which they replace (nothing where the
 * baseline has no symbol of that name); never below 0.
 * A candidate is matched to the multiversioned functions of the files by
 * its symbol with clone suffixes folded (select/attribution.h), so a static
 * function in two programs counts in both; an external function whose
 * namesakes in other programs are told apart by linked file counts in the
 * files holding its own definition only (select_build_dirs.linked).
 *
 * Also the check that a reference build really got its flags: when its
 * code is byte-identical to the baseline's, they reached no compile that
 * counts, and no comparison is made with it. */
#ifndef FMVGEN_SELECT_CODECOST_H
#define FMVGEN_SELECT_CODECOST_H

#include "select/result.h"

/* The build directories of a selection; NULL for a build that does not
 * exist (not built, failed, or not part of this run). */
struct select_build_dirs {
    const char *const *variants;   /* [r->n_variants]: baseline, then each target set */
    const char *selected;
    const char *march;             /* the -march=x86-64-v3 reference */
    const char *march_nofma;       /* the -march=x86-64-v3 -mno-fma reference */
    /* External namesakes told by linked file (select/linkedfile.h; NULL:
     * none): such a function's bytes are those of the files holding its
     * own definition (by the baseline's file at the same path), not its
     * namesakes' in the other programs; builddir: the project's build dir,
     * where the files' paths are asked (the variants' build dirs run there) */
    struct linked_files *linked;
    const char *builddir;
};

/* Measures every existing build and fills r: variants[v].code,
 * selected_code, march.code and march_nofma.code (and .failure when its code equals the
 * baseline's or it holds no linked file), and each function's bytes_added
 * ([variant], [n_variants] = selected; -1 where it has no clones). A build
 * whose files cannot all be read keeps what could be read, with a note. */
void select_measure_code(struct select_report *r, const struct select_build_dirs *dirs);

#endif
