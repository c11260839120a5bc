/* report_html.c - report.html (report.h): one self-contained page (inline
 * CSS and SVG; no script, no network) that fits a 1300 px window. The
 * verdict first, then per workload a chart of every build's end-to-end
 * speedup with its interval (report_chart.c), the functions, the variants,
 * the statistics, the code size, the notes. Tables are HTML tables of
 * report_table.c's cells; the prose is report.md's (report_md.c),
 * converted (report_mdhtml.c): the two cannot say different things. */
#include "select/report_write.h"

#include <stdlib.h>

static const char STYLE[] =
    "body{margin:0;font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;background:#fff}"
    "main{max-width:1200px;margin:0 auto;padding:8px 20px 40px;box-sizing:border-box}"
    "h1{font-size:1.6em}h2{font-size:1.3em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1.05em}"
    "p,li{overflow-wrap:anywhere}"
    "code{font:13px ui-monospace,'DejaVu Sans Mono',monospace;background:#f3f3f3;padding:0 3px;"
    "overflow-wrap:anywhere}"
    ".table{max-width:100%;overflow-x:auto;margin:0.6em 0}"
    "table{border-collapse:collapse;font-size:13px}"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top;overflow-wrap:break-word}"
    "td{max-width:36em}td code{overflow-wrap:anywhere}"
    "th{background:#f3f3f3}tbody tr:nth-child(even){background:#fafafa}"
    "figure{margin:0.8em 0}figcaption{font-weight:600;margin-bottom:2px}"
    "svg.chart{display:block;max-width:100%;height:auto}"
    ".verdict{font-size:1.1em}";

/* A table of cells as an HTML table in a box that scrolls sideways when
 * the window is narrower than the table. */
static void add_table(struct strbuf *sb, const struct report_table *t, const char *id)
{
    sb_addf(sb, "<div class=\"table\"><table id=\"%s\">\n<thead><tr>", id);
    for (size_t c = 0; c < t->n_cols; c++) {
        sb_adds(sb, "<th>");
        report_html_inline(sb, report_table_cell(t, 0, c));
        sb_adds(sb, "</th>");
    }
    sb_adds(sb, "</tr></thead>\n<tbody>\n");
    for (size_t row = 1; row <= report_table_rows(t); row++) {
        sb_adds(sb, "<tr>");
        for (size_t c = 0; c < t->n_cols; c++) {
            sb_adds(sb, "<td>");
            report_html_inline(sb, report_table_cell(t, row, c));
            sb_adds(sb, "</td>");
        }
        sb_adds(sb, "</tr>\n");
    }
    sb_adds(sb, "</tbody></table></div>\n");
}

/* Markdown a report_md_* part writes into md, as HTML. */
static void add_prose(struct strbuf *sb, struct strbuf *md)
{
    report_html_blocks(sb, sb_str(md));
    sb_reset(md);
}

static void add_end_to_end(struct strbuf *sb, const struct select_report *r, struct strbuf *md)
{
    if (r->static_mode || !r->n_workloads) return;
    sb_adds(sb, "<section id=\"end-to-end\">\n<h2>End to end</h2>\n");
    sb_adds(sb, "<p>Each build's speedup over the baseline on each workload, with its 95% interval (bar and "
                "whisker; the dot is the estimate; above 1x is faster). The selected build and the whole-program "
                "references were timed end to end in the same interleaved runs (wall time, and the CPU time of the "
                "same runs); the all-candidates builds and the baseline's second arm (A/A: identical code, the "
                "noise floor) are compared by the total perf samples of the profiled runs, i.e. CPU time.</p>\n");
    for (size_t w = 0; w < r->n_workloads; w++) {
        sb_adds(sb, "<figure class=\"workload-chart\"><figcaption><code>");
        report_html_text(sb, r->workloads[w].command);
        sb_adds(sb, "</code></figcaption>\n");
        report_chart_workload(sb, r, w);
        sb_adds(sb, "</figure>\n");
    }
    struct report_table t;
    int march;
    if (report_table_e2e(r, &t, &march) == 0) {
        report_md_e2e_intro(md);
        add_prose(sb, md);
        add_table(sb, &t, "end-to-end-table");
        if (march) {
            report_md_e2e_march(md, r);
            add_prose(sb, md);
        }
    }
    report_table_free(&t);
    sb_adds(sb, "</section>\n");
}

static void add_code(struct strbuf *sb, const struct select_report *r, struct strbuf *md)
{
    struct report_table t;
    if (report_table_code(r, &t) == 0) {
        sb_adds(sb, "<section id=\"code\">\n<h2>Code growth</h2>\n");
        report_chart_code(sb, r);
        sb_adds(md, REPORT_CODE_COUNTED);
        sb_adds(md, "\n");
        add_prose(sb, md);
        add_table(sb, &t, "code-table");
        report_md_code_after(md, r);
        add_prose(sb, md);
        sb_adds(sb, "</section>\n");
    } else {
        report_md_code_unmeasured(md, r);
        if (md->len) {
            sb_adds(sb, "<section id=\"code\">\n");
            add_prose(sb, md);
            sb_adds(sb, "</section>\n");
        }
    }
    report_table_free(&t);
}

char *select_report_html(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT, md = STRBUF_INIT;
    struct report_table t;
    sb_addf(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                 "<title>fmvgen select</title>\n<style>%s</style></head>\n<body><main>\n<h1>fmvgen select</h1>\n",
            STYLE);
    report_md_selected(&md, r);
    sb_adds(&sb, "<div class=\"verdict\">");
    add_prose(&sb, &md);
    sb_adds(&sb, "</div>\n");
    report_md_intro(&md, r);
    if (!r->static_mode) report_add_noise(&md, r, "**Noisy measurements.** ", "\n");
    add_prose(&sb, &md);
    add_end_to_end(&sb, r, &md);

    sb_adds(&sb, "<section id=\"functions\">\n<h2>Functions</h2>\n");
    report_chart_functions(&sb, r);
    report_table_functions(r, &t);
    add_table(&sb, &t, "functions-table");
    report_table_free(&t);
    if (!r->static_mode) {
        report_md_shared_names(&md, r);
        add_prose(&sb, &md);
    }
    sb_adds(&sb, "</section>\n<section id=\"variants\">\n<h2>Variants</h2>\n");
    report_table_variants(r, &t);
    add_table(&sb, &t, "variants-table");
    report_table_free(&t);
    sb_adds(&sb, "</section>\n");
    if (!r->static_mode) {
        report_statistics_markdown(&md, r);
        if (md.len) {
            sb_adds(&sb, "<section id=\"statistics\">\n");
            add_prose(&sb, &md);
            sb_adds(&sb, "</section>\n");
        }
    }
    add_code(&sb, r, &md);
    if (r->notes.n) {
        sb_adds(&sb, "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n");
        for (size_t i = 0; i < r->notes.n; i++) {
            sb_adds(&sb, "<li>");
            report_html_inline(&sb, r->notes.v[i]);
            sb_adds(&sb, "</li>\n");
        }
        sb_adds(&sb, "</ul>\n</section>\n");
    }
    sb_adds(&sb, "</main></body></html>\n");
    sb_free(&md);
    return sb_detach(&sb);
}
