/* Unit tests of the code-growth budget's prediction with --dispatch cpuid
 * against the growth measured (select/codecost.h, select/budget.h,
 * elf/fmvpadding.h), on the budget-cpuid fixture patched by the real
 * patch plan (patch_plan_build_assigned_dispatch, a store filled by hand)
 * and compiled at test time by gcc, clang (14) and clang-19: a baseline
 * build, an all-candidates build (every function copied) and two
 * selections, each a library (one TU: its fmvgen code ends the library's
 * .text) and a program.
 *
 * What the cpuid code costs beyond its symbols, told in the all-candidates
 * build: the alignment padding after each non-default copy, resolver and
 * trampoline (one range with its .fmvgen_init and .fmvgen_ctor), after
 * the linked file's fmvgen_cpu_levels, and before a run of fmvgen code that ends
 * .text (at most 15 bytes). Without it the prediction falls short by tens
 * of bytes per function; with it, each selection's prediction is within 16
 * bytes per selected function of the measured growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "elf/codesize.h"
#include "elf/cpuidcode.h"
#include "elf/elffile.h"
#include "elf/fmvpadding.h"
#include "elf/padding.h"
#include "patch/plan.h"
#include "run/spawn.h"
#include "select/budget.h"
#include "select/codecost.h"
#include "select/assign.h"
#include "select/report.h"
#include "select/result.h"
#include "select/trimcopies.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

#include "test_plan_helpers.h"
#include "test_run_helpers.h"

static const char *const FILES[] = {"lib.c", "prog.c", "pk.c", "kern.h"};
#define NF 5
static const char *const names[NF] = {"lib_sum", "scale_in", "lib_count", "lib_last", "prog_kernel"};
static const char *const heads[NF] = {"long lib_sum(", "static void scale_in(", "int lib_count(", "double lib_last(",
                                      "void prog_kernel("};
static const char *const files_of[NF] = {"lib.c", "lib.c", "lib.c", "lib.c", "pk.c"};
static const char *const params[NF] = {"[\"a\",\"n\"]", "[\"x\",\"k\",\"n\"]", "[\"x\",\"n\"]",
                                       "[\"x\",\"y\",\"n\"]", "[\"a\",\"b\",\"n\"]"};

/* The fixture as a project with the five candidates and their params
 * notes (what a scan records for --dispatch cpuid). */
static void open_project(struct project *p)
{
    project_open_fixture(p, "budget-cpuid", FILES, sizeof FILES / sizeof *FILES);
    for (size_t f = 0; f < NF; f++) {
        add_candidate(p, files_of[f], names[f], heads[f]);
        /* where its body ends, as libclang's extent says: one past the
         * '}' that starts a line */
        char *path = path_join(p->dir, files_of[f]);
        size_t len;
        char *text = read_file(path, &len);
        assert_non_null(text);
        const char *close = strstr(strstr(text, heads[f]), "\n}");
        assert_non_null(close);
        int end_line = 2;
        for (const char *c = text; c < close; c++) end_line += *c == '\n';
        free(text);
        free(path);
        int is_void = !strncmp(heads[f], "void", 4) || !strncmp(heads[f], "static void", 11);
        char *notes = xasprintf("[{\"kind\":\"params\",\"detail\":\"forwarded\",\"names\":%s,\"void\":%s}]",
                                params[f], is_void ? "true" : "false");
        sqlite3_stmt *q;
        assert_int_equal(sqlite3_prepare_v2(store_db(p->st), "UPDATE functions SET notes = ?, end_line = ?, end_col = 2 WHERE name = ?",
                                            -1, &q, NULL),
                         SQLITE_OK);
        sqlite3_bind_text(q, 1, notes, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(q, 2, end_line);
        sqlite3_bind_text(q, 3, names[f], -1, SQLITE_TRANSIENT);
        assert_int_equal(sqlite3_step(q), SQLITE_DONE);
        sqlite3_finalize(q);
        free(notes);
    }
}

/* A build directory: the project's files, those of the cpuid patch of the
 * named functions ("a,b"; "" none) with targets (NULL: TARGETS_DEFAULT) as
 * patched, compiled by cc into libk.so and prog. */
static char *make_build_set(struct project *p, const char *top, const char *name, const char *cc, const char *which,
                            const char *flag, const char *targets)
{
    char *dir = path_join(top, name);
    assert_int_equal(mkdir_p(dir, 0755), 0);
    struct patch_plan plan;
    memset(&plan, 0, sizeof plan);
    if (*which) {
        struct patch_assignments a = {0};
        struct strvec t = STRVEC_INIT;
        assert_int_equal(targets_parse(targets ? targets : TARGETS_DEFAULT, &t), 0);
        char *list = xstrdup(which);
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) patch_assign(&a, tok, &t);
        free(list);
        assert_int_equal(patch_plan_build_assigned_dispatch(p->st, &a, PATCH_DISPATCH_CPUID, &plan), 0);
        assert_int_equal(plan.ifunc_fallback.n, 0);   /* every one gets its own copies */
        patch_assignments_free(&a);
        sv_free(&t);
    }
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        const char *data = NULL;
        size_t len = 0;
        for (size_t k = 0; k < plan.nfiles; k++)
            if (!strcmp(plan.files[k].rel, FILES[i])) data = plan.files[k].new_data, len = plan.files[k].new_len;
        char *src = path_join(p->dir, FILES[i]), *dst = path_join(dir, FILES[i]);
        char *text = data ? NULL : read_file(src, &len);
        assert_int_equal(write_file_atomic(dst, data ? data : text, len), 0);
        free(text);
        free(src);
        free(dst);
    }
    patch_plan_free(&plan);
    char *lib = path_join(dir, "libk.so"), *prog = path_join(dir, "prog"), *lib_c = path_join(dir, "lib.c");
    char *prog_c = path_join(dir, "prog.c"), *pk_c = path_join(dir, "pk.c"), *ldir = xasprintf("-L%s", dir);
    char *const c_lib[] = {(char *)cc, "-O2", "-fPIC", "-shared", lib_c, "-o", lib, (char *)flag, NULL};
    char *const c_prog[] = {(char *)cc, "-O2", prog_c, pk_c, ldir, "-lk", "-o", prog, (char *)flag, NULL};
    run_ok(c_lib);
    run_ok(c_prog);
    free(lib);
    free(prog);
    free(lib_c);
    free(prog_c);
    free(pk_c);
    free(ldir);
    return dir;
}

static char *make_build_flags(struct project *p, const char *top, const char *name, const char *cc, const char *which,
                              const char *flag)
{
    return make_build_set(p, top, name, cc, which, flag, NULL);
}

static char *make_build(struct project *p, const char *top, const char *name, const char *cc, const char *which)
{
    return make_build_flags(p, top, name, cc, which, NULL);
}

/* A report of the five functions, the baseline and one set; chosen: the
 * functions of which (the selection). */
static void hand_made(struct select_report *r, const char *which)
{
    memset(r, 0, sizeof *r);
    r->n_variants = 2;
    r->variants = xcalloc(2, sizeof *r->variants);
    r->variants[0].name = xstrdup("baseline");
    r->variants[1].name = xstrdup("fma-levels");
    r->variants[0].targets = xstrdup("");
    r->variants[1].targets = xstrdup(TARGETS_DEFAULT);
    r->n_functions = NF;
    r->functions = xcalloc(NF, sizeof *r->functions);
    r->decision.n_functions = NF;
    r->decision.functions = xcalloc(NF, sizeof *r->decision.functions);
    for (size_t f = 0; f < NF; f++) {
        r->functions[f].name = xstrdup(names[f]);
        r->functions[f].display_name = xstrdup(names[f]);
        r->functions[f].file = xstrdup(files_of[f]);
        char *list = xasprintf(",%s,", which), *key = xasprintf(",%s,", names[f]);
        r->decision.functions[f].chosen = strstr(list, key) ? 1 : -1;
        free(list);
        free(key);
        r->decision.functions[f].by_variant = xcalloc(2, sizeof(struct stats_interval));
    }
}

/* The padding after every fmvgen symbol's range in path, read from the
 * symbols and checked against the rule: each gap aligns the next function
 * to 16 bytes. */
static uint64_t gaps_after_fmvgen(const char *path)
{
    struct elf_file ef;
    assert_int_equal(elf_file_open(path, &ef), 0);
    struct elf_fmv_padding p;
    assert_int_equal(elf_fmv_padding(&ef, &p), 0);
    uint64_t sum = 0;
    for (size_t i = 0; i < p.n_functions; i++) {
        assert_true(p.functions[i].bytes < 16 * 4);   /* copies, resolver, trampoline: under 16 each */
        sum += p.functions[i].bytes;
    }
    for (size_t i = 0; i < p.n_units; i++) {
        assert_true(p.units[i].levels < 16);
        assert_true(p.units[i].run_end < 64);
        sum += p.units[i].levels + p.units[i].run_end;
    }
    /* the trampoline: one range (NAME spans NAME.fmvgen_ctor), its padding
     * the gap after its end, to a 16-byte boundary */
    const struct elf_sym *t = elf_file_sym_named(&ef, "lib_sum"), *ctor = elf_file_sym_named(&ef, "lib_sum.fmvgen_ctor");
    if (t && ctor) {
        assert_true(ctor->value > t->value && ctor->value + ctor->size <= t->value + t->size);
        uint64_t pr[] = {t->value, t->size, ctor->value, ctor->size};
        uint64_t pad = elf_padding_after_ranges(&ef, pr, 2);
        assert_true(pad < 16);
        assert_int_equal((t->value + t->size + pad) % 16, 0);
    }
    elf_fmv_padding_free(&p);
    elf_file_close(&ef);
    return sum;
}

static void predict(const char *base, const char *all, const char *sel, const char *which, double *predicted,
                    int64_t *measured, double *padding)
{
    struct select_report r;
    hand_made(&r, which);
    const char *variants[] = {base, all};
    struct select_build_dirs dirs = {variants, sel, NULL, NULL, NULL, NULL};
    select_measure_code(&r, &dirs);
    assert_true(r.variants[0].code.measured && r.variants[1].code.measured && r.selected_code.measured);
    struct decision_input in = {.n_functions = NF, .n_workloads = 0, .n_variants = 2};
    budget_apply(&r, &in, 1000);   /* no function dropped */
    assert_true(r.budget.applied);
    assert_int_equal(r.budget.n_dropped, 0);
    assert_false(r.budget.fixed_residue);
    assert_int_equal(r.budget.n_fixed_files, 0);   /* no libgcc CPU detection */
    *predicted = r.budget.after;
    *measured = select_code_growth(&r, &r.selected_code);
    /* the padding in the prediction: the selected functions' and their
     * units' (over their fmvgen_cpu_levels' own bytes) */
    *padding = 0;
    struct code_size cs;
    assert_int_equal(code_size_of_dir(all, &cs), 0);
    for (size_t f = 0; f < NF; f++) {
        if (r.decision.functions[f].chosen != 1) continue;
        const struct code_size_function *fn = code_size_find(&cs, names[f]);
        assert_non_null(fn);
        /* its TU and the linked file's one fmvgen_cpu_levels */
        assert_int_equal(fn->n_units, 2);
        assert_string_equal(fn->units[1].unit, ELF_CPUID_LINKED_UNIT);
        assert_true(fn->units[1].levels_bytes > 0);
        *padding += (double)fn->padding_bytes;
    }
    code_size_free(&cs);
    select_report_free(&r);
}

static void check_compiler(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    struct project p;
    open_project(&p);
    char *top = make_temp_dir("test-select-growth-cpuid");
    char *base = make_build(&p, top, "base", cc, "");
    char *all = make_build(&p, top, "all", cc, "lib_sum,scale_in,lib_count,lib_last,prog_kernel");
    const char *which[] = {"lib_sum,lib_last", "scale_in,lib_count,prog_kernel"};
    size_t n_sel[] = {2, 3};
    char *sels[] = {make_build(&p, top, "sel1", cc, which[0]), make_build(&p, top, "sel2", cc, which[1])};

    /* every function has fmvgen code with padding after it, as the rule
     * says */
    char *all_lib = path_join(all, "libk.so"), *all_prog = path_join(all, "prog");
    assert_true(gaps_after_fmvgen(all_lib) > 0);
    assert_true(gaps_after_fmvgen(all_prog) > 0);
    free(all_lib);
    free(all_prog);

    for (int s = 0; s < 2; s++) {
        double predicted, padding;
        int64_t measured;
        predict(base, all, sels[s], which[s], &predicted, &measured, &padding);
        print_message("%s, %s: predicted %.0f (padding %.0f), measured %lld bytes\n", cc, which[s], predicted, padding,
                      (long long)measured);
        assert_true(measured > 0);
        /* the padding matters: without it the prediction would be off by
         * more than the bound */
        assert_true(padding > 16.0 * (double)n_sel[s] / 2);
        double diff = predicted - (double)measured;
        assert_true(diff <= 16.0 * (double)n_sel[s]);
        assert_true(diff >= -16.0 * (double)n_sel[s]);
    }

    remove_tree(top);
    free(top);
    free(base);
    free(all);
    free(sels[0]);
    free(sels[1]);
    project_close(&p);
}

static void test_gcc(void **state)
{
    (void)state;
    check_compiler("gcc");
}

static void test_clang14(void **state)
{
    (void)state;
    check_compiler("clang");
}

static void test_clang19(void **state)
{
    (void)state;
    check_compiler("clang-19");
}


/* The size of the function symbol name in dir/libk.so. */
static int64_t lib_symbol_size(const char *dir, const char *name)
{
    char *path = path_join(dir, "libk.so");
    struct elf_file ef;
    assert_int_equal(elf_file_open(path, &ef), 0);
    const struct elf_sym *sym = elf_file_sym_named(&ef, name);
    assert_non_null(sym);
    int64_t size = (int64_t)sym->size;
    elf_file_close(&ef);
    free(path);
    return size;
}

/* The budget's decision on lib_sum alone, its bytes measured against the
 * baseline base; max_growth set so that the fit's limit is limit bytes. */
static int kept_within(const char *base, const char *all, double limit, int64_t *bytes, double *predicted)
{
    struct select_report r;
    hand_made(&r, "lib_sum");
    const char *variants[] = {base, all};
    struct select_build_dirs dirs = {variants, NULL, NULL, NULL, NULL, NULL};
    select_measure_code(&r, &dirs);
    *bytes = select_bytes_added(&r, 0, 1);
    struct decision_input in = {.n_functions = NF, .n_workloads = 0, .n_variants = 2};
    budget_apply(&r, &in, 100.0 * limit / (1 - BUDGET_UNPREDICTED_SHARE) / (double)r.variants[0].code.code_bytes);
    int kept = r.decision.functions[0].chosen == 1;
    *predicted = r.budget.before;
    select_report_free(&r);
    return kept;
}

/* What a selection adds counts the default copy against the code it
 * replaces: a baseline whose lib_sum is bigger (built with -falign-loops=64,
 * the copies without) makes lib_sum's bytes smaller by exactly the
 * difference, and a limit between the two predictions keeps it only
 * then (before, the default copy counted as the function's own code,
 * whatever the baseline's was). */
static void test_default_copy_counted(void **state)
{
    (void)state;
    if (!have("gcc")) {
        print_message("gcc not installed: skipped\n");
        return;
    }
    struct project p;
    open_project(&p);
    char *top = make_temp_dir("test-select-growth-default");
    char *base = make_build(&p, top, "base", "gcc", "");
    char *big = make_build_flags(&p, top, "big", "gcc", "", "-falign-loops=64");
    char *all = make_build(&p, top, "all", "gcc", "lib_sum");
    int64_t orig = lib_symbol_size(base, "lib_sum"), orig_big = lib_symbol_size(big, "lib_sum");
    assert_true(orig_big > orig);
    int64_t b_same, b_big;
    double p_same, p_big, pr;
    /* a limit both predictions meet: kept either way */
    assert_int_equal(kept_within(base, all, 100000, &b_same, &p_same), 1);
    assert_int_equal(kept_within(big, all, 100000, &b_big, &p_big), 1);
    print_message("lib_sum: %lld / %lld bytes in the baseline; bytes added %lld / %lld; predicted %.0f / %.0f\n", (long long)orig, (long long)orig_big, (long long)b_same, (long long)b_big, p_same, p_big);
    assert_int_equal(b_same - b_big, orig_big - orig);
    assert_true(p_same - p_big == (double)(orig_big - orig));   /* the fixed part is the same */
    /* a limit between the two predictions */
    double limit = (p_same + p_big) / 2;
    int64_t again;
    assert_int_equal(kept_within(base, all, limit, &again, &pr), 0);
    assert_int_equal(kept_within(big, all, limit, &again, &pr), 1);
    remove_tree(top);
    free(top);
    free(base);
    free(big);
    free(all);
    project_close(&p);
}

/* The range rules on the fixture's own trampoline-free cases: touching or
 * overlapping ranges are one function, sizes 0 none. */
static void test_ranges(void **state)
{
    (void)state;
    char *top = make_temp_dir("test-select-growth-cpuid");
    char *lib = path_join(top, "libk.so");
    char *const c_lib[] = {"gcc", "-O2", "-fPIC", "-shared", FIXTURES_DIR "/budget-cpuid/lib.c", "-o", lib, NULL};
    run_ok(c_lib);
    struct elf_file ef;
    assert_int_equal(elf_file_open(lib, &ef), 0);
    const struct elf_sym *a = elf_file_sym_named(&ef, "lib_sum"), *b = elf_file_sym_named(&ef, "lib_count");
    assert_non_null(a);
    assert_non_null(b);
    uint64_t pa = elf_padding_after(&ef, a->value, a->size), pb = elf_padding_after(&ef, b->value, b->size);
    uint64_t two[] = {b->value, b->size, a->value, a->size};
    assert_int_equal(elf_padding_after_ranges(&ef, two, 2), pa + pb);
    /* a piece inside a range adds nothing; a size 0 is no range */
    uint64_t inner[] = {a->value, a->size, a->value + 1, 2, b->value, 0};
    assert_int_equal(elf_padding_after_ranges(&ef, inner, 3), pa);
    assert_int_equal(elf_padding_after_ranges(&ef, NULL, 0), 0);
    elf_file_close(&ef);
    remove_tree(top);
    free(top);
    free(lib);
}

/* The report of hand_made with the x86-64-v4 copy of each selected
 * function as the one that ran (a CPU with AVX-512, as select's) and its
 * code measured in base, all and sel (NULL: no selected build). */
static void trim_report_of(struct select_report *r, const char *which, const char *base, const char *all,
                           const char *sel)
{
    hand_made(r, which);
    for (size_t f = 0; f < NF; f++) {
        r->functions[f].ran = xcalloc(2, sizeof *r->functions[f].ran);
        r->functions[f].ran[1] = xasprintf("fmvgen_cp_%s_x86_64_v4", names[f]);
    }
    const char *variants[] = {base, all};
    struct select_build_dirs dirs = {variants, sel, NULL, NULL, NULL, NULL};
    select_measure_code(r, &dirs);
}

/* Output of dir's prog, natively or under qemu -cpu cpu (NULL: natively). */
static char *prog_output(const char *dir, const char *cpu)
{
    char *prog = path_join(dir, "prog"), *out = NULL;
    setenv("LD_LIBRARY_PATH", dir, 1);
    char *native[] = {prog, NULL}, *emu[] = {"qemu-x86_64", "-cpu", (char *)cpu, prog, NULL};
    assert_int_equal(run_in(dir, cpu ? emu : native, &out), 0);
    unsetenv("LD_LIBRARY_PATH");
    free(prog);
    return out;
}

/* Over the budget, the copies that never ran where the gain was measured
 * (the x86-64-v3 copies; the x86-64-v4 ones ran) are left out before any
 * function is dropped: with a limit that every function fits only without
 * them, none is dropped (before, the fit dropped one), each keeps its
 * x86-64-v4 copy alone (the patch's targets), the prediction is the full
 * one less exactly their bytes, and the build patched so (one copy and the
 * default) grows as predicted: never more, and at most 32 bytes a function
 * less. It prints
 * what the unpatched build prints, natively (x86-64-v4 copies on an
 * AVX-512 host) and under qemu -cpu Nehalem and Haswell (no AVX-512: the
 * default code; an x86-64-v4 copy chosen there would die of SIGILL).
 * gcc, clang 14 and clang 19 (glibc: IFUNCs) and musl-gcc (trampolines). */
static void check_trim(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    struct project p;
    open_project(&p);
    char *top = make_temp_dir("test-select-growth-trim");
    const char *which = "lib_sum,lib_last,prog_kernel";
    char *base = make_build(&p, top, "base", cc, "");
    char *all = make_build(&p, top, "all", cc, "lib_sum,scale_in,lib_count,lib_last,prog_kernel");
    char *sel = make_build_set(&p, top, "sel", cc, which, NULL, "arch=x86-64-v4");
    struct decision_input in = {.n_functions = NF, .n_workloads = 0, .n_variants = 2};

    struct select_report r;
    trim_report_of(&r, which, base, all, sel);
    budget_apply(&r, &in, 1000);   /* room for all: nothing left out */
    assert_int_equal(r.budget.n_dropped, 0);
    double full = r.budget.after, unran = 0;
    size_t n_sel = 0;
    for (size_t f = 0; f < NF; f++) {
        assert_null(r.functions[f].copy_only);
        if (r.decision.functions[f].chosen != 1) continue;
        n_sel++;
        char *t = NULL;
        const char *sym;
        int64_t left = trim_unran_bytes(&r, f, 1, &t, &sym);
        print_message("%s: %s left %lld; all %lld selected %lld\n", cc, names[f], (long long)left,
                      (long long)select_bytes_added(&r, f, 1), (long long)select_bytes_added(&r, f, 2));
        assert_true(left > 0);   /* the x86-64-v3 copy */
        assert_string_equal(t, "arch=x86-64-v4");
        unran += (double)left;
        free(t);
    }
    assert_int_equal(n_sel, 3);
    double whole = (double)r.variants[0].code.code_bytes;
    select_report_free(&r);

    /* a limit every function fits only without its unmeasured copies (the
     * fit uses the limit less BUDGET_UNPREDICTED_SHARE of it) */
    double limit = (full - unran + 1) / (1 - BUDGET_UNPREDICTED_SHARE);
    trim_report_of(&r, which, base, all, sel);
    budget_apply(&r, &in, 100.0 * limit / whole);
    print_message("%s: all copies %.0f bytes, without the x86-64-v3 ones %.0f, limit %.0f: predicted %.0f, "
                  "measured %lld\n", cc, full, full - unran, r.budget.limit, r.budget.after,
                  (long long)select_code_growth(&r, &r.selected_code));
    assert_int_equal(r.budget.n_dropped, 0);
    assert_true(fabs(r.budget.after - (full - unran)) < 0.5);
    select_apply_decision(&r);
    struct patch_assignments a = {0};
    assert_int_equal(select_patch_assignments(&r, &a), 0);
    assert_int_equal(a.n, 3);
    for (size_t i = 0; i < a.n; i++) {
        assert_int_equal(a.v[i].targets.n, 1);
        assert_string_equal(a.v[i].targets.v[0], "arch=x86-64-v4");
    }
    patch_assignments_free(&a);
    json_t *j = select_report_json(&r), *fns = json_object_get(j, "functions");
    size_t n_json = 0;
    for (size_t f = 0; f < NF; f++)
        if (r.decision.functions[f].chosen == 1) {
            assert_string_equal(r.functions[f].copy_only, "arch=x86-64-v4");
            assert_non_null(strstr(r.functions[f].note, "never ran where its gain was measured"));
            for (size_t k = 0; k < json_array_size(fns); k++) {
                json_t *o = json_array_get(fns, k);
                if (strcmp(json_string_value(json_object_get(o, "name")), names[f])) continue;
                assert_string_equal(json_string_value(json_object_get(o, "targets")), "arch=x86-64-v4");
                assert_int_equal(json_integer_value(json_object_get(o, "copies_left_out_bytes")),
                                 r.functions[f].trimmed_bytes);
                n_json++;
            }
        }
    assert_int_equal(n_json, 3);
    json_decref(j);
    /* never below the measured growth, and over it by at most 32 bytes a
     * function: the resolver still counted with its test for the left-out
     * copy (gcc 12: 41 bytes, 26 without; clang: 16 bytes a function),
     * and 15 more: the copies' alignment padding, counted for each copy,
     * which the last one in section fmvgen_text does not pay (clang 19:
     * 101 bytes over) */
    int64_t measured = select_code_growth(&r, &r.selected_code);
    assert_true(r.budget.after >= (double)measured);
    assert_true(r.budget.after - (double)measured <= 32.0 * 3 + 15);
    select_report_free(&r);

    /* the patched build: one copy and the default */
    char *lib = path_join(sel, "libk.so");
    struct elf_file ef;
    assert_int_equal(elf_file_open(lib, &ef), 0);
    assert_non_null(elf_file_sym_named(&ef, "fmvgen_cp_lib_sum_x86_64_v4"));
    assert_null(elf_file_sym_named(&ef, "fmvgen_cp_lib_sum_x86_64_v3"));
    elf_file_close(&ef);
    free(lib);
    char *want = prog_output(base, NULL), *got = prog_output(sel, NULL);
    assert_string_equal(got, want);
    free(got);
    if (have_command("qemu-x86_64")) {
        const char *cpus[] = {"Nehalem", "Haswell"};
        for (size_t c = 0; c < 2; c++) {
            got = prog_output(sel, cpus[c]);
            assert_string_equal(got, want);
            free(got);
        }
    }
    free(want);
    remove_tree(top);
    free(top);
    free(base);
    free(all);
    free(sel);
    project_close(&p);
}

static void test_trim_gcc(void **state)
{
    (void)state;
    check_trim("gcc");
}

static void test_trim_clang14(void **state)
{
    (void)state;
    check_trim("clang");
}

static void test_trim_clang19(void **state)
{
    (void)state;
    check_trim("clang-19");
}

/* musl: no IFUNC, each function a trampoline through its pointer. */
static void test_trim_musl(void **state)
{
    (void)state;
    check_trim("musl-gcc");
}

/* The copy that ran told from its symbol, for every dispatch and spelling. */
static void test_trim_target_of(void **state)
{
    (void)state;
    const char *lv = TARGETS_DEFAULT;
    const char *cases[][3] = {
        {"f", "fmvgen_cp_f_x86_64_v4", "arch=x86-64-v4"},   /* cpuid */
        {"f", "fmvgen_cp_f_x86_64_v3", "arch=x86-64-v3"},
        {"f", "f.arch_x86_64_v4.0", "arch=x86-64-v4"},       /* gcc's target_clones */
        {"f", "f.arch_x86_64_v3.1", "arch=x86-64-v3"},
        {"f", "f.avx512f.0", "arch=x86-64-v4"},              /* clang 14's spelling */
        {"f", "f.avx2.0", "arch=x86-64-v3"},
        {"f", "f.avx2", "arch=x86-64-v3"},
        {"f", "fmvgen_cp_f_default", NULL},
        {"f", "f.default.2", NULL},
        {"f", "g.avx2.0", NULL},                             /* another function's */
        {"f", "fmvgen_cp_f_avx2_", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = trim_target_of(lv, cases[i][0], cases[i][1]);
        if (cases[i][2]) assert_string_equal(t, cases[i][2]);
        else assert_null(t);
        free(t);
    }
    char *t = trim_target_of("avx2", "f", "fmvgen_cp_f_avx2");
    assert_string_equal(t, "avx2");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang14),
        cmocka_unit_test(test_clang19),
        cmocka_unit_test(test_default_copy_counted),
        cmocka_unit_test(test_trim_target_of),
        cmocka_unit_test(test_trim_gcc),
        cmocka_unit_test(test_trim_clang14),
        cmocka_unit_test(test_trim_clang19),
        cmocka_unit_test(test_trim_musl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
