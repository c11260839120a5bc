/* report_html.c - report.html (report.h). */
#include "select/report_write.h"

#include <math.h>
#include <stdlib.h>

void report_html_text(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') sb_adds(sb, "&lt;");
        else if (*s == '>') sb_adds(sb, "&gt;");
        else if (*s == '&') sb_adds(sb, "&amp;");
        else if (*s == '"') sb_adds(sb, "&quot;");
        else sb_addc(sb, *s);
    }
}

/* A second SVG: each measured build's code growth against the baseline,
 * and the whole -march=x86-64-v3 build glibc-hwcaps would ship beside it. */
static void add_code_chart(struct strbuf *sb, const struct select_report *r)
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
    sb_addf(sb, "<h2>Code growth</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n", w, (int)n * row + 8);
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

char *select_report_html(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fmvgen select</title></head><body>\n"
                 "<h1>fmvgen select</h1>\n");
    if (!r->static_mode && r->n_functions) {
        /* speedup axis 0..max(3, largest finite bound), one bar per function */
        double top = 3;
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct stats_interval *iv = &r->decision.functions[f].by_variant[select_shown_variant(r, f)];
            if (select_speedup_unknown(iv)) continue;
            if (isfinite(iv->speedup_hi) && iv->speedup_hi > top) top = iv->speedup_hi;
            if (isfinite(iv->speedup) && iv->speedup > top) top = iv->speedup;
        }
        if (top > 20) top = 20;
        const int w = 640, left = 200, row = 24;
        int h = (int)r->n_functions * row + 40;
        double scale = (w - left - 150) / top;   /* room for the label right of the longest bar */
        sb_addf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                     "font-size=\"12\">\n", w, h);
        sb_addf(&sb, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4\"/>"
                     "<text x=\"%.1f\" y=\"%d\">1x</text>\n", left + scale, left + scale, h - 20, left + scale, h - 5);
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            size_t v = select_shown_variant(r, f);
            const struct stats_interval *iv = &r->decision.functions[f].by_variant[v];
            int y = (int)f * row + 4;
            sb_adds(&sb, "<text x=\"4\" y=\"");
            sb_addf(&sb, "%d\">", y + 14);
            report_html_text(&sb, fn->display_name);
            if (select_name_ambiguous(r, f)) sb_adds(&sb, " [name not unique]");
            const char *unknown = select_speedup_unknown(iv);
            if (unknown) {
                /* no bar: there is no ratio to draw */
                sb_addf(&sb, "</text><text x=\"%d\" y=\"%d\" fill=\"#888\">%s", left + 4, y + 13,
                        select_baseline_unsampled(r, f) ? "not sampled" : unknown);
                sb_adds(&sb, "</text>\n");
                continue;
            }
            double sp = iv->speedup > top ? top : iv->speedup;
            sb_addf(&sb, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>", left, y,
                    sp * scale, fn->in_patch ? "#2a7" : "#bbb");
            sb_addf(&sb, "%.2fx with %s, %.1f%% of the baseline", iv->speedup, r->variants[v].name,
                    r->decision.functions[f].share * 100);
            sb_adds(&sb, "</title></rect>");
            if (iv->valid) {
                double lo = iv->speedup_lo < 0 ? 0 : iv->speedup_lo, hi = isfinite(iv->speedup_hi) ? iv->speedup_hi : top;
                if (hi > top) hi = top;
                if (lo > top) lo = top;
                sb_addf(&sb, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\"/>", left + lo * scale,
                        y + 8, left + hi * scale, y + 8);
            }
            sb_addf(&sb, "<text x=\"%.1f\" y=\"%d\">%.2fx %s", left + sp * scale + 4, y + 13, iv->speedup,
                    fn->in_patch ? "selected" : "");
            int64_t bytes = select_bytes_added(r, f, fn->in_patch && select_bytes_added(r, f, r->n_variants) >= 0 ? r->n_variants : v);
            if (bytes >= 0) {
                sb_adds(&sb, ", +");
                report_add_bytes(&sb, (uint64_t)bytes);
                sb_adds(&sb, " B");
            }
            sb_adds(&sb, "</text>\n");
        }
        sb_adds(&sb, "</svg>\n<p>Bars: speedup of each function's own time with the target set it got (green) or "
                     "its best set (grey, not selected); whiskers: 95% interval; +B: the bytes its clones and "
                     "resolver add (in the selected build when selected); no bar: the baseline (or the variant) "
                     "never sampled it. [name not unique]: other candidates have its name, and the profile "
                     "credits each with the samples of all; never selected.</p>\n");
    }
    add_code_chart(&sb, r);
    /* the facts, as in report.md */
    char *md = select_report_markdown(r);
    sb_adds(&sb, "<pre>\n");
    report_html_text(&sb, md);
    sb_adds(&sb, "</pre>\n</body></html>\n");
    free(md);
    return sb_detach(&sb);
}
