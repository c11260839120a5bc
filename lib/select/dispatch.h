/* dispatch.h - how a selection's clones are reached, for the report.
 *
 * `fmvgen select --dispatch cpuid|pointer|ifunc` builds every variant (the
 * all-candidates builds, the FMA bisection's, the selected one) and writes
 * selected.patch with one dispatch (patch/pointer.h, patch/cpuid.h): what
 * is measured is what is written. The patch gives a function whose shape
 * the chosen dispatch cannot take IFUNC target_clones instead (plan
 * ifunc_fallback, "REL:LINE NAME: why"); such a function's clones link the
 * compiler runtime's CPU detection (elf/cpudetect.h) into its file, which
 * the code-growth budget then counts (select/budget.h). */
#ifndef FMVGEN_SELECT_DISPATCH_H
#define FMVGEN_SELECT_DISPATCH_H

#include <jansson.h>

#include "patch/plan.h"
#include "select/result.h"

/* Records what plan p says: r->dispatch (its dispatch's name), its
 * ifunc_fallback lines added to r's (once each), and each function of p
 * dispatched by IFUNC although p's dispatch is not marked ifunc_fallback
 * in r (matched by name and file). */
void select_dispatch_record(struct select_report *r, const struct patch_plan *p);

/* report.json's "dispatch": {"mode": "cpuid", "ifunc_fallback": [lines]};
 * null when no dispatch was recorded. */
json_t *select_dispatch_json(const struct select_report *r);

/* One sentence for report.md and the summary ("dispatch: ..."), without a
 * trailing newline, naming the fallback functions; NULL when none was
 * recorded. Caller frees. */
char *select_dispatch_sentence(const struct select_report *r);

#endif
