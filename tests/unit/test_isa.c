/* test_isa.c - ISA profiles (elf/funcisa.h) and their comparison
 * (candidates/isa.h): the comparison on hand-made profiles (an encoding-only
 * difference is no evidence, a removed call is), the mnemonic classes, the
 * JSON round trip, and profiles of real objects from gcc and clang: calls by
 * relocation, a GCC .cold part folded into its function, the share of an
 * inlined callee, an LTO object, a missing file and a file that is no ELF
 * object; FMAs on a loop-carried accumulator (a reduction) told from the
 * others (a recurrence through the multiplicand, a loop-invariant addend)
 * and scored as weak evidence; operations only AVX-512 has. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/isa.h"
#include "capture/codeprofile.h"
#include "elf/elffile.h"
#include "elf/funcisa.h"
#include "run/spawn.h"
#include "util/util.h"
#include "test_run_helpers.h"

static struct func_isa profile(const char *name)
{
    struct func_isa f;
    memset(&f, 0, sizeof f);
    f.name = xstrdup(name);
    f.calls = (struct strvec)STRVEC_INIT;
    f.simd_ops = (struct strvec)STRVEC_INIT;
    return f;
}

static void set_op(struct func_isa *f, enum funcisa_op op, unsigned n, const char *example)
{
    f->ops[op] = n;
    free(f->op_example[op]);
    f->op_example[op] = example ? xstrdup(example) : NULL;
}

/* The same scalar float code, legacy SSE in the build and VEX/EVEX at the
 * target (vdivss, xmm16): the needs differ, nothing else does. */
static void test_encoding_only_is_no_evidence(void **state)
{
    (void)state;
    struct func_isa b = profile("ratio"), t = profile("ratio");
    b.needs = ISA_BIT(ISA_SSE);
    b.vector_bits = 128;
    b.n_insns = t.n_insns = 3;
    b.n_by_width[1] = t.n_by_width[1] = 2;
    t.needs = ISA_BIT(ISA_AVX) | ISA_BIT(ISA_AVX512F) | ISA_BIT(ISA_AVX512VL);
    t.vector_bits = 128;
    char *ev = (char *)"unset";
    assert_int_equal(isa_compare(&b, &t, &ev, NULL), 0);
    assert_null(ev);
    /* Scalar float moving into xmm (a call to fma() became vfmadd) is no
     * "wider vector" either; the FMA and the call are the evidence. */
    struct func_isa b2 = profile("mad"), t2 = profile("mad");
    sv_push(&b2.calls, "fma");
    t2.vector_bits = 128;
    t2.n_by_width[1] = 1;
    set_op(&t2, FOP_FMA, 1, "vfmadd132sd");
    int score = isa_compare(&b2, &t2, &ev, NULL);
    assert_int_equal(score, ISA_W_CALL + ISA_W_FMA);
    assert_string_equal(ev, "vfmadd132sd replaces fma");
    free(ev);
    funcisa_free(&b);
    funcisa_free(&t);
    funcisa_free(&b2);
    funcisa_free(&t2);
}

static void test_removed_calls_are_evidence(void **state)
{
    (void)state;
    struct func_isa b = profile("f"), t = profile("f");
    sv_push(&b.calls, "__popcountdi2");
    sv_push(&b.calls, "floorf");
    sv_push(&b.calls, "ceilf");
    sv_push(&b.calls, "floorf");
    sv_push(&b.calls, "memcpy");     /* not an ISA matter: kept or not, no evidence */
    set_op(&t, FOP_POPCNT, 1, "popcnt");
    set_op(&t, FOP_ROUND, 3, "vroundss");
    char *ev = NULL;
    struct strvec dropped = STRVEC_INIT;
    int score = isa_compare(&b, &t, &ev, &dropped);
    /* 4 call sites removed; 1 popcnt and 3 vroundss added. */
    assert_int_equal(score, 4 * ISA_W_CALL + 4 * ISA_W_SINGLE);
    assert_string_equal(ev, "popcnt replaces __popcountdi2; vroundss replaces floorf, ceilf (3 calls)");
    /* the same calls as data, each once (select credits them, libcalls.h) */
    assert_int_equal(dropped.n, 3);
    assert_string_equal(dropped.v[0], "__popcountdi2");
    assert_string_equal(dropped.v[1], "floorf");
    assert_string_equal(dropped.v[2], "ceilf");
    sv_free(&dropped);
    free(ev);
    /* A call the target still makes as often is no evidence. */
    sv_push(&t.calls, "__popcountdi2");
    set_op(&t, FOP_POPCNT, 0, NULL);
    set_op(&t, FOP_ROUND, 0, NULL);
    sv_push(&t.calls, "floorf");
    sv_push(&t.calls, "floorf");
    sv_push(&t.calls, "ceilf");
    assert_int_equal(isa_compare(&b, &t, &ev, &dropped), 0);
    assert_null(ev);
    assert_int_equal(dropped.n, 0);
    funcisa_free(&b);
    funcisa_free(&t);
}

static void test_instructions_and_vectors(void **state)
{
    (void)state;
    struct func_isa b = profile("k"), t = profile("k");
    b.vector_bits = 128;
    set_op(&b, FOP_TZCNT, 1, "tzcnt");   /* "rep bsf" in the build decodes as tzcnt too */
    set_op(&t, FOP_TZCNT, 1, "tzcnt");
    set_op(&t, FOP_BMI, 1, "blsr");
    set_op(&t, FOP_FMA, 12, "vfmadd231ps");
    set_op(&t, FOP_SIMD, 2, "vpbroadcastd");
    sv_push(&t.simd_ops, "pbroadcastd");
    t.vector_bits = 256;
    t.n_by_width[2] = 20;
    char *ev = NULL;
    int score = isa_compare(&b, &t, &ev, NULL);
    assert_int_equal(score, ISA_W_SINGLE + 12 * ISA_W_FMA + 2 * ISA_W_SIMD + 20 * ISA_W_WIDE);
    assert_string_equal(ev, "1 blsr; 12 FMA; 2 SSE4/AVX2/AVX-512 operations (pbroadcastd); ymm (build: xmm)");
    free(ev);
    funcisa_free(&b);
    funcisa_free(&t);
}

static void test_classify(void **state)
{
    (void)state;
    assert_int_equal(funcisa_classify("vaddss", 1), FOP_N);
    assert_int_equal(funcisa_classify("vmovdqu64", 1), FOP_N);
    assert_int_equal(funcisa_classify("vzeroupper", 1), FOP_N);
    assert_int_equal(funcisa_classify("vpxord", 1), FOP_N);
    assert_int_equal(funcisa_classify("roundss", 0), FOP_ROUND);
    assert_int_equal(funcisa_classify("vroundsd", 1), FOP_ROUND);
    assert_int_equal(funcisa_classify("vrndscaless", 1), FOP_ROUND);
    assert_int_equal(funcisa_classify("vfmadd231ps", 1), FOP_FMA);
    assert_int_equal(funcisa_classify("vfnmsub132sd", 1), FOP_FMA);
    assert_int_equal(funcisa_classify("popcnt", 0), FOP_POPCNT);
    assert_int_equal(funcisa_classify("vpopcntd", 1), FOP_SIMD);
    assert_int_equal(funcisa_classify("pshufb", 0), FOP_SIMD);
    assert_int_equal(funcisa_classify("vpshufb", 1), FOP_SIMD);
    assert_int_equal(funcisa_classify("pmovzxbw", 0), FOP_SIMD);
    assert_int_equal(funcisa_classify("vpbroadcastd", 1), FOP_SIMD);
    assert_int_equal(funcisa_classify("vcvtusi2ss", 1), FOP_SIMD);
    assert_int_equal(funcisa_classify("maskmovdqu", 0), FOP_N);
    assert_int_equal(funcisa_classify("shlx", 1), FOP_SHIFTX);
    assert_int_equal(funcisa_classify("bzhi", 1), FOP_BMI);
    assert_int_equal(funcisa_classify("movbe", 0), FOP_MOVBE);
    assert_int_equal(funcisa_classify("addss", 0), FOP_N);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    struct func_isa f = profile("g");
    f.needs = ISA_BIT(ISA_POPCNT) | ISA_BIT(ISA_AVX2);
    f.vector_bits = 256;
    f.n_insns = 40;
    f.n_by_width[0] = 10;
    f.n_by_width[2] = 30;
    set_op(&f, FOP_POPCNT, 2, "popcnt");
    sv_push(&f.calls, "floorf");
    sv_push(&f.simd_ops, "pshufb");
    json_t *j = funcisa_to_json(&f);
    struct func_isa g;
    assert_int_equal(funcisa_from_json("g", j, &g), 0);
    assert_string_equal(g.name, "g");
    assert_true(g.needs == f.needs);
    assert_int_equal(g.vector_bits, 256);
    assert_int_equal(g.n_insns, 40);
    assert_int_equal(g.n_by_width[2], 30);
    assert_int_equal(g.ops[FOP_POPCNT], 2);
    assert_string_equal(g.op_example[FOP_POPCNT], "popcnt");
    assert_int_equal(g.calls.n, 1);
    assert_string_equal(g.calls.v[0], "floorf");
    assert_string_equal(g.simd_ops.v[0], "pshufb");
    char *ev = NULL;
    assert_int_equal(isa_compare(&f, &g, &ev, NULL), 0);   /* the same profile: nothing changes */
    json_decref(j);
    struct func_isa h;
    json_t *x = json_string("x");
    assert_int_equal(funcisa_from_json("h", x, &h), -1);
    json_decref(x);
    funcisa_free(&h);
    funcisa_free(&f);
    funcisa_free(&g);
}

static int compile(const char *cc, const char *flags1, const char *flags2, const char *src, const char *out)
{
    char *argv[] = {(char *)cc, "-O2", "-c", (char *)flags1, (char *)flags2, (char *)src, "-o", (char *)out, NULL};
    /* Drop empty flag slots. */
    char *v[9];
    size_t n = 0;
    for (size_t i = 0; i < 8; i++)
        if (*argv[i]) v[n++] = argv[i];
    v[n] = NULL;
    struct run_opts o = {.capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(v, &o, &r);
    if (rc) fprintf(stderr, "%s failed: %s\n", cc, r.err ? r.err : "");
    run_result_free(&r);
    return rc;
}

static const char SRC[] =
    "int hamming(unsigned long long a, unsigned long long b) { return __builtin_popcountll(a ^ b); }\n"
    "float down(float x) { return __builtin_floorf(x) + 1.0f; }\n"
    /* GCC moves the path calling a cold function into check.cold. */
    "__attribute__((cold, noinline)) void die(int i);\n"
    "int check(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) {\n"
    "  if (p[i] < 0) { die(i); return -1; } s += p[i] * p[i]; }\n"
    "  return s; }\n";

/* Real objects: the build (-O2) against the target (-march=x86-64-v3). */
static void test_objects(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-isa");
    char *src = path_join(dir, "f.c"), *base = path_join(dir, "b.o"), *wide = path_join(dir, "t.o");
    write_file_atomic(src, SRC, strlen(SRC));
    const char *ccs[] = {"gcc", "clang", "clang-19"};
    for (size_t c = 0; c < 3; c++) {
        if (!have(ccs[c])) continue;
        assert_int_equal(compile(ccs[c], "", "", src, base), 0);
        assert_int_equal(compile(ccs[c], "-march=x86-64-v3", "", src, wide), 0);
        struct func_isa_list b = {0}, t = {0};
        char *why = NULL;
        assert_int_equal(funcisa_read_object(base, &b, &why), 0);
        assert_int_equal(funcisa_read_object(wide, &t, &why), 0);
        /* Folded: check and check.cold (GCC) are one profile, holding the
         * cold part's call. */
        assert_non_null(funcisa_find(&b, "check"));
        assert_true(sv_contains(&funcisa_find(&b, "check")->calls, "die"));
        if (!strcmp(ccs[c], "gcc")) {
            struct strvec syms = STRVEC_INIT;
            assert_int_equal(elf_object_functions(base, &syms), 0);
            assert_true(sv_contains(&syms, "check.cold"));   /* the case folding is for */
            sv_free(&syms);
        }
        for (size_t i = 0; i < b.n; i++) assert_null(strchr(b.v[i].name, '.'));
        const struct func_isa *bh = funcisa_find(&b, "hamming"), *th = funcisa_find(&t, "hamming");
        assert_non_null(bh);
        assert_non_null(th);
        char *ev = NULL;
        assert_true(isa_compare(bh, th, &ev, NULL) > 0);
        assert_non_null(strstr(ev, "popcnt"));
        if (!strcmp(ccs[c], "gcc")) assert_string_equal(ev, "popcnt replaces __popcountdi2");
        free(ev);
        funcisa_list_free(&b);
        funcisa_list_free(&t);
    }
    /* GCC -flto: GIMPLE only; clang -flto: bitcode. */
    struct func_isa_list l = {0};
    char *why = NULL;
    assert_int_equal(compile("gcc", "-flto", "", src, base), 0);
    assert_int_equal(funcisa_read_object(base, &l, &why), -1);
    assert_non_null(strstr(why, "LTO"));
    free(why);
    assert_int_equal(compile("clang", "-flto", "", src, base), 0);
    assert_int_equal(funcisa_read_object(base, &l, &why), -1);
    assert_non_null(strstr(why, "not an ELF object"));
    free(why);
    char *missing = path_join(dir, "missing.o");
    assert_int_equal(funcisa_read_object(missing, &l, &why), -1);
    assert_non_null(strstr(why, "cannot open"));
    free(why);
    assert_int_equal(funcisa_read_object(src, &l, &why), -1);
    assert_non_null(strstr(why, "not an ELF"));
    free(why);
    assert_int_equal(l.n, 0);
    remove_tree(dir);
    free(missing);
    free(src);
    free(base);
    free(wide);
    free(dir);
}

static const char SRC_INLINED[] =
    "static long kernel(const unsigned long long *w, int n) { long t = 0;\n"
    "  for (int i = 0; i < n; i++) t += __builtin_popcountll(w[i] ^ (w[i] >> 3)); return t; }\n"
    "long run(const unsigned long long *w, int n) { return kernel(w, n) + 1; }\n";

/* Shares of inlined callees (funcisa_read_object_shares through
 * capture/codeprofile.h's addr2line): gcc -O2 inlines kernel into run; with
 * -g the build's share of run's code calls __popcountdi2 and the target's
 * (-g1, as the probe compiles) holds popcnt; without -g there are none. */
static void test_inlined_shares(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-isa-shares");
    char *src = path_join(dir, "k.c"), *base = path_join(dir, "b.o"), *wide = path_join(dir, "t.o");
    write_file_atomic(src, SRC_INLINED, strlen(SRC_INLINED));
    assert_int_equal(compile("gcc", "-g", "", src, base), 0);
    assert_int_equal(compile("gcc", "-g1", "-march=x86-64-v3", src, wide), 0);
    struct func_isa_list b = {0}, t = {0};
    char *why = NULL;
    assert_int_equal(codeprofile_read(base, &b, &why), 0);
    assert_int_equal(codeprofile_read(wide, &t, &why), 0);
    assert_null(funcisa_find(&b, "kernel"));   /* no code of its own */
    assert_non_null(funcisa_find(&b, "run"));
    const struct func_isa *bs = funcisa_find_share(&b, "kernel", "run"), *ts = funcisa_find_share(&t, "kernel", "run");
    assert_non_null(bs);
    assert_non_null(ts);
    assert_string_equal(ts->host, "run");
    assert_true(sv_contains(&bs->calls, "__popcountdi2"));
    assert_true(ts->ops[FOP_POPCNT] > 0);
    /* the host's own profile still holds everything */
    assert_true(funcisa_find(&t, "run")->ops[FOP_POPCNT] == ts->ops[FOP_POPCNT]);
    char *ev = NULL;
    assert_true(isa_compare(bs, ts, &ev, NULL) > 0);
    assert_string_equal(ev, "popcnt replaces __popcountdi2");
    free(ev);
    /* the share's host survives the store's JSON */
    json_t *j = funcisa_to_json(ts);
    struct func_isa back;
    assert_int_equal(funcisa_from_json("kernel", j, &back), 0);
    assert_string_equal(back.host, "run");
    json_decref(j);
    funcisa_free(&back);
    funcisa_list_free(&b);
    funcisa_list_free(&t);
    /* no line information: no shares */
    assert_int_equal(compile("gcc", "-g0", "-march=x86-64-v3", src, wide), 0);
    assert_int_equal(codeprofile_read(wide, &t, &why), 0);
    for (size_t i = 0; i < t.n; i++) assert_null(t.v[i].host);
    funcisa_list_free(&t);
    remove_tree(dir);
    free(src);
    free(base);
    free(wide);
    free(dir);
}

static const char SRC_CHAINS[] =
    /* a reduction: each FMA adds into the previous one's result (clang
     * unrolls it and renames the accumulator) */
    "double sumsq(const double *a, long n) { double s = 0;\n"
    "  for (long i = 0; i < n; i++) s += a[i] * a[i]; return s; }\n"
    /* FMAs outside any loop */
    "double horner(double x, const double *c) { return ((c[3] * x + c[2]) * x + c[1]) * x + c[0]; }\n"
    /* a recurrence through the multiplicand (v = x - a*v): FMA shortens it */
    "void iir(double *y, const double *x, long n, double a, double b) { double v = 0;\n"
    "  for (long i = 0; i < n; i++) { double t = x[i] - a * v; y[i] = b * t + v; v = t; } }\n"
    /* a loop-invariant addend in a register (y = x*s + 1, vectorized at
     * -O2: the trip count is known): each FMA is independent */
    "float ay[4096], ax[4096];\n"
    "void affine(float s) { for (int i = 0; i < 4096; i++) ay[i] = ax[i] * s + 1.0f; }\n";

/* elf/funcisa.h fma_chain on real objects (-O2 against -O2
 * -march=x86-64-v3) of gcc, clang and clang-19, and isa_compare's score:
 * a reduction's FMAs together weigh ISA_W_FMA_CHAIN (a candidate, below
 * --min-score: on AMD Zen such a loop gets slower), other FMAs ISA_W_FMA
 * each. */
static void test_fma_chains(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-isa-chains");
    char *src = path_join(dir, "c.c"), *base = path_join(dir, "b.o"), *wide = path_join(dir, "t.o");
    write_file_atomic(src, SRC_CHAINS, strlen(SRC_CHAINS));
    const char *ccs[] = {"gcc", "clang", "clang-19"};
    for (size_t c = 0; c < 3; c++) {
        if (!have(ccs[c])) continue;
        assert_int_equal(compile(ccs[c], "", "", src, base), 0);
        assert_int_equal(compile(ccs[c], "-march=x86-64-v3", "", src, wide), 0);
        struct func_isa_list b = {0}, t = {0};
        char *why = NULL;
        assert_int_equal(funcisa_read_object(base, &b, &why), 0);
        assert_int_equal(funcisa_read_object(wide, &t, &why), 0);
        const struct func_isa *ts = funcisa_find(&t, "sumsq"), *th = funcisa_find(&t, "horner"),
                              *ti = funcisa_find(&t, "iir");
        assert_non_null(ts);
        assert_non_null(th);
        assert_non_null(ti);
        assert_true(ts->ops[FOP_FMA] >= 1);
        assert_int_equal(ts->fma_chain, ts->ops[FOP_FMA]);
        assert_int_equal(th->ops[FOP_FMA], 3);
        assert_int_equal(th->fma_chain, 0);
        assert_true(ti->ops[FOP_FMA] >= 1);
        assert_int_equal(ti->fma_chain, 0);
        const struct func_isa *ta = funcisa_find(&t, "affine");
        assert_non_null(ta);
        assert_true(ta->ops[FOP_FMA] >= 1);
        assert_int_equal(ta->fma_chain, 0);
        char *ev = NULL;
        assert_int_equal(isa_compare(funcisa_find(&b, "sumsq"), ts, &ev, NULL), ISA_W_FMA_CHAIN);
        char *want = xasprintf("%u FMA on a loop-carried accumulator", ts->ops[FOP_FMA]);
        assert_string_equal(ev, want);
        free(want);
        free(ev);
        assert_int_equal(isa_fma_score(funcisa_find(&b, "sumsq"), ts), ISA_W_FMA_CHAIN);
        assert_int_equal(isa_compare(funcisa_find(&b, "horner"), th, &ev, NULL), 3 * ISA_W_FMA);
        assert_string_equal(ev, "3 FMA");
        free(ev);
        assert_int_equal(isa_compare(funcisa_find(&b, "iir"), ti, &ev, NULL), (int)ti->ops[FOP_FMA] * ISA_W_FMA);
        free(ev);
        assert_int_equal(isa_compare(funcisa_find(&b, "affine"), ta, &ev, NULL) >= (int)ta->ops[FOP_FMA] * ISA_W_FMA, 1);
        assert_null(strstr(ev, "loop-carried"));
        free(ev);
        /* kept by the store's JSON */
        json_t *j = funcisa_to_json(ts);
        struct func_isa back;
        assert_int_equal(funcisa_from_json("sumsq", j, &back), 0);
        assert_int_equal(back.fma_chain, ts->fma_chain);
        json_decref(j);
        funcisa_free(&back);
        funcisa_list_free(&b);
        funcisa_list_free(&t);
    }
    /* a mixed function: its chain FMAs weigh ISA_W_FMA_CHAIN together */
    struct func_isa pb = profile("mix"), pt = profile("mix");
    set_op(&pt, FOP_FMA, 5, "vfmadd231sd");
    pt.fma_chain = 3;
    char *ev = NULL;
    assert_int_equal(isa_compare(&pb, &pt, &ev, NULL), 2 * ISA_W_FMA + ISA_W_FMA_CHAIN);
    assert_string_equal(ev, "5 FMA (3 on a loop-carried accumulator)");
    free(ev);
    funcisa_free(&pb);
    funcisa_free(&pt);
    remove_tree(dir);
    free(src);
    free(base);
    free(wide);
    free(dir);
}

/* Operations only AVX-512 has (funcisa_avx512_only), counted in
 * simd_avx512: the part of the score `patch --exact`'s avx2 clones cannot
 * get (isa_avx512_score, isa_exact_loss). Real objects of gcc, clang and
 * clang-19 at -march=x86-64-v4: four unsigned conversions, vcvtusi2sd. */
static void test_avx512_only(void **state)
{
    (void)state;
    assert_true(funcisa_avx512_only("vcvtusi2sd", 1));
    assert_true(funcisa_avx512_only("vpternlogd", 1));
    assert_true(funcisa_avx512_only("vpminsq", 1));
    assert_false(funcisa_avx512_only("vpminsd", 1));
    assert_false(funcisa_avx512_only("vpshufb", 1));
    assert_false(funcisa_avx512_only("vpbroadcastd", 1));
    assert_false(funcisa_avx512_only("pshufb", 0));
    struct func_isa pb = profile("m"), pt = profile("m");
    set_op(&pt, FOP_SIMD, 3, "vpshufb");
    pt.simd_avx512 = 1;
    set_op(&pt, FOP_FMA, 2, "vfmadd231sd");
    assert_int_equal(isa_avx512_score(&pb, &pt), ISA_W_SIMD);
    assert_int_equal(isa_exact_loss(&pb, &pt), ISA_W_SIMD + 2 * ISA_W_FMA);
    funcisa_free(&pb);
    funcisa_free(&pt);

    static const char src_text[] = "double u4(unsigned long a, unsigned long b, unsigned long c, unsigned long d)\n"
                                   "{ return (double)a - (double)b + (double)c - (double)d; }\n";
    char *dir = make_temp_dir("test-isa-avx512");
    char *src = path_join(dir, "u.c"), *base = path_join(dir, "b.o"), *wide = path_join(dir, "t.o");
    write_file_atomic(src, src_text, strlen(src_text));
    const char *ccs[] = {"gcc", "clang", "clang-19"};
    for (size_t c = 0; c < 3; c++) {
        if (!have(ccs[c])) continue;
        assert_int_equal(compile(ccs[c], "", "", src, base), 0);
        assert_int_equal(compile(ccs[c], "-march=x86-64-v4", "", src, wide), 0);
        struct func_isa_list b = {0}, t = {0};
        char *why = NULL;
        assert_int_equal(funcisa_read_object(base, &b, &why), 0);
        assert_int_equal(funcisa_read_object(wide, &t, &why), 0);
        const struct func_isa *fb = funcisa_find(&b, "u4"), *ft = funcisa_find(&t, "u4");
        assert_non_null(fb);
        assert_non_null(ft);
        assert_int_equal(ft->simd_avx512, 4);
        assert_int_equal(fb->simd_avx512, 0);
        char *ev = NULL;
        int score = isa_compare(fb, ft, &ev, NULL);
        assert_true(score >= 4 * ISA_W_SIMD);
        assert_non_null(strstr(ev, "cvtusi2sd"));
        free(ev);
        assert_int_equal(isa_avx512_score(fb, ft), 4 * ISA_W_SIMD);
        json_t *j = funcisa_to_json(ft);
        struct func_isa back;
        assert_int_equal(funcisa_from_json("u4", j, &back), 0);
        assert_int_equal(back.simd_avx512, 4);
        json_decref(j);
        funcisa_free(&back);
        funcisa_list_free(&b);
        funcisa_list_free(&t);
    }
    remove_tree(dir);
    free(src);
    free(base);
    free(wide);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inlined_shares),
        cmocka_unit_test(test_encoding_only_is_no_evidence),
        cmocka_unit_test(test_removed_calls_are_evidence),
        cmocka_unit_test(test_instructions_and_vectors),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_fma_chains),
        cmocka_unit_test(test_avx512_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
