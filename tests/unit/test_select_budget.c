/* Unit tests of select/budget.h's budget_apply on a hand-made report: the
 * limit from the v3 reference's code (else the baseline's), the fixed part
 * from the CPU-detection code of the files holding the clones (else the
 * all-candidates residue), the dropped function's reason, note and the
 * report's note naming it; a function the confirmation selected ranked by
 * its fresh runs' gain, not the first's; a function dropped at its set kept
 * with a cheaper set it also qualified for, or dropped with it, the note
 * saying which, its summary line showing that set; each workload's best
 * function fitted first (libsamplerate's sinc_hex kept over linear), its
 * notes; placement pins only within the room the fit leaves, each at its
 * worst case (63 + K bytes) in each linked compile of the pinned function,
 * and in the prediction the writers state. The fit rule alone:
 * test_select_budget_fit.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/budget.h"
#include "select/decision.h"
#include "select/decision_confirm.h"
#include "select/report.h"
#include "select/result.h"
#include "util/util.h"

#define NF 2
#define NR 2
static double samples[2 * NF * NR] = {40, 40, 10, 10, /* baseline: f0, f1 */ 0, 0, 5, 5 /* the set */};
static double totals[2 * NR] = {100, 100, 55, 55};

static void hand_made(struct select_report *r, struct decision_input *in, uint64_t march_bytes, int64_t cpu_detect)
{
    memset(r, 0, sizeof *r);
    r->n_variants = 2;
    r->variants = xcalloc(2, sizeof *r->variants);
    r->variants[0].name = xstrdup("baseline");
    r->variants[1].name = xstrdup("fma-free");
    r->variants[0].targets = xstrdup("");
    r->variants[1].targets = xstrdup("arch=x86-64-v3");
    r->variants[0].code = (struct select_code){.measured = 1, .code_bytes = 40000};
    r->variants[1].code = (struct select_code){.measured = 1, .code_bytes = 40000 + 4000 + 500};
    if (march_bytes) r->march.code = (struct select_code){.measured = 1, .code_bytes = march_bytes};
    r->n_functions = NF;
    r->functions = xcalloc(NF, sizeof *r->functions);
    const char *names[] = {"hot_a", "warm_b"};
    int64_t added[] = {3000, 1000};
    r->decision.n_functions = NF;
    r->decision.functions = xcalloc(NF, sizeof *r->decision.functions);
    for (size_t f = 0; f < NF; f++) {
        r->functions[f].name = xstrdup(names[f]);
        r->functions[f].display_name = xstrdup(names[f]);
        r->functions[f].file = xstrdup("k.c");
        r->functions[f].bytes_added = xcalloc(3, sizeof(int64_t));
        r->functions[f].bytes_added[0] = -1;
        r->functions[f].bytes_added[1] = added[f];
        r->functions[f].bytes_added[2] = -1;
        if (cpu_detect) {
            /* hot_a in the library, warm_b in the library and a program */
            r->functions[f].clone_files = xcalloc(3, sizeof *r->functions[f].clone_files);
            struct select_clone_files *cf = &r->functions[f].clone_files[1];
            cf->n = f + 1;
            cf->files = xcalloc(cf->n, sizeof *cf->files);
            cf->files[0] = (struct select_clone_file){xstrdup("lib/libk.so"), cpu_detect, NULL, 0};
            if (f) cf->files[1] = (struct select_clone_file){xstrdup("prog"), cpu_detect, NULL, 0};
        }
        r->decision.functions[f].chosen = 1;
        r->decision.functions[f].reason = DECISION_SELECTED;
        r->decision.functions[f].by_variant = xcalloc(2, sizeof(struct stats_interval));
    }
    *in = (struct decision_input){.n_functions = NF, .n_workloads = 1, .n_variants = 2, .n_runs = NR,
                                  .functions = names, .samples = samples, .totals = totals};
}

static void free_hand_made(struct select_report *r)
{
    for (size_t f = 0; f < r->n_functions; f++) {
        free(r->functions[f].name);
        free(r->functions[f].display_name);
        free(r->functions[f].file);
        free(r->functions[f].note);
        free(r->functions[f].bytes_added);
        if (r->functions[f].clone_files)
            for (size_t v = 0; v <= r->n_variants; v++) {
                for (size_t i = 0; i < r->functions[f].clone_files[v].n; i++) {
                    free(r->functions[f].clone_files[v].files[i].path);
                    free(r->functions[f].clone_files[v].files[i].unit);
                }
                free(r->functions[f].clone_files[v].files);
            }
        free(r->functions[f].clone_files);
    }
    free(r->functions);
    for (size_t f = 0; f < r->decision.n_functions; f++) free(r->decision.functions[f].by_variant);
    free(r->decision.functions);
    for (size_t v = 0; v < r->n_variants; v++) {
        free(r->variants[v].name);
        free(r->variants[v].targets);
    }
    free(r->variants);
    sv_free(&r->notes);
}

static void test_apply_drops_and_says(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    /* the v3 reference: 38000 bytes, 10% = 3800; the fixed part: 4500 -
     * 4000 = 500; both selected: 4500 > 3800; warm_b has the least gain per
     * byte (5% / 1000 B vs 40% / 3000 B) */
    hand_made(&r, &in, 38000, 0);
    budget_apply(&r, &in, 10);
    assert_true(r.budget.applied);
    assert_true(r.budget.whole_bytes == 38000);
    assert_non_null(strstr(r.budget.whole_what, "x86-64-v3"));
    assert_true(r.budget.limit == 3800);
    assert_true(r.budget.overhead == 500);
    assert_true(r.budget.before == 4500 && r.budget.after == 3500);
    assert_int_equal(r.budget.n_dropped, 1);
    assert_int_equal(r.decision.functions[0].chosen, 1);
    assert_int_equal(r.decision.functions[0].reason, DECISION_SELECTED);
    assert_null(r.functions[0].note);
    assert_int_equal(r.decision.functions[1].chosen, -1);
    assert_int_equal(r.decision.functions[1].reason, DECISION_CODE_BUDGET);
    assert_string_equal(decision_reason_code(DECISION_CODE_BUDGET), "code-budget");
    assert_non_null(r.functions[1].note);
    assert_non_null(strstr(r.functions[1].note, "code-growth budget"));
    assert_non_null(strstr(r.functions[1].note, "1000 bytes"));
    assert_non_null(strstr(r.functions[1].note, "5.00%"));
    assert_int_equal(r.notes.n, 1);
    assert_non_null(strstr(r.notes.v[0], "warm_b (1000 bytes"));
    assert_non_null(strstr(r.notes.v[0], "3800 bytes"));
    /* the measured selected build above the limit is said too */
    r.selected_code = (struct select_code){.measured = 1, .code_bytes = 40000 + 3900, .clone_bytes = 2950,
                                           .resolver_bytes = 50, .cpu_detect_bytes = 500};
    budget_check_measured(&r);
    assert_int_equal(r.notes.n, 2);
    assert_non_null(strstr(r.notes.v[1], "exceeded"));
    /* the writers say it: the summary's budget line, the dropped function's
     * verdict and reason code in report.json */
    char *summary = select_report_summary(&r);
    assert_non_null(strstr(summary, "code-growth budget: 3800 bytes, 10% of a second whole build"));
    /* the fit's limit is said whether or not the fit dropped anything, and
     * the growth's share with two decimals (10.0% would read as within) */
    assert_non_null(strstr(summary, "38000 bytes), of which the fit uses 3724 (the rest is kept for code the "
                                    "prediction cannot see)"));
    assert_non_null(strstr(summary, "adds 3900 bytes (10.26% of the second whole build): ABOVE the budget"));
    assert_non_null(strstr(summary, "(percentages of the baseline's code)\n"));
    /* what the measured growth is made of */
    assert_non_null(strstr(summary, "(clones and resolvers with their padding and PLT entries 3000, the runtime's CPU detection 500, other 400)"));
    assert_non_null(strstr(summary, "dropped for the code-growth budget"));
    free(summary);
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "The budget: 3800 bytes"));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *b = json_object_get(json_object_get(j, "code_size"), "budget");
    assert_true(json_is_object(b));
    assert_int_equal(json_integer_value(json_object_get(b, "limit_bytes")), 3800);
    assert_int_equal(json_integer_value(json_object_get(b, "fit_limit_bytes")), 3724);
    assert_int_equal(json_integer_value(json_object_get(b, "dropped")), 1);
    assert_true(json_is_false(json_object_get(b, "within")));
    json_t *parts = json_object_get(b, "selected_growth_parts");
    assert_int_equal(json_integer_value(json_object_get(parts, "clones_and_resolvers")), 3000);
    assert_int_equal(json_integer_value(json_object_get(parts, "cpu_detection")), 500);
    assert_int_equal(json_integer_value(json_object_get(parts, "other")), 400);
    json_t *fns = json_object_get(j, "functions");
    int found = 0;
    for (size_t i = 0; i < json_array_size(fns); i++) {
        json_t *fj = json_array_get(fns, i);
        const char *name = json_string_value(json_object_get(fj, "name"));
        if (name && !strcmp(name, "warm_b")) {
            found = 1;
            assert_string_equal(json_string_value(json_object_get(fj, "reason")), "code-budget");
        }
    }
    assert_true(found);
    json_decref(j);
    free_hand_made(&r);

    /* no reference: the baseline's code is the second whole build (40000);
     * a wider budget keeps both */
    hand_made(&r, &in, 0, 0);
    budget_apply(&r, &in, 20);
    assert_true(r.budget.whole_bytes == 40000 && r.budget.limit == 8000);
    assert_int_equal(r.budget.n_dropped, 0);
    assert_int_equal(r.decision.functions[1].chosen, 1);
    assert_int_equal(r.notes.n, 0);
    r.selected_code = (struct select_code){.measured = 1, .code_bytes = 40000 + 4500};
    budget_check_measured(&r);
    assert_int_equal(r.notes.n, 0);
    free_hand_made(&r);

    /* the CPU detection known per file: 200 B in the library, 200 B in the
     * program, against the residue of 500; both: 4000 + 400 = 4400 > 3800;
     * warm_b alone brings the program's part: dropping it saves 1200 */
    hand_made(&r, &in, 38000, 200);
    budget_apply(&r, &in, 10);
    assert_true(r.budget.overhead == 400);
    assert_int_equal(r.budget.n_fixed_files, 2);
    assert_false(r.budget.fixed_residue);
    assert_true(r.budget.before == 4400 && r.budget.after == 3200);
    assert_int_equal(r.budget.n_dropped, 1);
    assert_int_equal(r.decision.functions[1].chosen, -1);
    assert_non_null(strstr(r.notes.v[0], "CPU detection linked into 2 files"));
    free_hand_made(&r);
    /* a file that cannot tell (stripped): the residue stands for it */
    hand_made(&r, &in, 38000, -1);
    budget_apply(&r, &in, 10);
    assert_true(r.budget.overhead == 500);
    assert_true(r.budget.fixed_residue);
    assert_int_equal(r.budget.n_fixed_files, 0);
    assert_non_null(strstr(r.notes.v[0], "an overestimate"));
    free_hand_made(&r);

    /* no budget */
    hand_made(&r, &in, 38000, 0);
    budget_apply(&r, &in, -1);
    assert_false(r.budget.applied);
    assert_int_equal(r.decision.functions[1].chosen, 1);
    free_hand_made(&r);
}

/* A function the confirmation selected is ranked by its fresh runs' gain:
 * hot_a's first stage says 3x (40 -> 13.3 samples of 100: 26.7% saved, 3000
 * bytes), warm_b's 2x (10 -> 5: 5%, 1000 bytes). By the first stage warm_b
 * has the least gain per byte; hot_a's fresh runs say 1.1x (40 -> 36.4:
 * 3.6%), which puts hot_a below it, in gain per byte and in gain: hot_a is dropped, its note says 3.64%. */
/* What a dropped function would add alone, and the --max-growth that
 * leaves room for it: said only where it does not fit even alone (else
 * the others took the room, and the note on the selection names the
 * --max-growth keeping them all). */
static void test_apply_alone(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    /* 10%: warm_b (1000 B + the residue 500) fits alone; both do not */
    hand_made(&r, &in, 38000, 0);
    budget_apply(&r, &in, 10);
    assert_int_equal(r.decision.functions[1].reason, DECISION_CODE_BUDGET);
    assert_true(r.decision.functions[1].budget_alone == 1500);
    assert_int_equal(r.decision.functions[1].budget_needs_growth, 5);   /* 1500 / (38000 * 0.98) = 4.03% */
    assert_null(strstr(r.functions[1].note, "even alone"));
    assert_int_equal(r.notes.n, 1);
    /* 4500 / 37240 = 12.08% */
    assert_non_null(strstr(r.notes.v[0], "; --max-growth 13 would keep them all"));
    json_t *j = select_report_json(&r);
    json_t *fns = json_object_get(j, "functions");
    for (size_t i = 0; i < json_array_size(fns); i++) {
        json_t *fj = json_array_get(fns, i);
        int warm = !strcmp(json_string_value(json_object_get(fj, "name")), "warm_b");
        if (warm) {
            assert_int_equal(json_integer_value(json_object_get(fj, "budget_alone_bytes")), 1500);
            assert_int_equal(json_integer_value(json_object_get(fj, "budget_max_growth_needed")), 5);
        } else {
            assert_true(json_is_null(json_object_get(fj, "budget_alone_bytes")));
            assert_true(json_is_null(json_object_get(fj, "budget_max_growth_needed")));
        }
    }
    json_decref(j);
    free_hand_made(&r);

    /* 3%: limit 1140, the fit's 1117; neither fits even alone */
    hand_made(&r, &in, 38000, 0);
    budget_apply(&r, &in, 3);
    assert_int_equal(r.decision.functions[0].reason, DECISION_CODE_BUDGET);
    assert_int_equal(r.decision.functions[1].reason, DECISION_CODE_BUDGET);
    assert_true(r.decision.functions[0].budget_alone == 3500);
    assert_non_null(strstr(r.functions[0].note, "; even alone, with the fixed part it needs, it would add 3500 "
                                                "bytes, 9.2% of a second whole build, more than the fit's 1117: "
                                                "--max-growth 10 leaves room for it"));
    assert_non_null(strstr(r.functions[1].note, "it would add 1500 bytes, 3.9% of a second whole build, more than "
                                                "the fit's 1117: --max-growth 5 leaves room for it"));
    free_hand_made(&r);

    /* nothing known of the whole build's size: no figure */
    struct select_budget none = {0};
    assert_int_equal(budget_growth_for(&none, 1000), 0);
}

static void test_apply_confirmed_by_fresh_runs(void **state)
{
    (void)state;
    double first[2 * NF * NR] = {40, 40, 10, 10, 40.0 / 3, 40.0 / 3, 5, 5};
    double again[2 * NF * NR] = {40, 40, 10, 10, 40.0 / 1.1, 40.0 / 1.1, 5, 5};
    struct select_report r;
    struct decision_input in, fresh;
    for (int confirmed = 0; confirmed < 2; confirmed++) {
        hand_made(&r, &in, 38000, 0);
        in.samples = first;
        fresh = in;
        fresh.samples = again;
        struct decision *d = &r.decision;
        d->n_variants = 2;
        d->n_workloads = 1;
        struct decision_function *df = &d->functions[0];
        stats_welch(first, NR, first + 2 * NR, NR, &df->by_variant[1]);
        assert_true(fabs(df->by_variant[1].speedup - 3.0) < 1e-9);
        if (confirmed) {
            df->reason = DECISION_CONFIRMED;
            df->confirmed = 1;
            df->held = xcalloc(2, sizeof *df->held);
            df->held[1] = 1;
            df->confirm = xcalloc(2, sizeof *df->confirm);
            df->confirm_holm = xcalloc(2, sizeof *df->confirm_holm);
            df->confirm_holm[1] = 1;
            double noisy_base[NR] = {40, 40.4}, noisy_var[NR] = {40.0 / 1.1, 40.4 / 1.1};
            stats_welch(noisy_base, NR, noisy_var, NR, &df->confirm[1]);
            assert_true(fabs(df->confirm[1].speedup - 1.1) < 1e-9);
            df->confirm_saved = xcalloc(2, sizeof *df->confirm_saved);
            df->confirm_saved[1] = decision_saved_share(&fresh, 0, 0, 1);
            assert_true(fabs(decision_estimate_saved(d, &in, 0, 0, 1) - (40 - 40.0 / 1.1) / 100) < 1e-12);
        }
        assert_true(fabs(decision_estimate_saved(d, &in, 0, 1, 1) - 0.05) < 1e-12);
        budget_apply(&r, &in, 10);
        assert_int_equal(r.budget.n_dropped, 1);
        size_t gone = confirmed ? 0 : 1, kept = confirmed ? 1 : 0;
        assert_int_equal(d->functions[gone].reason, DECISION_CODE_BUDGET);
        assert_int_equal(d->functions[gone].chosen, -1);
        assert_int_equal(d->functions[kept].chosen, 1);
        assert_non_null(strstr(r.functions[gone].note, confirmed ? "for 3.64% of" : "for 5.00% of"));
        assert_non_null(strstr(r.notes.v[0], confirmed ? "hot_a (3000 bytes, 3.64% saved)" : "warm_b (1000 bytes"));
        if (confirmed) {
            /* dropped after the confirmation: its figure stays the fresh one */
            assert_true(fabs(decision_estimate(d, 0, 1)->speedup - 1.1) < 1e-9);
            free(df->held);
            free(df->confirm);
            free(df->confirm_holm);
            free(df->confirm_saved);
        }
        free_hand_made(&r);
    }
}

/* Sets function f's clone files in the set (variant 1) of a hand-made
 * report: n of them, each (path, bytes, unit or NULL). */
static void clone_files_of(struct select_report *r, size_t f, size_t n, const struct select_clone_file *files)
{
    struct select_clone_files *cf = &r->functions[f].clone_files[1];
    for (size_t i = 0; i < cf->n; i++) {
        free(cf->files[i].path);
        free(cf->files[i].unit);
    }
    free(cf->files);
    cf->n = n;
    cf->files = xcalloc(n, sizeof *cf->files);
    for (size_t i = 0; i < n; i++)
        cf->files[i] = (struct select_clone_file){xstrdup(files[i].path), files[i].cpu_detect,
                                                  files[i].unit ? xstrdup(files[i].unit) : NULL, files[i].run_padding};
}

/* --dispatch cpuid: each linked file's one fmvgen_cpu_levels (the unit
 * ELF_CPUID_LINKED_UNIT) is a fixed part of its own, counted once however
 * many selected functions and object files it serves (an older fmvgen's,
 * one per object file, likewise per object file); the runtime's CPU
 * detection only counts for a function whose clones a compiler resolver
 * reaches there (an IFUNC fallback). */
static void test_apply_cpuid_units(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    /* hot_a and warm_b share the library's k.c#0 (120 B of CPU check);
     * warm_b is an IFUNC fallback in prog too (4600 B of libgcc's): both
     * selected 3000 + 1000 + 120 + 4600 = 8720 > 3800; dropping warm_b saves
     * its 1000 and the 4600 only it needs, not the shared 120 */
    hand_made(&r, &in, 38000, 1);
    clone_files_of(&r, 0, 2, (struct select_clone_file[]){{"lib/libk.so", 0, "k.c#0", 0}, {"lib/libk.so", 120, "*", 0}});
    clone_files_of(&r, 1, 3, (struct select_clone_file[]){{"lib/libk.so", 0, "k.c#0", 0}, {"lib/libk.so", 120, "*", 0},
                                                           {"prog", 4600, NULL, 0}});
    budget_apply(&r, &in, 10);
    assert_true(r.budget.overhead == 4720);
    assert_int_equal(r.budget.n_fixed_levels, 1);
    assert_int_equal(r.budget.n_fixed_units, 0);   /* k.c#0 adds nothing of its own */
    assert_int_equal(r.budget.n_fixed_files, 1);
    assert_false(r.budget.fixed_residue);
    assert_true(r.budget.before == 8720 && r.budget.after == 3120);
    assert_int_equal(r.budget.n_dropped, 1);
    assert_int_equal(r.decision.functions[0].chosen, 1);
    assert_int_equal(r.decision.functions[1].chosen, -1);
    assert_non_null(strstr(r.notes.v[0], "fmvgen's CPU check (fmvgen_cpu_levels) once in each of 1 linked file with "
                                         "cpuid-dispatched copies; the compiler runtime's CPU detection linked "
                                         "into 1 file"));
    json_t *j = select_report_json(&r);
    json_t *b = json_object_get(json_object_get(j, "code_size"), "budget");
    assert_int_equal(json_integer_value(json_object_get(b, "fixed_levels_files")), 1);
    assert_int_equal(json_integer_value(json_object_get(b, "fixed_units")), 0);
    assert_int_equal(json_integer_value(json_object_get(b, "fixed_files")), 1);
    json_decref(j);
    free_hand_made(&r);

    /* all cpuid: warm_b's copies in two object files of prog named alike
     * (k.c#0, k.c#1) share prog's fmvgen_cpu_levels: 4000 + 2 x 120 = 4240
     * > 4000 (a 10% limit of 40000, the baseline's); dropping warm_b saves
     * 1000 + prog's 120 */
    hand_made(&r, &in, 0, 1);
    clone_files_of(&r, 0, 2, (struct select_clone_file[]){{"lib/libk.so", 0, "k.c#0", 0}, {"lib/libk.so", 120, "*", 0}});
    clone_files_of(&r, 1, 3, (struct select_clone_file[]){{"prog", 0, "k.c#0", 0}, {"prog", 0, "k.c#1", 0},
                                                           {"prog", 120, "*", 0}});
    budget_apply(&r, &in, 10);
    assert_true(r.budget.overhead == 240);
    assert_int_equal(r.budget.n_fixed_levels, 2);
    assert_int_equal(r.budget.n_fixed_units, 0);
    assert_true(r.budget.before == 4240 && r.budget.after == 3120);
    assert_int_equal(r.decision.functions[1].chosen, -1);
    free_hand_made(&r);

    /* an older fmvgen's static fmvgen_cpu_levels, one per object file:
     * each its own part; 4000 + 3 x 120 = 4360 > 4000; dropping warm_b saves
     * 1000 + 240 */
    hand_made(&r, &in, 0, 1);
    clone_files_of(&r, 0, 1, (struct select_clone_file[]){{"lib/libk.so", 120, "k.c#0", 0}});
    clone_files_of(&r, 1, 2, (struct select_clone_file[]){{"prog", 120, "k.c#0", 0}, {"prog", 120, "k.c#1", 0}});
    budget_apply(&r, &in, 10);
    assert_true(r.budget.overhead == 360);
    assert_int_equal(r.budget.n_fixed_units, 3);
    assert_int_equal(r.budget.n_fixed_levels, 0);
    assert_int_equal(r.budget.n_fixed_files, 0);
    assert_non_null(strstr(r.notes.v[0], "fmvgen's code of 3 object files with cpuid-dispatched copies (an older "
                                         "fmvgen's fmvgen_cpu_levels in each, or the padding before their run at "
                                         "the end of .text)"));
    assert_true(r.budget.before == 4360 && r.budget.after == 3120);
    assert_int_equal(r.decision.functions[1].chosen, -1);
    free_hand_made(&r);
    /* within 11%: both kept, each part once */
    hand_made(&r, &in, 0, 1);
    clone_files_of(&r, 0, 1, (struct select_clone_file[]){{"lib/libk.so", 120, "k.c#0", 0}});
    clone_files_of(&r, 1, 2, (struct select_clone_file[]){{"lib/libk.so", 120, "k.c#0", 0}, {"prog", 120, "k.c#0", 0}});
    budget_apply(&r, &in, 11);
    assert_int_equal(r.budget.n_dropped, 0);
    assert_true(r.budget.overhead == 240 && r.budget.after == 4240);
    /* the measured growth's split names fmvgen's part of the CPU detection */
    r.selected_code = (struct select_code){.measured = 1, .code_bytes = 40000 + 4300, .clone_bytes = 3800,
                                           .resolver_bytes = 200, .cpu_detect_bytes = 240, .cpu_levels_bytes = 240};
    char *summary = select_report_summary(&r);
    assert_non_null(strstr(summary, "(clones and resolvers with their padding and PLT entries 4000, CPU detection 240 (fmvgen's CPU check 240, the "
                                    "runtime's 0), other 60)"));
    free(summary);
    j = select_report_json(&r);
    json_t *parts = json_object_get(json_object_get(json_object_get(j, "code_size"), "budget"), "selected_growth_parts");
    assert_int_equal(json_integer_value(json_object_get(parts, "cpu_detection")), 240);
    assert_int_equal(json_integer_value(json_object_get(parts, "cpu_detection_fmvgen")), 240);
    json_decref(j);
    free_hand_made(&r);
}

/* A function the fit drops is kept with a cheaper set it also qualified
 * for. Three arms: baseline, fma-levels (v3 + v4 copies), fma-free (one
 * copy). hot_a: fma-levels saves 30% with 3000 bytes, fma-free 20% with
 * 1400 (both qualify; the timings chose fma-levels); warm_b: fma-free, 5%,
 * 1000 bytes. No fixed part (the variants' growth is their clones). */
#define NV3 3
static double samples3[NV3 * NF * NR] = {40, 40, 10, 10, /* baseline */ 10, 10, 10, 10, /* fma-levels */
                                         20, 20, 5, 5 /* fma-free */};
static double totals3[NV3 * NR] = {100, 100, 70, 70, 75, 75};

static void three_arms(struct select_report *r, struct decision_input *in, uint64_t march_bytes, int hot_a_free)
{
    memset(r, 0, sizeof *r);
    r->n_variants = NV3;
    r->variants = xcalloc(NV3, sizeof *r->variants);
    const char *vn[NV3] = {"baseline", "fma-levels", "fma-free"}, *vt[NV3] = {"", "arch=x86-64-v3,arch=x86-64-v4", "avx2"};
    for (size_t v = 0; v < NV3; v++) {
        r->variants[v].name = xstrdup(vn[v]);
        r->variants[v].targets = xstrdup(vt[v]);
    }
    r->variants[0].code = (struct select_code){.measured = 1, .code_bytes = 40000};
    r->variants[1].code = (struct select_code){.measured = 1, .code_bytes = 40000 + 3000 + 1000};
    r->variants[2].code = (struct select_code){.measured = 1, .code_bytes = 40000 + 1400 + 1000};
    r->march.code = (struct select_code){.measured = 1, .code_bytes = march_bytes};
    r->n_functions = NF;
    r->functions = xcalloc(NF, sizeof *r->functions);
    const char *names[] = {"hot_a", "warm_b"};
    int64_t added[NF][NV3] = {{-1, 3000, 1400}, {-1, 1000, 1000}};
    struct decision *d = &r->decision;
    d->n_functions = NF;
    d->n_variants = NV3;
    d->n_workloads = 1;
    d->functions = xcalloc(NF, sizeof *d->functions);
    for (size_t f = 0; f < NF; f++) {
        r->functions[f].name = xstrdup(names[f]);
        r->functions[f].display_name = xstrdup(names[f]);
        r->functions[f].file = xstrdup("k.c");
        r->functions[f].bytes_added = xcalloc(NV3 + 1, sizeof(int64_t));
        for (size_t v = 0; v < NV3; v++) r->functions[f].bytes_added[v] = added[f][v];
        r->functions[f].bytes_added[NV3] = -1;
        struct decision_function *df = &d->functions[f];
        df->chosen = df->fastest = f ? 2 : 1;
        df->reason = DECISION_SELECTED;
        df->by_variant = xcalloc(NV3, sizeof(struct stats_interval));
        df->qualifies = xcalloc(NV3, sizeof *df->qualifies);
        df->qualifies[2] = 1;
        df->qualifies[1] = !f;
        for (size_t v = 1; v < NV3; v++) {
            const double *base = samples3 + f * NR, *var = samples3 + (v * NF + f) * NR;
            stats_welch(base, NR, var, NR, &df->by_variant[v]);
        }
    }
    d->functions[0].qualifies[2] = hot_a_free;
    *in = (struct decision_input){.n_functions = NF, .n_workloads = 1, .n_variants = NV3, .n_runs = NR,
                                  .functions = names, .samples = samples3, .totals = totals3};
}

static void free_three_arms(struct select_report *r)
{
    for (size_t f = 0; f < r->n_functions; f++) {
        free(r->decision.functions[f].qualifies);
        r->decision.functions[f].qualifies = NULL;
    }
    free_hand_made(r);
}

static void test_apply_cheaper_set(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    /* limit 2500: hot_a's fma-levels clones (3000) never fit; with its
     * fma-free clones both fit (2400) */
    three_arms(&r, &in, 25000, 1);
    assert_true(fabs(decision_estimate_saved(&r.decision, &in, 0, 0, 1) - 0.30) < 1e-12);
    assert_int_equal(budget_cheaper_set(&r, &in, 0), 2);
    assert_int_equal(budget_cheaper_set(&r, &in, 1), -1);
    budget_apply(&r, &in, 10);
    struct decision_function *a = &r.decision.functions[0], *b = &r.decision.functions[1];
    assert_int_equal(r.budget.n_dropped, 0);
    assert_int_equal(r.budget.n_cheaper, 1);
    assert_true(r.budget.before == 4000 && r.budget.after == 2400);
    assert_int_equal(a->chosen, 2);
    assert_int_equal(a->budget_from, 1);
    assert_int_equal(a->reason, DECISION_SELECTED);
    assert_int_equal(b->chosen, 2);
    assert_int_equal(b->budget_from, 0);
    assert_non_null(strstr(r.functions[0].note, "kept with its fma-free clones (1400 bytes) for the code-growth "
                                                "budget, which has no room for its fma-levels clones (3000 bytes, 4.00x"));
    assert_non_null(strstr(r.functions[0].note, "fma-free made it significantly faster too: 2.00x"));
    assert_null(r.functions[1].note);
    assert_int_equal(r.notes.n, 1);
    assert_non_null(strstr(r.notes.v[0], "hot_a (fma-free, 1400 bytes, instead of fma-levels, 3000 bytes; 2.00x [2.00, "
                                         "2.00] instead of 4.00x [4.00, 4.00])"));
    /* not reported as "the smaller set's interval overlaps" */
    char *md = select_report_markdown(&r);
    assert_null(strstr(md, "faster-looking"));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *bj = json_object_get(json_object_get(j, "code_size"), "budget");
    assert_int_equal(json_integer_value(json_object_get(bj, "kept_with_cheaper_set")), 1);
    assert_int_equal(json_array_size(json_object_get(json_object_get(j, "statistics"), "smaller_code_preferred")), 0);
    json_decref(j);
    free_three_arms(&r);

    /* limit 1200: hot_a's fma-free clones (1400) alone are above it:
     * hot_a is dropped with its cheaper set, and its note says the faster
     * set fit even less; warm_b stays */
    three_arms(&r, &in, 12000, 1);
    budget_apply(&r, &in, 10);
    assert_int_equal(r.budget.n_dropped, 1);
    assert_int_equal(r.budget.n_cheaper, 0);
    assert_int_equal(r.decision.functions[0].chosen, -1);
    assert_int_equal(r.decision.functions[0].reason, DECISION_CODE_BUDGET);
    assert_int_equal(r.decision.functions[1].chosen, 2);
    assert_non_null(strstr(r.functions[0].note, "its fma-free clones add 1400 bytes"));
    assert_non_null(strstr(r.functions[0].note, "; its faster fma-levels clones (3000 bytes) fit even less"));
    assert_true(r.budget.before == 4000 && r.budget.after == 1000);
    /* its line shows the set the budget dropped it with (the note's), not
     * the faster-looking fma-levels */
    assert_int_equal(r.decision.functions[0].budget_dropped, 2);
    assert_int_equal(select_shown_variant(&r, 0), 2);
    char *sum = select_report_summary(&r);
    const char *line = strstr(sum, "hot_a");
    assert_non_null(line);
    assert_non_null(strstr(line, " with fma-free"));
    assert_null(strstr(line, "(measured: 4.00x"));
    free(sum);
    free_three_arms(&r);

    /* fma-free did not qualify for hot_a: it is dropped, as before */
    three_arms(&r, &in, 25000, 0);
    assert_int_equal(budget_cheaper_set(&r, &in, 0), -1);
    budget_apply(&r, &in, 10);
    assert_int_equal(r.budget.n_dropped, 1);
    assert_int_equal(r.decision.functions[0].chosen, -1);
    assert_int_equal(r.decision.functions[0].budget_from, 0);
    assert_null(strstr(r.functions[0].note, "fit even less"));
    assert_non_null(strstr(r.functions[0].note, "its fma-levels clones add 3000 bytes"));
    free_three_arms(&r);

    /* a member of the group of small gains keeps the group's set */
    three_arms(&r, &in, 25000, 1);
    r.decision.functions[0].reason = DECISION_SELECTED_TOGETHER;
    assert_int_equal(budget_cheaper_set(&r, &in, 0), -1);
    free_three_arms(&r);
}


/* speexdsp's case (o2-table-speexdsp-20261205.txt): the fit left 29 bytes
 * (limit 5709, predicted 5680) and the selected build's pins then added
 * 640 bytes: pins take only the room left, each at 63 + K bytes. */
/* libsamplerate (bench/results/heldout-libsamplerate-20261205.txt, the run
 * after d3a3dc2): five workloads, one converter each, each with one hot
 * function: S (sinc_stereo, W1), M (sinc_mono, W2), H (sinc_hex, W3), Z
 * (zoh, W4), L (linear, W5); 193 B of fmvgen_cpu_levels per object file
 * (S, M and H share src_sinc.c's); 8022 B allowed. Every workload's best
 * together (11,521 B) does not fit. By gain per byte the anchors keep S, M
 * and H (6,864 B); L saves 0.03% more on the mean than H but its interval's
 * low end (1.06x [1.01, 1.12]) saves far less than H's estimate, so H is
 * not traded for it. The old fit (no per-workload data) traded H for L on
 * those 0.03% - W3 left with nothing. */
static void test_apply_each_workload_best_first(void **state)
{
    (void)state;
    enum { F = 3, W = 2, V = 2, R = 2 };
    static const double smp[W * V * F * R] = {
        30, 30, 12, 12, 0, 0, /* W1 baseline: big, other, small */ 0, 0, 0, 0, 0, 0, /* W1 set */
        0, 0, 0, 0, 4, 4, /* W2 baseline */ 0, 0, 0, 0, 0, 0 /* W2 set */};
    static const double tot[W * V * R] = {100, 100, 58, 58, 100, 100, 96, 96};
    const char *names[F] = {"big", "other", "small"};
    int64_t added[F] = {2000, 1000, 1000};
    for (int round = 0; round < 2; round++) {
        struct select_report r;
        memset(&r, 0, sizeof r);
        r.n_variants = V;
        r.variants = xcalloc(V, sizeof *r.variants);
        r.variants[0].name = xstrdup("baseline");
        r.variants[1].name = xstrdup("fma-free");
        r.variants[0].targets = xstrdup("");
        r.variants[1].targets = xstrdup("arch=x86-64-v3");
        r.variants[0].code = (struct select_code){.measured = 1, .code_bytes = 30000};
        r.variants[1].code = (struct select_code){.measured = 1, .code_bytes = 34000};
        /* limits whose fit part (less BUDGET_UNPREDICTED_SHARE) is 2,500 and 3,000 bytes */
        r.march.code = (struct select_code){.measured = 1, .code_bytes = round ? 25511 : 30613};
        r.n_functions = F;
        r.functions = xcalloc(F, sizeof *r.functions);
        r.decision.n_functions = F;
        r.decision.functions = xcalloc(F, sizeof *r.decision.functions);
        for (size_t f = 0; f < F; f++) {
            r.functions[f].name = xstrdup(names[f]);
            r.functions[f].display_name = xstrdup(names[f]);
            r.functions[f].file = xstrdup("k.c");
            r.functions[f].bytes_added = xcalloc(3, sizeof(int64_t));
            r.functions[f].bytes_added[0] = r.functions[f].bytes_added[2] = -1;
            r.functions[f].bytes_added[1] = added[f];
            r.decision.functions[f].chosen = 1;
            r.decision.functions[f].reason = DECISION_SELECTED;
            r.decision.functions[f].by_variant = xcalloc(2, sizeof(struct stats_interval));
        }
        r.n_workloads = W;
        r.workloads = xcalloc(W, sizeof *r.workloads);
        r.workloads[0].command = xstrdup("./w1");
        r.workloads[1].command = xstrdup("./w2");
        struct decision_input in = {.n_functions = F, .n_workloads = W, .n_variants = V, .n_runs = R,
                                    .functions = names, .samples = smp, .totals = tot};
        budget_apply(&r, &in, 10);
        assert_int_equal(r.budget.n_dropped, 1 + round);
        assert_int_equal(r.decision.functions[0].chosen, 1);
        assert_int_equal(r.decision.functions[1].reason, DECISION_CODE_BUDGET);
        assert_non_null(strstr(r.functions[1].note, "each workload's best function first"));
        assert_int_equal(r.budget.n_to_serve, 2);
        if (!round) {
            assert_int_equal(r.decision.functions[2].chosen, 1);
            assert_int_equal(r.budget.n_served, 2);
            assert_true(r.budget.after == 3000);
            assert_non_null(strstr(r.notes.v[0], "2 of 2 workloads keep their best function"));
            json_t *j = select_report_json(&r);
            json_t *bj = json_object_get(json_object_get(j, "code_size"), "budget");
            assert_int_equal(json_integer_value(json_object_get(bj, "workloads_best_kept")), 2);
            assert_int_equal(json_integer_value(json_object_get(bj, "workloads_with_a_best")), 2);
            json_decref(j);
        } else {
            assert_int_equal(r.decision.functions[2].reason, DECISION_CODE_BUDGET);
            assert_non_null(strstr(r.functions[2].note, "the best function of './w2' (4.00% of it)"));
            assert_int_equal(r.budget.n_served, 1);
            assert_int_equal(r.budget.n_best_dropped, 1);
            assert_true(r.budget.after == 2000);
        }
        for (size_t w = 0; w < W; w++) free(r.workloads[w].command);
        free(r.workloads);
        free_hand_made(&r);
    }
}

static void test_pins_within_room(void **state)
{
    (void)state;
    struct select_budget b;
    memset(&b, 0, sizeof b);
    assert_true(budget_pin_room(&b) > 1e12);   /* no budget applied: no limit on pins */
    for (unsigned k = 0; k < 100; k++) assert_int_equal(budget_take_pin(&b, k % 64, 2), 1);
    memset(&b, 0, sizeof b);
    b.applied = 1;
    b.limit = 5826;
    b.fit_limit = 5709;   /* the pins' room is the fit's limit less the prediction */
    b.after = 5680;
    assert_true(budget_pin_room(&b) == 29);
    assert_int_equal(budget_take_pin(&b, 0, 1), 0);   /* 63 bytes at most: no room */
    assert_true(budget_pin_room(&b) == 29 && b.pin_bytes == 0);
    b.after = 5500;                                   /* 209 bytes left */
    assert_int_equal(budget_take_pin(&b, 16, 1), 1);  /* 79: 130 left */
    assert_true(budget_pin_room(&b) == 130);
    assert_int_equal(budget_take_pin(&b, 63, 0), 1);  /* 126 (0 compiles counts as 1): 4 left */
    assert_true(budget_pin_room(&b) == 4);
    assert_int_equal(budget_take_pin(&b, 0, 1), 0);   /* 63 > 4 */
    assert_true(budget_pin_room(&b) == 4);
    assert_true(b.pin_bytes == 205 && b.n_pins == 2 && b.n_pin_copies == 2);
    b.after = 6000;                                   /* above the limit: no room, never negative */
    assert_true(budget_pin_room(&b) == 0);
    assert_int_equal(budget_take_pin(&b, 0, 1), 0);
}

/* A pin in a function two linked files hold (a program and a shared
 * library) is charged twice, and the prediction the writers state includes
 * the pins: LAME's was 2,806 bytes under the measured growth, 1,664 of
 * them the pins' padding (bench/results/lame-pins-20261205-s19.txt). */
static void test_pins_per_linked_compile_in_prediction(void **state)
{
    (void)state;
    struct select_report r;
    struct decision_input in;
    hand_made(&r, &in, 38000, 0);
    budget_apply(&r, &in, 10);
    assert_true(r.budget.after == 3500 && r.budget.fit_limit == 3724);   /* 224 bytes of room */
    assert_int_equal(budget_take_pin(&r.budget, 16, 2), 1);   /* 2 x 79 = 158: 66 left */
    assert_int_equal(budget_take_pin(&r.budget, 0, 2), 0);    /* 2 x 63 = 126 > 66 */
    assert_int_equal(budget_take_pin(&r.budget, 0, 1), 1);    /* 63: 3 left */
    assert_true(r.budget.pin_bytes == 221);
    assert_true(budget_predicted(&r.budget) == 3721);
    r.selected_code = (struct select_code){.measured = 1, .code_bytes = 40000 + 3900, .clone_bytes = 2950,
                                           .resolver_bytes = 50, .cpu_detect_bytes = 500};
    char *summary = select_report_summary(&r);
    assert_non_null(strstr(summary, "the selection was predicted to add 3721 bytes (221 of them the placement pins' "
                                    "padding at its worst case: 2 pins in 3 linked compiles)"));
    free(summary);
    char *md = select_report_markdown(&r);
    assert_non_null(strstr(md, "predicted to add 3721 bytes (221 of them"));
    free(md);
    json_t *j = select_report_json(&r);
    json_t *b = json_object_get(json_object_get(j, "code_size"), "budget");
    assert_int_equal(json_integer_value(json_object_get(b, "predicted_bytes")), 3721);
    assert_int_equal(json_integer_value(json_object_get(b, "pin_padding_bytes")), 221);
    assert_int_equal(json_integer_value(json_object_get(b, "pins")), 2);
    assert_int_equal(json_integer_value(json_object_get(b, "pin_linked_compiles")), 3);
    json_decref(j);
    /* above the limit: the note gives the prediction with the pins */
    budget_check_measured(&r);
    assert_non_null(strstr(r.notes.v[r.notes.n - 1], "the all-candidates builds and the pins was 3721 bytes"));
    free_hand_made(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_drops_and_says),
        cmocka_unit_test(test_apply_alone),
        cmocka_unit_test(test_apply_confirmed_by_fresh_runs),
        cmocka_unit_test(test_apply_cpuid_units),
        cmocka_unit_test(test_apply_cheaper_set),
        cmocka_unit_test(test_apply_each_workload_best_first),
        cmocka_unit_test(test_pins_within_room),
        cmocka_unit_test(test_pins_per_linked_compile_in_prediction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
