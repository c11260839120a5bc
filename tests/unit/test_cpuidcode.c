/* Unit tests of lib/elf/cpuidcode (and its use by elf/codesize.h and
 * select/codecost.h) on the hand-written --dispatch cpuid shape of
 * tests/fixtures/cpuid-shape, compiled at test time by gcc, clang and
 * clang-19 when installed: a library whose TU a.c holds two cpuid functions
 * (one fmvgen_cpu_levels) and b.c one whose naked trampoline's size spans
 * its .fmvgen_ctor (as the patch's does), and a program with two TUs of one basename
 * (d1/u.c, d2/u.c: a static `work` and its own fmvgen_cpu_levels each) and
 * an IFUNC target_clones function (what a fallback is; it links libgcc's
 * CPU detection). Checked against the symbols' sizes: copies, default,
 * resolver and trampoline bytes per function, the units and their
 * fmvgen_cpu_levels, each file's CPU detection split, and the fixed parts
 * codecost hands the budget; a stripped file tells nothing. The same shape
 * reached through IFUNC (i.c, iprog.c: isum extern, iwork static with gcc):
 * no trampoline bytes, the IFUNC symbol at the resolver, and one PLT slot
 * where the function is called in its own file, in a library (a JUMP_SLOT
 * naming the exported isum, an IRELATIVE slot for the static iwork) and in
 * a program (IRELATIVE). The generated preamble's fmvgen_cpu_levels, one
 * per linked file (test_linked_levels). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/cpuidcode.h"
#include "elf/elffile.h"
#include "elf/fmvnames.h"
#include "elf/fmvpadding.h"
#include "patch/cpuid.h"
#include "run/spawn.h"
#include "select/codecost.h"
#include "select/result.h"
#include "util/util.h"
#include "test_run_helpers.h"

#define SHAPE FIXTURES_DIR "/cpuid-shape"

/* The sizes of the FUNC symbols named name in path, an address once. */
static uint64_t sym_bytes(const char *path, const char *name)
{
    struct elf_file ef;
    assert_int_equal(elf_file_open(path, &ef), 0);
    uint64_t sum = 0, seen[8];
    size_t n_seen = 0;
    for (size_t i = 0; i < ef.n_syms; i++) {
        const struct elf_sym *s = &ef.syms[i];
        if (strcmp(s->name, name) || s->type != 2 /* STT_FUNC */) continue;
        int dup = 0;
        for (size_t k = 0; k < n_seen && !dup; k++) dup = seen[k] == s->value;
        if (dup || n_seen == 8) continue;
        seen[n_seen++] = s->value;
        sum += s->size;
    }
    elf_file_close(&ef);
    return sum;
}

static const struct code_size_function *find(const struct code_size *cs, const char *name)
{
    const struct code_size_function *f = code_size_find(cs, name);
    assert_non_null(f);
    return f;
}

/* fmvgen_resolve_IDENT + IDENT.fmvgen_init + the trampoline IDENT */
static uint64_t dispatch_bytes(const char *path, const char *ident)
{
    char *resolve = xasprintf("fmvgen_resolve_%s", ident), *init = xasprintf("%s.fmvgen_init", ident);
    uint64_t b = sym_bytes(path, resolve) + sym_bytes(path, init) + sym_bytes(path, ident);
    free(resolve);
    free(init);
    return b;
}

/* The padding after fmvgen's code in path (elf/fmvpadding.h): unit's
 * (after its fmvgen_cpu_levels, and its run padding) when unit is given,
 * else function name's. */
static uint64_t fmv_pad(const char *path, const char *unit, const char *name)
{
    struct elf_file ef;
    struct elf_fmv_padding p;
    assert_int_equal(elf_file_open(path, &ef), 0);
    assert_int_equal(elf_fmv_padding(&ef, &p), 0);
    const struct elf_fmv_padding_unit *u = unit ? elf_fmv_padding_unit(&p, unit) : NULL;
    if (unit) assert_non_null(u);
    uint64_t b = unit ? u->levels + u->run_end : elf_fmv_padding_of(&p, name);
    assert_true(b < 64);
    elf_fmv_padding_free(&p);
    elf_file_close(&ef);
    return b;
}

static void check_compiler(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    char *dir = make_temp_dir("test-cpuidcode");
    char *lib = path_join(dir, "libk.so"), *prog = path_join(dir, "prog"), *strip = path_join(dir, "stripped.so");
    char *const c_lib[] = {(char *)cc, "-O2", "-shared", "-fPIC", SHAPE "/a.c", SHAPE "/b.c", "-o", lib, NULL};
    char *const c_prog[] = {(char *)cc, "-O2", SHAPE "/prog.c", SHAPE "/d1/u.c", SHAPE "/d2/u.c", "-o", prog, NULL};
    char *const c_strip[] = {(char *)cc, "-O2", "-s", "-shared", "-fPIC", SHAPE "/a.c", "-o", strip, NULL};
    run_ok(c_lib);
    run_ok(c_prog);

    /* the library: sum and dot in a.c's one unit, sharing its CPU check */
    struct elf_file ef;
    struct elf_cpuid_code cc_lib;
    assert_int_equal(elf_file_open(lib, &ef), 0);
    assert_int_equal(elf_cpuid_code(&ef, &cc_lib), 0);
    elf_file_close(&ef);
    uint64_t levels = sym_bytes(lib, "fmvgen_cpu_levels");   /* a.c's and b.c's */
    assert_true(levels > 0);
    assert_int_equal(cc_lib.n_functions, 3);
    /* scale (b.c): its naked trampoline's size spans scale.fmvgen_ctor,
     * counted once */
    const struct elf_cpuid_function *sc = &cc_lib.functions[2];
    assert_string_equal(sc->name, "scale");
    assert_string_equal(sc->unit, "b.c#0");
    assert_int_equal(sc->levels_bytes + cc_lib.functions[0].levels_bytes, levels);
    assert_true(sym_bytes(lib, "scale.fmvgen_ctor") > 0);
    assert_int_equal(sc->dispatch_bytes,
                     sym_bytes(lib, "fmvgen_resolve_scale") + sym_bytes(lib, "scale.fmvgen_init") + sym_bytes(lib, "scale"));
    for (size_t i = 0; i < 2; i++) {
        const struct elf_cpuid_function *f = &cc_lib.functions[i];
        assert_true(!strcmp(f->name, "sum") || !strcmp(f->name, "dot"));
        assert_string_equal(f->unit, "a.c#0");
        assert_int_equal(f->n_copies, 2);
        assert_int_equal(f->levels_bytes, sym_bytes(lib, "fmvgen_cpu_levels") - sc->levels_bytes);
        char *v3 = xasprintf("fmvgen_cp_%s_x86_64_v3", f->name), *def = xasprintf("fmvgen_cp_%s_default", f->name);
        assert_int_equal(f->copy_bytes, sym_bytes(lib, v3));
        assert_int_equal(f->default_bytes, sym_bytes(lib, def));
        assert_true(f->copy_bytes > 0 && f->default_bytes > 0);
        assert_int_equal(f->dispatch_bytes, dispatch_bytes(lib, f->name));
        free(v3);
        free(def);
    }
    uint64_t sc_levels = sc->levels_bytes;
    elf_cpuid_code_free(&cc_lib);

    /* the build as codesize measures it */
    struct code_size cs;
    assert_int_equal(code_size_of_dir(dir, &cs), 0);
    assert_int_equal(cs.n_files, 2);
    size_t at_lib = strcmp(cs.files[0].path, lib) ? 1 : 0, at_prog = 1 - at_lib;
    assert_string_equal(cs.files[at_lib].path, lib);
    assert_int_equal(cs.files[at_lib].cpu_levels_bytes, levels);
    assert_int_equal(cs.files[at_lib].cpu_detect_bytes, 0);   /* no compiler resolver: no libgcc cpuinfo */
    uint64_t prog_levels = sym_bytes(prog, "fmvgen_cpu_levels");   /* both units' */
    assert_int_equal(cs.files[at_prog].cpu_levels_bytes, prog_levels);
    assert_true(cs.files[at_prog].cpu_detect_bytes > 0);     /* tc's resolver links it */

    const struct code_size_function *sum = find(&cs, "sum");
    assert_int_equal(sum->n_files, 0);
    assert_int_equal(sum->n_units, 1);
    assert_int_equal(sum->units[0].file, at_lib);
    assert_string_equal(sum->units[0].unit, "a.c#0");
    /* with the padding after them (elf/fmvpadding.h) */
    assert_int_equal(sum->units[0].levels_bytes, levels - sc_levels + fmv_pad(lib, "a.c#0", NULL));
    assert_int_equal(code_size_added(sum), sym_bytes(lib, "fmvgen_cp_sum_x86_64_v3") + dispatch_bytes(lib, "sum") +
                                               fmv_pad(lib, NULL, "sum"));
    assert_int_equal(sum->default_bytes, sym_bytes(lib, "fmvgen_cp_sum_default"));

    /* two static `work`, one per u.c: one name, two units */
    const struct code_size_function *work = find(&cs, "work");
    assert_int_equal(work->n_files, 0);
    assert_int_equal(work->n_units, 2);
    assert_string_equal(work->units[0].unit, "u.c#0");
    assert_string_equal(work->units[1].unit, "u.c#1");
    assert_int_equal(work->units[0].levels_bytes + work->units[1].levels_bytes,
                     prog_levels + fmv_pad(prog, "u.c#0", NULL) + fmv_pad(prog, "u.c#1", NULL));
    assert_int_equal(work->clone_bytes, sym_bytes(prog, "fmvgen_cp_work_x86_64_v3"));
    assert_int_equal(work->resolver_bytes, dispatch_bytes(prog, "work"));

    /* the IFUNC function: its file's runtime CPU detection, no unit */
    const struct code_size_function *tc = find(&cs, "tc");
    assert_int_equal(tc->n_files, 1);
    assert_int_equal(tc->files[0], at_prog);
    assert_int_equal(tc->n_units, 0);
    code_size_free(&cs);

    /* codecost: the parts the budget counts (the baseline: an empty build) */
    char *base = path_join(dir, "base");
    mkdir_p(base, 0755);
    struct select_report r;
    memset(&r, 0, sizeof r);
    r.n_variants = 2;
    r.variants = xcalloc(2, sizeof *r.variants);
    r.variants[0].name = xstrdup("baseline");
    r.variants[1].name = xstrdup("fma-free");
    const char *names[] = {"sum", "work", "tc"};
    r.n_functions = 3;
    r.functions = xcalloc(3, sizeof *r.functions);
    for (size_t f = 0; f < 3; f++) r.functions[f].name = xstrdup(names[f]);
    const char *dirs[] = {base, dir};
    struct select_build_dirs bd = {.variants = dirs};
    select_measure_code(&r, &bd);
    assert_int_equal(r.variants[1].code.cpu_levels_bytes, levels + prog_levels);
    /* the build's CPU detection: fmvgen's and libgcc's (prog's) */
    assert_true(r.variants[1].code.cpu_detect_bytes > (int64_t)(levels + prog_levels));
    const struct select_clone_files *cf = &r.functions[0].clone_files[1];
    assert_int_equal(cf->n, 1);
    assert_string_equal(cf->files[0].path, "libk.so");
    assert_string_equal(cf->files[0].unit, "a.c#0");
    assert_int_equal(cf->files[0].cpu_detect, levels - sc_levels + fmv_pad(lib, "a.c#0", NULL));
    cf = &r.functions[1].clone_files[1];
    assert_int_equal(cf->n, 2);
    assert_string_equal(cf->files[0].unit, "u.c#0");
    assert_string_equal(cf->files[1].unit, "u.c#1");
    cf = &r.functions[2].clone_files[1];
    assert_int_equal(cf->n, 1);
    assert_string_equal(cf->files[0].path, "prog");
    assert_null(cf->files[0].unit);
    assert_true(cf->files[0].cpu_detect > 0);
    select_report_free(&r);

    /* stripped: nothing to tell */
    run_ok(c_strip);
    assert_int_equal(elf_file_open(strip, &ef), 0);
    struct elf_cpuid_code cc_strip;
    assert_int_equal(elf_cpuid_code(&ef, &cc_strip), -1);
    assert_int_equal(cc_strip.n_functions, 0);
    elf_file_close(&ef);

    remove_tree(dir);
    free(base);
    free(dir);
    free(lib);
    free(prog);
    free(strip);
}

/* The address of the FUNC symbol name in path (the first), or 0. */
static uint64_t sym_addr(const char *path, const char *name)
{
    struct elf_file ef;
    assert_int_equal(elf_file_open(path, &ef), 0);
    const struct elf_sym *s = elf_file_sym_named(&ef, name);
    uint64_t a = s ? s->value : 0;
    elf_file_close(&ef);
    return a;
}

/* One function of the IFUNC shape in the one file cs measured: its code
 * account against the symbols, and one PLT slot. */
static void check_ifunc_function(const struct code_size *cs, const char *path, const char *ident, int global)
{
    struct elf_file ef;
    struct elf_cpuid_code cc;
    assert_int_equal(elf_file_open(path, &ef), 0);
    assert_int_equal(elf_cpuid_code(&ef, &cc), 0);
    elf_file_close(&ef);
    char *v3 = xasprintf("fmvgen_cp_%s_x86_64_v3", ident), *def = xasprintf("fmvgen_cp_%s_default", ident);
    char *res = xasprintf("fmvgen_resolve_%s", ident);
    const struct elf_cpuid_function *f = NULL;
    for (size_t i = 0; i < cc.n_functions; i++)
        if (!strcmp(cc.functions[i].name, ident)) f = &cc.functions[i];
    assert_non_null(f);
    assert_string_equal(f->unit, "i.c#0");
    assert_int_equal(f->n_copies, 2);
    assert_non_null(f->ifunc);
    assert_string_equal(f->ifunc, ident);
    assert_int_equal(f->ifunc_global, global);
    assert_true(f->resolver_addr != 0);
    assert_int_equal(f->resolver_addr, sym_addr(path, res));
    assert_int_equal(f->copy_bytes, sym_bytes(path, v3));
    assert_int_equal(f->default_bytes, sym_bytes(path, def));
    assert_int_equal(f->dispatch_bytes, sym_bytes(path, res));   /* no trampoline */
    assert_true(f->dispatch_bytes > 0);
    elf_cpuid_code_free(&cc);

    const struct code_size_function *cf = find(cs, ident);
    assert_int_equal(cs->n_files, 1);
    assert_int_equal(cf->n_units, 1);
    assert_int_equal(cf->n_plt, 1);
    assert_int_equal(cf->plt[0].file, 0);
    assert_true(cs->files[0].plt_entry_bytes >= 16);
    assert_int_equal(code_size_plt_bytes(cf), cs->files[0].plt_entry_bytes);
    assert_int_equal(code_size_added(cf),
                     sym_bytes(path, v3) + sym_bytes(path, res) + cf->padding_bytes + cs->files[0].plt_entry_bytes);
    free(v3);
    free(def);
    free(res);
}

static void check_ifunc(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    char *dir = make_temp_dir("test-cpuidcode-ifunc");
    char *lib = path_join(dir, "libi.so"), *prog = path_join(dir, "iprog");
    char *const c_lib[] = {(char *)cc, "-O2", "-shared", "-fPIC", SHAPE "/i.c", "-o", lib, NULL};
    char *const c_prog[] = {(char *)cc, "-O2", SHAPE "/iprog.c", SHAPE "/i.c", "-o", prog, NULL};
    run_ok(c_lib);
    run_ok(c_prog);
    /* each file alone (both hold isum) */
    struct code_size cs;
    char *const lib_files[] = {lib, NULL}, *const prog_files[] = {prog, NULL};
    assert_int_equal(code_size_measure(lib_files, 1, &cs), 0);
    check_ifunc_function(&cs, lib, "isum", 1);   /* a JUMP_SLOT naming isum */
    if (!strcmp(cc, "gcc")) check_ifunc_function(&cs, lib, "iwork", 0);   /* an IRELATIVE slot */
    code_size_free(&cs);
    assert_int_equal(code_size_measure(prog_files, 1, &cs), 0);
    check_ifunc_function(&cs, prog, "isum", 1);   /* an IRELATIVE slot */
    assert_int_equal(cs.files[0].cpu_levels_bytes, sym_bytes(prog, "fmvgen_cpu_levels"));
    assert_int_equal(cs.files[0].cpu_detect_bytes, 0);   /* no compiler resolver: no runtime detection */
    code_size_free(&cs);
    remove_tree(dir);
    free(dir);
    free(lib);
    free(prog);
}

static void test_ifunc(void **state)
{
    (void)state;
    check_ifunc("gcc");
    check_ifunc("clang");
    check_ifunc("clang-19");
}

/* shared bytes once: disjoint, overlapping, contained, touching */
static void test_ranges(void **state)
{
    (void)state;
    uint64_t a[] = {100, 10, 0, 5, 103, 4, 110, 2};
    assert_int_equal(elf_ranges_bytes(a, 4), 5 + 10 + 2);
    uint64_t b[] = {10, 14, 16, 6, 0, 12};   /* 0..12, 10..24, 16..22 */
    assert_int_equal(elf_ranges_bytes(b, 3), 24);
    assert_int_equal(elf_ranges_bytes(NULL, 0), 0);
}

/* The generated preamble's fmvgen_cpu_levels (patch/cpuid.h): two TUs of
 * a library, a cpuid function each (one reached through its IFUNC, one
 * through a hand-written trampoline symbol), link one fmvgen_cpu_levels.v1
 * in no TU: the file's linked_levels_bytes, each function's
 * levels_linked with none of its own, and for codesize and the budget one
 * unit ELF_CPUID_LINKED_UNIT per file (its bytes and padding) besides each
 * function's own TU (no fmvgen_cpu_levels there). */
static const char LINKED_TU[] =
    "static __attribute__((noinline)) long fmvgen_cp_%1$s_x86_64_v3(const int *p, int n)\n"
    "{ long s = 0; int i; for (i = 0; i < n; i++) s += p[i] * (long)i; return s; }\n"
    "static __attribute__((noinline)) long fmvgen_cp_%1$s_default(const int *p, int n)\n"
    "{ long s = 0; int i; for (i = 0; i < n; i++) s -= p[i] * (long)i; return s; }\n"
    "static __attribute__((used)) long (*fmvgen_resolve_%1$s(void))(const int *, int)\n"
    "{ return fmvgen_cpu_levels() & 2u ? fmvgen_cp_%1$s_x86_64_v3 : fmvgen_cp_%1$s_default; }\n"
    "long %1$s(const int *p, int n) __attribute__((ifunc(\"fmvgen_resolve_%1$s\")));\n";

static void check_linked_levels(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    char *dir = make_temp_dir("test-cpuidcode-linked");
    struct patch_target_set set;
    memset(&set, 0, sizeof set);
    sv_push(&set.targets, "arch=x86-64-v3");
    set.macro = (char *)"FMVGEN_CLONES";
    char *pre = patch_preamble_cpuid(&set, 1, "\n");
    const char *idents[] = {"one", "two"};
    char *srcs[2];
    for (int k = 0; k < 2; k++) {
        char *body = xasprintf(LINKED_TU, idents[k]);
        char *text = xasprintf("%s%s", pre, body);
        char *name = xasprintf("%s/u%d.c", dir, k + 1);
        assert_int_equal(write_file_atomic(name, text, strlen(text)), 0);
        srcs[k] = name;
        free(body);
        free(text);
    }
    char *lib = path_join(dir, "libk.so");
    char *const c_lib[] = {(char *)cc, "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", srcs[0], srcs[1],
                           "-o", lib, NULL};
    run_ok(c_lib);

    uint64_t levels = sym_bytes(lib, "fmvgen_cpu_levels.v1");
    assert_true(levels > 100 && levels < 200);
    struct elf_file ef;
    struct elf_cpuid_code c;
    assert_int_equal(elf_file_open(lib, &ef), 0);
    assert_int_equal(elf_cpuid_code(&ef, &c), 0);
    assert_int_equal(c.n_levels, 1);
    assert_int_equal(c.n_linked_levels, 1);
    assert_int_equal(c.levels_bytes, levels);
    assert_int_equal(c.linked_levels_bytes, levels);
    assert_int_equal(c.n_functions, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(c.functions[i].levels_bytes, 0);
        assert_int_equal(c.functions[i].levels_linked, 1);
        assert_non_null(c.functions[i].ifunc);
    }
    elf_cpuid_code_free(&c);
    elf_file_close(&ef);

    struct code_size cs;
    assert_int_equal(code_size_of_dir(dir, &cs), 0);
    assert_int_equal(cs.files[0].cpu_levels_bytes, levels);
    for (int k = 0; k < 2; k++) {
        const struct code_size_function *f = find(&cs, idents[k]);
        assert_int_equal(f->n_units, 2);
        assert_string_equal(f->units[0].unit, k ? "u2.c#0" : "u1.c#0");
        assert_int_equal(f->units[0].levels_bytes, fmv_pad(lib, f->units[0].unit, NULL));
        assert_string_equal(f->units[1].unit, ELF_CPUID_LINKED_UNIT);
        assert_int_equal(f->units[1].levels_bytes, levels + fmv_pad(lib, ELF_CPUID_LINKED_UNIT, NULL));
    }
    code_size_free(&cs);

    /* fmvgen_cpu_levels is in fmvgen_text (patch/cpuid.h), where no function
     * of the project comes before it: no run padding at the end of .text */
    struct elf_fmv_padding p;
    assert_int_equal(elf_file_open(lib, &ef), 0);
    const struct elf_sym *lv = elf_file_sym_named(&ef, "fmvgen_cpu_levels.v1");
    assert_non_null(lv);
    assert_true(elf_file_addr_in_section(&ef, lv->value, ELF_FMV_SECTION));
    assert_int_equal(elf_fmv_padding(&ef, &p), 0);
    const struct elf_fmv_padding_unit *u = elf_fmv_padding_unit(&p, ELF_CPUID_LINKED_UNIT);
    assert_non_null(u);
    assert_int_equal(u->run_end, 0);
    elf_fmv_padding_free(&p);
    elf_file_close(&ef);

    remove_tree(dir);
    free(dir);
    free(lib);
    free(srcs[0]);
    free(srcs[1]);
    free(pre);
    sv_free(&set.targets);
}

static void test_linked_levels(void **state)
{
    (void)state;
    check_linked_levels("gcc");
    check_linked_levels("clang");
    check_linked_levels("clang-19");
}

static void test_gcc(void **state)
{
    (void)state;
    check_compiler("gcc");
}

static void test_clang(void **state)
{
    (void)state;
    check_compiler("clang");
    check_compiler("clang-19");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang),
        cmocka_unit_test(test_ifunc),
        cmocka_unit_test(test_linked_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
