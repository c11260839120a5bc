/* report.c - see report.h. */
#include "select/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void add_ratio(struct strbuf *sb, double x)
{
    if (isinf(x)) sb_adds(sb, "inf");
    else sb_addf(sb, "%.2f", x);
}

/* "1.52x [1.40, 1.66]" */
static void add_speedup(struct strbuf *sb, const struct stats_interval *iv)
{
    if (iv->mean_a <= 0 && iv->mean_b <= 0) {
        sb_adds(sb, "- (never sampled)");
        return;
    }
    add_ratio(sb, iv->speedup);
    sb_adds(sb, "x");
    if (iv->valid) {
        sb_adds(sb, " [");
        add_ratio(sb, iv->speedup_lo);
        sb_adds(sb, ", ");
        add_ratio(sb, iv->speedup_hi);
        sb_adds(sb, "]");
    } else {
        sb_adds(sb, " (no interval)");
    }
}

static const char *function_verdict(const struct select_report *r, size_t f)
{
    const struct select_function *fn = &r->functions[f];
    if (r->static_mode) return fn->note ? fn->note : (fn->in_patch ? "selected" : "dropped");
    if (fn->note) return fn->note;
    return decision_reason_name(r->decision.functions[f].reason);
}

char *select_report_markdown(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "# fmvgen select\n\n");
    if (r->static_mode) {
        sb_adds(&sb, "**Static selection: nothing was timed.** Functions were chosen from what their clones' "
                     "code needs (the ISA verdicts of `fmvgen inspect`) and from the loop records.\n\n");
    } else {
        sb_addf(&sb, "%zu builds, %zu profiled runs and %zu timed runs; %d runs per variant and workload, "
                     "interleaved. Intervals are 95%% (Welch). A function is selected when its own time drops "
                     "significantly and it holds at least %.1f%% of the baseline's samples.\n\n",
                r->n_builds, r->n_profiled_runs, r->n_timed_runs, r->runs, r->min_share * 100);
    }
    sb_adds(&sb, "## Variants\n\n| variant | targets | FMA | built | outputs | eligible |\n|---|---|---|---|---|---|\n");
    for (size_t v = 0; v < r->n_variants; v++) {
        const struct select_variant *x = &r->variants[v];
        sb_addf(&sb, "| %s | %s | %s | %s | %s | %s%s%s |\n", x->name, *x->targets ? x->targets : "-",
                x->fma ? "yes" : "no", x->built ? "yes" : "no", x->output_match && *x->output_match ? x->output_match : "-",
                x->eligible ? "yes" : "no", x->failure ? ": " : "", x->failure ? x->failure : "");
    }
    sb_adds(&sb, "\n## Functions\n\n");
    if (r->static_mode) {
        sb_adds(&sb, "| function | file | selected | why |\n|---|---|---|---|\n");
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            sb_addf(&sb, "| %s | %s:%d | %s | %s |\n", fn->display_name, fn->file, fn->line,
                    fn->in_patch ? "yes" : "no", function_verdict(r, f));
        }
    } else {
        sb_adds(&sb, "| function | file | share | samples/run |");
        for (size_t v = 1; v < r->n_variants; v++) sb_addf(&sb, " speedup %s (clone ran) |", r->variants[v].name);
        sb_adds(&sb, " selected | why |\n|---|---|---|---|");
        for (size_t v = 1; v < r->n_variants; v++) sb_adds(&sb, "---|");
        sb_adds(&sb, "---|---|\n");
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            const struct decision_function *d = &r->decision.functions[f];
            sb_addf(&sb, "| %s | %s:%d | %.1f%% | %.0f |", fn->display_name, fn->file, fn->line, d->share * 100,
                    d->base_samples);
            for (size_t v = 1; v < r->n_variants; v++) {
                sb_adds(&sb, " ");
                if (r->variants[v].built) {
                    add_speedup(&sb, &d->by_variant[v]);
                    if (fn->ran && fn->ran[v]) sb_addf(&sb, " (%s)", fn->ran[v]);
                } else {
                    sb_adds(&sb, "-");
                }
                sb_adds(&sb, " |");
            }
            sb_addf(&sb, " %s | %s |\n", fn->in_patch ? r->variants[fn->set].name : "no", function_verdict(r, f));
        }
        if (r->n_workloads) {
            sb_adds(&sb, "\n## End to end: selected build vs baseline\n\n| workload | speedup [95%] |\n|---|---|\n");
            for (size_t w = 0; w < r->n_workloads; w++) {
                const struct select_workload_result *wr = &r->workloads[w];
                sb_addf(&sb, "| `%s` | ", wr->command);
                if (wr->failure) sb_addf(&sb, "failed: %s", wr->failure);
                else if (wr->timed) add_speedup(&sb, &wr->e2e);
                else sb_adds(&sb, "not timed (nothing selected)");
                sb_adds(&sb, " |\n");
            }
        }
    }
    sb_addf(&sb, "\n%zu of %zu candidates selected%s%s%s.\n", r->n_selected, r->n_functions,
            r->patch_targets ? " (targets " : "", r->patch_targets ? r->patch_targets : "",
            r->patch_targets ? ")" : "");
    if (r->notes.n) {
        sb_adds(&sb, "\n## Notes\n\n");
        for (size_t i = 0; i < r->notes.n; i++) sb_addf(&sb, "- %s\n", r->notes.v[i]);
    }
    return sb_detach(&sb);
}

static json_t *interval_json(const struct stats_interval *iv)
{
    json_t *o = json_object();
    json_object_set_new(o, "speedup", json_real(isinf(iv->speedup) ? 0 : iv->speedup));
    json_object_set_new(o, "valid", json_boolean(iv->valid));
    if (iv->valid) {
        json_object_set_new(o, "speedup_low", isinf(iv->speedup_lo) ? json_null() : json_real(iv->speedup_lo));
        json_object_set_new(o, "speedup_high", isinf(iv->speedup_hi) ? json_null() : json_real(iv->speedup_hi));
        json_object_set_new(o, "mean_baseline", json_real(iv->mean_a));
        json_object_set_new(o, "mean_variant", json_real(iv->mean_b));
    }
    return o;
}

json_t *select_report_json(const struct select_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "mode", json_string(r->static_mode ? "static" : "timed"));
    json_object_set_new(o, "timed", json_boolean(!r->static_mode));
    json_object_set_new(o, "runs", json_integer(r->runs));
    json_object_set_new(o, "builds", json_integer((json_int_t)r->n_builds));
    json_object_set_new(o, "profiled_runs", json_integer((json_int_t)r->n_profiled_runs));
    json_object_set_new(o, "timed_runs", json_integer((json_int_t)r->n_timed_runs));
    json_object_set_new(o, "min_share", json_real(r->min_share));
    json_object_set_new(o, "tolerance", r->tolerance < 0 ? json_null() : json_real(r->tolerance));
    json_t *vs = json_array();
    for (size_t v = 0; v < r->n_variants; v++) {
        const struct select_variant *x = &r->variants[v];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(x->name));
        json_object_set_new(j, "targets", json_string(x->targets));
        json_object_set_new(j, "fma", json_boolean(x->fma));
        json_object_set_new(j, "built", json_boolean(x->built));
        json_object_set_new(j, "outputs", json_string(x->output_match ? x->output_match : ""));
        json_object_set_new(j, "eligible", json_boolean(x->eligible));
        json_object_set_new(j, "failure", x->failure ? json_string(x->failure) : json_null());
        json_array_append_new(vs, j);
    }
    json_object_set_new(o, "variants", vs);
    json_t *fs = json_array();
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(fn->name));
        json_object_set_new(j, "display_name", json_string(fn->display_name));
        json_object_set_new(j, "file", json_string(fn->file));
        json_object_set_new(j, "line", json_integer(fn->line));
        json_object_set_new(j, "selected", json_boolean(fn->in_patch));
        json_object_set_new(j, "why", json_string(function_verdict(r, f)));
        if (!r->static_mode) {
            const struct decision_function *d = &r->decision.functions[f];
            json_object_set_new(j, "share", json_real(d->share));
            json_object_set_new(j, "baseline_samples_per_run", json_real(d->base_samples));
            json_object_set_new(j, "target_set", fn->in_patch ? json_string(r->variants[fn->set].name) : json_null());
            json_t *by = json_object();
            for (size_t v = 1; v < r->n_variants; v++) {
                if (!r->variants[v].built) continue;
                json_t *iv = interval_json(&d->by_variant[v]);
                json_object_set_new(iv, "clone_ran", fn->ran && fn->ran[v] ? json_string(fn->ran[v]) : json_null());
                json_object_set_new(by, r->variants[v].name, iv);
            }
            json_object_set_new(j, "variants", by);
        }
        json_array_append_new(fs, j);
    }
    json_object_set_new(o, "functions", fs);
    json_t *ws = json_array();
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        json_t *j = json_object();
        json_object_set_new(j, "command", json_string(wr->command));
        json_object_set_new(j, "end_to_end", wr->timed ? interval_json(&wr->e2e) : json_null());
        json_object_set_new(j, "failure", wr->failure ? json_string(wr->failure) : json_null());
        json_array_append_new(ws, j);
    }
    json_object_set_new(o, "workloads", ws);
    json_object_set_new(o, "patch_targets", r->patch_targets ? json_string(r->patch_targets) : json_null());
    json_object_set_new(o, "selected", json_integer((json_int_t)r->n_selected));
    json_t *notes = json_array();
    for (size_t i = 0; i < r->notes.n; i++) json_array_append_new(notes, json_string(r->notes.v[i]));
    json_object_set_new(o, "notes", notes);
    return o;
}

static void add_html_text(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') sb_adds(sb, "&lt;");
        else if (*s == '>') sb_adds(sb, "&gt;");
        else if (*s == '&') sb_adds(sb, "&amp;");
        else if (*s == '"') sb_adds(sb, "&quot;");
        else sb_addc(sb, *s);
    }
}

/* The variant a function's bar shows: its patch's set, else its fastest. */
static size_t shown_variant(const struct select_report *r, size_t f)
{
    if (r->functions[f].in_patch) return (size_t)r->functions[f].set;
    size_t best = 1;
    for (size_t v = 1; v < r->n_variants; v++)
        if (r->decision.functions[f].by_variant[v].speedup > r->decision.functions[f].by_variant[best].speedup)
            best = v;
    return best;
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
            const struct stats_interval *iv = &r->decision.functions[f].by_variant[shown_variant(r, f)];
            if (isfinite(iv->speedup_hi) && iv->speedup_hi > top) top = iv->speedup_hi;
            if (isfinite(iv->speedup) && iv->speedup > top) top = iv->speedup;
        }
        if (top > 20) top = 20;
        const int w = 640, left = 200, row = 24;
        int h = (int)r->n_functions * row + 40;
        double scale = (w - left - 20) / top;
        sb_addf(&sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                     "font-size=\"12\">\n", w, h);
        sb_addf(&sb, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4\"/>"
                     "<text x=\"%.1f\" y=\"%d\">1x</text>\n", left + scale, left + scale, h - 20, left + scale, h - 5);
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            size_t v = shown_variant(r, f);
            const struct stats_interval *iv = &r->decision.functions[f].by_variant[v];
            double sp = isfinite(iv->speedup) ? (iv->speedup > top ? top : iv->speedup) : 0;
            int y = (int)f * row + 4;
            sb_adds(&sb, "<text x=\"4\" y=\"");
            sb_addf(&sb, "%d\">", y + 14);
            add_html_text(&sb, fn->display_name);
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
            sb_addf(&sb, "<text x=\"%.1f\" y=\"%d\">%.2fx %s</text>\n", left + sp * scale + 4, y + 13, iv->speedup,
                    fn->in_patch ? "selected" : "");
        }
        sb_adds(&sb, "</svg>\n<p>Bars: speedup of each function's own time with the target set it got (green) or "
                     "its best set (grey, not selected); whiskers: 95% interval.</p>\n");
    }
    /* the facts, as in report.md */
    char *md = select_report_markdown(r);
    sb_adds(&sb, "<pre>\n");
    add_html_text(&sb, md);
    sb_adds(&sb, "</pre>\n</body></html>\n");
    free(md);
    return sb_detach(&sb);
}

char *select_report_summary(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    if (r->static_mode) sb_adds(&sb, "static selection: nothing was timed\n");
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        sb_addf(&sb, "  %-3s %-24s ", fn->in_patch ? "yes" : "no", fn->display_name);
        if (!r->static_mode) {
            const struct decision_function *d = &r->decision.functions[f];
            sb_addf(&sb, "%5.1f%%  ", d->share * 100);
            if (fn->in_patch) {
                add_speedup(&sb, &d->by_variant[fn->set]);
                sb_addf(&sb, " with %s", r->variants[fn->set].name);
            } else {
                sb_adds(&sb, function_verdict(r, f));
            }
        } else {
            sb_adds(&sb, function_verdict(r, f));
        }
        sb_adds(&sb, "\n");
    }
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->timed) continue;
        sb_addf(&sb, "end to end, '%s': ", wr->command);
        add_speedup(&sb, &wr->e2e);
        sb_adds(&sb, " vs baseline\n");
    }
    sb_addf(&sb, "%zu of %zu candidates selected; builds: %zu\n", r->n_selected, r->n_functions, r->n_builds);
    for (size_t i = 0; i < r->notes.n; i++) sb_addf(&sb, "note: %s\n", r->notes.v[i]);
    return sb_detach(&sb);
}

void select_report_free(struct select_report *r)
{
    for (size_t v = 0; v < r->n_variants; v++) {
        free(r->variants[v].name);
        free(r->variants[v].targets);
        free(r->variants[v].failure);
        free(r->variants[v].output_match);
    }
    free(r->variants);
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        free(fn->name);
        free(fn->display_name);
        free(fn->file);
        free(fn->note);
        if (fn->ran)
            for (size_t v = 0; v < r->n_variants; v++) free(fn->ran[v]);
        free(fn->ran);
    }
    free(r->functions);
    decision_free(&r->decision);
    for (size_t w = 0; w < r->n_workloads; w++) {
        free(r->workloads[w].command);
        free(r->workloads[w].failure);
    }
    free(r->workloads);
    free(r->patch_targets);
    sv_free(&r->notes);
    memset(r, 0, sizeof *r);
}
