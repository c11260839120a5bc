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

const char *select_speedup_unknown(const struct stats_interval *iv)
{
    if (iv->mean_a <= 0 && iv->mean_b <= 0) return "not sampled by either build";
    if (iv->mean_a <= 0) return "not sampled by the baseline";
    if (iv->mean_b <= 0 || !isfinite(iv->speedup)) return "not sampled by this variant";
    return NULL;
}

int select_interval_wide(const struct stats_interval *iv)
{
    if (!iv->valid || select_speedup_unknown(iv)) return 0;
    if (!isfinite(iv->speedup_lo) || !isfinite(iv->speedup_hi)) return 1;
    return iv->speedup_hi - iv->speedup_lo > SELECT_WIDE_INTERVAL * iv->speedup;
}

size_t select_name_count(const struct select_report *r, size_t f)
{
    size_t n = 0;
    for (size_t g = 0; g < r->n_functions; g++)
        if (strcmp(r->functions[g].name, r->functions[f].name) == 0) n++;
    return n;
}

int select_name_ambiguous(const struct select_report *r, size_t f)
{
    return !r->functions[f].by_file && select_name_count(r, f) > 1;
}

/* The baseline never sampled function f: no share, no speedup to show. */
static int baseline_unsampled(const struct select_report *r, size_t f)
{
    const struct decision_function *d = r->decision.functions ? &r->decision.functions[f] : NULL;
    return !r->static_mode && d && d->base_samples <= 0 && d->share <= 0;
}

/* "1.52x [1.40, 1.66]"; "-" when the baseline never sampled it (a ratio of
 * nothing says nothing); "inf (not sampled by this variant)". */
static void add_speedup(struct strbuf *sb, const struct stats_interval *iv)
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

/* "12,345" */
static void add_bytes(struct strbuf *sb, uint64_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) sb_addc(sb, ',');
        sb_addc(sb, digits[i]);
    }
}

/* "+1,234 bytes (+5.2%)" / "-1,234 bytes (-0.4%)" */
static void add_growth(struct strbuf *sb, const struct select_report *r, const struct select_code *c)
{
    int64_t g = select_code_growth(r, c);
    sb_addc(sb, g < 0 ? '-' : '+');
    add_bytes(sb, (uint64_t)(g < 0 ? -g : g));
    sb_addf(sb, " bytes (%+.1f%%)", select_code_growth_percent(r, c));
}

int64_t select_code_growth(const struct select_report *r, const struct select_code *c)
{
    if (!r->n_variants || !r->variants[0].code.measured || !c->measured) return 0;
    return (int64_t)c->code_bytes - (int64_t)r->variants[0].code.code_bytes;
}

double select_code_growth_percent(const struct select_report *r, const struct select_code *c)
{
    if (!r->n_variants || !r->variants[0].code.measured || !r->variants[0].code.code_bytes) return 0;
    return 100.0 * (double)select_code_growth(r, c) / (double)r->variants[0].code.code_bytes;
}

/* The variant a function is shown with: its patch's set, else (timed) the
 * set that made it fastest, else (static) the one built. */
static size_t shown_variant(const struct select_report *r, size_t f)
{
    if (r->functions[f].in_patch) return (size_t)r->functions[f].set;
    size_t best = 1;
    if (r->static_mode || !r->decision.functions) {
        for (size_t v = 1; v < r->n_variants; v++)
            if (r->variants[v].built) return v;
        return best;
    }
    for (size_t v = 1; v < r->n_variants; v++)
        if (r->decision.functions[f].by_variant[v].speedup > r->decision.functions[f].by_variant[best].speedup)
            best = v;
    return best;
}

/* Bytes f's clones add in build v (n_variants: the selected build), -1 unknown. */
static int64_t bytes_in(const struct select_report *r, size_t f, size_t v)
{
    const struct select_function *fn = &r->functions[f];
    return fn->bytes_added && v <= r->n_variants ? fn->bytes_added[v] : -1;
}

/* "612 in fma-levels, 612 selected" / "-" */
static void add_function_bytes(struct strbuf *sb, const struct select_report *r, size_t f)
{
    size_t v = shown_variant(r, f);
    int64_t all = bytes_in(r, f, v), sel = bytes_in(r, f, r->n_variants);
    if (all < 0 && sel < 0) {
        sb_adds(sb, "-");
        return;
    }
    if (all >= 0) {
        add_bytes(sb, (uint64_t)all);
        sb_addf(sb, " in %s", r->variants[v].name);
    }
    if (sel >= 0) {
        if (all >= 0) sb_adds(sb, ", ");
        add_bytes(sb, (uint64_t)sel);
        sb_adds(sb, " selected");
    }
}

static const char CODE_COUNTED[] =
    "Code = the allocated executable sections (.text, .init, .fini, .plt, .plt.got, .plt.sec) of a build's linked "
    "x86-64 executables and shared libraries; growth is against the baseline's. A function's bytes added = its "
    "non-default clones + its resolver, as `fmvgen inspect` measures them (symbol sizes); its default clone is the "
    "code it had anyway, and the ifunc's PLT slot and relocation are not counted.";

/* The code-size section of report.md. */
static void add_code_section(struct strbuf *sb, const struct select_report *r)
{
    if (!r->n_variants || !r->variants[0].code.measured) {
        if (!r->static_mode) sb_adds(sb, "\n## Code size\n\nThe baseline's linked files could not be measured.\n");
        else if (r->n_variants > 1 && r->variants[1].code.measured) {
            sb_adds(sb, "\n## Code size\n\n");
            sb_adds(sb, CODE_COUNTED);
            sb_adds(sb, "\n\nOnly the all-candidates build was made (--static): ");
            add_bytes(sb, r->variants[1].code.clone_bytes + r->variants[1].code.resolver_bytes);
            sb_adds(sb, " bytes of clones and resolvers in its ");
            add_bytes(sb, r->variants[1].code.code_bytes);
            sb_adds(sb, " bytes of code");
            uint64_t selected = 0;
            for (size_t f = 0; f < r->n_functions; f++)
                if (r->functions[f].in_patch && bytes_in(r, f, 1) > 0) selected += (uint64_t)bytes_in(r, f, 1);
            sb_adds(sb, "; the selected functions' share of them: ");
            add_bytes(sb, selected);
            sb_adds(sb, " bytes.\n");
        }
        return;
    }
    const struct select_code *base = &r->variants[0].code;
    sb_adds(sb, "\n## Code size\n\n");
    sb_adds(sb, CODE_COUNTED);
    sb_adds(sb, "\n\n| build | files | code bytes | growth | clones + resolvers |\n|---|---|---|---|---|\n");
    for (size_t v = 0; v < r->n_variants; v++) {
        const struct select_code *c = &r->variants[v].code;
        if (!c->measured) continue;
        sb_addf(sb, "| %s%s | %zu | ", r->variants[v].name, v ? " (all candidates)" : "", c->n_files);
        add_bytes(sb, c->code_bytes);
        sb_adds(sb, " | ");
        if (v) add_growth(sb, r, c);
        else sb_adds(sb, "-");
        sb_adds(sb, " | ");
        add_bytes(sb, c->clone_bytes + c->resolver_bytes);
        sb_adds(sb, " |\n");
    }
    if (r->selected_code.measured) {
        sb_addf(sb, "| selected | %zu | ", r->selected_code.n_files);
        add_bytes(sb, r->selected_code.code_bytes);
        sb_adds(sb, " | ");
        add_growth(sb, r, &r->selected_code);
        sb_adds(sb, " | ");
        add_bytes(sb, r->selected_code.clone_bytes + r->selected_code.resolver_bytes);
        sb_adds(sb, " |\n");
    }
    const struct select_march *m = &r->march;
    if (m->code.measured && !m->failure) {
        sb_addf(sb, "| -march=x86-64-v3 (whole program, unpatched) | %zu | ", m->code.n_files);
        add_bytes(sb, m->code.code_bytes);
        sb_adds(sb, " | ");
        add_growth(sb, r, &m->code);
        sb_adds(sb, " | - |\n");
    }
    sb_adds(sb, "\nGrowth beyond the clones and resolvers is code they bring along: with GCC, libgcc's CPU "
                "detection (__cpu_indicator_init, get_available_features: about 4.5 KB once per linked file "
                "with a resolver), and the alignment padding of the new functions.\n\n");
    if (r->selected_code.measured) {
        int64_t sel = select_code_growth(r, &r->selected_code);
        sb_adds(sb, "The selected build's code grows by ");
        add_growth(sb, r, &r->selected_code);
        sb_adds(sb, "; with every candidate cloned it grows by");
        int first = 1;
        for (size_t v = 1; v < r->n_variants; v++) {
            if (!r->variants[v].code.measured) continue;
            int64_t all = select_code_growth(r, &r->variants[v].code);
            sb_adds(sb, first ? " " : ", ");
            first = 0;
            add_growth(sb, r, &r->variants[v].code);
            sb_addf(sb, " (%s", r->variants[v].name);
            if (all > 0) sb_addf(sb, ": the selection keeps %.0f%% of it", 100.0 * (double)sel / (double)all);
            sb_adds(sb, ")");
        }
        sb_adds(sb, first ? " - (no all-candidates build was measured).\n" : ".\n");
    }
    if (m->code.measured && !m->failure) {
        sb_adds(sb, "glibc-hwcaps packaging would ship the -march=x86-64-v3 build beside the baseline: ");
        add_bytes(sb, m->code.code_bytes);
        sb_addf(sb, " more bytes of code to ship (+%.1f%%)",
                base->code_bytes ? 100.0 * (double)m->code.code_bytes / (double)base->code_bytes : 0.0);
        if (r->selected_code.measured) {
            sb_adds(sb, ", where the selected build adds ");
            add_growth(sb, r, &r->selected_code);
        }
        sb_adds(sb, ".\n");
    }
    select_report_references_markdown(sb, r);
}

static const char *function_verdict(const struct select_report *r, size_t f)
{
    const struct select_function *fn = &r->functions[f];
    if (r->static_mode) return fn->note ? fn->note : (fn->in_patch ? "selected" : "dropped");
    if (fn->note) return fn->note;
    return decision_reason_name(r->decision.functions[f].reason);
}

/* " [name not unique: 3 candidates]" after an ambiguous function's name. */
static void add_name_flag(struct strbuf *sb, const struct select_report *r, size_t f)
{
    if (select_name_ambiguous(r, f)) sb_addf(sb, " [name not unique: %zu candidates]", select_name_count(r, f));
}

/* f shares its name and is counted by file (by_file) or ambiguous (!by_file). */
static int shared_listed(const struct select_report *r, size_t f, int by_file)
{
    return by_file ? r->functions[f].by_file && select_name_count(r, f) > 1 : select_name_ambiguous(r, f);
}

/* f is the first candidate of its name in that list. */
static int first_of_shared_name(const struct select_report *r, size_t f, int by_file)
{
    for (size_t g = 0; g < f; g++)
        if (strcmp(r->functions[g].name, r->functions[f].name) == 0 && shared_listed(r, g, by_file)) return 0;
    return shared_listed(r, f, by_file);
}

/* " `work` (a.c:3, b.c:9)" for each name of the list; how many candidates. */
static size_t add_shared_list(struct strbuf *sb, const struct select_report *r, int by_file)
{
    size_t n = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        if (!first_of_shared_name(r, f, by_file)) continue;
        sb_addf(sb, " `%s` (", r->functions[f].name);
        int first = 1;
        for (size_t g = f; g < r->n_functions; g++) {
            if (strcmp(r->functions[g].name, r->functions[f].name) != 0 || !shared_listed(r, g, by_file)) continue;
            sb_addf(sb, "%s%s:%d", first ? "" : ", ", r->functions[g].file, r->functions[g].line);
            first = 0;
            n++;
        }
        sb_adds(sb, ")");
    }
    return n;
}

/* The paragraphs under the functions table on names candidates share: those
 * the profile could not tell apart (select_name_ambiguous), and those it
 * told apart by file. */
static void add_shared_names(struct strbuf *sb, const struct select_report *r)
{
    size_t n = 0, n_by_file = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        n += select_name_ambiguous(r, f);
        n_by_file += shared_listed(r, f, 1);
    }
    if (n_by_file) {
        sb_addf(sb, "\n**Names shared, told apart by file:** %zu candidates share their name with another candidate "
                    "(static functions in different files):", n_by_file);
        add_shared_list(sb, r, 1);
        sb_adds(sb, ". perf names a sample by its symbol only; each sample of these was given to its own file's "
                    "function through the symbol table of the file it ran in (the STT_FILE of its symbol), so each "
                    "is judged on its own samples.\n");
    }
    if (!n) return;
    sb_addf(sb, "\n**Names not unique:** %zu candidates share their name with another candidate (static functions "
                "in different files):", n);
    add_shared_list(sb, r, 0);
    if (r->static_mode)
        sb_adds(sb, ". The static selection does not depend on a profile, but the patch names functions the same "
                    "way.\n");
    else
        sb_adds(sb, ". The profile names a sample by its symbol only, so each of them was credited with the samples "
                    "of all of its namesakes: their shares and speedups above are of the sum, and none of them is "
                    "selected on them (\"ambiguous name\").\n");
}

/* Wide intervals (select_interval_wide) of the selected functions and of
 * the end-to-end times, said in plain words: noise is reported, not
 * hidden. Nothing when all are narrow. */
static void add_noise(struct strbuf *sb, const struct select_report *r, const char *prefix, const char *suffix)
{
    struct strvec items = STRVEC_INIT;
    for (size_t f = 0; f < r->n_functions && r->decision.functions; f++) {
        const struct select_function *fn = &r->functions[f];
        if (!fn->in_patch) continue;
        const struct stats_interval *iv = &r->decision.functions[f].by_variant[fn->set];
        if (!select_interval_wide(iv)) continue;
        struct strbuf item = STRBUF_INIT;
        sb_addf(&item, "%s (", fn->display_name);
        add_speedup(&item, iv);
        sb_adds(&item, ")");
        sv_push(&items, sb_str(&item));
        sb_free(&item);
    }
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->timed || !select_interval_wide(&wr->e2e)) continue;
        struct strbuf item = STRBUF_INIT;
        sb_addf(&item, "the end-to-end time of '%s' (", wr->command);
        add_speedup(&item, &wr->e2e);
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

char *select_report_markdown(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "# fmvgen select\n\n");
    if (r->static_mode) {
        sb_adds(&sb, "**Static selection: nothing was timed.** Functions were chosen from what their clones' "
                     "code needs (the ISA verdicts of `fmvgen inspect`) and from the loop records.\n\n");
    } else {
        sb_addf(&sb, "%zu builds, %zu profiled runs and %zu timed runs; %d runs per variant and workload, "
                     "interleaved. Intervals are 95%% (Welch; a function's samples on the log scale where every run "
                     "sampled it). A function is selected when its own time drops "
                     "significantly and it holds at least %.1f%% of the baseline's samples; functions with no "
                     "significant gain alone are selected together when, as one group, they are significantly "
                     "faster.\n\n",
                r->n_builds, r->n_profiled_runs, r->n_timed_runs, r->runs, r->min_share * 100);
        add_noise(&sb, r, "**Noisy measurements.** ", "\n\n");
        select_report_statistics_markdown(&sb, r);
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
        sb_adds(&sb, "| function | file | bytes added | selected | why |\n|---|---|---|---|---|\n");
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            sb_addf(&sb, "| %s", fn->display_name);
            add_name_flag(&sb, r, f);
            sb_addf(&sb, " | %s:%d | ", fn->file, fn->line);
            add_function_bytes(&sb, r, f);
            sb_addf(&sb, " | %s | %s |\n", fn->in_patch ? "yes" : "no", function_verdict(r, f));
        }
    } else {
        sb_adds(&sb, "| function | file | share | samples/run |");
        for (size_t v = 1; v < r->n_variants; v++) sb_addf(&sb, " speedup %s (clone ran) |", r->variants[v].name);
        sb_adds(&sb, " bytes added | selected | why |\n|---|---|---|---|");
        for (size_t v = 1; v < r->n_variants; v++) sb_adds(&sb, "---|");
        sb_adds(&sb, "---|---|---|\n");
        for (size_t f = 0; f < r->n_functions; f++) {
            const struct select_function *fn = &r->functions[f];
            const struct decision_function *d = &r->decision.functions[f];
            sb_addf(&sb, "| %s", fn->display_name);
            if (fn->kind) sb_addf(&sb, " [%s]", fn->kind);
            add_name_flag(&sb, r, f);
            sb_addf(&sb, " | %s:%d | ", fn->file, fn->line);
            if (baseline_unsampled(r, f)) sb_adds(&sb, "not sampled");
            else sb_addf(&sb, "%.1f%%", d->share * 100);
            sb_addf(&sb, " | %.0f |", d->base_samples);
            for (size_t v = 1; v < r->n_variants; v++) {
                sb_adds(&sb, " ");
                if (r->variants[v].built && baseline_unsampled(r, f)) {
                    sb_adds(&sb, "-");
                } else if (r->variants[v].built) {
                    add_speedup(&sb, &d->by_variant[v]);
                    if (fn->ran && fn->ran[v]) sb_addf(&sb, " (%s)", fn->ran[v]);
                } else {
                    sb_adds(&sb, "-");
                }
                sb_adds(&sb, " |");
            }
            sb_adds(&sb, " ");
            add_function_bytes(&sb, r, f);
            sb_addf(&sb, " | %s | %s |\n", fn->in_patch ? r->variants[fn->set].name : "no", function_verdict(r, f));
        }
        add_shared_names(&sb, r);
        if (r->n_workloads) {
            int march = 0;
            for (size_t w = 0; w < r->n_workloads; w++) march |= r->workloads[w].march_timed || r->workloads[w].march_failure;
            sb_adds(&sb, "\n## End to end: selected build vs baseline\n\n"
                         "Wall time decides; CPU time (user + system) of the same runs is shown beside it, because "
                         "on a loaded machine it moves much less between identical runs. Where the baseline's wall "
                         "times were 1.3x its CPU times or more, the runs waited for a busy machine and the CPU time "
                         "decides (marked *decides*).\n\n"
                         "| workload | speedup [95%] | CPU time speedup [95%] |");
            if (march) sb_adds(&sb, " -march=x86-64-v3 vs baseline | selected vs -march=x86-64-v3 |");
            sb_adds(&sb, march ? "\n|---|---|---|---|---|\n" : "\n|---|---|---|\n");
            for (size_t w = 0; w < r->n_workloads; w++) {
                const struct select_workload_result *wr = &r->workloads[w];
                sb_addf(&sb, "| `%s` | ", wr->command);
                if (wr->failure) sb_addf(&sb, "failed: %s | -", wr->failure);
                else if (wr->timed) {
                    add_speedup(&sb, &wr->e2e);
                    sb_adds(&sb, " | ");
                    if (wr->e2e_cpu.valid) add_speedup(&sb, &wr->e2e_cpu);
                    else sb_adds(&sb, "-");
                    if (wr->cpu_decides) sb_adds(&sb, " *decides*");
                } else {
                    sb_adds(&sb, "not timed (nothing selected) | -");
                }
                if (march) {
                    sb_adds(&sb, " | ");
                    if (wr->march_failure) sb_addf(&sb, "failed: %s | -", wr->march_failure);
                    else if (wr->march_timed) {
                        add_speedup(&sb, &wr->march_e2e);
                        sb_adds(&sb, " | ");
                        add_speedup(&sb, &wr->selected_vs_march);
                    } else {
                        sb_adds(&sb, "- | -");
                    }
                }
                sb_adds(&sb, " |\n");
            }
            if (march) {
                sb_adds(&sb, "\nThe three builds were timed in the same interleaved runs; \"selected vs "
                             "-march=x86-64-v3\" above 1x means the selected build is the faster.");
                /* how close the selection comes where the whole-program build wins */
                for (size_t w = 0; w < r->n_workloads; w++) {
                    const struct select_workload_result *wr = &r->workloads[w];
                    if (!wr->march_timed || !wr->selected_vs_march.valid) continue;
                    if (stats_slower(&wr->selected_vs_march))
                        sb_addf(&sb, " On `%s` the -march=x86-64-v3 build is significantly faster: the selection "
                                     "reaches %.0f%% of its speed (code outside the cloned functions gains from "
                                     "the wider ISA too).", wr->command, 100 * wr->selected_vs_march.speedup);
                    else if (stats_faster(&wr->selected_vs_march))
                        sb_addf(&sb, " On `%s` the selected build is significantly faster than the -march=x86-64-v3 "
                                     "build.", wr->command);
                    else
                        sb_addf(&sb, " On `%s` the selected build and the -march=x86-64-v3 build are as fast within "
                                     "the interval.", wr->command);
                }
                sb_adds(&sb, "\n");
            }
        }
    }
    add_code_section(&sb, r);
    sb_addf(&sb, "\n%zu of %zu candidates selected%s%s%s.\n", r->n_selected, r->n_functions,
            r->patch_targets ? " (targets " : "", r->patch_targets ? r->patch_targets : "",
            r->patch_targets ? ")" : "");
    if (r->notes.n) {
        sb_adds(&sb, "\n## Notes\n\n");
        for (size_t i = 0; i < r->notes.n; i++) sb_addf(&sb, "- %s\n", r->notes.v[i]);
    }
    return sb_detach(&sb);
}

/* A number, or null when it is not finite: JSON has no inf or nan, and
 * json_real() refuses them (the field would silently vanish). Every real
 * the report writes goes through here; where null needs a why, the caller
 * adds a field saying it. */
static json_t *real_json(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* "speedup" is null, never 0 (0 reads as "infinitely slower"), when there
 * is no finite one; "speedup_unknown" then says why. */
json_t *select_interval_json(const struct stats_interval *iv)
{
    json_t *o = json_object();
    const char *unknown = select_speedup_unknown(iv);
    json_object_set_new(o, "speedup", unknown ? json_null() : real_json(iv->speedup));
    json_object_set_new(o, "speedup_unknown", unknown ? json_string(unknown) : json_null());
    json_object_set_new(o, "valid", json_boolean(iv->valid));
    json_object_set_new(o, "wide", json_boolean(select_interval_wide(iv)));
    if (iv->valid) {
        json_object_set_new(o, "speedup_low", unknown ? json_null() : real_json(iv->speedup_lo));
        json_object_set_new(o, "speedup_high", unknown ? json_null() : real_json(iv->speedup_hi));
        json_object_set_new(o, "mean_baseline", real_json(iv->mean_a));
        json_object_set_new(o, "mean_variant", real_json(iv->mean_b));
        json_object_set_new(o, "p", real_json(iv->p));
        json_object_set_new(o, "widened_by_aa", real_json(iv->widened));
    }
    return o;
}

/* A short, stable code for why a function is (not) in the patch. */
static const char *reason_code(const struct select_report *r, size_t f)
{
    const struct select_function *fn = &r->functions[f];
    if (fn->in_patch) return "selected";
    if (r->static_mode || !r->decision.functions) return "not-selected";
    const struct decision_function *d = &r->decision.functions[f];
    if (d->chosen >= 1 && select_name_ambiguous(r, f)) return "ambiguous-name";
    if (d->reason == DECISION_SELECTED || d->reason == DECISION_SELECTED_TOGETHER) return "held-back";
    return decision_reason_code(d->reason);
}

static json_t *code_json(const struct select_report *r, const struct select_code *c, int growth)
{
    if (!c->measured) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "files", json_integer((json_int_t)c->n_files));
    json_object_set_new(o, "code_bytes", json_integer((json_int_t)c->code_bytes));
    json_object_set_new(o, "clone_bytes", json_integer((json_int_t)c->clone_bytes));
    json_object_set_new(o, "resolver_bytes", json_integer((json_int_t)c->resolver_bytes));
    if (growth && r->n_variants && r->variants[0].code.measured) {   /* no baseline (--static): no growth */
        json_object_set_new(o, "growth_bytes", json_integer((json_int_t)select_code_growth(r, c)));
        json_object_set_new(o, "growth_percent", real_json(select_code_growth_percent(r, c)));
    }
    return o;
}

static json_t *bytes_json(int64_t n)
{
    return n < 0 ? json_null() : json_integer((json_int_t)n);
}

/* "code_size": the totals of every measured build. */
static json_t *code_size_json(const struct select_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "counted", json_string(CODE_COUNTED));
    json_object_set_new(o, "baseline", r->n_variants ? code_json(r, &r->variants[0].code, 0) : json_null());
    json_t *all = json_object();
    for (size_t v = 1; v < r->n_variants; v++)
        json_object_set_new(all, r->variants[v].name, code_json(r, &r->variants[v].code, 1));
    json_object_set_new(o, "all_candidates", all);
    json_object_set_new(o, "selected", code_json(r, &r->selected_code, 1));
    /* selected growth / all-candidates growth, per target set */
    json_t *ratio = json_object();
    for (size_t v = 1; v < r->n_variants; v++) {
        int64_t all_g = select_code_growth(r, &r->variants[v].code);
        if (!r->selected_code.measured || !r->variants[v].code.measured || all_g <= 0) continue;
        json_object_set_new(ratio, r->variants[v].name,
                            real_json((double)select_code_growth(r, &r->selected_code) / (double)all_g));
    }
    json_object_set_new(o, "selected_growth_vs_all_candidates", ratio);
    const struct select_march *m = &r->march;
    json_t *mj = json_object();
    json_object_set_new(mj, "attempted", json_boolean(m->attempted));
    json_object_set_new(mj, "built", json_boolean(m->built));
    json_object_set_new(mj, "flags", m->flags ? json_string(m->flags) : json_null());
    json_object_set_new(mj, "built_via", m->via ? json_string(m->via) : json_null());
    json_object_set_new(mj, "failure", m->failure ? json_string(m->failure) : json_null());
    int usable = m->code.measured && !m->failure;
    json_object_set_new(mj, "code", usable ? code_json(r, &m->code, 1) : json_null());
    /* glibc-hwcaps ships it beside the baseline: all of its code is extra */
    json_object_set_new(mj, "hwcaps_extra_bytes", usable ? json_integer((json_int_t)m->code.code_bytes) : json_null());
    json_object_set_new(o, "march_x86_64_v3", mj);
    return o;
}

/* The group of small gains (decision.h): null when nothing was timed. */
static json_t *small_gains_json(const struct select_report *r)
{
    if (r->static_mode || !r->decision.functions) return json_null();
    const struct decision_group *g = &r->decision.group;
    json_t *o = json_object();
    json_object_set_new(o, "pool", json_integer((json_int_t)g->n_pool));
    json_object_set_new(o, "pool_share", real_json(g->share));
    json_object_set_new(o, "selected", json_integer((json_int_t)g->n_members));
    int chosen = g->chosen >= 1 && (size_t)g->chosen < r->n_variants;
    json_object_set_new(o, "variant", chosen ? json_string(r->variants[g->chosen].name) : json_null());
    json_object_set_new(o, "speedup", chosen ? select_interval_json(&g->by_variant_chosen) : json_null());
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
    json_object_set_new(o, "min_share", real_json(r->min_share));
    json_object_set_new(o, "tolerance", r->tolerance < 0 ? json_null() : real_json(r->tolerance));
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
        json_object_set_new(j, "code", code_json(r, &x->code, v > 0));
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
        json_object_set_new(j, "kind", fn->kind ? json_string(fn->kind) : json_null());
        json_object_set_new(j, "evidence", fn->evidence ? json_string(fn->evidence) : json_null());
        json_object_set_new(j, "selected", json_boolean(fn->in_patch));
        json_object_set_new(j, "fma_free_code", json_boolean(fn->fma_free_code));
        json_object_set_new(j, "outlined_helpers", fn->outlined ? json_string(fn->outlined) : json_null());
        json_t *helpers = json_array();
        for (size_t i = 0; i < fn->helpers.n; i++) json_array_append_new(helpers, json_string(fn->helpers.v[i]));
        json_object_set_new(j, "inlined_helpers", helpers);
        json_object_set_new(j, "why", json_string(function_verdict(r, f)));
        json_object_set_new(j, "reason", json_string(reason_code(r, f)));
        /* other candidates have its name (select_name_count); samples_by_file:
         * the profile still told it from them */
        json_object_set_new(j, "name_unique", json_boolean(select_name_count(r, f) == 1));
        json_object_set_new(j, "candidates_with_this_name", json_integer((json_int_t)select_name_count(r, f)));
        /* a shared name told apart by source file (attribution.h) */
        json_object_set_new(j, "samples_by_file", json_boolean(fn->by_file));
        /* bytes its clones add: in every measured build, and the two the
         * report shows (its set's or best set's all-candidates build, the
         * selected build) */
        json_t *by = json_object();
        for (size_t v = 1; v < r->n_variants; v++)
            if (r->variants[v].code.measured) json_object_set_new(by, r->variants[v].name, bytes_json(bytes_in(r, f, v)));
        if (r->selected_code.measured) json_object_set_new(by, "selected", bytes_json(bytes_in(r, f, r->n_variants)));
        json_object_set_new(j, "bytes_added", by);
        size_t sv = shown_variant(r, f);
        json_object_set_new(j, "bytes_added_all_candidates", bytes_json(bytes_in(r, f, sv)));
        json_object_set_new(j, "bytes_added_all_candidates_set", sv < r->n_variants ? json_string(r->variants[sv].name) : json_null());
        json_object_set_new(j, "bytes_added_selected", bytes_json(bytes_in(r, f, r->n_variants)));
        /* the targets its clones get in selected.patch (each function its own set) */
        json_object_set_new(j, "targets", fn->in_patch ? json_string(r->variants[fn->set].targets) : json_null());
        if (!r->static_mode) {
            const struct decision_function *d = &r->decision.functions[f];
            /* no share when the baseline never sampled it: 0% would read as measured */
            json_object_set_new(j, "share", baseline_unsampled(r, f) ? json_null() : real_json(d->share));
            json_object_set_new(j, "baseline_sampled", json_boolean(!baseline_unsampled(r, f)));
            json_object_set_new(j, "baseline_samples_per_run", real_json(d->base_samples));
            json_object_set_new(j, "target_set", fn->in_patch ? json_string(r->variants[fn->set].name) : json_null());
            json_t *by = json_object();
            for (size_t v = 1; v < r->n_variants; v++) {
                if (!r->variants[v].built) continue;
                json_t *iv = select_interval_json(&d->by_variant[v]);
                json_object_set_new(iv, "clone_ran", fn->ran && fn->ran[v] ? json_string(fn->ran[v]) : json_null());
                json_object_set_new(iv, "same_code", json_boolean(fn->same_code && fn->same_code[v]));
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
        json_object_set_new(j, "end_to_end", wr->timed ? select_interval_json(&wr->e2e) : json_null());
        json_object_set_new(j, "decided_on", !wr->timed ? json_null() : json_string(wr->cpu_decides ? "cpu" : "wall"));
        json_object_set_new(j, "end_to_end_cpu",
                            wr->timed && wr->e2e_cpu.valid ? select_interval_json(&wr->e2e_cpu) : json_null());
        json_object_set_new(j, "failure", wr->failure ? json_string(wr->failure) : json_null());
        json_object_set_new(j, "march_x86_64_v3", wr->march_timed ? select_interval_json(&wr->march_e2e) : json_null());
        json_object_set_new(j, "selected_vs_march_x86_64_v3",
                            wr->march_timed ? select_interval_json(&wr->selected_vs_march) : json_null());
        json_object_set_new(j, "march_failure", wr->march_failure ? json_string(wr->march_failure) : json_null());
        json_array_append_new(ws, j);
    }
    json_object_set_new(o, "workloads", ws);
    json_object_set_new(o, "patch_targets", r->patch_targets ? json_string(r->patch_targets) : json_null());
    json_object_set_new(o, "selected", json_integer((json_int_t)r->n_selected));
    json_object_set_new(o, "code_size", code_size_json(r));
    json_object_set_new(o, "small_gains", small_gains_json(r));
    json_object_set_new(o, "statistics", select_report_statistics_json(r));
    json_object_set_new(o, "references", select_report_references_json(r));
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
        add_html_text(sb, names[i]);
        sb_addf(sb, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>", left, y, len,
                colour[i]);
        sb_addf(sb, "<text x=\"%.1f\" y=\"%d\">%s", left + len + 4, y + 13, bytes[i] < 0 ? "-" : "+");
        add_bytes(sb, (uint64_t)(bytes[i] < 0 ? -bytes[i] : bytes[i]));
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
            const struct stats_interval *iv = &r->decision.functions[f].by_variant[shown_variant(r, f)];
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
            size_t v = shown_variant(r, f);
            const struct stats_interval *iv = &r->decision.functions[f].by_variant[v];
            int y = (int)f * row + 4;
            sb_adds(&sb, "<text x=\"4\" y=\"");
            sb_addf(&sb, "%d\">", y + 14);
            add_html_text(&sb, fn->display_name);
            if (select_name_ambiguous(r, f)) sb_adds(&sb, " [name not unique]");
            const char *unknown = select_speedup_unknown(iv);
            if (unknown) {
                /* no bar: there is no ratio to draw */
                sb_addf(&sb, "</text><text x=\"%d\" y=\"%d\" fill=\"#888\">%s", left + 4, y + 13,
                        baseline_unsampled(r, f) ? "not sampled" : unknown);
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
            int64_t bytes = bytes_in(r, f, fn->in_patch && bytes_in(r, f, r->n_variants) >= 0 ? r->n_variants : v);
            if (bytes >= 0) {
                sb_adds(&sb, ", +");
                add_bytes(&sb, (uint64_t)bytes);
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
    add_html_text(&sb, md);
    sb_adds(&sb, "</pre>\n</body></html>\n");
    free(md);
    return sb_detach(&sb);
}

/* The summary folds the cold and the too-few-samples functions into one
 * line (a real project has dozens; report.md keeps them all). Functions
 * with a note (held back, ambiguous name) are always shown. */
static int summary_folded(const struct select_report *r, size_t f)
{
    if (r->static_mode || !r->decision.functions || r->functions[f].in_patch || r->functions[f].note) return 0;
    enum decision_reason why = r->decision.functions[f].reason;
    return why == DECISION_COLD || why == DECISION_FEW_SAMPLES;
}

char *select_report_summary(const struct select_report *r)
{
    struct strbuf sb = STRBUF_INIT;
    if (r->static_mode) sb_adds(&sb, "static selection: nothing was timed\n");
    size_t n_cold = 0, n_few = 0;
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct select_function *fn = &r->functions[f];
        if (summary_folded(r, f)) {
            if (r->decision.functions[f].reason == DECISION_COLD) n_cold++;
            else n_few++;
            continue;
        }
        sb_addf(&sb, "  %-3s %-24s ", fn->in_patch ? "yes" : "no", fn->display_name);
        if (!r->static_mode) {
            const struct decision_function *d = &r->decision.functions[f];
            if (baseline_unsampled(r, f)) sb_adds(&sb, "not sampled  ");
            else sb_addf(&sb, "%5.1f%%  ", d->share * 100);
            if (fn->in_patch) {
                add_speedup(&sb, &d->by_variant[fn->set]);
                sb_addf(&sb, " with %s", r->variants[fn->set].name);
            } else {
                sb_adds(&sb, function_verdict(r, f));
            }
        } else {
            sb_adds(&sb, function_verdict(r, f));
        }
        if (bytes_in(r, f, shown_variant(r, f)) >= 0 || bytes_in(r, f, r->n_variants) >= 0) {
            sb_adds(&sb, "; bytes added: ");
            add_function_bytes(&sb, r, f);
        }
        add_name_flag(&sb, r, f);
        sb_adds(&sb, "\n");
    }
    if (n_cold || n_few) {
        sb_addf(&sb, "  and %zu more:", n_cold + n_few);
        if (n_cold) sb_addf(&sb, " %zu cold (below %.1f%% of the run)", n_cold, r->min_share * 100);
        if (n_few) sb_addf(&sb, "%s %zu too few samples", n_cold ? "," : "", n_few);
        sb_adds(&sb, " - report.md lists every candidate\n");
    }
    size_t n_shared = 0;
    for (size_t f = 0; f < r->n_functions; f++) n_shared += select_name_ambiguous(r, f);
    if (n_shared) {
        sb_addf(&sb, "names not unique (%zu candidates; the profile credits each with the samples of all, so none is "
                     "selected on them):", n_shared);
        for (size_t f = 0; f < r->n_functions; f++)
            if (first_of_shared_name(r, f, 0)) sb_addf(&sb, " %s (%zu)", r->functions[f].name, select_name_count(r, f));
        sb_adds(&sb, "\n");
    }
    add_noise(&sb, r, "noise: ", "\n");
    select_report_statistics_summary(&sb, r);
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->timed) continue;
        sb_addf(&sb, "end to end, '%s': ", wr->command);
        add_speedup(&sb, &wr->e2e);
        sb_adds(&sb, " vs baseline");
        if (wr->e2e_cpu.valid) {
            sb_adds(&sb, " (CPU time ");
            add_speedup(&sb, &wr->e2e_cpu);
            sb_adds(&sb, wr->cpu_decides ? ", which decides: a busy machine)" : ")");
        }
        if (wr->march_timed) {
            sb_adds(&sb, "; -march=x86-64-v3 build ");
            add_speedup(&sb, &wr->march_e2e);
            sb_adds(&sb, ", selected vs it ");
            add_speedup(&sb, &wr->selected_vs_march);
        }
        sb_adds(&sb, "\n");
    }
    select_report_references_summary(&sb, r);
    if (r->n_variants && r->variants[0].code.measured) {
        sb_adds(&sb, "code growth:");
        if (r->selected_code.measured) {
            sb_adds(&sb, " selected ");
            add_growth(&sb, r, &r->selected_code);
            sb_adds(&sb, ";");
        }
        sb_adds(&sb, " all candidates");
        for (size_t v = 1; v < r->n_variants; v++) {
            if (!r->variants[v].code.measured) continue;
            sb_addf(&sb, " %s ", r->variants[v].name);
            add_growth(&sb, r, &r->variants[v].code);
        }
        if (r->march.code.measured && !r->march.failure) {
            sb_adds(&sb, "; -march=x86-64-v3 build beside the baseline (hwcaps) +");
            add_bytes(&sb, r->march.code.code_bytes);
            sb_adds(&sb, " bytes");
        }
        sb_adds(&sb, "\n");
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
        free(fn->kind);
        free(fn->evidence);
        free(fn->note);
        free(fn->outlined);
        sv_free(&fn->helpers);
        if (fn->ran)
            for (size_t v = 0; v < r->n_variants; v++) free(fn->ran[v]);
        free(fn->ran);
        free(fn->bytes_added);
        free(fn->same_code);
    }
    free(r->functions);
    decision_free(&r->decision);
    for (size_t w = 0; w < r->n_workloads; w++) {
        free(r->workloads[w].command);
        free(r->workloads[w].failure);
        free(r->workloads[w].march_failure);
        free(r->workloads[w].nofma_failure);
    }
    free(r->workloads);
    free(r->patch_targets);
    select_march_free(&r->march);
    select_march_free(&r->march_nofma);
    sv_free(&r->notes);
    memset(r, 0, sizeof *r);
}
