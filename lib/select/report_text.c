/* report_text.c - numbers, intervals and sentences as select's writers
 * print them (report_write.h). */
#include "select/report_write.h"
#include "select/decision_confirm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char REPORT_CODE_COUNTED[] =
    "Code = the allocated executable sections (.text, .init, .fini, .plt, .plt.got, .plt.sec) of a build's linked "
    "x86-64 executables and shared libraries; growth is against the baseline's. A function's bytes added = its "
    "non-default clones + its resolver, as `fmvgen inspect` measures them (symbol sizes); its default clone is the "
    "code it had anyway, and the ifunc's PLT slot and relocation are not counted.";

void report_add_ratio(struct strbuf *sb, double x)
{
    if (isinf(x)) sb_adds(sb, "inf");
    else sb_addf(sb, "%.2f", x);
}

/* a ratio of nothing says nothing: "-" when the baseline never sampled it */
void report_add_speedup(struct strbuf *sb, const struct stats_interval *iv)
{
    const char *unknown = select_speedup_unknown(iv);
    if (unknown && iv->mean_a <= 0) {
        sb_adds(sb, "- (not sampled)");
        return;
    }
    if (unknown) {
        sb_addf(sb, "inf (%s)", unknown);
        return;
    }
    report_add_ratio(sb, iv->speedup);
    sb_adds(sb, "x");
    if (iv->valid) {
        sb_adds(sb, " [");
        report_add_ratio(sb, iv->speedup_lo);
        sb_adds(sb, ", ");
        report_add_ratio(sb, iv->speedup_hi);
        sb_adds(sb, "]");
    } else {
        sb_adds(sb, " (no interval)");
    }
}

void report_add_estimate(struct strbuf *sb, const struct select_report *r, size_t f, size_t v)
{
    report_add_speedup(sb, decision_estimate(&r->decision, f, v));
    if (decision_estimate_fresh(&r->decision, f, v)) sb_adds(sb, " (fresh runs)");
}

void report_add_bytes(struct strbuf *sb, uint64_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) sb_addc(sb, ',');
        sb_addc(sb, digits[i]);
    }
}

void report_add_growth(struct strbuf *sb, const struct select_report *r, const struct select_code *c)
{
    int64_t g = select_code_growth(r, c);
    sb_addc(sb, g < 0 ? '-' : '+');
    report_add_bytes(sb, (uint64_t)(g < 0 ? -g : g));
    sb_addf(sb, " bytes (%+.1f%%)", select_code_growth_percent(r, c));
}

void report_add_function_bytes(struct strbuf *sb, const struct select_report *r, size_t f)
{
    size_t v = select_shown_variant(r, f);
    int64_t all = select_bytes_added(r, f, v), sel = select_bytes_added(r, f, r->n_variants);
    if (all < 0 && sel < 0) {
        sb_adds(sb, "-");
        return;
    }
    if (all >= 0) {
        report_add_bytes(sb, (uint64_t)all);
        sb_addf(sb, " in %s", r->variants[v].name);
    }
    if (sel >= 0) {
        if (all >= 0) sb_adds(sb, ", ");
        report_add_bytes(sb, (uint64_t)sel);
        sb_adds(sb, " selected");
    }
}

void report_add_name_flag(struct strbuf *sb, const struct select_report *r, size_t f)
{
    if (select_name_ambiguous(r, f)) sb_addf(sb, " [name not unique: %zu candidates]", select_name_count(r, f));
}

int report_shared_listed(const struct select_report *r, size_t f, int by_file)
{
    return by_file ? r->functions[f].by_file && select_name_count(r, f) > 1 : select_name_ambiguous(r, f);
}

int report_first_of_shared_name(const struct select_report *r, size_t f, int by_file)
{
    for (size_t g = 0; g < f; g++)
        if (strcmp(r->functions[g].name, r->functions[f].name) == 0 && report_shared_listed(r, g, by_file)) return 0;
    return report_shared_listed(r, f, by_file);
}

/* noise is reported, not hidden */
void report_add_noise(struct strbuf *sb, const struct select_report *r, const char *prefix, const char *suffix)
{
    struct strvec items = STRVEC_INIT;
    for (size_t f = 0; f < r->n_functions && r->decision.functions; f++) {
        const struct select_function *fn = &r->functions[f];
        if (!fn->in_patch) continue;
        const struct stats_interval *iv = decision_estimate(&r->decision, f, (size_t)fn->set);
        if (!select_interval_wide(iv)) continue;
        struct strbuf item = STRBUF_INIT;
        sb_addf(&item, "%s (", fn->display_name);
        report_add_speedup(&item, iv);
        sb_adds(&item, ")");
        sv_push(&items, sb_str(&item));
        sb_free(&item);
    }
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->timed || !select_interval_wide(&wr->e2e)) continue;
        struct strbuf item = STRBUF_INIT;
        sb_addf(&item, "the end-to-end time of '%s' (", wr->command);
        report_add_speedup(&item, &wr->e2e);
        sb_adds(&item, ")");
        sv_push(&items, sb_str(&item));
        sb_free(&item);
    }
    size_t n = items.n;
    struct strbuf what = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        sb_addf(&what, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", items.v[i]);
    sv_free(&items);
    if (n) {
        sb_adds(sb, prefix);
        sb_addf(sb, "The 95%% interval%s of %s %s wide (wider than %.0f%% of the speedup): the machine was noisy or "
                    "the workload%s short. A function is selected only when its interval excludes no gain, but how "
                    "large the gains are is uncertain: rerun with more --runs (now %d) on a quieter machine.",
                n == 1 ? "" : "s", what.buf, n == 1 ? "is" : "are", SELECT_WIDE_INTERVAL * 100,
                r->n_workloads == 1 ? " is" : "s are", r->runs);
        sb_adds(sb, suffix);
    }
    sb_free(&what);
}
