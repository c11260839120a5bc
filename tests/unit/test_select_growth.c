/* Unit tests of the code-growth budget's prediction against the growth
 * measured (select/codecost.h, select/budget.h, elf/padding.h,
 * elf/pltslots.h), on the budget-plt fixture compiled at test time by gcc,
 * clang (14) and clang-19: a baseline build, an all-candidates build (every
 * function cloned) and two selections, each a library and a PIE program.
 *
 * What a clone costs beyond its symbols, told in the all-candidates build:
 *   - the alignment padding after each clone and resolver;
 *   - the PLT entry a function called inside its own file is called
 *     through once it is an ifunc (IRELATIVE, or a JUMP_SLOT when the
 *     compiler exports the ifunc), unless the baseline's file had that
 *     entry already (GCC calls an exported function through its PLT);
 *   - the CPU detection's padding.
 * The prediction of each selection (budget_apply) must then be at least
 * the measured growth, and above it by no more than the padding counted
 * before the run of added code that ends each file's .text, which the
 * function before it may need or not (elf/codesize.h: at most 15 bytes a
 * file here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/clones.h"
#include "elf/codesize.h"
#include "elf/elffile.h"
#include "elf/padding.h"
#include "elf/pltslots.h"
#include "run/spawn.h"
#include "select/budget.h"
#include "select/codecost.h"
#include "select/report.h"
#include "select/result.h"
#include "util/util.h"
#include "test_run_helpers.h"

static void compile(const char *cc, const char *const *args, const char *clones, const char *src, const char *out)
{
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, cc);
    sv_push(&argv, "-O2");
    for (size_t i = 0; args[i]; i++) sv_push(&argv, args[i]);
    /* clones: "HIDDEN_SUM,PROG_KERNEL" -> -DCLONE_HIDDEN_SUM -DCLONE_PROG_KERNEL */
    char *list = xstrdup(clones);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) sv_pushf(&argv, "-DCLONE_%s", tok);
    free(list);
    sv_push(&argv, src);
    sv_push(&argv, "-o");
    sv_push(&argv, out);
    struct run_opts o = {.capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(sv_argv(&argv), &o, &r);
    if (rc) fprintf(stderr, "%s failed: %s\n", cc, r.err ? r.err : "");
    assert_int_equal(rc, 0);
    run_result_free(&r);
    sv_free(&argv);
}

/* A build directory: libg.so and prog with the named functions cloned. */
static char *make_build(const char *top, const char *name, const char *cc, const char *clones)
{
    char *dir = path_join(top, name);
    mkdir_p(dir, 0755);
    char *lib = path_join(dir, "libg.so"), *prog = path_join(dir, "prog");
    static const char *const lib_args[] = {"-fPIC", "-shared", "-fvisibility=hidden", NULL};
    static const char *const prog_args[] = {"-fPIE", "-pie", NULL};
    compile(cc, lib_args, clones, FIXTURES_DIR "/budget-plt/lib.c", lib);
    compile(cc, prog_args, clones, FIXTURES_DIR "/budget-plt/prog.c", prog);
    free(lib);
    free(prog);
    return dir;
}

#define NF 4
static const char *const names[NF] = {"hidden_sum", "exported_scale", "exported_only", "prog_kernel"};

/* A report of the four functions, the baseline and one set ("avx2"). */
static void hand_made(struct select_report *r)
{
    memset(r, 0, sizeof *r);
    r->n_variants = 2;
    r->variants = xcalloc(2, sizeof *r->variants);
    r->variants[0].name = xstrdup("baseline");
    r->variants[1].name = xstrdup("avx2");
    r->variants[0].targets = xstrdup("");
    r->variants[1].targets = xstrdup("avx2");
    r->n_functions = NF;
    r->functions = xcalloc(NF, sizeof *r->functions);
    r->decision.n_functions = NF;
    r->decision.functions = xcalloc(NF, sizeof *r->decision.functions);
    for (size_t f = 0; f < NF; f++) {
        r->functions[f].name = xstrdup(names[f]);
        r->functions[f].display_name = xstrdup(names[f]);
        r->functions[f].file = xstrdup("lib.c");
        r->decision.functions[f].chosen = -1;
        r->decision.functions[f].by_variant = xcalloc(2, sizeof(struct stats_interval));
    }
}

/* The bytes of f's non-default clones and resolvers in cs, and the padding
 * after each, read from the files themselves. */
static uint64_t symbol_bytes(const struct code_size *cs, const char *name, uint64_t *padding)
{
    uint64_t bytes = 0;
    *padding = 0;
    for (size_t i = 0; i < cs->n_files; i++) {
        struct elf_file ef;
        struct elf_mv_list l;
        assert_int_equal(elf_file_open(cs->files[i].path, &ef), 0);
        assert_int_equal(elf_mv_scan(&ef, &l), 0);
        for (size_t k = 0; k < l.n_functions; k++) {
            const struct elf_mv_function *fn = &l.functions[k];
            if (strcmp(fn->name, name)) continue;
            bytes += fn->resolver_size;
            *padding += elf_padding_after(&ef, fn->resolver_addr, fn->resolver_size);
            for (size_t c = 0; c < fn->n_clones; c++) {
                if (fn->clones[c].is_default) continue;
                bytes += fn->clones[c].size;
                uint64_t pad = elf_padding_after(&ef, fn->clones[c].addr, fn->clones[c].size);
                /* padding: what aligns the next function to 16 bytes */
                assert_true(pad < 16);
                assert_int_equal((fn->clones[c].addr + fn->clones[c].size + pad) % 16, 0);
                *padding += pad;
            }
        }
        elf_mv_list_free(&l);
        elf_file_close(&ef);
    }
    return bytes;
}

/* The PLT bytes measured for function name in cs. */
static uint64_t plt_bytes(const struct code_size *cs, const char *name)
{
    const struct code_size_function *f = code_size_find(cs, name);
    assert_non_null(f);
    return code_size_plt_bytes(f);
}

/* Predicted and measured growth of the selection built in sel (the set's
 * all-candidates build in all). */
static void predict(const char *base, const char *all, const char *sel, const char *clones, const int64_t *expect,
                    double *predicted, int64_t *measured)
{
    struct select_report r;
    hand_made(&r);
    for (size_t f = 0; f < NF; f++) {
        char *upper = xstrdup(names[f]);
        for (char *p = upper; *p; p++) *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        if (strstr(clones, upper)) r.decision.functions[f].chosen = 1;
        free(upper);
    }
    const char *variants[] = {base, all};
    struct select_build_dirs dirs = {variants, sel, NULL, NULL, NULL, NULL};
    select_measure_code(&r, &dirs);
    assert_true(r.variants[0].code.measured && r.variants[1].code.measured && r.selected_code.measured);
    for (size_t f = 0; f < NF; f++) assert_int_equal(r.functions[f].bytes_added[1], expect[f]);
    struct decision_input in = {.n_functions = NF, .n_workloads = 0, .n_variants = 2};
    budget_apply(&r, &in, 5000);   /* no function dropped */
    assert_true(r.budget.applied);
    assert_int_equal(r.budget.n_dropped, 0);
    /* the fixed part is each linked file's CPU detection, told (not the
     * all-candidates residue), once per file holding a selected function's
     * clones - the same in report.json, which test_select_libcalls.sh
     * reads when timing chose something */
    size_t files = strstr(clones, "PROG_KERNEL") ? 2 : 1;
    assert_int_equal(r.budget.n_fixed_files, files);
    assert_false(r.budget.fixed_residue);
    assert_true(r.budget.overhead > 1000.0 * (double)files);
    json_t *j = select_report_json(&r);
    json_t *b = json_object_get(json_object_get(j, "code_size"), "budget");
    assert_int_equal(json_integer_value(json_object_get(b, "fixed_files")), (json_int_t)files);
    assert_true(json_is_false(json_object_get(b, "fixed_from_residue")));
    assert_true(json_integer_value(json_object_get(b, "fixed_bytes")) > 1000 * (json_int_t)files);
    json_decref(j);
    *predicted = r.budget.after;
    *measured = select_code_growth(&r, &r.selected_code);
    /* the measured parts: all of the clones' overheads are told */
    int64_t clones_part, cpu, rest;
    assert_true(budget_measured_parts(&r, &clones_part, &cpu, &rest));
    assert_true(cpu > 0);
    assert_true(rest > -64 && rest < 64);
    select_report_free(&r);
}

static void check_compiler(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    char *top = make_temp_dir("test-select-growth");
    char *base = make_build(top, "base", cc, "");
    char *all = make_build(top, "all", cc, "HIDDEN_SUM,EXPORTED_SCALE,EXPORTED_ONLY,PROG_KERNEL");
    char *sel1 = make_build(top, "sel1", cc, "HIDDEN_SUM,EXPORTED_SCALE");
    char *sel2 = make_build(top, "sel2", cc, "EXPORTED_ONLY,PROG_KERNEL");

    struct code_size cs_all, cs_base;
    assert_int_equal(code_size_of_dir(all, &cs_all), 0);
    assert_int_equal(code_size_of_dir(base, &cs_base), 0);
    assert_int_equal(cs_all.n_functions, NF);
    for (size_t i = 0; i < cs_all.n_files; i++) assert_int_equal(cs_all.files[i].plt_entry_bytes, 16);
    /* each function's added bytes: its symbols, the padding after them and
     * its PLT entries */
    for (size_t f = 0; f < NF; f++) {
        const struct code_size_function *fn = code_size_find(&cs_all, names[f]);
        assert_non_null(fn);
        uint64_t padding;
        uint64_t bytes = symbol_bytes(&cs_all, names[f], &padding);
        assert_int_equal(fn->padding_bytes, padding);
        assert_int_equal(code_size_added(fn), bytes + padding + code_size_plt_bytes(fn));
    }
    /* called inside its file: one PLT entry each (a local ifunc's IRELATIVE
     * entry, or the JUMP_SLOT of an ifunc the compiler exported); never
     * called there: none */
    assert_int_equal(plt_bytes(&cs_all, "hidden_sum"), 16);
    assert_int_equal(plt_bytes(&cs_all, "exported_scale"), 16);
    assert_int_equal(plt_bytes(&cs_all, "exported_only"), 0);
    assert_int_equal(plt_bytes(&cs_all, "prog_kernel"), 16);
    /* the baseline's library called the exported function through its PLT
     * already (a JUMP_SLOT): cloned, that entry adds nothing (Clang 14
     * renames it to the ifunc symbol exported_scale.ifunc) */
    size_t lib = strstr(cs_base.files[0].path, "libg.so") ? 0 : 1;
    assert_true(elf_plt_jump_slot_named(&cs_base.files[lib].jump_slots, "exported_scale"));
    assert_false(elf_plt_jump_slot_named(&cs_base.files[lib].jump_slots, "hidden_sum"));
    /* what select counts for each: symbols, padding, new PLT entries */
    int64_t expect[NF];
    for (size_t f = 0; f < NF; f++) {
        uint64_t padding, bytes = symbol_bytes(&cs_all, names[f], &padding);
        int new_plt = !strcmp(names[f], "hidden_sum") || !strcmp(names[f], "prog_kernel");
        expect[f] = (int64_t)(bytes + padding) + (new_plt ? 16 : 0);
    }
    code_size_free(&cs_base);
    code_size_free(&cs_all);

    /* the prediction holds: never below each selection's measured growth */
    const char *sels[] = {sel1, sel2};
    const char *which[] = {"HIDDEN_SUM,EXPORTED_SCALE", "EXPORTED_ONLY,PROG_KERNEL"};
    for (int s = 0; s < 2; s++) {
        double predicted;
        int64_t measured;
        predict(base, all, sels[s], which[s], expect, &predicted, &measured);
        print_message("%s, %s: predicted %.0f, measured %lld bytes\n", cc, which[s], predicted, (long long)measured);
        assert_true(measured > 0);
        assert_true(predicted >= (double)measured);
        assert_true(predicted <= (double)measured + 2 * 15);
    }

    remove_tree(top);
    free(top);
    free(base);
    free(all);
    free(sel1);
    free(sel2);
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

/* The padding rule on its own: a gap counts only before an aligned start. */
static void test_padding_rule(void **state)
{
    (void)state;
    char *top = make_temp_dir("test-select-growth");
    char *dir = make_build(top, "p", "gcc", "PROG_KERNEL");
    char *prog = path_join(dir, "prog");
    struct elf_file ef;
    assert_int_equal(elf_file_open(prog, &ef), 0);
    const struct elf_sym *k = elf_file_sym_named(&ef, "prog_kernel.avx2");
    assert_non_null(k);
    uint64_t pad = elf_padding_after(&ef, k->value, k->size);
    assert_int_equal((k->value + k->size + pad) % 16, 0);
    /* a function with its padding before the next: the next's padding
     * before it is the same gap */
    const struct elf_sym *next = NULL;
    for (size_t i = 0; i < ef.n_syms; i++)
        if (ef.by_addr[i]->value == k->value + k->size + pad && ef.by_addr[i]->size) next = ef.by_addr[i];
    if (next) assert_int_equal(elf_padding_before(&ef, next->value), pad);
    /* no function, no padding */
    assert_int_equal(elf_padding_after(&ef, k->value, 0), 0);
    assert_int_equal(elf_padding_before(&ef, 1), 0);
    elf_file_close(&ef);
    remove_tree(top);
    free(top);
    free(dir);
    free(prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_padding_rule),
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang14),
        cmocka_unit_test(test_clang19),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
