/* Unit tests of lib/verify: output comparison (exact, float-only
 * differences, tolerance, integers and words that are not noise, ignored
 * lines, binary data), --cpu
 * parsing, qemu's own stderr lines, the ldd-like library search (LD_LIBRARY_PATH,
 * $ORIGIN rpath, system, missing; libraries compiled here with gcc), and the
 * dispatch plan's request file for a target_clones program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/spawn.h"
#include "util/util.h"
#include "compare/compare.h"
#include "verify/cpus.h"
#include "verify/dispatch.h"
#include "verify/libdeps.h"

static struct output_diff cmp(const char *a, const char *b, double tol)
{
    struct output_diff d;
    output_compare(a, strlen(a), b, strlen(b), tol, &d);
    return d;
}

static void test_compare_identical(void **state)
{
    (void)state;
    struct output_diff d = cmp("sum 1.5\n", "sum 1.5\n", -1);
    assert_int_equal(d.match, OUTPUT_IDENTICAL);
    assert_int_equal(d.line, 0);
    output_diff_free(&d);
}

static void test_compare_floats_only(void **state)
{
    (void)state;
    const char *a = "n 3\nsum 52682.548220\nend\n", *b = "n 3\nsum 52682.548208\nend\n";
    struct output_diff d = cmp(a, b, -1);
    assert_int_equal(d.match, OUTPUT_FLOATS_DIFFER);
    assert_int_equal(d.line, 2);
    assert_string_equal(d.expected, "sum 52682.548220");
    assert_string_equal(d.actual, "sum 52682.548208");
    assert_true(d.max_diff > 2e-10 && d.max_diff < 3e-10);
    output_diff_free(&d);
    d = cmp(a, b, 1e-9);
    assert_int_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    output_diff_free(&d);
    d = cmp(a, b, 1e-12);
    assert_int_equal(d.match, OUTPUT_FLOATS_DIFFER);
    output_diff_free(&d);
    /* Below 1 the tolerance is absolute: 1e-3 apart is 1e-3. */
    d = cmp("x 0.001\n", "x 0.002\n", 2e-3);
    assert_int_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    output_diff_free(&d);
    d = cmp("x 0.001\n", "x 0.002\n", 5e-4);
    assert_int_equal(d.match, OUTPUT_FLOATS_DIFFER);
    output_diff_free(&d);
    /* Exponents and signs are part of the number. */
    d = cmp("v=-1.0000001e+05", "v=-1.0000002e+05", 1e-6);
    assert_int_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    output_diff_free(&d);
}

/* Column-aligned floats (od -f, printf "%12g"): a float printed one digit
 * shorter is padded one blank wider; the padding is not a text difference,
 * the float is. Padding that changes with no float changing is. */
static void test_compare_padded_columns(void **state)
{
    (void)state;
    const char *a = "      -18.284811        11.90576\n", *b = "       -18.28481       11.905761\n";
    struct output_diff d = cmp(a, b, -1);
    assert_int_equal(d.match, OUTPUT_FLOATS_DIFFER);
    assert_int_equal(d.line, 1);
    output_diff_free(&d);
    d = cmp(a, b, 1e-5);
    assert_int_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    output_diff_free(&d);
    d = cmp("1.25    x\n", "1.5     x\n", 1);   /* left-aligned */
    assert_int_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    output_diff_free(&d);
    d = cmp("  1.5\n", "   1.5\n", 1);         /* only the layout moved */
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    d = cmp("a  b\n", "a b\n", 1);             /* blanks between words are text */
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    d = cmp("  7 x\n", "   8 x\n", 1);         /* integers never differ quietly */
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
}

/* --ignore-lines: matching lines are left out on both sides (even when the
 * two sides ignore different numbers of lines), the count is this run's,
 * and a difference elsewhere keeps its line number in the unfiltered text. */
static void test_compare_ignore_lines(void **state)
{
    (void)state;
    struct line_ignore ig = {0};
    assert_int_equal(line_ignore_add(&ig, "took [0-9]+ ms"), 0);
    assert_int_equal(line_ignore_add(&ig, "^# "), 0);
    const char *ref = "tests 3\ntook 4110 ms\nresult 42\n";
    const char *same = "tests 3\ntook 97 ms\n# extra note\nresult 42\n";
    struct output_diff d;
    output_compare_filtered(ref, strlen(ref), same, strlen(same), -1, &ig, &d);
    assert_int_equal(d.match, OUTPUT_IDENTICAL);
    assert_int_equal(d.ignored, 2);
    output_diff_free(&d);
    assert_int_equal(line_ignore_count(&ig, ref, strlen(ref)), 1);
    /* Without the patterns the timing line differs. */
    output_compare_filtered(ref, strlen(ref), same, strlen(same), -1, NULL, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.line, 2);
    output_diff_free(&d);
    /* A real difference after an ignored line: line 3 of the reference. */
    const char *wrong = "tests 3\ntook 12 ms\nresult 43\n";
    output_compare_filtered(ref, strlen(ref), wrong, strlen(wrong), -1, &ig, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.line, 3);
    assert_string_equal(d.expected, "result 42");
    assert_string_equal(d.actual, "result 43");
    output_diff_free(&d);
    /* A missing last line is reported after the last reference line. */
    const char *shorter = "tests 3\ntook 12 ms\n";
    output_compare_filtered(ref, strlen(ref), shorter, strlen(shorter), -1, &ig, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.line, 3);
    output_diff_free(&d);
    /* A pattern that does not compile is refused. */
    assert_int_equal(line_ignore_add(&ig, "a("), -1);
    assert_int_equal(ig.n, 2);
    line_ignore_free(&ig);
}

/* Data with a NUL byte is binary: compared byte for byte, the first
 * differing offset reported, never filtered. */
static void test_compare_binary(void **state)
{
    (void)state;
    struct line_ignore ig = {0};
    assert_int_equal(line_ignore_add(&ig, "."), 0);
    const char a[] = {'B', 'I', 'N', 0, 7, 1, 9, '\n', 0}, b[] = {'B', 'I', 'N', 0, 7, 0, 9, '\n', 0};
    struct output_diff d;
    output_compare_filtered(a, 8, b, 8, 1.0, &ig, &d);
    assert_true(d.binary);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.byte, 5);
    assert_int_equal(d.line, 0);
    assert_int_equal(d.ignored, 0);
    output_diff_free(&d);
    output_compare_filtered(a, 8, a, 8, -1, &ig, &d);
    assert_int_equal(d.match, OUTPUT_IDENTICAL);
    output_diff_free(&d);
    /* One a prefix of the other: differs where the shorter ends. */
    output_compare_filtered(a, 8, a, 6, -1, NULL, &d);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.byte, 6);
    output_diff_free(&d);
    /* Text on one side, binary on the other: binary. */
    output_compare_filtered("BIN", 3, a, 8, -1, NULL, &d);
    assert_true(d.binary);
    assert_int_equal(d.byte, 3);
    output_diff_free(&d);
    assert_false(output_is_binary("text\n", 5));
    assert_int_equal(line_ignore_count(&ig, a, 8), 0);
    line_ignore_free(&ig);
}

static void test_compare_not_noise(void **state)
{
    (void)state;
    /* Integers are counts: never within a tolerance. */
    struct output_diff d = cmp("count 1000000\n", "count 1000001\n", 0.5);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_int_equal(d.line, 1);
    output_diff_free(&d);
    /* Digits inside words are text. */
    d = cmp("arch x86-64-v3\n", "arch x86-64-v2\n", 1.0);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    /* Text differs, or one output is longer. */
    d = cmp("avx2 yes\n", "avx2 no\n", 1.0);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    assert_string_equal(d.expected, "avx2 yes");
    assert_string_equal(d.actual, "avx2 no");
    output_diff_free(&d);
    d = cmp("1.5\n2.5\n", "1.5\n", 1.0);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    /* A float that differs plus a text difference: different. */
    d = cmp("a 1.0 b\n", "a 1.1 c\n", 1.0);
    assert_int_equal(d.match, OUTPUT_DIFFERENT);
    output_diff_free(&d);
    /* nan against a number is never within tolerance. */
    d = cmp("r nan\n", "r 1.0\n", 1e9);
    assert_int_not_equal(d.match, OUTPUT_WITHIN_TOLERANCE);
    assert_int_not_equal(d.match, OUTPUT_IDENTICAL);
    output_diff_free(&d);
    assert_string_equal(output_match_name(OUTPUT_FLOATS_DIFFER), "floats-differ");
}

static void test_cpus_parse(void **state)
{
    (void)state;
    struct strvec m = STRVEC_INIT;
    assert_int_equal(cpus_parse("Nehalem, Haswell,-fma,+avx,native,Nehalem", &m), 0);
    assert_int_equal(m.n, 2);
    assert_string_equal(m.v[0], "Nehalem");
    assert_string_equal(m.v[1], "Haswell,-fma,+avx");
    sv_free(&m);
    assert_int_equal(cpus_parse("native", &m), 0);
    assert_int_equal(m.n, 0);
    sv_free(&m);
    fmv_set_quiet(1);
    assert_int_equal(cpus_parse(",", &m), -1);
    sv_free(&m);
    assert_int_equal(cpus_parse("+avx", &m), -1);
    sv_free(&m);
    assert_int_equal(cpus_parse("", &m), -1);
    sv_free(&m);
    fmv_set_quiet(0);
    struct strvec defaults = STRVEC_INIT;
    assert_int_equal(cpus_parse(VERIFY_DEFAULT_CPUS, &defaults), 0);
    assert_int_equal(defaults.n, 4);
    assert_string_equal(defaults.v[0], "qemu64");
    sv_free(&defaults);
}

static void test_cpus_stderr_tail(void **state)
{
    (void)state;
    char *t = cpus_stderr_tail("qemu-x86_64: warning: TCG doesn't support requested feature: CPUID.01H:ECX.x2apic\n"
                               "prog: bad input\n"
                               "qemu: uncaught target signal 4 (Illegal instruction) - core dumped\n");
    assert_string_equal(t, "prog: bad input");
    free(t);
    assert_null(cpus_stderr_tail("qemu: uncaught target signal 11 (Segmentation fault) - core dumped\n"));
    assert_null(cpus_stderr_tail(NULL));
    assert_true(cpus_is_qemu_line("qemu-x86_64: warning: TCG doesn't support requested feature"));
    assert_false(cpus_is_qemu_line("checksum 3"));
    const char *level = cpus_native_level();
    assert_true(!strncmp(level, "x86-64", 6));
}

/* ---- libraries and the dispatch plan, compiled here ---- */

static int compile(char **argv)
{
    struct run_opts o = {.capture_stderr = 1, .timeout_s = 120};
    struct run_result r;
    int rc = run_argv(argv, &o, &r);
    if (rc != 0) fprintf(stderr, "compile failed: %s\n", r.err ? r.err : "");
    run_result_free(&r);
    return rc;
}

struct built {
    char *dir, *lib_dir, *prog_llp, *prog_rpath, *prog_missing;
};

static int build_fixture(void **state)
{
    struct built *b = xcalloc(1, sizeof *b);
    b->dir = make_temp_dir("test-verify");
    b->lib_dir = path_join(b->dir, "libs");
    mkdir_p(b->lib_dir, 0755);
    char *lib = path_join(b->lib_dir, "libsum.so");
    char *gone = path_join(b->dir, "libgone.so");
    char *libsrc = xasprintf("%s/verify-lib/libsum.c", FIXTURES_DIR);
    char *mainsrc = xasprintf("%s/verify-lib/main.c", FIXTURES_DIR);
    char *ldir = xasprintf("-L%s", b->lib_dir);
    char *gdir = xasprintf("-L%s", b->dir);
    b->prog_llp = path_join(b->dir, "main-llp");
    b->prog_rpath = path_join(b->dir, "main-rpath");
    b->prog_missing = path_join(b->dir, "main-missing");
    char *c1[] = {"gcc", "-O2", "-fPIC", "-shared", libsrc, "-o", lib, NULL};
    char *c2[] = {"gcc", "-O2", "-fPIC", "-shared", libsrc, "-o", gone, NULL};
    char *c3[] = {"gcc", "-O2", mainsrc, ldir, "-lsum", "-o", b->prog_llp, NULL};
    char *c4[] = {"gcc", "-O2", mainsrc, ldir, "-lsum", "-Wl,-rpath,$ORIGIN/libs", "-o", b->prog_rpath, NULL};
    char *c5[] = {"gcc", "-O2", mainsrc, gdir, "-Wl,--no-as-needed", "-lgone", ldir, "-lsum", "-o",
                  b->prog_missing, NULL};
    int rc = compile(c1) || compile(c2) || compile(c3) || compile(c4) || compile(c5);
    remove(gone);   /* main-missing now needs a library that is nowhere */
    free(lib);
    free(gone);
    free(libsrc);
    free(mainsrc);
    free(ldir);
    free(gdir);
    *state = b;
    return rc ? -1 : 0;
}

static int remove_fixture(void **state)
{
    struct built *b = *state;
    remove_tree(b->dir);
    free(b->dir);
    free(b->lib_dir);
    free(b->prog_llp);
    free(b->prog_rpath);
    free(b->prog_missing);
    free(b);
    return 0;
}

static const struct lib_dep *dep_named(const struct lib_dep *deps, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(deps[i].name, name)) return &deps[i];
    return NULL;
}

static void test_libdeps(void **state)
{
    struct built *b = *state;
    struct lib_dep *deps;
    size_t n;
    char *expected = path_join(b->lib_dir, "libsum.so");

    /* Through LD_LIBRARY_PATH only. */
    assert_int_equal(libdeps_resolve(b->prog_llp, b->lib_dir, &deps, &n), 0);
    const struct lib_dep *sum = dep_named(deps, n, "libsum.so");
    assert_non_null(sum);
    assert_string_equal(sum->path, expected);
    const struct lib_dep *libc = dep_named(deps, n, "libc.so.6");
    assert_non_null(libc);
    assert_null(libc->path);       /* the system's: not examined */
    assert_false(libc->missing);
    libdeps_free(deps, n);

    /* Without it, the library is missing. */
    assert_int_equal(libdeps_resolve(b->prog_llp, NULL, &deps, &n), 0);
    sum = dep_named(deps, n, "libsum.so");
    assert_non_null(sum);
    assert_null(sum->path);
    assert_true(sum->missing);
    libdeps_free(deps, n);

    /* The program's own $ORIGIN rpath. */
    assert_int_equal(libdeps_resolve(b->prog_rpath, NULL, &deps, &n), 0);
    sum = dep_named(deps, n, "libsum.so");
    assert_non_null(sum);
    assert_string_equal(sum->path, expected);
    libdeps_free(deps, n);

    /* A library deleted after linking. */
    assert_int_equal(libdeps_resolve(b->prog_missing, b->lib_dir, &deps, &n), 0);
    const struct lib_dep *gone = dep_named(deps, n, "libgone.so");
    assert_non_null(gone);
    assert_true(gone->missing);
    assert_non_null(dep_named(deps, n, "libsum.so")->path);
    libdeps_free(deps, n);

    /* Not ELF. */
    char *text = xasprintf("%s/verify-misc/notelf.txt", FIXTURES_DIR);
    fmv_set_quiet(1);
    assert_int_equal(libdeps_resolve(text, NULL, &deps, &n), -1);
    fmv_set_quiet(0);
    free(text);
    free(expected);
}

static void test_dispatch_plan(void **state)
{
    struct built *b = *state;
    char *scratch = make_temp_dir("test-verify-plan");
    struct dispatch_plan plan;
    assert_int_equal(dispatch_plan_build(b->prog_rpath, NULL, scratch, &plan), 0);
    assert_null(plan.unavailable);
    assert_int_equal(plan.n_objects, 2);   /* the program and libsum.so */
    assert_true(plan.objects[0].is_main);
    assert_int_equal(plan.n_entries, 1);
    const struct dispatch_entry *e = &plan.entries[0];
    assert_int_equal(e->object, 1);
    assert_string_equal(e->fn->name, "weighted_sum");
    assert_true(e->resolver != 0);
    /* The request names the library by absolute path, with the resolver's
     * file address in hex. */
    char *req = read_file(plan.request_path, NULL);
    char *lib = path_join(b->lib_dir, "libsum.so");
    char *line = xasprintf("%s\t%" PRIx64 "\n", lib, e->resolver);
    assert_string_equal(req, line);
    assert_int_equal(plan.system_libs.n, 1);
    assert_string_equal(plan.system_libs.v[0], "libc.so.6");
    free(req);
    free(lib);
    free(line);
    dispatch_plan_free(&plan);
    remove_tree(scratch);
    free(scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_identical),
        cmocka_unit_test(test_compare_floats_only),
        cmocka_unit_test(test_compare_padded_columns),
        cmocka_unit_test(test_compare_not_noise),
        cmocka_unit_test(test_compare_ignore_lines),
        cmocka_unit_test(test_compare_binary),
        cmocka_unit_test(test_cpus_parse),
        cmocka_unit_test(test_cpus_stderr_tail),
    };
    const struct CMUnitTest built[] = {
        cmocka_unit_test(test_libdeps),
        cmocka_unit_test(test_dispatch_plan),
    };
    int fails = cmocka_run_group_tests(tests, NULL, NULL);
    fails += cmocka_run_group_tests_name("built", built, build_fixture, remove_fixture);
    return fails;
}
