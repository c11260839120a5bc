/* report.h - the writers of what `fmvgen select` found (result.h):
 * report.md (for people), report.json (for tools), report.html (a page with
 * tables and charts) and the terminal summary. Each only formats the
 * struct select_report the session filled, so the outputs cannot disagree.
 * One file per format: report_md.c, report_json.c, report_html.c (its
 * charts in report_chart.c), report_summary.c; what several share is in
 * report_write.h. */
#ifndef FMVGEN_SELECT_REPORT_H
#define FMVGEN_SELECT_REPORT_H

#include <jansson.h>

#include "select/result.h"

/* report.md, as a string (caller frees). */
char *select_report_markdown(const struct select_report *r);
/* report.json, as a new reference (caller decrefs). */
json_t *select_report_json(const struct select_report *r);
/* report.html: one self-contained page (inline CSS and SVG, no script, no
 * network): the facts of report.md with its tables as HTML tables, one
 * chart per workload of the end-to-end speedups with their intervals, a
 * chart of each function's speedup and one of the code growth. Caller frees. */
char *select_report_html(const struct select_report *r);
/* The terminal summary (a few lines; caller frees). */
char *select_report_summary(const struct select_report *r);

/* One interval as report.json writes it: speedup, its bounds, p, what the
 * A/A calibration widened it by; speedup null (never 0) with
 * "speedup_unknown" saying why when there is no finite one. */
json_t *select_interval_json(const struct stats_interval *iv);

/* Notes (r->notes) on what the statistics held back: functions whose A/A
 * interval excluded no change, functions Holm did not reject. Called by the
 * session once the decision is made (report_stats.c). */
void select_note_statistics(struct select_report *r);

/* Each function the confirmation retested gets a note saying how it went
 * (with the fresh rounds of the look that decided it), and one Holm held
 * back without a retest says why. Called once the budget is applied. */
void select_note_retested(struct select_report *r);

#endif
