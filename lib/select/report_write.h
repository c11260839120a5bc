/* report_write.h - what select's writers (report.h) share; not for use
 * outside them.
 *
 *   report_text.c       numbers, intervals and sentences in Markdown text
 *                       (report.md, the summary; report.html converts them)
 *   report_table.c      the four tables (variants, functions, end to end,
 *                       code size) as rows of cells, and their Markdown
 *   report_md.c         report.md, from parts report.html reuses
 *   report_mdhtml.c     the Markdown those parts write (headings,
 *                       paragraphs, lists, `code`, **bold**, *em*) as HTML
 *   report_chart.c      report.html's inline SVG charts
 *   report_stats.c      the statistics (seed, A/A calibration, Holm)
 *   report_reference.c  the whole-program references */
#ifndef FMVGEN_SELECT_REPORT_WRITE_H
#define FMVGEN_SELECT_REPORT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "select/report.h"
#include "util/util.h"

/* report_text.c */
/* What a build's code and a function's bytes added count (report.md's code
 * section, report.json's code_size.counted). */
extern const char REPORT_CODE_COUNTED[];
/* "1.52" / "inf" */
void report_add_ratio(struct strbuf *sb, double x);
/* "1.52x [1.40, 1.66]"; "- (not sampled)" when the baseline never sampled
 * it; "inf (not sampled by this variant)"; "1.52x (no interval)". */
void report_add_speedup(struct strbuf *sb, const struct stats_interval *iv);
/* f's speedup with set v as the reports give it (decision_estimate): for a
 * confirmed function's retested set, the confirmation's fresh runs', then
 * " (fresh runs)"; else the profiled runs'. */
void report_add_estimate(struct strbuf *sb, const struct select_report *r, size_t f, size_t v);
/* "12,345" */
void report_add_bytes(struct strbuf *sb, uint64_t n);
/* "+1,234 bytes (+5.2%)": c's growth against the baseline's code. */
void report_add_growth(struct strbuf *sb, const struct select_report *r, const struct select_code *c);
/* "612 in fma-levels, 612 selected" / "-": the bytes f's clones add. */
void report_add_function_bytes(struct strbuf *sb, const struct select_report *r, size_t f);
/* " [name not unique: 3 candidates]" after an ambiguous function's name. */
void report_add_name_flag(struct strbuf *sb, const struct select_report *r, size_t f);
/* f shares its name and is counted by file (by_file) or is ambiguous
 * (!by_file); f is the first candidate of its name in that list. */
int report_shared_listed(const struct select_report *r, size_t f, int by_file);
int report_first_of_shared_name(const struct select_report *r, size_t f, int by_file);
/* The sentence on wide intervals (select_interval_wide) of the selected
 * functions and of the end-to-end times, between prefix and suffix;
 * nothing when all are narrow. */
void report_add_noise(struct strbuf *sb, const struct select_report *r, const char *prefix, const char *suffix);

/* report_table.c: a table as its cells, row-major, the header row first.
 * Cells hold inline Markdown (`code`, *em*). */
struct report_table {
    size_t n_cols;
    struct strvec cells;
};
size_t report_table_rows(const struct report_table *t);   /* without the header */
const char *report_table_cell(const struct report_table *t, size_t row, size_t col);   /* row 0: header */
void report_table_free(struct report_table *t);
/* "| a | b |\n|---|---|\n| 1 | 2 |\n"; a '|' in a cell is written "\|",
 * a newline as a space. */
void report_table_markdown(struct strbuf *sb, const struct report_table *t);
/* The tables; each returns 0 with t filled, or -1 (t empty) when the
 * report has no such table (no baseline code measured, nothing timed). */
int report_table_variants(const struct select_report *r, struct report_table *t);
int report_table_functions(const struct select_report *r, struct report_table *t);
/* End to end (timed mode with workloads); *march: it has the reference's columns. */
int report_table_e2e(const struct select_report *r, struct report_table *t, int *march);
int report_table_code(const struct select_report *r, struct report_table *t);

/* report_md.c: the prose parts of report.md (each ends its last line). */
void report_md_intro(struct strbuf *sb, const struct select_report *r);
/* Each profiled workload's sampling period and why (sampling.h), and the
 * unit of the samples figures when some period is not that unit; nothing
 * when no workload was profiled. report_md_intro ends with it. */
void report_md_sampling(struct strbuf *sb, const struct select_report *r);
void report_md_shared_names(struct strbuf *sb, const struct select_report *r);
void report_md_e2e_intro(struct strbuf *sb);
void report_md_e2e_march(struct strbuf *sb, const struct select_report *r);
/* The code section when the baseline's code was not measured (its own
 * "## Code size" heading included; nothing in timed mode without it). */
void report_md_code_unmeasured(struct strbuf *sb, const struct select_report *r);
/* The paragraphs under the code table, the references' included. */
void report_md_code_after(struct strbuf *sb, const struct select_report *r);
void report_md_selected(struct strbuf *sb, const struct select_report *r);

/* report_mdhtml.c: Markdown as report_md_* writes it, to HTML: "#" to
 * "###" headings (h1-h3), paragraphs, "- " lists; inline `code`,
 * **bold**, *em*; everything else escaped. report_html_text escapes plain
 * text; report_html_inline converts one line's inline Markdown. */
void report_html_text(struct strbuf *sb, const char *s);
void report_html_span(struct strbuf *sb, const char *s, size_t n);   /* n bytes of s, escaped */
void report_html_inline(struct strbuf *sb, const char *s);
void report_html_blocks(struct strbuf *sb, const char *md);

/* report_chart.c: inline SVG, at most REPORT_CHART_WIDTH px wide (and
 * scaled down with the page). report_chart_workload: workload w's
 * end-to-end speedups against the baseline with their 95% intervals - the
 * A/A arm, the selected build (wall and CPU time), every all-candidates
 * build (profiled runs' total samples), the references - or why a build
 * has none. report_chart_functions: each function's speedup with the set
 * it got or its best (timed mode). report_chart_code: each build's code
 * growth (nothing when the baseline's code was not measured). */
#define REPORT_CHART_WIDTH 960
void report_chart_workload(struct strbuf *sb, const struct select_report *r, size_t w);
void report_chart_functions(struct strbuf *sb, const struct select_report *r);
void report_chart_code(struct strbuf *sb, const struct select_report *r);

/* report_stats.c: the statistics behind the verdicts: the seed of the runs'
 * order, the A/A calibration, the rule against false selections (Holm). A
 * "## Statistics" section, report.json's "statistics", a line or two of the
 * terminal summary. */
void report_statistics_markdown(struct strbuf *sb, const struct select_report *r);
json_t *report_statistics_json(const struct select_report *r);
/* Function f's retest on fresh runs (decision_confirm.h): null when it was
 * not retested. */
json_t *report_confirmation_json(const struct select_report *r, size_t f);
/* report.json's run_counts: what profiled_runs, confirmation_runs and
 * timed_runs count (each apart from the others), and their total. */
json_t *report_run_counts_json(const struct select_report *r);
/* report.json's estimates: where a function's speedups and budget gain come
 * from (a confirmed function's from the fresh runs); null when static. */
json_t *report_estimates_json(const struct select_report *r);
void report_statistics_summary(struct strbuf *sb, const struct select_report *r);

/* report_records.c: report.json's "run_records": per stage (the profiled
 * rounds, the confirmation's), workload and arm (each profiled variant and
 * the A/A arm), the rounds it ran in, its place in each round's order, the
 * workload's total samples and each hot function's samples per run
 * (select_run_stage); null when nothing was timed. */
json_t *report_run_records_json(const struct select_report *r);

/* report_reference.c: how each reference was built (flags, through the
 * wrapper, sources reached) for report.md's code section, and the FMA-free
 * one's figures; report.json's "references" (every reference built or
 * tried: its flags, how, its code, its end-to-end intervals per workload);
 * the FMA-free one's line of the terminal summary. */
void report_references_markdown(struct strbuf *sb, const struct select_report *r);
json_t *report_references_json(const struct select_report *r);
void report_references_summary(struct strbuf *sb, const struct select_report *r);

#endif
