/* test_verify_copycheck.c - the rules verify applies to a function of
 * fmvgen's --dispatch cpuid (verify/copycheck.h, elf/cpuiddisp.h), on
 * dispatch results made by hand: which copy each CPU level must get (avx2
 * and arch=x86-64-v3 both at v3, default below every target), and the
 * error for an answer that is no copy, a copy beyond the CPU, a copy below
 * it; IFUNC functions and unanswered entries give none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf/cpuiddisp.h"
#include "elf/fmvnames.h"
#include "verify/copycheck.h"

static void test_slugs_and_levels(void **state)
{
    (void)state;
    assert_string_equal(elf_fmv_slug_target("default"), "default");
    assert_string_equal(elf_fmv_slug_target("x86_64_v3"), "arch=x86-64-v3");
    assert_string_equal(elf_fmv_slug_target("avx2"), "avx2");
    assert_null(elf_fmv_slug_target("x86_64_v3.cold"));
    assert_null(elf_fmv_slug_target("sse4_2"));
    assert_int_equal(elf_cpuid_target_level("default"), 1);
    assert_int_equal(elf_cpuid_target_level("arch=x86-64-v2"), 2);
    assert_int_equal(elf_cpuid_target_level("avx2"), 3);
    assert_int_equal(elf_cpuid_target_level("arch=x86-64-v4"), 4);
    assert_int_equal(elf_cpuid_target_level("arch_x86_64_v3"), 0);   /* GCC's clone suffix: no copy's */
    assert_int_equal(elf_cpuid_cpu_level("x86-64"), 1);
    assert_int_equal(elf_cpuid_cpu_level("x86-64-v4"), 4);
    assert_int_equal(elf_cpuid_cpu_level("x86-64-v2+AVX"), 0);
    assert_int_equal(elf_cpuid_cpu_level(NULL), 0);
}

/* elf/fmvnames.h, what the recognisers read: a copy's target and whether
 * its tail leaves it the whole function (an LTO rename) or a piece. */
static void test_names_and_tails(void **state)
{
    (void)state;
    struct elf_fmv_name nm;
    assert_int_equal(elf_fmv_name("fmvgen_cp_my_fn_x86_64_v3.lto_priv.0", &nm), ELF_FMV_COPY);
    assert_int_equal(nm.ident_len, 5);
    assert_memory_equal(nm.ident, "my_fn", 5);
    assert_string_equal(nm.target, "arch=x86-64-v3");
    assert_string_equal(nm.tail, ".lto_priv.0");
    assert_true(elf_fmv_tail_is_rename(nm.tail));
    assert_int_equal(elf_fmv_name("fmvgen_cp_f_default.cold", &nm), ELF_FMV_COPY);
    assert_true(nm.is_default);
    assert_false(elf_fmv_tail_is_rename(nm.tail));
    assert_int_equal(elf_fmv_name("fmvgen_resolve_f", &nm), ELF_FMV_RESOLVER);
    assert_string_equal(nm.tail, "");
    assert_true(elf_fmv_tail_is_rename(nm.tail));
    assert_int_equal(elf_fmv_name("fmvgen_resolve_f.llvm.123", &nm), ELF_FMV_RESOLVER);
    assert_true(elf_fmv_tail_is_rename(nm.tail));
    assert_int_equal(elf_fmv_name("fmvgen_resolve_f.constprop.0", &nm), ELF_FMV_RESOLVER);
    assert_false(elf_fmv_tail_is_rename(nm.tail));
    assert_int_equal(elf_fmv_name("fmvgen_resolve_", &nm), ELF_FMV_NONE);
    assert_int_equal(elf_fmv_name("fmvgen_cpu_levels.lto_priv.2", &nm), ELF_FMV_LEVELS);
    assert_int_equal(elf_fmv_name("f.fmvgen_init", &nm), ELF_FMV_TRAMPOLINE);
    assert_null(nm.tail);
    assert_false(elf_fmv_tail_is_rename(nm.tail));
}

static struct elf_clone copies[] = {
    {"fmvgen_cp_k_default", "default", 0x100, 10, 1},
    {"fmvgen_cp_k_avx2", "avx2", 0x200, 10, 0},
    {"fmvgen_cp_k_x86_64_v3", "arch=x86-64-v3", 0x300, 10, 0},
    {"fmvgen_cp_k_x86_64_v4", "arch=x86-64-v4", 0x400, 10, 0},
};

static struct elf_mv_function fn = {
    .name = "k", .origin = ELF_MV_FMVGEN, .resolver = "fmvgen_resolve_k", .resolver_addr = 0x50,
    .clones = copies, .n_clones = 4, .dispatch = ELF_MV_DISPATCH_CPUID,
};

static void test_expected(void **state)
{
    (void)state;
    const struct elf_clone *alt;
    assert_ptr_equal(copycheck_expected(&fn, 1, &alt), &copies[0]);
    assert_null(alt);
    assert_ptr_equal(copycheck_expected(&fn, 2, &alt), &copies[0]);   /* no v2 copy */
    const struct elf_clone *v3 = copycheck_expected(&fn, 3, &alt);
    assert_true((v3 == &copies[1] && alt == &copies[2]) || (v3 == &copies[2] && alt == &copies[1]));
    assert_ptr_equal(copycheck_expected(&fn, 4, &alt), &copies[3]);
    assert_null(alt);
    struct elf_mv_function no_default = fn;
    no_default.clones = copies + 1;
    no_default.n_clones = 3;
    assert_null(copycheck_expected(&no_default, 2, &alt));
}

/* One plan entry for fn, and a result answering it with the given pick
 * (NULL: "other" instead). */
struct fixture {
    struct dispatch_object obj;
    struct dispatch_entry entry;
    struct dispatch_plan plan;
    const struct elf_clone *picks[1];
    uint64_t offsets[1];
    int answered[1];
    char *other[1];
    struct dispatch_result res;
};

static void make(struct fixture *f, const struct elf_mv_function *func, const struct elf_clone *pick, char *other)
{
    memset(f, 0, sizeof *f);
    f->obj.path = "/nonexistent/prog";
    f->obj.is_main = 1;
    f->entry = (struct dispatch_entry){0, func, func->resolver_addr};
    f->plan.objects = &f->obj;
    f->plan.n_objects = 1;
    f->plan.entries = &f->entry;
    f->plan.n_entries = 1;
    f->picks[0] = pick;
    f->offsets[0] = pick ? pick->addr : 0x999;
    f->answered[0] = 1;
    f->other[0] = other;
    f->res = (struct dispatch_result){.n = 1, .picks = f->picks, .offsets = f->offsets, .answered = f->answered,
                                      .other = f->other};
}

static void test_errors(void **state)
{
    (void)state;
    struct fixture f;
    /* the right copies: no error, avx2 or v3 on a v3 CPU */
    make(&f, &fn, &copies[0], NULL);
    assert_null(copycheck_error(&f.plan, 0, &f.res, "x86-64-v2"));
    make(&f, &fn, &copies[1], NULL);
    assert_null(copycheck_error(&f.plan, 0, &f.res, "x86-64-v3"));
    make(&f, &fn, &copies[2], NULL);
    assert_null(copycheck_error(&f.plan, 0, &f.res, "x86-64-v3"));
    /* level unknown: the pick is not judged */
    make(&f, &fn, &copies[3], NULL);
    assert_null(copycheck_error(&f.plan, 0, &f.res, NULL));

    /* beyond the CPU */
    make(&f, &fn, &copies[2], NULL);
    char *e = copycheck_error(&f.plan, 0, &f.res, "x86-64-v2");
    assert_non_null(e);
    assert_string_equal(e, "k: fmvgen_resolve_k returned fmvgen_cp_k_x86_64_v3 (arch=x86-64-v3) on an x86-64-v2 CPU, "
                           "which must get fmvgen_cp_k_default (default): that copy needs more than the CPU has "
                           "(SIGILL at its first such instruction)");
    free(e);
    /* below it */
    make(&f, &fn, &copies[0], NULL);
    e = copycheck_error(&f.plan, 0, &f.res, "x86-64-v4");
    assert_non_null(e);
    assert_non_null(strstr(e, "which must get fmvgen_cp_k_x86_64_v4 (arch=x86-64-v4): fmvgen_cpu_levels read the CPU"));
    free(e);
    /* no copy at all: named, with the copies it should be one of */
    make(&f, &fn, NULL, "NULL");
    e = copycheck_error(&f.plan, 0, &f.res, "x86-64-v3");
    assert_string_equal(e, "k: fmvgen_resolve_k returned NULL, not one of its copies (fmvgen_cp_k_default, "
                           "fmvgen_cp_k_avx2, fmvgen_cp_k_x86_64_v3, fmvgen_cp_k_x86_64_v4)");
    free(e);
    make(&f, &fn, NULL, "0x999 (not a known clone)");
    e = copycheck_error(&f.plan, 0, &f.res, NULL);   /* the file cannot be read: the address alone */
    assert_non_null(strstr(e, "returned 0x999, no function's start, not one of its copies"));
    free(e);

    /* no answer, or not cpuid dispatch: nothing to say here */
    make(&f, &fn, NULL, NULL);
    f.answered[0] = 0;
    assert_null(copycheck_error(&f.plan, 0, &f.res, "x86-64-v3"));
    struct elf_mv_function ifunc = fn;
    ifunc.dispatch = ELF_MV_DISPATCH_IFUNC;
    make(&f, &ifunc, NULL, "0x999 (not a known clone)");
    assert_null(copycheck_error(&f.plan, 0, &f.res, "x86-64-v3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slugs_and_levels),
        cmocka_unit_test(test_names_and_tails),
        cmocka_unit_test(test_expected),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
