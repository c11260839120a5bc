/* budget.c - see budget.h. */
#include "select/budget.h"

#include <stdlib.h>
#include <string.h>

#include "select/decision.h"
#include "select/result.h"
#include "util/util.h"

static double predicted(size_t n, const int *selected, const double *bytes, const int *dropped, double overhead)
{
    double sum = 0;
    int any = 0;
    for (size_t f = 0; f < n; f++) {
        if (!selected[f] || dropped[f]) continue;
        any = 1;
        if (bytes[f] > 0) sum += bytes[f];
    }
    return any ? sum + overhead : 0;
}

/* a's gain per byte is below b's (ties: the bigger goes first) */
static int worse(double gain_a, double bytes_a, double gain_b, double bytes_b)
{
    double ra = gain_a / bytes_a, rb = gain_b / bytes_b;
    if (ra != rb) return ra < rb;
    return bytes_a > bytes_b;
}

size_t budget_fit(size_t n, const int *selected, const double *bytes, const double *gain, double overhead,
                  double limit, int *dropped, double *before, double *after)
{
    if (overhead < 0) overhead = 0;
    for (size_t f = 0; f < n; f++) dropped[f] = 0;
    double now = predicted(n, selected, bytes, dropped, overhead);
    if (before) *before = now;
    size_t n_dropped = 0;
    while (limit >= 0 && now > limit) {
        long pick = -1;
        for (size_t f = 0; f < n; f++) {
            if (!selected[f] || dropped[f] || !(bytes[f] > 0)) continue;
            if (pick < 0 || worse(gain[f], bytes[f], gain[pick], bytes[pick])) pick = (long)f;
        }
        if (pick < 0) break;   /* only unknown sizes left: nothing more to drop */
        dropped[pick] = 1;
        n_dropped++;
        now = predicted(n, selected, bytes, dropped, overhead);
    }
    /* take back what fits again, best gain per byte first (a big function
     * dropped early can leave room for a small one dropped before it) */
    for (int again = 1; again && n_dropped;) {
        again = 0;
        long pick = -1;
        for (size_t f = 0; f < n; f++) {
            if (!dropped[f]) continue;
            dropped[f] = 0;
            int fits = predicted(n, selected, bytes, dropped, overhead) <= limit;
            dropped[f] = 1;
            if (fits && gain[f] > 0 && (pick < 0 || worse(gain[pick], bytes[pick], gain[f], bytes[f]))) pick = (long)f;
        }
        if (pick >= 0) {
            dropped[pick] = 0;
            n_dropped--;
            again = 1;
        }
    }
    if (after) *after = predicted(n, selected, bytes, dropped, overhead);
    return n_dropped;
}

/* The fixed part of set v's growth: its all-candidates build's growth beyond
 * the bytes its clones add; 0 when unknown. */
static double fixed_part(const struct select_report *r, size_t v)
{
    if (!r->variants[v].code.measured) return 0;
    double clones = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        int64_t b = select_bytes_added(r, f, v);
        if (b > 0) clones += (double)b;
    }
    double rest = (double)select_code_growth(r, &r->variants[v].code) - clones;
    return rest > 0 ? rest : 0;
}

void budget_apply(struct select_report *r, const struct decision_input *in, double max_growth)
{
    struct select_budget *b = &r->budget;
    memset(b, 0, sizeof *b);
    b->max_growth = max_growth;
    struct decision *d = &r->decision;
    size_t n = d->n_functions < r->n_functions ? d->n_functions : r->n_functions;
    size_t n_selected = 0;
    for (size_t f = 0; f < n; f++) n_selected += d->functions[f].chosen >= 1;
    if (max_growth < 0) return;
    if (!r->n_variants || !r->variants[0].code.measured || !r->variants[0].code.code_bytes) {
        if (n_selected)
            sv_pushf(&r->notes, "no code-growth budget was checked: the baseline's code could not be measured");
        return;
    }
    int march = r->march.code.measured && !r->march.failure && r->march.code.code_bytes;
    b->whole_bytes = (double)(march ? r->march.code.code_bytes : r->variants[0].code.code_bytes);
    b->whole_what = march ? "the -march=x86-64-v3 reference" : "the baseline (no -march=x86-64-v3 reference measured)";
    b->limit = b->whole_bytes * max_growth / 100;
    b->applied = 1;

    int *selected = xcalloc(n + 1, sizeof *selected), *dropped = xcalloc(n + 1, sizeof *dropped);
    double *bytes = xcalloc(n + 1, sizeof *bytes), *gain = xcalloc(n + 1, sizeof *gain);
    for (size_t f = 0; f < n && n_selected; f++) {
        int v = d->functions[f].chosen;
        if (v < 1 || (size_t)v >= r->n_variants) continue;
        selected[f] = 1;
        bytes[f] = (double)select_bytes_added(r, f, (size_t)v);
        if (bytes[f] < 0) b->n_unknown++;
        double fixed = fixed_part(r, (size_t)v);
        if (fixed > b->overhead) b->overhead = fixed;
        for (size_t w = 0; w < in->n_workloads; w++) gain[f] += decision_saved_share(in, w, f, (size_t)v);
        if (in->n_workloads) gain[f] /= (double)in->n_workloads;
    }
    b->n_dropped = budget_fit(n, selected, bytes, gain, b->overhead, b->limit, dropped, &b->before, &b->after);
    struct strbuf names = STRBUF_INIT;
    for (size_t f = 0; f < n; f++) {
        if (!dropped[f]) continue;
        struct select_function *fn = &r->functions[f];
        struct decision_function *df = &d->functions[f];
        const char *set = r->variants[df->chosen].name;
        free(fn->note);
        fn->note = xasprintf("dropped for the code-growth budget: its %s clones add %.0f bytes for %.2f%% of the "
                             "workloads' time saved (%.2f%% per KB), among the least gain per byte of the selection",
                             set, bytes[f], gain[f] * 100, bytes[f] > 0 ? gain[f] * 100 * 1024 / bytes[f] : 0.0);
        sb_addf(&names, "%s%s (%.0f bytes, %.2f%% saved)", names.len ? ", " : "", fn->display_name, bytes[f],
                gain[f] * 100);
        df->chosen = -1;
        df->reason = DECISION_CODE_BUDGET;
    }
    if (b->n_dropped)
        sv_pushf(&r->notes, "code-growth budget: the selection would add %.0f bytes, above %.0f%% of a second whole "
                            "build (%s, %.0f bytes): %.0f bytes; dropped, least gain per byte first: %s; it now adds "
                            "%.0f bytes (predicted, the fixed part %.0f included)",
                 b->before, max_growth, b->whole_what, b->whole_bytes, b->limit, sb_str(&names), b->after, b->overhead);
    if (b->after > b->limit)
        sv_pushf(&r->notes, "code-growth budget: the selection still adds %.0f bytes, above the limit of %.0f bytes: "
                            "%zu selected function%s added bytes that could not be measured", b->after, b->limit,
                 b->n_unknown, b->n_unknown == 1 ? "" : "s");
    sb_free(&names);
    free(selected);
    free(dropped);
    free(bytes);
    free(gain);
}

char *budget_sentence(const struct select_report *r)
{
    const struct select_budget *b = &r->budget;
    if (!b->applied) return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "code-growth budget: %.0f bytes, %g%% of a second whole build (%s, %.0f bytes); the selection was "
                 "predicted to add %.0f bytes", b->limit, b->max_growth, b->whole_what, b->whole_bytes, b->after);
    if (b->n_dropped) sb_addf(&sb, " after %zu function%s dropped (%.0f before)", b->n_dropped,
                              b->n_dropped == 1 ? " was" : "s were", b->before);
    if (r->selected_code.measured && r->n_variants && r->variants[0].code.measured) {
        int64_t real = select_code_growth(r, &r->selected_code);
        sb_addf(&sb, "; the selected build adds %lld bytes (%.1f%% of it): %s", (long long)real,
                100.0 * (double)real / b->whole_bytes, (double)real <= b->limit ? "within the budget" : "ABOVE the budget");
    }
    return sb_detach(&sb);
}

void budget_check_measured(struct select_report *r)
{
    const struct select_budget *b = &r->budget;
    if (!b->applied || !r->selected_code.measured || !r->variants[0].code.measured) return;
    int64_t real = select_code_growth(r, &r->selected_code);
    if ((double)real > b->limit)
        sv_pushf(&r->notes, "code-growth budget exceeded: the selected build adds %lld bytes, %.1f%% of a second "
                            "whole build (%s), above the limit of %.0f%% (%.0f bytes); the prediction from the "
                            "all-candidates builds was %.0f bytes",
                 (long long)real, 100.0 * (double)real / b->whole_bytes, b->whole_what, b->max_growth, b->limit,
                 b->after);
}
