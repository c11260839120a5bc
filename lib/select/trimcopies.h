/* trimcopies.h - the copies of a selected function that never ran where
 * its gain was measured, which the code-growth budget gives up before any
 * function (select/budget.h).
 *
 * A target set holds one copy per target (fma-levels: x86-64-v3 and
 * x86-64-v4, besides the default). On the machine where select measures,
 * the dispatch runs one of them - its widest the CPU has (the profile's
 * symbol, select_function.ran) - and the gain is that copy's alone; the
 * others never ran there: what they would gain on another CPU is not
 * known. Keeping the copy that ran alone (its target and "default"; the
 * copy's code is the same, its target attributes the same) keeps the
 * measured gain for fewer bytes; a CPU with the other targets but not the
 * one kept then runs the default code, as without clones.
 *
 * The copy that ran is told from its symbol: cpuid's
 * fmvgen_cp_<name>_<slug>, target_clones' <name>.<suffix>[.N], the slug or
 * suffix matched against each target of the set as written, without
 * "arch=", and as clang < 19 and gcc < 11 spell it (targets_spell),
 * letters and digits compared, anything else as '_'. */
#ifndef FMVGEN_SELECT_TRIMCOPIES_H
#define FMVGEN_SELECT_TRIMCOPIES_H

#include <stddef.h>
#include <stdint.h>

#include "select/result.h"

/* The target of targets (a set, "a,b") whose copy of function name is the
 * symbol sym, as targets spells it (caller frees); NULL when none or
 * several match. */
char *trim_target_of(const char *targets, const char *name, const char *sym);

/* The bytes function f's non-default copies other than the one that ran
 * hold in variant v's build (r->functions[f].copies[v]); *target gets the
 * target of the one that ran (caller frees) and *symbol its symbol (not
 * copied). 0 when nothing can be left out: the set has one non-default
 * copy, the copy that ran is not known or is the default, or the copies
 * were not measured (*target NULL then). */
int64_t trim_unran_bytes(const struct select_report *r, size_t f, size_t v, char **target, const char **symbol);

/* For the code-growth budget: marks trim[f] (n functions) for each selected
 * function (its decision's chosen set) whose set has copies that never ran
 * where it was measured; returns how many. */
size_t trim_mark(const struct select_report *r, size_t n, int *trim);

/* Each function kept (dropped[f] 0) whose trim[f] is set left with the copy
 * that ran alone: its fields (copy_only, copy_only_symbol, trimmed_bytes), a
 * note, and a line in r->notes. */
void trim_report(struct select_report *r, size_t n, const int *dropped, const int *trim);

#endif
