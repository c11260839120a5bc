/* report_chart.c - the inline SVG charts of report.html (report_write.h):
 * per workload, the end-to-end speedups of every build against the
 * baseline with their 95% intervals; per function, the speedup of its own
 * time; the code each build adds. Drawn at a fixed size in a viewBox that
 * scales down with the page (CSS), never wider than REPORT_CHART_WIDTH. */
#include "select/report_write.h"
#include "select/decision_confirm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void svg_open(struct strbuf *sb, int width, int height)
{
    sb_addf(sb, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n", width, height, width,
            height);
}

/* One row of a workload's chart: a build's speedup against the baseline,
 * or why it has none (failure, not timed). */
struct row {
    const char *label, *metric, *colour;
    const struct stats_interval *iv;   /* NULL: no bar, why instead */
    char *why;
};

static void push(struct row *rows, size_t *n, const char *label, const char *metric, const char *colour,
                 const struct stats_interval *iv, const char *why)
{
    rows[*n] = (struct row){label, metric, colour, iv, why ? xstrdup(why) : NULL};
    (*n)++;
}

/* A row has a bar when its interval has a finite speedup. */
static int drawn(const struct row *x)
{
    return x->iv && x->iv->valid && !select_speedup_unknown(x->iv) && isfinite(x->iv->speedup);
}

/* The rows of workload w, at most 16: baseline (1x), the A/A arm, the
 * selected build (wall and CPU time), the all-candidates builds, the
 * references. labels[]: the labels allocated (caller frees). */
static size_t workload_rows(const struct select_report *r, size_t w, struct row *rows, char **labels)
{
    const struct select_workload_result *wr = &r->workloads[w];
    size_t n = 0, nl = 0;
    push(rows, &n, "baseline", "by definition", "#888", NULL, NULL);
    if (r->decision.calibrated && w < r->decision.n_workloads)
        push(rows, &n, "baseline again (A/A)", "perf samples", "#888", &r->decision.aa_workload[w], NULL);
    if (wr->failure) {
        push(rows, &n, "selected", "wall time", "#2a7", NULL, wr->failure);
    } else if (wr->timed) {
        push(rows, &n, "selected", wr->cpu_decides ? "wall time" : "wall time, decides", "#2a7", &wr->e2e, NULL);
        if (wr->e2e_cpu.valid)
            push(rows, &n, "selected", wr->cpu_decides ? "CPU time, decides" : "CPU time", "#2a7", &wr->e2e_cpu,
                 NULL);
    } else {
        push(rows, &n, "selected", "wall time", "#2a7", NULL, r->n_selected ? "not timed" : "nothing selected");
    }
    for (size_t v = 1; v < r->n_variants && wr->all_candidates && n < 12; v++) {
        if (!wr->all_candidates[v].valid) continue;
        labels[nl] = xasprintf("%s (all candidates)", r->variants[v].name);
        push(rows, &n, labels[nl++], "perf samples", "#bbb", &wr->all_candidates[v], NULL);
    }
    const struct select_march *refs[2] = {&r->march, &r->march_nofma};
    const struct stats_interval *ivs[2] = {&wr->march_e2e, &wr->nofma_e2e};
    const int timed[2] = {wr->march_timed, wr->nofma_timed};
    const char *failure[2] = {wr->march_failure, wr->nofma_failure};
    for (int i = 0; i < 2; i++) {
        const struct select_march *m = refs[i];
        if (!m->attempted) continue;
        const char *title = m->title ? m->title : "-march=x86-64-v3";
        if (timed[i]) push(rows, &n, title, "whole program, wall time", "#c73", ivs[i], NULL);
        else push(rows, &n, title, "whole program", "#c73", NULL, failure[i] ? failure[i] : m->failure ? m->failure : "not timed");
    }
    return n;
}

/* workload charts: a log axis (a 2x gain and a 2x loss equally far from
 * 1x) from lo to hi, x in pixels */
struct axis {
    double lo, hi;
    int left, plot;
};

static double axis_x(const struct axis *a, double v)
{
    if (!(v > a->lo)) v = a->lo;
    if (v > a->hi) v = a->hi;
    return a->left + a->plot * (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
}

void report_chart_workload(struct strbuf *sb, const struct select_report *r, size_t w)
{
    struct row rows[16];
    char *labels[16] = {0};
    size_t n = workload_rows(r, w, rows, labels);
    /* the axis: 1x and every drawn interval, padded, within [1/20, 20] */
    struct axis ax = {1, 1, 230, 380};
    for (size_t i = 0; i < n; i++) {
        if (!drawn(&rows[i])) continue;
        const struct stats_interval *iv = rows[i].iv;
        double v[3] = {iv->speedup, iv->speedup_lo, iv->speedup_hi};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(v[k]) || !(v[k] > 0)) continue;
            if (v[k] < ax.lo) ax.lo = v[k];
            if (v[k] > ax.hi) ax.hi = v[k];
        }
    }
    ax.lo = ax.lo / 1.05 < 0.05 ? 0.05 : ax.lo / 1.05;
    ax.hi = ax.hi * 1.05 > 20 ? 20 : ax.hi * 1.05;
    const int width = REPORT_CHART_WIDTH, row = 22, top = 6;
    int height = top + (int)n * row + 26;
    svg_open(sb, width, height);
    sb_addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4\"/>\n",
            axis_x(&ax, 1), top, axis_x(&ax, 1), top + (int)n * row);
    /* ticks: the ends and 1x */
    double ticks[3] = {ax.lo, 1, ax.hi};
    for (int i = 0; i < 3; i++)
        sb_addf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" fill=\"#555\">%.2fx</text>\n",
                axis_x(&ax, ticks[i]), top + (int)n * row + 16, i == 0 ? "start" : i == 2 ? "end" : "middle", ticks[i]);
    for (size_t i = 0; i < n; i++) {
        const struct row *x = &rows[i];
        int y = top + (int)i * row;
        sb_addf(sb, "<g class=\"row\"><text x=\"4\" y=\"%d\">", y + 14);
        report_html_text(sb, x->label);
        sb_adds(sb, "</text>");
        struct strbuf value = STRBUF_INIT;
        if (!x->iv && !x->why) {
            sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", axis_x(&ax, 1), y + 10, x->colour);
            sb_adds(&value, "1.00x");
        } else if (!drawn(x)) {
            if (x->why) sb_adds(&value, x->why);
            else report_add_speedup(&value, x->iv);
        } else {
            const struct stats_interval *iv = x->iv;
            double a = axis_x(&ax, iv->speedup_lo > 0 ? iv->speedup_lo : ax.lo);
            double b = axis_x(&ax, isfinite(iv->speedup_hi) ? iv->speedup_hi : ax.hi);
            sb_addf(sb, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"8\" fill=\"%s\" opacity=\"0.45\"/>", a,
                    y + 6, b - a, x->colour);
            sb_addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>", a, y + 10, b, y + 10);
            sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\" stroke=\"#000\"/>",
                    axis_x(&ax, iv->speedup), y + 10, x->colour);
            report_add_speedup(&value, iv);
        }
        /* a long why is cut here; the table under the charts has it whole */
        const char *v = sb_str(&value);
        size_t len = strlen(v);
        sb_addf(sb, "<text x=\"%d\" y=\"%d\"><title>", ax.left + ax.plot + 12, y + 14);
        report_html_text(sb, v);
        sb_adds(sb, "</title>");
        report_html_span(sb, v, len > 40 ? 40 : len);
        if (len > 40) sb_adds(sb, "...");
        sb_adds(sb, " <tspan fill=\"#666\" font-size=\"10\">");
        report_html_text(sb, x->metric);
        sb_adds(sb, "</tspan></text></g>\n");
        sb_free(&value);
        free(rows[i].why);
    }
    for (size_t i = 0; i < 16; i++) free(labels[i]);
    sb_adds(sb, "</svg>\n");
}

/* Each function's speedup of its own time with the set it got (or its
 * best set), its interval as a whisker, the bytes its clones add. */
void report_chart_functions(struct strbuf *sb, const struct select_report *r)
{
    if (r->static_mode || !r->n_functions || !r->decision.functions) return;
    /* speedup axis 0..max(3, largest finite bound), one bar per function */
    double top = 3;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct stats_interval *iv = decision_estimate(&r->decision, f, select_shown_variant(r, f));
        if (select_speedup_unknown(iv)) continue;
        if (isfinite(iv->speedup_hi) && iv->speedup_hi > top) top = iv->speedup_hi;
        if (isfinite(iv->speedup) && iv->speedup > top) top = iv->speedup;
    }
    if (top > 20) top = 20;
    const int w = 640, left = 200, row = 24;
    int h = (int)r->n_functions * row + 40;
    double scale = (w - left - 150) / top;   /* room for the label right of the longest bar */
    svg_open(sb, w, h);
    sb_addf(sb, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4\"/>"
                 "<text x=\"%.1f\" y=\"%d\">1x</text>\n", left + scale, left + scale, h - 20, left + scale, h - 5);
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        size_t v = select_shown_variant(r, f);
        const struct stats_interval *iv = decision_estimate(&r->decision, f, v);
        int y = (int)f * row + 4;
        sb_adds(sb, "<text x=\"4\" y=\"");
        sb_addf(sb, "%d\">", y + 14);
        report_html_text(sb, fn->display_name);
        if (select_name_ambiguous(r, f)) sb_adds(sb, " [name not unique]");
        const char *unknown = select_speedup_unknown(iv);
        if (unknown) {
            /* no bar: there is no ratio to draw */
            sb_addf(sb, "</text><text x=\"%d\" y=\"%d\" fill=\"#888\">%s", left + 4, y + 13,
                    select_baseline_unsampled(r, f) ? "not sampled" : unknown);
            sb_adds(sb, "</text>\n");
            continue;
        }
        double sp = iv->speedup > top ? top : iv->speedup;
        sb_addf(sb, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>", left, y,
                sp * scale, fn->in_patch ? "#2a7" : "#bbb");
        sb_addf(sb, "%.2fx with %s, %.1f%% of the baseline", iv->speedup, r->variants[v].name,
                r->decision.functions[f].share * 100);
        sb_adds(sb, "</title></rect>");
        double end = sp;   /* the label goes right of the bar and its whisker */
        if (iv->valid) {
            double lo = iv->speedup_lo < 0 ? 0 : iv->speedup_lo, hi = isfinite(iv->speedup_hi) ? iv->speedup_hi : top;
            if (hi > top) hi = top;
            if (lo > top) lo = top;
            if (hi > end) end = hi;
            sb_addf(sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>", left + lo * scale,
                    y + 8, left + hi * scale, y + 8);
        }
        sb_addf(sb, "<text x=\"%.1f\" y=\"%d\">%.2fx %s", left + end * scale + 4, y + 13, iv->speedup,
                fn->in_patch ? "selected" : "");
        int64_t bytes = select_bytes_added(r, f, fn->in_patch && select_bytes_added(r, f, r->n_variants) >= 0 ? r->n_variants : v);
        if (bytes >= 0) {
            sb_adds(sb, ", +");
            report_add_bytes(sb, (uint64_t)bytes);
            sb_adds(sb, " B");
        }
        sb_adds(sb, "</text>\n");
    }
    sb_adds(sb, "</svg>\n<p>Bars: speedup of each function's own time with the target set it got (green) or "
                 "its best set (grey, not selected); whiskers: 95% interval; +B: the bytes its clones and "
                 "resolver add (in the selected build when selected); no bar: the baseline (or the variant) "
                 "never sampled it. [name not unique]: other candidates have its name, and the profile "
                 "credits each with the samples of all; never selected.</p>\n");
}

/* Each measured build's code growth against the baseline,
 * and the whole -march=x86-64-v3 build glibc-hwcaps would ship beside it. */
void report_chart_code(struct strbuf *sb, const struct select_report *r)
{
    if (!r->n_variants || !r->variants[0].code.measured) return;
    const char *names[16];
    int64_t bytes[16];
    const char *colour[16];
    size_t n = 0;
    for (size_t v = 1; v < r->n_variants && n < 14; v++) {
        if (!r->variants[v].code.measured) continue;
        names[n] = r->variants[v].name;
        colour[n] = "#bbb";
        bytes[n++] = select_code_growth(r, &r->variants[v].code);
    }
    if (r->selected_code.measured) {
        names[n] = "selected";
        colour[n] = "#2a7";
        bytes[n++] = select_code_growth(r, &r->selected_code);
    }
    if (r->march.code.measured && !r->march.failure) {
        names[n] = "-march=x86-64-v3 (hwcaps)";
        colour[n] = "#c73";
        bytes[n++] = (int64_t)r->march.code.code_bytes;
    }
    if (!n) return;
    int64_t top = 1;
    for (size_t i = 0; i < n; i++)
        if (bytes[i] > top) top = bytes[i];
    const int w = 640, left = 200, row = 24;
    double scale = (double)(w - left - 140) / (double)top;
    svg_open(sb, w, (int)n * row + 8);
    for (size_t i = 0; i < n; i++) {
        int y = (int)i * row + 4;
        double len = bytes[i] > 0 ? (double)bytes[i] * scale : 0;
        sb_addf(sb, "<text x=\"4\" y=\"%d\">", y + 14);
        report_html_text(sb, names[i]);
        sb_addf(sb, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>", left, y, len,
                colour[i]);
        sb_addf(sb, "<text x=\"%.1f\" y=\"%d\">%s", left + len + 4, y + 13, bytes[i] < 0 ? "-" : "+");
        report_add_bytes(sb, (uint64_t)(bytes[i] < 0 ? -bytes[i] : bytes[i]));
        sb_adds(sb, " B</text>\n");
    }
    sb_adds(sb, "</svg>\n<p>Bytes of code added to the baseline: by each all-candidates build, by the selected "
                "build, and by shipping a whole -march=x86-64-v3 build beside the baseline (glibc-hwcaps).</p>\n");
}

