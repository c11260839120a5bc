/* report_table.c - select's four tables (report_write.h) as cells, once
 * for report.md (Markdown) and report.html (HTML tables). */
#include "select/report_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t report_table_rows(const struct report_table *t)
{
    return t->n_cols ? t->cells.n / t->n_cols - 1 : 0;
}

const char *report_table_cell(const struct report_table *t, size_t row, size_t col)
{
    return t->cells.v[row * t->n_cols + col];
}

void report_table_free(struct report_table *t)
{
    sv_free(&t->cells);
    t->n_cols = 0;
}

/* A cell's text in a Markdown table row: a '|' would end the cell (GFM
 * takes "\|" for one, in code spans too) and a newline the row. */
static void add_md_cell(struct strbuf *sb, const char *s)
{
    sb_adds(sb, " ");
    for (; *s; s++) {
        if (*s == '|') sb_adds(sb, "\\|");
        else if (*s == '\n') sb_adds(sb, " ");
        else sb_addc(sb, *s);
    }
    sb_adds(sb, " |");
}

void report_table_markdown(struct strbuf *sb, const struct report_table *t)
{
    for (size_t row = 0; row <= report_table_rows(t); row++) {
        sb_adds(sb, "|");
        for (size_t c = 0; c < t->n_cols; c++) add_md_cell(sb, report_table_cell(t, row, c));
        sb_adds(sb, "\n");
        if (row) continue;
        sb_adds(sb, "|");
        for (size_t c = 0; c < t->n_cols; c++) sb_adds(sb, "---|");
        sb_adds(sb, "\n");
    }
}

/* The cell sb holds, and sb emptied for the next. */
static void cell(struct report_table *t, struct strbuf *sb)
{
    sv_push(&t->cells, sb_str(sb));
    sb_reset(sb);
}

static void cellf(struct report_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cellf(struct report_table *t, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, again);
    va_end(again);
    sv_push(&t->cells, s);
    free(s);
}

static void header(struct report_table *t, const char *const *names, size_t n)
{
    memset(t, 0, sizeof *t);
    t->n_cols = n;
    for (size_t i = 0; i < n; i++) sv_push(&t->cells, names[i]);
}

int report_table_variants(const struct select_report *r, struct report_table *t)
{
    static const char *const head[] = {"variant", "targets", "FMA", "built", "outputs", "eligible"};
    header(t, head, 6);
    for (size_t v = 0; v < r->n_variants; v++) {
        const struct select_variant *x = &r->variants[v];
        cellf(t, "%s", x->name);
        cellf(t, "%s", *x->targets ? x->targets : "-");
        cellf(t, "%s", x->fma ? "yes" : "no");
        cellf(t, "%s", x->built ? "yes" : "no");
        cellf(t, "%s", x->output_match && *x->output_match ? x->output_match : "-");
        cellf(t, "%s%s%s", x->eligible ? "yes" : "no", x->failure ? ": " : "", x->failure ? x->failure : "");
    }
    return 0;
}

static void functions_static(const struct select_report *r, struct report_table *t)
{
    static const char *const head[] = {"function", "file", "bytes added", "selected", "why"};
    header(t, head, 5);
    struct strbuf sb = STRBUF_INIT;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        sb_adds(&sb, fn->display_name);
        report_add_name_flag(&sb, r, f);
        cell(t, &sb);
        cellf(t, "%s:%d", fn->file, fn->line);
        report_add_function_bytes(&sb, r, f);
        cell(t, &sb);
        cellf(t, "%s", fn->in_patch ? "yes" : "no");
        cellf(t, "%s", select_function_verdict(r, f));
    }
    sb_free(&sb);
}

int report_table_functions(const struct select_report *r, struct report_table *t)
{
    if (r->static_mode) {
        functions_static(r, t);
        return 0;
    }
    struct strbuf sb = STRBUF_INIT;
    memset(t, 0, sizeof *t);
    t->n_cols = 4 + (r->n_variants ? r->n_variants - 1 : 0) + 3;
    sv_push(&t->cells, "function");
    sv_push(&t->cells, "file");
    sv_push(&t->cells, "share");
    sv_push(&t->cells, "samples/run");
    for (size_t v = 1; v < r->n_variants; v++) cellf(t, "speedup %s (clone ran)", r->variants[v].name);
    sv_push(&t->cells, "bytes added");
    sv_push(&t->cells, "selected");
    sv_push(&t->cells, "why");
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        const struct decision_function *d = &r->decision.functions[f];
        sb_adds(&sb, fn->display_name);
        if (candidate_kind_name(fn->kind)) sb_addf(&sb, " [%s]", candidate_kind_name(fn->kind));
        report_add_name_flag(&sb, r, f);
        cell(t, &sb);
        cellf(t, "%s:%d", fn->file, fn->line);
        if (select_baseline_unsampled(r, f)) cellf(t, "not sampled");
        else cellf(t, "%.1f%%", d->share * 100);
        cellf(t, "%.0f", d->base_samples);
        for (size_t v = 1; v < r->n_variants; v++) {
            if (r->variants[v].built && !select_baseline_unsampled(r, f)) {
                report_add_estimate(&sb, r, f, v);
                if (fn->ran && fn->ran[v]) sb_addf(&sb, " (%s)", fn->ran[v]);
            } else {
                sb_adds(&sb, "-");
            }
            cell(t, &sb);
        }
        report_add_function_bytes(&sb, r, f);
        cell(t, &sb);
        cellf(t, "%s", fn->in_patch ? r->variants[fn->set].name : "no");
        cellf(t, "%s", select_function_verdict(r, f));
    }
    sb_free(&sb);
    return 0;
}

int report_table_e2e(const struct select_report *r, struct report_table *t, int *march)
{
    memset(t, 0, sizeof *t);
    *march = 0;
    if (r->static_mode || !r->n_workloads) return -1;
    for (size_t w = 0; w < r->n_workloads; w++) *march |= r->workloads[w].march_timed || r->workloads[w].march_failure;
    static const char *const head[] = {"workload", "speedup [95%]", "CPU time speedup [95%]",
                                       "-march=x86-64-v3 vs baseline", "selected vs -march=x86-64-v3"};
    header(t, head, *march ? 5 : 3);
    struct strbuf sb = STRBUF_INIT;
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        cellf(t, "`%s`", wr->command);
        if (wr->failure) {
            cellf(t, "failed: %s", wr->failure);
            cellf(t, "-");
        } else if (wr->timed) {
            report_add_speedup(&sb, &wr->e2e);
            cell(t, &sb);
            if (wr->e2e_cpu.valid) report_add_speedup(&sb, &wr->e2e_cpu);
            else sb_adds(&sb, "-");
            if (wr->cpu_decides) sb_adds(&sb, " *decides*");
            cell(t, &sb);
        } else {
            cellf(t, "not timed (nothing selected)");
            cellf(t, "-");
        }
        if (!*march) continue;
        if (wr->march_failure) {
            cellf(t, "failed: %s", wr->march_failure);
            cellf(t, "-");
        } else if (wr->march_timed) {
            report_add_speedup(&sb, &wr->march_e2e);
            cell(t, &sb);
            if (wr->selected_vs_march.valid) report_add_speedup(&sb, &wr->selected_vs_march);
            else sb_adds(&sb, "- (nothing selected)");
            cell(t, &sb);
        } else {
            cellf(t, "-");
            cellf(t, "-");
        }
    }
    sb_free(&sb);
    return 0;
}

/* A build's row: its name, files, code bytes, growth (or "-"), clones. */
static void code_row(struct report_table *t, const struct select_report *r, const char *name,
                     const struct select_code *c, int growth, int clones)
{
    struct strbuf sb = STRBUF_INIT;
    cellf(t, "%s", name);
    cellf(t, "%zu", c->n_files);
    report_add_bytes(&sb, c->code_bytes);
    cell(t, &sb);
    if (growth) report_add_growth(&sb, r, c);
    else sb_adds(&sb, "-");
    cell(t, &sb);
    if (clones) report_add_bytes(&sb, c->clone_bytes + c->resolver_bytes);
    else sb_adds(&sb, "-");
    cell(t, &sb);
    sb_free(&sb);
}

int report_table_code(const struct select_report *r, struct report_table *t)
{
    memset(t, 0, sizeof *t);
    if (!r->n_variants || !r->variants[0].code.measured) return -1;
    static const char *const head[] = {"build", "files", "code bytes", "growth", "clones + resolvers"};
    header(t, head, 5);
    for (size_t v = 0; v < r->n_variants; v++) {
        if (!r->variants[v].code.measured) continue;
        char *name = xasprintf("%s%s", r->variants[v].name, v ? " (all candidates)" : "");
        code_row(t, r, name, &r->variants[v].code, v > 0, 1);
        free(name);
    }
    if (r->selected_code.measured) code_row(t, r, "selected", &r->selected_code, 1, 1);
    if (r->march.code.measured && !r->march.failure)
        code_row(t, r, "-march=x86-64-v3 (whole program, unpatched)", &r->march.code, 1, 0);
    return 0;
}
