/* static.h - `fmvgen select --static`: choosing without a benchmark.
 * From the all-candidates build: a candidate whose
 * clones use instructions the default clone does not (the ISA verdicts of
 * lib/elf/inspect.h) is kept, one whose clones need nothing more is dropped;
 * when no linked program of the build holds its clones, the loop records
 * decide (wider vectors at the probe target than in the build). Nothing is
 * timed, and the report says so. */
#ifndef FMVGEN_SELECT_STATIC_H
#define FMVGEN_SELECT_STATIC_H

#include "patch/plan.h"
#include "select/result.h"
#include "util/util.h"

/* Judges every candidate (r->functions is parallel to candidates->functions)
 * by the x86-64 executables and shared libraries under build_dir: sets
 * in_patch, set (= set_variant) and note of each, r->n_selected, a note when
 * the build linked nothing. select_patch_assignments (assign.h) then makes
 * the patch's assignments from in_patch and set. */
void select_static(const char *build_dir, const struct patch_plan *candidates, int set_variant,
                   struct select_report *r);

#endif
