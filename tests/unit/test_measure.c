/* Unit tests of lib/measure: medians and ratios, building a variant in a
 * private copy (the source tree untouched, CC/CFLAGS reaching make, failures
 * reported), timing N runs (outputs kept, a crash described, several
 * commands interleaved), and the perf
 * profile by symbol (skipped when perf cannot record here). A copied CMake
 * build directory (tests/fixtures/select-cmake-intree, configured in-tree
 * and in build/) builds the copy's sources, not the original's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/build.h"
#include "measure/profile.h"
#include "measure/timing.h"
#include "run/spawn.h"
#include "util/util.h"

static void write_text(const char *dir, const char *name, const char *text)
{
    char *path = path_join(dir, name);
    assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
    free(path);
}

static char *read_text(const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    char *text = read_file(path, NULL);
    free(path);
    return text;
}

static void test_median_and_speedup(void **state)
{
    (void)state;
    double odd[] = {3.0, 1.0, 2.0};
    assert_true(measure_median(odd, 3) == 2.0);
    assert_true(odd[0] == 3.0);     /* input left in its order */
    double even[] = {4.0, 1.0, 3.0, 2.0};
    assert_true(measure_median(even, 4) == 2.5);
    assert_true(measure_median(even, 0) == 0.0);
    assert_true(measure_speedup(2.0, 1.0) == 2.0);
    assert_true(measure_speedup(1.0, 2.0) == 0.5);
    assert_true(measure_speedup(1.0, 0.0) == 0.0);
}

/* A project whose build records the CC and CFLAGS it was given. */
static char *make_project(const char *tmp)
{
    char *src = path_join(tmp, "my project");   /* a space: argv, not a shell */
    assert_int_equal(mkdir_p(src, 0755), 0);
    write_text(src, "Makefile",
               "CFLAGS ?= -O0\n"
               "out.txt: input.txt\n"
               "\tprintf '%s|%s\\n' \"$(CC)\" \"$(CFLAGS)\" > out.txt\n");
    write_text(src, "input.txt", "x\n");
    return src;
}

static void test_build_variant_in_private_copy(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *src = make_project(tmp);
    struct variant_spec spec = {
        .name = "avx2",
        .source_dir = src,
        .work_dir = tmp,
        .build_argv = (char *const[]){"make", NULL},
        .cc = "gcc",
        .cflags = "-O3 -mavx2",
        .make_vars = 1,
    };
    struct variant_build b;
    assert_int_equal(measure_build_variant(&spec, &b), 0);
    assert_null(b.failure);
    char *expect_dir = path_join(tmp, "avx2");
    assert_string_equal(b.dir, expect_dir);
    char *out = read_text(b.dir, "out.txt");
    assert_non_null(out);
    assert_string_equal(out, "gcc|-O3 -mavx2\n");
    /* the source tree was not built in */
    char *in_src = path_join(src, "out.txt");
    assert_false(file_exists(in_src));
    /* a second variant of the same name would overwrite a copy: refused */
    struct variant_build again;
    fmv_set_quiet(1);
    assert_int_equal(measure_build_variant(&spec, &again), -1);
    fmv_set_quiet(0);
    assert_non_null(again.failure);
    variant_build_free(&again);
    free(in_src);
    free(out);
    free(expect_dir);
    variant_build_free(&b);

    /* Without make variables, CFLAGS reaches make through the environment
     * (the Makefile's ?= gives way to it). */
    spec.name = "env";
    spec.make_vars = 0;
    spec.cflags = "-O2 -g";
    assert_int_equal(measure_build_variant(&spec, &b), 0);
    out = read_text(b.dir, "out.txt");
    assert_string_equal(out, "gcc|-O2 -g\n");
    free(out);
    variant_build_free(&b);

    /* A failing build: -1, the status, and the build's output kept. */
    write_text(src, "Makefile", "all:\n\t@echo compiling; exit 3\n");
    spec.name = "broken";
    fmv_set_quiet(1);
    assert_int_equal(measure_build_variant(&spec, &b), -1);
    fmv_set_quiet(0);
    assert_non_null(b.failure);
    assert_non_null(strstr(b.failure, "exit status 2"));   /* make's own status */
    assert_non_null(strstr(b.log, "compiling"));
    variant_build_free(&b);

    free(src);
    remove_tree(tmp);
    free(tmp);
}

static void test_copy_tree_errors(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *missing = path_join(tmp, "missing");
    fmv_set_quiet(1);
    assert_int_equal(measure_copy_tree(missing, tmp), -1);
    assert_int_equal(measure_copy_tree(tmp, tmp), -1);   /* destination exists */
    fmv_set_quiet(0);
    free(missing);
    remove_tree(tmp);
    free(tmp);
}

static void test_time_runs(void **state)
{
    (void)state;
    struct timing_result r;
    char *const echo[] = {"sh", "-c", "echo checksum 42; echo noise >&2", NULL};
    struct timing_spec spec = {.argv = echo, .runs = 3};
    assert_int_equal(measure_time(&spec, &r), 0);
    assert_int_equal(r.runs, 3);
    assert_string_equal(r.output, "checksum 42\n");
    assert_string_equal(r.errors, "noise\n");
    assert_false(r.output_varies);
    assert_null(r.failure);
    assert_true(r.median > 0);
    assert_true(r.median == measure_median(r.seconds, 3));
    timing_result_free(&r);

    /* output that changes between runs is noticed */
    char *const varying[] = {"sh", "-c", "echo $$", NULL};
    spec.argv = varying;
    spec.runs = 2;
    assert_int_equal(measure_time(&spec, &r), 0);
    assert_true(r.output_varies);
    timing_result_free(&r);

    /* a crash stops the runs and is described, no time invented */
    char *const crash[] = {"sh", "-c", "kill -ILL $$", NULL};
    spec.argv = crash;
    spec.runs = 3;
    assert_int_equal(measure_time(&spec, &r), -1);
    assert_int_equal(r.runs, 0);
    assert_true(r.median == 0);
    assert_non_null(r.failure);
    assert_non_null(strstr(r.failure, "SIGILL"));
    timing_result_free(&r);
}

/* The CPU time of a run counts the command's own and its descendants'
 * work, not its waiting: a sleep has (almost) none, a busy loop in a
 * grandchild has some. */
static void test_time_cpu(void **state)
{
    (void)state;
    struct timing_result r;
    char *const sleeper[] = {"sh", "-c", "sleep 0.3", NULL};
    struct timing_spec spec = {.argv = sleeper, .runs = 2};
    assert_int_equal(measure_time(&spec, &r), 0);
    assert_true(r.median >= 0.3);
    assert_true(r.cpu_median < 0.15);
    assert_true(r.cpu_seconds[0] >= 0 && r.cpu_seconds[1] >= 0);
    timing_result_free(&r);

    char *const busy[] = {"sh", "-c", "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'", NULL};
    spec.argv = busy;
    spec.runs = 1;
    assert_int_equal(measure_time(&spec, &r), 0);
    assert_true(r.cpu_median > 0);
    assert_true(r.cpu_median == r.cpu_seconds[0]);
    timing_result_free(&r);
}

/* measure_time_set interleaves: round by round, and a command that failed
 * is not run again. */
static void test_time_set_interleaves(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *log = path_join(tmp, "order");
    char *a = xasprintf("echo A >> '%s'", log), *b = xasprintf("echo B >> '%s'", log);
    char *c = xasprintf("echo C >> '%s'; exit 1", log);
    struct timing_spec specs[] = {
        {.argv = (char *const[]){"sh", "-c", a, NULL}, .runs = 3},
        {.argv = (char *const[]){"sh", "-c", b, NULL}, .runs = 2},
        {.argv = (char *const[]){"sh", "-c", c, NULL}, .runs = 3},
    };
    struct timing_result r[3];
    assert_int_equal(measure_time_set(specs, 3, r), 1);
    char *order = read_file(log, NULL);
    assert_string_equal(order, "A\nB\nC\nA\nB\nA\n");
    assert_int_equal(r[0].runs, 3);
    assert_int_equal(r[1].runs, 2);
    assert_int_equal(r[2].runs, 0);
    assert_non_null(r[2].failure);
    assert_null(r[0].failure);
    for (int i = 0; i < 3; i++) timing_result_free(&r[i]);
    free(order);
    free(a);
    free(b);
    free(c);
    free(log);
    remove_tree(tmp);
    free(tmp);
}

/* The fixture's program in dir (its build directory) prints this. */
static char *program_output(const char *dir)
{
    char *bin = path_join(dir, "kernel_tag");
    char *const argv[] = {bin, NULL};
    struct run_result res;
    struct run_opts opts = {.capture_stdout = 1};
    char *out = run_argv(argv, &opts, &res) == 0 ? xstrdup(res.out) : xstrdup("(did not run)");
    run_result_free(&res);
    free(bin);
    return out;
}

/* Configures and builds the CMake fixture at tmp/NAME with its build
 * directory at SUB ("" for in-tree); then does what select does with a
 * patched variant: copies the tree, rewrites kernel.c in the copy, and
 * builds a copy of that with measure_build_variant. The variant must run the
 * patched kernel, and the original tree must be left as it was. */
static void check_cmake_copy(const char *tmp, const char *name, const char *sub)
{
    char *fixture = path_join(FIXTURES_DIR, "select-cmake-intree");
    char *proj = path_join(tmp, name);
    assert_int_equal(measure_copy_tree(fixture, proj), 0);
    char *bdir = *sub ? path_join(proj, sub) : xstrdup(proj);
    char *const configure[] = {"cmake", "-S", proj, "-B", bdir, NULL};
    struct run_opts quiet = {.capture_stdout = 1, .capture_stderr = 1};
    struct run_result res;
    if (run_argv(configure, &quiet, &res) != 0) {
        run_result_free(&res);
        free(bdir);
        free(proj);
        free(fixture);
        skip();   /* no cmake here */
    }
    run_result_free(&res);
    char *const make_orig[] = {"make", "-C", bdir, NULL};
    assert_int_equal(run_argv(make_orig, &quiet, NULL), 0);
    char *before = program_output(bdir);
    assert_string_equal(before, "original 4032.0\n");

    /* select's patched variant: a copy with a changed source, then built in
     * a copy of that copy */
    char *patched_src = xasprintf("%s/src-%s", tmp, name);
    assert_int_equal(measure_copy_tree(proj, patched_src), 0);
    write_text(patched_src, "kernel.c",
               "const char *kernel_tag(void) { return \"patched\"; }\n"
               "float kernel_sum(const float *x, int n) { float s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }\n");
    char *variant = xasprintf("variant-%s", name);
    char *const build[] = {"make", "-C", *sub ? (char *)sub : ".", NULL};
    struct variant_spec spec = {.name = variant, .source_dir = patched_src, .work_dir = tmp, .build_argv = build};
    struct variant_build b;
    assert_int_equal(measure_build_variant(&spec, &b), 0);
    char *vdir = *sub ? path_join(b.dir, sub) : xstrdup(b.dir);
    char *after = program_output(vdir);
    assert_string_equal(after, "patched 2016.0\n");
    /* the original tree was not rebuilt with the patched source */
    char *orig_again = program_output(bdir);
    assert_string_equal(orig_again, "original 4032.0\n");
    /* the copy's cache now names the copy */
    char *cache = read_text(vdir, "CMakeCache.txt");
    assert_null(strstr(cache, proj));
    assert_non_null(strstr(cache, b.dir));

    /* moving a directory that is already in place, or is not CMake's, is a
     * no-op */
    assert_int_equal(measure_relocate_cmake(b.dir, sub, NULL), 0);
    assert_int_equal(measure_relocate_cmake(tmp, "", NULL), 0);

    free(cache);
    free(orig_again);
    free(after);
    free(vdir);
    variant_build_free(&b);
    free(variant);
    free(patched_src);
    free(before);
    free(bdir);
    free(proj);
    free(fixture);
}

static void test_build_copies_cmake_tree_in_tree(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    check_cmake_copy(tmp, "intree", "");
    remove_tree(tmp);
    free(tmp);
}

static void test_build_copies_cmake_tree_build_subdir(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    check_cmake_copy(tmp, "subdir", "build");
    remove_tree(tmp);
    free(tmp);
}

/* A tree configured under `fmvgen scan`: its cache names scan's wrapper in
 * the build directory (BUILD/.fmvgen/wrap/cc) as the compiler, and a build
 * type. The copy keeps both: a rewritten compiler path made CMake delete the
 * cache and build without the build type (kissfft lost -O3). */
static void test_build_copies_cmake_tree_wrapper_compiler(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *fixture = path_join(FIXTURES_DIR, "select-cmake-intree");
    char *proj = path_join(tmp, "scanned");
    assert_int_equal(measure_copy_tree(fixture, proj), 0);
    char *wrap = path_join(proj, "build/.fmvgen/wrap");
    assert_int_equal(mkdir_p(wrap, 0755), 0);
    char *cc = path_join(wrap, "cc");
    assert_int_equal(symlink("/usr/bin/cc", cc), 0);
    char *bdir = path_join(proj, "build");
    char *compiler = xasprintf("-DCMAKE_C_COMPILER=%s", cc);
    char *const configure[] = {"cmake", "-S", proj, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release", compiler, NULL};
    struct run_opts quiet = {.capture_stdout = 1, .capture_stderr = 1};
    struct run_result res;
    int configured = run_argv(configure, &quiet, &res) == 0;
    run_result_free(&res);
    if (configured) {
        char *const build[] = {"make", "-C", "build", NULL};
        struct variant_spec spec = {.name = "variant", .source_dir = proj, .work_dir = tmp, .build_argv = build};
        struct variant_build b;
        assert_int_equal(measure_build_variant(&spec, &b), 0);
        char *vdir = path_join(b.dir, "build");
        char *cache = read_text(vdir, "CMakeCache.txt");
        assert_non_null(strstr(cache, "CMAKE_BUILD_TYPE:STRING=Release\n"));
        /* the original wrapper (its type is STRING or FILEPATH, as given) */
        const char *entry = strstr(cache, "\nCMAKE_C_COMPILER:");
        assert_non_null(entry);
        char *value = xstrndup(strchr(entry, '=') + 1, strcspn(strchr(entry, '=') + 1, "\n"));
        assert_string_equal(value, cc);
        char *flags = read_text(vdir, "CMakeFiles/kernel_tag.dir/flags.make");
        assert_non_null(strstr(flags, "-O3"));   /* Release's flags */
        char *moved = xasprintf("CMAKE_CACHEFILE_DIR:INTERNAL=%s\n", vdir);
        assert_non_null(strstr(cache, moved));
        free(moved);
        free(flags);
        free(value);
        free(cache);
        free(vdir);
        variant_build_free(&b);

        /* select's -march reference: the flags go into the moved cache */
        char *ref = path_join(tmp, "reference");
        assert_int_equal(measure_copy_tree(proj, ref), 0);
        assert_int_equal(measure_relocate_cmake_with_flags(ref, "build", "-march=x86-64-v3", NULL), 0);
        char *rdir = path_join(ref, "build");
        cache = read_text(rdir, "CMakeCache.txt");
        assert_non_null(strstr(cache, "CMAKE_BUILD_TYPE:STRING=Release\n"));
        assert_non_null(strstr(cache, "CMAKE_C_FLAGS:STRING=-march=x86-64-v3\n"));   /* it was empty */
        flags = read_text(rdir, "CMakeFiles/kernel_tag.dir/flags.make");
        assert_non_null(strstr(flags, "-O3"));
        assert_non_null(strstr(flags, "-march=x86-64-v3"));
        free(flags);
        free(cache);
        free(rdir);
        free(ref);
    }
    free(compiler);
    free(bdir);
    free(cc);
    free(wrap);
    free(proj);
    free(fixture);
    remove_tree(tmp);
    free(tmp);
    if (!configured) skip();   /* no cmake here */
}

/* A cmake that throws the copied cache away (it says so, and exits 0): an
 * error, since the copy would build without the project's configuration. */
static void test_relocate_cmake_cache_deleted(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *proj = path_join(tmp, "proj");
    assert_int_equal(mkdir_p(proj, 0755), 0);
    write_text(tmp, "fake-cmake",
               "#!/bin/sh\necho 'You have changed variables that require your cache to be deleted.'\nexit 0\n");
    char *fake = path_join(tmp, "fake-cmake");
    assert_int_equal(chmod(fake, 0755), 0);
    char *cache = xasprintf("CMAKE_CACHEFILE_DIR:INTERNAL=/nonexistent/old\nCMAKE_COMMAND:INTERNAL=%s\n", fake);
    write_text(proj, "CMakeCache.txt", cache);
    char *copy = path_join(tmp, "copy");
    assert_int_equal(measure_copy_tree(proj, copy), 0);
    struct strbuf err = STRBUF_INIT;
    fmv_error_capture(&err);
    assert_int_equal(measure_relocate_cmake(copy, "", NULL), -1);
    fmv_error_capture(NULL);
    assert_non_null(strstr(sb_str(&err), "deleted the copied CMake cache"));
    sb_free(&err);
    free(copy);
    free(cache);
    free(fake);
    free(proj);
    remove_tree(tmp);
    free(tmp);
}

/* A cache whose cmake cannot run: one error line, the build not attempted. */
static void test_relocate_cmake_failure(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *proj = path_join(tmp, "proj");
    assert_int_equal(mkdir_p(proj, 0755), 0);
    write_text(proj, "CMakeCache.txt",
               "CMAKE_CACHEFILE_DIR:INTERNAL=/nonexistent/old\n"
               "CMAKE_COMMAND:INTERNAL=/nonexistent/bin/cmake\n");
    struct variant_spec spec = {.name = "v", .source_dir = proj, .work_dir = tmp,
                                .build_argv = (char *const[]){"true", NULL}};
    struct variant_build b;
    struct strbuf err = STRBUF_INIT;
    fmv_error_capture(&err);
    assert_int_equal(measure_build_variant(&spec, &b), -1);
    fmv_error_capture(NULL);
    assert_non_null(strstr(sb_str(&err), "regenerating the copied CMake build"));
    assert_non_null(b.failure);
    char *cache = read_text(b.dir, "CMakeCache.txt");
    assert_non_null(strstr(cache, b.dir));   /* the old root was replaced */
    free(cache);
    sb_free(&err);
    variant_build_free(&b);
    free(proj);
    remove_tree(tmp);
    free(tmp);
}

/* Without perf in PATH: -1 and a reason naming the Debian package. */
static void test_profile_without_perf(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", tmp, 1);     /* an empty directory: no perf there */
    struct profile p;
    char *why = NULL;
    char *const argv[] = {"/bin/true", NULL};
    int rc = profile_run(argv, NULL, tmp, &p, &why);
    setenv("PATH", old_path, 1);
    assert_int_equal(rc, -1);
    assert_non_null(why);
    assert_non_null(strstr(why, "linux-perf"));
    assert_int_equal(p.n, 0);
    free(why);
    free(old_path);
    remove_tree(tmp);
    free(tmp);
}

/* Profiles a program with two hot functions of different weights. */
static void test_profile_by_symbol(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    write_text(tmp, "hot.c",
               "volatile double sink;\n"
               "__attribute__((noinline)) void heavy(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }\n"
               "__attribute__((noinline)) void light(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.25; sink = s; }\n"
               "int main(void) { heavy(60000000); light(6000000); return 0; }\n");
    char *src = path_join(tmp, "hot.c"), *bin = path_join(tmp, "hot");
    char *const cc[] = {"gcc", "-O1", "-o", bin, src, NULL};
    assert_int_equal(run_argv(cc, &(struct run_opts){0}, NULL), 0);

    struct profile p;
    char *why = NULL;
    char *const argv[] = {bin, NULL};
    if (profile_run(argv, tmp, tmp, &p, &why) != 0) {
        /* perf missing or not permitted here: the reason must say so */
        assert_non_null(why);
        assert_true(strstr(why, "perf") != NULL);
        free(why);
        free(src);
        free(bin);
        remove_tree(tmp);
        free(tmp);
        skip();
    }
    assert_null(why);
    assert_true(p.total_samples > 0);
    long heavy = profile_samples(&p, "heavy"), light = profile_samples(&p, "light");
    assert_true(heavy > 0);
    assert_true(heavy > light);
    assert_int_equal(profile_samples(&p, "no_such_symbol"), 0);
    char *data = path_join(tmp, "perf.data");
    assert_false(file_exists(data));    /* scratch data removed */
    free(data);
    profile_free(&p);

    /* A workload is a shell command: the program runs as a grandchild of
     * perf (sh -c, then a subshell) and is sampled all the same. */
    char *const via_shell[] = {"sh", "-c", "(./hot; true)", NULL};
    assert_int_equal(profile_run(via_shell, tmp, tmp, &p, &why), 0);
    assert_true(profile_samples(&p, "heavy") > profile_samples(&p, "light"));
    assert_true(profile_samples(&p, "heavy") > 0);
    profile_free(&p);
    free(src);
    free(bin);
    remove_tree(tmp);
    free(tmp);
}

/* A C++ clone is reported by its mangled symbol, clone suffix included:
 * demangled, perf would print "ns::heavy" for every clone of it. */
static void test_profile_cxx_symbols_mangled(void **state)
{
    (void)state;
    char *tmp = make_temp_dir("test-measure");
    write_text(tmp, "hot.cc",
               "namespace ns {\n"
               "__attribute__((target_clones(\"avx2\", \"default\"), noinline))\n"
               "double heavy(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }\n"
               "}\n"
               "volatile double sink;\n"
               "int main() { sink = ns::heavy(80000000); return 0; }\n");
    char *src = path_join(tmp, "hot.cc"), *bin = path_join(tmp, "hot");
    char *const cxx[] = {"g++", "-O1", "-o", bin, src, NULL};
    struct run_opts quiet = {.capture_stdout = 1, .capture_stderr = 1};
    int built = run_argv(cxx, &quiet, NULL) == 0;
    struct profile p;
    char *why = NULL;
    char *const argv[] = {bin, NULL};
    if (!built || profile_run(argv, tmp, tmp, &p, &why) != 0) {
        free(why);
        free(src);
        free(bin);
        remove_tree(tmp);
        free(tmp);
        skip();   /* no g++, or perf cannot record here */
    }
    /* the clone that ran on this x86-64 CPU: avx2 if it has it, else default */
    long clones = profile_samples(&p, "_ZN2ns5heavyEl.avx2") + profile_samples(&p, "_ZN2ns5heavyEl.default");
    assert_true(clones > 0);
    assert_int_equal(profile_samples(&p, "ns::heavy"), 0);
    profile_free(&p);
    free(src);
    free(bin);
    remove_tree(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_and_speedup),
        cmocka_unit_test(test_build_variant_in_private_copy),
        cmocka_unit_test(test_copy_tree_errors),
        cmocka_unit_test(test_build_copies_cmake_tree_in_tree),
        cmocka_unit_test(test_build_copies_cmake_tree_build_subdir),
        cmocka_unit_test(test_build_copies_cmake_tree_wrapper_compiler),
        cmocka_unit_test(test_relocate_cmake_cache_deleted),
        cmocka_unit_test(test_relocate_cmake_failure),
        cmocka_unit_test(test_time_runs),
        cmocka_unit_test(test_time_cpu),
        cmocka_unit_test(test_time_set_interleaves),
        cmocka_unit_test(test_profile_by_symbol),
        cmocka_unit_test(test_profile_without_perf),
        cmocka_unit_test(test_profile_cxx_symbols_mangled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
