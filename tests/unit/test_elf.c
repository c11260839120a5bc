/* Unit tests of lib/elf: the ISA of hand-assembled instructions (bytes
 * checked against GNU as/objdump), clone discovery and verdicts on the
 * inspect-clones fixture compiled at test time by gcc, clang and clang-19
 * (when present), and the errors for files that are not x86-64 ELF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/clones.h"
#include "elf/elffile.h"
#include "elf/inspect.h"
#include "elf/isa.h"
#include "run/spawn.h"
#include "util/util.h"
#include "test_run_helpers.h"

/* --- ISA of single instructions -------------------------------------- */

static struct isa_usage analyze(const uint8_t *code, size_t len)
{
    struct isa_usage u;
    assert_int_equal(isa_analyze(code, len, 0x1000, &u), 0);
    return u;
}

#define ANALYZE(...) analyze((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

static void test_isa_vex_avx2_ymm(void **state)
{
    (void)state;
    struct isa_usage u = ANALYZE(0xc5, 0xed, 0xfe, 0xd9); /* vpaddd %ymm1,%ymm2,%ymm3 */
    assert_int_equal(u.n_insns, 1);
    assert_true(u.needs & ISA_BIT(ISA_AVX2));
    assert_false(u.needs & ISA_BIT(ISA_AVX512F));
    assert_int_equal(u.vector_bits, 256);
    assert_int_equal(u.n_by_width[2], 1);
}

static void test_isa_evex_zmm_and_vl(void **state)
{
    (void)state;
    struct isa_usage u = ANALYZE(0x62, 0xf1, 0x6c, 0x48, 0x58, 0xd9); /* vaddps %zmm1,%zmm2,%zmm3 */
    assert_true(u.needs & ISA_BIT(ISA_AVX512F));
    assert_false(u.needs & ISA_BIT(ISA_AVX512VL));
    assert_int_equal(u.vector_bits, 512);
    u = ANALYZE(0x62, 0xb1, 0x6d, 0x08, 0xfe, 0xd9); /* vpaddd %xmm17,%xmm2,%xmm3 */
    assert_true(u.needs & ISA_BIT(ISA_AVX512F));
    assert_true(u.needs & ISA_BIT(ISA_AVX512VL));
    assert_int_equal(u.vector_bits, 128);
}

static void test_isa_scalar_extensions(void **state)
{
    (void)state;
    struct isa_usage u = ANALYZE(0xf3, 0x48, 0x0f, 0xb8, 0xd8); /* popcnt %rax,%rbx */
    assert_true(u.needs == ISA_BIT(ISA_POPCNT));
    assert_int_equal(u.vector_bits, 0);
    u = ANALYZE(0xc4, 0xe2, 0xe0, 0xf2, 0xc8); /* andn: VEX-encoded, but no AVX */
    assert_true(u.needs == ISA_BIT(ISA_BMI));
    u = ANALYZE(0xc4, 0xe2, 0xf9, 0xf7, 0xcb); /* shlx */
    assert_true(u.needs == ISA_BIT(ISA_BMI2));
    u = ANALYZE(0x83, 0xc0, 0x01, 0xc3); /* add $1,%eax; ret: baseline */
    assert_true(u.needs == 0);
    assert_int_equal(u.n_insns, 2);
}

static void test_isa_sse_levels_and_fma(void **state)
{
    (void)state;
    struct isa_usage u = ANALYZE(0x66, 0x0f, 0x38, 0x40, 0xd1); /* pmulld */
    assert_true(u.needs & ISA_BIT(ISA_SSE41));
    assert_false(u.needs & ISA_BIT(ISA_AVX));
    u = ANALYZE(0x66, 0x0f, 0xfe, 0xd1); /* paddd */
    assert_true(u.needs == ISA_BIT(ISA_SSE2));
    u = ANALYZE(0xc4, 0xe2, 0x6d, 0xb8, 0xd9); /* vfmadd231ps %ymm1,%ymm2,%ymm3 */
    assert_true(u.needs & ISA_BIT(ISA_FMA));
    assert_int_equal(u.vector_bits, 256);
    u = ANALYZE(0xc5, 0xea, 0x58, 0xd9); /* vaddss: scalar, but a VEX encoding */
    assert_true(u.needs & ISA_BIT(ISA_AVX));
    assert_int_equal(u.vector_bits, 128);
}

/* Capstone 4 does not know EVEX vpcmpeqb into a mask register (AVX512BW)
 * nor kortestd: measured by their encoding, the stream stays in sync. */
static void test_isa_evex_unknown_to_capstone(void **state)
{
    (void)state;
    struct isa_usage u = ANALYZE(0x62, 0xb1, 0x75, 0x20, 0x74, 0xc8, /* vpcmpeqb %ymm16,%ymm17,%k1 */
                                 0xc4, 0xe1, 0xf9, 0x98, 0xc8,       /* kortestd %k0,%k1 */
                                 0x62, 0xf1, 0x6d, 0x28, 0xfe, 0xd9, /* {evex} vpaddd %ymm1,%ymm2,%ymm3 */
                                 0xc3);                              /* ret */
    assert_int_equal(u.n_insns, 4);
    assert_int_equal(u.n_undecoded, 0);
    assert_true(u.n_length_only >= 1);
    assert_true(u.needs & ISA_BIT(ISA_AVX512F));
    assert_true(u.needs & ISA_BIT(ISA_AVX512VL));
    assert_false(u.needs & ISA_BIT(ISA_AVX2));
    assert_int_equal(u.vector_bits, 256);
}

static void test_isa_undecodable_bytes_are_skipped(void **state)
{
    (void)state;
    struct isa_usage u = ANALYZE(0x06, 0xc3); /* push %es: invalid in 64-bit mode; then ret */
    assert_int_equal(u.n_undecoded, 1);
    assert_int_equal(u.n_insns, 1);
    char *s = isa_set_format(ISA_BIT(ISA_SSE41) | ISA_BIT(ISA_AVX512VL), ", ");
    assert_string_equal(s, "SSE4.1, AVX512VL");
    free(s);
}

/* --- clones of the fixture, per compiler ----------------------------- */

struct built {
    char *dir, *prog, *lib;
};

static int compile(const char *cc, char *const *extra, const char *src, const char *out)
{
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, cc);
    sv_push(&argv, "-O3");
    if (extra) sv_push_all(&argv, extra);
    sv_push(&argv, src);
    sv_push(&argv, "-o");
    sv_push(&argv, out);
    struct run_opts o = {.capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(sv_argv(&argv), &o, &r);
    if (rc) fprintf(stderr, "%s failed: %s\n", cc, r.err ? r.err : "");
    run_result_free(&r);
    sv_free(&argv);
    return rc;
}

static int build(const char *cc, struct built *b)
{
    b->dir = make_temp_dir("test-elf");
    b->prog = path_join(b->dir, "prog");
    b->lib = path_join(b->dir, "libscale.so");
    char *const shared[] = {"-shared", "-fPIC", NULL};
    int rc = compile(cc, NULL, FIXTURES_DIR "/inspect-clones/prog.c", b->prog);
    if (!rc) rc = compile(cc, shared, FIXTURES_DIR "/inspect-clones/lib.c", b->lib);
    return rc;
}

static void built_free(struct built *b)
{
    remove_tree(b->dir);
    free(b->dir);
    free(b->prog);
    free(b->lib);
}

static const struct elf_mv_function *find_fn(const struct elf_mv_list *l, const char *name)
{
    for (size_t i = 0; i < l->n_functions; i++)
        if (!strcmp(l->functions[i].name, name)) return &l->functions[i];
    return NULL;
}

/* The clone whose target starts like prefix ("avx2", "arch_x86"). */
static const struct inspect_clone *clone_for(const struct inspect_report *r, const char *fn, const char *prefix)
{
    for (size_t i = 0; i < r->list.n_functions; i++) {
        if (strcmp(r->list.functions[i].name, fn)) continue;
        for (size_t c = 0; c < r->list.functions[i].n_clones; c++)
            if (!strncmp(r->functions[i].clones[c].clone->target, prefix, strlen(prefix)))
                return &r->functions[i].clones[c];
    }
    return NULL;
}

static void check_compiler(const char *cc, enum elf_mv_origin origin)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    struct built b;
    assert_int_equal(build(cc, &b), 0);

    struct elf_mv_list l;
    assert_int_equal(elf_mv_read(b.prog, &l), 0);
    assert_true(l.has_symtab);
    assert_int_equal(l.n_functions, 2);  /* a dynamic program: no libc ifuncs inside */
    const struct elf_mv_function *add = find_fn(&l, "add_arrays");
    const struct elf_mv_function *col = find_fn(&l, "collatz_steps");
    assert_non_null(add);
    assert_non_null(col);
    assert_int_equal(add->origin, origin);
    assert_int_equal(add->n_clones, 3);
    assert_int_equal(col->n_clones, 2);
    assert_non_null(add->resolver);
    assert_non_null(add->ifunc);
    assert_int_equal(add->resolver_addr, add->ifunc_addr);
    assert_int_equal(l.n_irelative, 2);
    const struct elf_clone *def = elf_mv_default(add);
    assert_non_null(def);
    assert_string_equal(def->target, "default");
    assert_ptr_equal(elf_mv_clone_at(add, def->addr), def);
    assert_null(elf_mv_clone_at(add, add->resolver_addr));
    for (size_t i = 0; i < add->n_clones; i++) assert_true(add->clones[i].size > 0);
    elf_mv_list_free(&l);

    struct inspect_report r;
    assert_int_equal(inspect_file(b.prog, &r), 0);
    const struct inspect_clone *avx2 = clone_for(&r, "add_arrays", "avx2");
    const struct inspect_clone *v4 = clone_for(&r, "add_arrays", "arch_x86");
    const struct inspect_clone *useless = clone_for(&r, "collatz_steps", "avx2");
    assert_non_null(avx2);
    assert_non_null(v4);
    assert_non_null(useless);
    assert_true(avx2->isa.needs & ISA_BIT(ISA_AVX2));
    assert_int_equal(avx2->isa.vector_bits, 256);
    assert_int_equal(avx2->verdict, VERDICT_USEFUL);
    assert_true(v4->isa.vector_bits == 512 || (v4->isa.needs & ISA_BIT(ISA_AVX512VL)));
    assert_true(v4->isa.needs & ISA_BIT(ISA_AVX512F));
    assert_int_equal(useless->verdict, VERDICT_USELESS);
    assert_true(useless->beyond_default == 0);

    /* The size account adds up. */
    const struct inspect_size *s = &r.size;
    assert_int_equal(s->n_counted, 2);
    assert_int_equal(s->text_without + s->clone_bytes + s->resolver_bytes, s->text);
    uint64_t predicted = 0;
    for (size_t i = 0; i < r.list.n_functions; i++) {
        const struct elf_mv_function *f = &r.list.functions[i];
        predicted += elf_mv_default(f)->size * (f->n_clones - 1);
    }
    assert_int_equal(s->predicted_growth, predicted);
    assert_int_equal(s->n_versions, 0);  /* 3 and 2 versions: mixed */
    inspect_free(&r);

    /* The shared library: its exported ifunc and its three clones. */
    assert_int_equal(inspect_file(b.lib, &r), 0);
    assert_string_equal(inspect_kind(&r), "shared library");
    assert_int_equal(r.list.n_functions, 1);
    assert_string_equal(r.list.functions[0].name, "scale_floats");
    assert_int_equal(r.list.functions[0].n_clones, 3);
    assert_int_equal(r.size.n_versions, 3);
    inspect_free(&r);
    built_free(&b);
}

static void test_clones_gcc(void **state)
{
    (void)state;
    check_compiler("gcc", ELF_MV_GCC);
}

static void test_clones_clang(void **state)
{
    (void)state;
    check_compiler("clang", ELF_MV_CLANG);
}

static void test_clones_clang19(void **state)
{
    (void)state;
    check_compiler("clang-19", ELF_MV_CLANG);
}

/* A stripped copy: no .symtab, yet both functions are found through their
 * IRELATIVE relocations, versions by address with ISA from their code. */
static void test_stripped_and_json(void **state)
{
    (void)state;
    struct built b;
    assert_int_equal(build("gcc", &b), 0);
    char *stripped = path_join(b.dir, "prog.stripped");
    char *const strip[] = {"strip", "-o", stripped, b.prog, NULL};
    assert_int_equal(run_argv(strip, NULL, NULL), 0);

    struct elf_mv_list l;
    assert_int_equal(elf_mv_read(stripped, &l), 0);
    assert_false(l.has_symtab);
    assert_int_equal(l.n_irelative, 2);
    assert_int_equal(l.n_functions, 2);
    size_t versions = 0;
    for (size_t i = 0; i < l.n_functions; i++) {
        assert_int_equal(strncmp(l.functions[i].name, "ifunc@0x", 8), 0);
        assert_int_equal(l.functions[i].origin, ELF_MV_IFUNC);
        assert_true(l.functions[i].resolver_addr != 0);
        versions += l.functions[i].n_clones;
    }
    assert_int_equal(versions, 5);
    elf_mv_list_free(&l);

    struct inspect_report r;
    assert_int_equal(inspect_file(stripped, &r), 0);
    int ymm = 0;
    for (size_t i = 0; i < r.list.n_functions; i++)
        for (size_t c = 0; c < r.list.functions[i].n_clones; c++) {
            const struct inspect_clone *ic = &r.functions[i].clones[c];
            assert_true(ic->analyzed && ic->size_estimated && ic->size > 0);
            ymm += ic->isa.vector_bits == 256 && (ic->isa.needs & ISA_BIT(ISA_AVX2));
        }
    assert_int_equal(ymm, 1);  /* add_arrays' avx2 clone */
    char *note = inspect_stripped_note(&r);
    assert_non_null(strstr(note, "2 IRELATIVE relocations"));
    free(note);
    inspect_free(&r);

    /* JSON of the unstripped program: the keys the CLI promises. */
    assert_int_equal(inspect_file(b.prog, &r), 0);
    json_t *j = inspect_to_json(&r);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "PIE executable");
    assert_true(json_is_false(json_object_get(j, "stripped")));
    json_t *fns = json_object_get(j, "functions");
    assert_int_equal(json_array_size(fns), 2);
    json_t *f0 = json_array_get(fns, 0);
    assert_string_equal(json_string_value(json_object_get(f0, "name")), "add_arrays");
    json_t *c0 = json_array_get(json_object_get(f0, "clones"), 0);
    assert_true(json_is_true(json_object_get(c0, "default")));
    assert_true(json_is_array(json_object_get(c0, "isa")));
    json_t *size = json_object_get(j, "code_size");
    assert_int_equal(json_integer_value(json_object_get(size, "text_bytes")), (json_int_t)r.size.text);
    assert_true(json_is_real(json_object_get(size, "R")));
    json_decref(j);
    inspect_free(&r);
    free(stripped);
    built_free(&b);
}

/* --- files that are not for us --------------------------------------- */

static void test_rejects_non_x86_64(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-elf");
    struct elf_mv_list l;
    fmv_set_quiet(1);

    char *text = path_join(dir, "notes.txt");
    write_file_atomic(text, "hello\n", 6);
    assert_int_equal(elf_mv_read(text, &l), -1);

    /* A minimal ELF64 header for AArch64 (e_machine 183). */
    unsigned char eh[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    eh[16] = 2;     /* ET_EXEC */
    eh[18] = 183;   /* EM_AARCH64 */
    eh[20] = 1;     /* EV_CURRENT */
    eh[52] = 64;    /* e_ehsize */
    char *arm = path_join(dir, "arm");
    write_file_atomic(arm, (const char *)eh, sizeof eh);
    assert_int_equal(elf_mv_read(arm, &l), -1);

    char *missing = path_join(dir, "missing");
    assert_int_equal(elf_mv_read(missing, &l), -1);
    assert_int_equal(elf_mv_read(dir, &l), -1);
    fmv_set_quiet(0);

    remove_tree(dir);
    free(text);
    free(arm);
    free(missing);
    free(dir);
}

/* elf_object_functions: the functions a compile emitted. The static
 * helper inlined into its only caller is not among them; a slim LTO object
 * (GIMPLE, no code) tells nothing; a fat one does; a file that is no
 * object is unknown too. */
static void test_object_functions(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-elf");
    char *src = path_join(dir, "f.c");
    const char *text = "static int h(int *d, int n) { int s = 0; for (int i = 0; i < n; i++) s += d[i] * d[i];"
                       " return s; }\nint f(int *d, int n) { return h(d, n) + 1; }\n";
    write_file_atomic(src, text, strlen(text));
    const char *ccs[] = {"gcc", "clang"};
    for (size_t c = 0; c < 2; c++) {
        char *obj = path_join(dir, "f.o");
        char *const plain[] = {"-c", NULL};
        assert_int_equal(compile(ccs[c], plain, src, obj), 0);
        struct strvec names = STRVEC_INIT;
        assert_int_equal(elf_object_functions(obj, &names), 0);
        assert_true(sv_contains(&names, "f"));
        assert_false(sv_contains(&names, "h"));   /* inlined everywhere */
        sv_free(&names);
        char *const lto[] = {"-c", "-flto", NULL};
        assert_int_equal(compile(ccs[c], lto, src, obj), 0);
        assert_int_equal(elf_object_functions(obj, &names), -1);   /* GCC's GIMPLE, clang's bitcode */
        assert_int_equal(names.n, 0);
        free(obj);
    }
    char *fat = path_join(dir, "fat.o");
    char *const fat_lto[] = {"-c", "-flto", "-ffat-lto-objects", NULL};
    assert_int_equal(compile("gcc", fat_lto, src, fat), 0);
    struct strvec names = STRVEC_INIT;
    assert_int_equal(elf_object_functions(fat, &names), 0);
    assert_true(sv_contains(&names, "f"));
    sv_free(&names);
    assert_int_equal(elf_object_functions(src, &names), -1);   /* not ELF */
    char *missing = path_join(dir, "missing.o");
    assert_int_equal(elf_object_functions(missing, &names), -1);
    remove_tree(dir);
    free(missing);
    free(fat);
    free(src);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_functions),
        cmocka_unit_test(test_isa_vex_avx2_ymm),
        cmocka_unit_test(test_isa_evex_zmm_and_vl),
        cmocka_unit_test(test_isa_scalar_extensions),
        cmocka_unit_test(test_isa_sse_levels_and_fma),
        cmocka_unit_test(test_isa_evex_unknown_to_capstone),
        cmocka_unit_test(test_isa_undecodable_bytes_are_skipped),
        cmocka_unit_test(test_clones_gcc),
        cmocka_unit_test(test_clones_clang),
        cmocka_unit_test(test_clones_clang19),
        cmocka_unit_test(test_stripped_and_json),
        cmocka_unit_test(test_rejects_non_x86_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
