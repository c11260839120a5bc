/* helpers.h - the private helpers a candidate inlined, which must stay
 * inlined into each of its clones.
 *
 * Cloning a function gives each static helper it inlined a second caller
 * (f.avx2 beside f.default). GCC's -finline-functions-called-once, and both
 * compilers' size limits, then keep a big helper out of line, compiled for
 * the default ISA only - and the vector loops, which were the helper's, no
 * longer run with the clone's ISA. Cloning the helpers too does not help
 * (GCC calls the helper clone of the caller's target but does not inline
 * it); inlining them into each clone, as the build inlined them into F,
 * does (docs/FINDINGS.md, "Helpers"). The loop records show such helpers: a
 * record names the function compiled (F) and where the loop stands (inside
 * the helper).
 *
 * A helper of candidate F is a function that
 *   - is the innermost definition holding some of F's loop records (so the
 *     compiler could and did inline it into F), or is called by F (or by
 *     another helper) and has no symbol in the compile's object (the build
 *     inlined it everywhere; it need hold no loop, nor its loops vectorize:
 *     its scalar code gains from the clones' ISA all the same, and GCC
 *     keeps a callee it inlined after early inlining out of line in clones
 *     of another target),
 *   - is defined in F's file, the TU's main file, with internal linkage
 *     (no other TU can call it),
 *   - is used (called, address taken) only inside F and inside F's other
 *     helpers - not inside itself: forcing it inline then grows no other
 *     caller, and a recursive function cannot be inlined whole,
 *   - has no loop records of its own (else it is a candidate itself),
 *   - is a plain function, not declared inline already, without attributes
 *     of its own (eligibility.h; its target_clones-only rules aside).
 * It gets always_inline wherever F is patched (patch/plan.h,
 * FMVGEN_CLONES_INLINE): each of F's clones inlines it and compiles its
 * loops for the clone's target.
 *
 * What is found goes into F's notes: {"kind": "inlined-helper", "detail",
 * "helper": {name, display_name, line, end_line, insert_offset,
 * insert_line}} for each helper, {"kind": "helper-declared-inline"} for one
 * the source declares inline already (its inlining stays the compiler's
 * choice, or the project's always_inline), and {"kind": "helper-left-out",
 * "detail"} for another function of F's file holding its loops that is not
 * one, so that the user sees why. */
#ifndef FMVGEN_HELPERS_H
#define FMVGEN_HELPERS_H

#include <jansson.h>
#include <stddef.h>

#include "candidates/locate.h"

struct pp_directives;

/* Where one of F's loop records stands: file as the record gives it
 * (relative to the compile's directory or absolute), line. */
struct loop_position {
    const char *file;
    int line;
};

/* Appends to notes what is said above, for candidate f (located in tu;
 * DEF_FOUND) whose loop records stand at positions[0..n). own[0..nown)
 * are the definitions that have loop records of their own in this TU.
 * object_functions: the functions the compile's object defines
 * (elf_object_functions), or NULL when it cannot be read. */
/* What the ISA comparison credits to a callee inlined into f (isa.h's
 * isa_result.inl: callee's share of f's code at the target scores score). */
struct helper_isa_share {
    const char *callee;   /* folded name, as a symbol */
    int score;
};

/* isa[0..nisa): the ISA shares of callees inlined into f, which with the
 * loop positions credit a helper as f's alternative (alternative.h). */
void helpers_note(struct parsed_tu *tu, const struct pp_directives *pp, const struct fn_def *f,
                  const struct loop_position *positions, size_t n, const struct fn_def *own, size_t nown,
                  const struct strvec *object_functions, const struct helper_isa_share *isa, size_t nisa,
                  json_t *notes);

/* 1 when object_functions (a compile's, elf_object_functions) holds symbol
 * as a function of its own, or only GCC's out-of-line copies of it
 * ("f.constprop.0.isra.0", "f.part.0"): the build did not inline it
 * everywhere. 0 when it does not, or object_functions is NULL. */
int helpers_object_defines(const struct strvec *object_functions, const char *symbol);

#endif
