/* Unit test of what select proves about a profiled run (select/ranwhat.h):
 * the mmap records of `perf script --show-mmap-events --show-task-events
 * -F comm,pid` (perf 6.1's output, copied from a run of the select-libtool
 * fixture's wrapper bin/prog on this machine, then hand-edited), the
 * classification of a loaded object (this variant's copy, the user's tree,
 * another variant's copy, the system), the errors for a library loaded from
 * the user's tree through a libtool wrapper, for a program of the user's
 * tree and for another variant's copy, the clone check, the same-programs
 * check, and the namespace path mapping (run/namespace.h). No perf needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "measure/profile.h"
#include "run/namespace.h"
#include "select/ranwhat.h"

#define WORK "/tmp/fmvgen-select.X"
#define COPY WORK "/fma-levels"

/* The wrapper (run by dash, comm "prog") execs .libs/lt-prog of the
 * variant's copy, which loads libdot.so and libfill.so of the USER's tree. */
static const char MAPS[] =
    "         swapper     0 PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1258780) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
    "       perf-exec     0 PERF_RECORD_COMM: perf-exec:28112/28112\n"
    "            prog 28112 PERF_RECORD_COMM exec: prog:28112/28112\n"
    "            prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x55d5746a1000(0x13000) @ 0x4000 fe:00 247230 0]: r-xp /usr/bin/dash\n"
    "            prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x7f84f4095000(0x26000) @ 0x1000 fe:00 332383 0]: r-xp /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
    "            prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x7f84f4092000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]\n"
    "            prog 28112 \n"
    "         lt-prog 28112 PERF_RECORD_COMM exec: lt-prog:28112/28112\n"
    "         lt-prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x56271daee000(0x1000) @ 0x1000 fe:00 10961633 2456197407]: r-xp " COPY "/bin/.libs/lt-prog\n"
    "         lt-prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x7f6b80622000(0x26000) @ 0x1000 fe:00 332383 0]: r-xp /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
    "         lt-prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x7f6b80613000(0x1000) @ 0x1000 fe:00 10955602 685337171]: r-xp /tmp/lt/lib/libdot.so\n"
    "         lt-prog 28112 PERF_RECORD_MMAP2 28112/28112: [0x7f6b8060e000(0x1000) @ 0x1000 fe:00 10956087 4248824200]: r-xp /tmp/lt/lib/libfill.so\n"
    "         lt-prog 28112 \n"
    "         lt-prog 28112 PERF_RECORD_EXIT(28112:28112):(28097:28097)\n"
    "     Web Content 28113 PERF_RECORD_MMAP2 28113/28113: [0x7f00(0x1000) @ 0 fe:00 1 0]: r-xp /opt/a b/libx.so\n";

static const char REPORT[] =
    " 80.00% | 1325 |/tmp/lt/lib/libdot.so |0x1100 B [.] dot\n"
    " 10.00% | 40   |" COPY "/bin/.libs/lt-prog |0x1200 B [.] main\n"
    " 5.00%  | 3    |/tmp/lt/lib/libfill.so |0x1100 B [.] fill\n"
    " 5.00%  | 9    |/usr/lib/x86_64-linux-gnu/libc.so.6 |0x1000 D [.] memset\n"
    " 1.00%  | 2    |[kernel.kallsyms] |0xffffffff82258857 k [k] clear_page\n";

static const struct ranwhat_places PLACES = {
    .this_copy = COPY, .this_dir = COPY, .root = "/tmp/lt", .builddir = "/tmp/lt", .work = WORK,
};

static void test_parse_maps(void **state)
{
    (void)state;
    struct profile p = {0};
    assert_int_equal(profile_parse_maps(MAPS, &p), 9);
    assert_int_equal(p.n_maps, 9);
    assert_string_equal(p.maps[0].path, "[kernel.kallsyms]_text");
    assert_int_equal(p.maps[0].pid, -1);
    assert_false(p.maps[0].first);
    assert_string_equal(p.maps[1].path, "/usr/bin/dash");   /* the script's interpreter: its executable */
    assert_string_equal(p.maps[1].comm, "prog");
    assert_int_equal(p.maps[1].pid, 28112);
    assert_true(p.maps[1].first);
    assert_false(p.maps[2].first);
    assert_string_equal(p.maps[4].path, COPY "/bin/.libs/lt-prog");   /* after the exec */
    assert_string_equal(p.maps[4].comm, "lt-prog");
    assert_true(p.maps[4].first);
    assert_string_equal(p.maps[6].path, "/tmp/lt/lib/libdot.so");
    assert_false(p.maps[6].first);
    assert_string_equal(p.maps[8].comm, "Web Content");   /* a comm with a space */
    assert_string_equal(p.maps[8].path, "/opt/a b/libx.so");   /* a path with a space */
    assert_false(p.maps[8].first);   /* no exec seen for that pid */
    profile_free(&p);

    struct profile none = {0};   /* samples only: no maps (a perf without mmap data) */
    assert_int_equal(profile_parse_maps("  prog 1 \n  prog 1 \n", &none), 0);
    assert_int_equal(none.n_maps, 0);
    profile_free(&none);
}

static void test_classify(void **state)
{
    (void)state;
    assert_int_equal(ranwhat_classify(COPY "/lib/libdot.so", &PLACES), RANWHAT_THIS);
    assert_int_equal(ranwhat_classify(COPY, &PLACES), RANWHAT_THIS);
    assert_int_equal(ranwhat_classify("/tmp/lt/lib/libdot.so", &PLACES), RANWHAT_USER);
    assert_int_equal(ranwhat_classify("/tmp/ltx/lib/libdot.so", &PLACES), RANWHAT_SYSTEM);   /* not a prefix match */
    assert_int_equal(ranwhat_classify(WORK "/baseline/lib/libdot.so", &PLACES), RANWHAT_OTHER);
    assert_int_equal(ranwhat_classify(WORK "/fma-levels2/x.so", &PLACES), RANWHAT_OTHER);
    assert_int_equal(ranwhat_classify("/usr/lib/x86_64-linux-gnu/libc.so.6", &PLACES), RANWHAT_SYSTEM);
    assert_int_equal(ranwhat_classify("[vdso]", &PLACES), RANWHAT_SYSTEM);
    assert_int_equal(ranwhat_classify(NULL, &PLACES), RANWHAT_SYSTEM);
    /* a fresh build dir beside a source copy, and a user's build dir outside the root */
    struct ranwhat_places fresh = {.this_copy = WORK "/src-fma-free", .this_dir = WORK "/fma-free",
                                   .root = "/src/p", .builddir = "/build/p", .work = WORK};
    assert_int_equal(ranwhat_classify(WORK "/fma-free/prog", &fresh), RANWHAT_THIS);
    assert_int_equal(ranwhat_classify(WORK "/src-fma-free/gen/x.so", &fresh), RANWHAT_THIS);
    assert_int_equal(ranwhat_classify(WORK "/src-baseline/gen/x.so", &fresh), RANWHAT_OTHER);
    assert_int_equal(ranwhat_classify("/build/p/prog", &fresh), RANWHAT_USER);
    assert_int_equal(ranwhat_classify("/src/p/gen/x.so", &fresh), RANWHAT_USER);
}

static void load(struct profile *p, const char *report)
{
    memset(p, 0, sizeof *p);
    profile_parse_report(report, p);
    profile_parse_maps(MAPS, p);
}

/* The libtool case: the copy's lt-prog loaded the user's libdot.so. */
static void test_library_from_user_tree(void **state)
{
    (void)state;
    struct profile p;
    load(&p, REPORT);
    struct ranwhat_finding f;
    assert_int_equal(ranwhat_check_run(&p, &PLACES, &f), 1);
    assert_int_equal(f.place, RANWHAT_USER);
    assert_string_equal(f.path, "/tmp/lt/lib/libdot.so");   /* the most sampled one */
    assert_int_equal(f.samples, 1325);
    assert_false(f.is_program);
    assert_string_equal(f.loader, COPY "/bin/.libs/lt-prog");
    char *msg = ranwhat_describe(&f, &PLACES, "fma-levels", "./bin/prog 20000", "--no-namespaces was given");
    assert_non_null(strstr(msg, "/tmp/lt/lib/libdot.so: fma-levels's run of './bin/prog 20000' ran this file "
                                "(1325 samples), from the user's tree /tmp/lt, not from the variant's own build in "
                                COPY ", loaded by " COPY "/bin/.libs/lt-prog; likely cause: a libtool wrapper"));
    assert_non_null(strstr(msg, "private mount namespace, not used here: --no-namespaces was given"));
    assert_non_null(strstr(msg, "nothing selected"));
    assert_null(strchr(msg, '\n'));
    free(msg);
    ranwhat_finding_free(&f);
    profile_free(&p);

    /* the same through a RUNPATH: a program that is no libtool one */
    struct profile q;
    load(&q, " 80.00% | 1325 |/tmp/lt/lib/libdot.so |0x1100 B [.] dot\n");
    free(q.maps[4].path);
    q.maps[4].path = xstrdup(COPY "/bin/prog-rpath");
    assert_int_equal(ranwhat_check_run(&q, &PLACES, &f), 1);
    msg = ranwhat_describe(&f, &PLACES, "baseline", "./bin/prog-rpath", NULL);
    assert_non_null(strstr(msg, "loaded by " COPY "/bin/prog-rpath; likely cause: the program's RUNPATH"));
    assert_non_null(strstr(msg, "the copy was mounted at the project's path"));
    free(msg);
    ranwhat_finding_free(&f);
    profile_free(&q);
}

/* A program of the user's tree itself (run by its absolute path, or never
 * rebuilt in the copy), and an object of another variant's copy. */
static void test_program_and_other_variant(void **state)
{
    (void)state;
    struct profile p;
    load(&p, " 90.00% | 500 |/tmp/lt/bin/.libs/lt-prog |0x1100 B [.] dot\n");
    free(p.maps[4].path);
    p.maps[4].path = xstrdup("/tmp/lt/bin/.libs/lt-prog");
    struct ranwhat_finding f;
    assert_int_equal(ranwhat_check_run(&p, &PLACES, &f), 1);
    assert_true(f.is_program);
    char *msg = ranwhat_describe(&f, &PLACES, "fma-free", "/tmp/lt/bin/prog", "fmvgen-ns: not found");
    assert_non_null(strstr(msg, "/tmp/lt/bin/.libs/lt-prog: fma-free's run of '/tmp/lt/bin/prog' ran this file"));
    assert_non_null(strstr(msg, "(a program the workload started); likely cause: the build command does not rebuild"));
    free(msg);
    ranwhat_finding_free(&f);
    profile_free(&p);

    load(&p, " 90.00% | 500 |" WORK "/baseline/lib/libdot.so |0x1100 B [.] dot\n");
    assert_int_equal(ranwhat_check_run(&p, &PLACES, &f), 1);
    assert_int_equal(f.place, RANWHAT_OTHER);
    msg = ranwhat_describe(&f, &PLACES, "fma-levels", "./bin/prog", NULL);
    assert_non_null(strstr(msg, "from another variant's copy under " WORK));
    free(msg);
    ranwhat_finding_free(&f);
    profile_free(&p);

    /* the variant's own objects and the system's are fine */
    load(&p, " 90.00% | 500 |" COPY "/lib/libdot.so |0x1100 B [.] dot.arch_x86_64_v3\n"
             " 9.00% | 50 |/usr/lib/x86_64-linux-gnu/libc.so.6 |0x1000 D [.] memset\n"
             " 1.00% | 5 |[unknown] |0 ! [.] 0000000000000000\n");
    assert_int_equal(ranwhat_check_run(&p, &PLACES, &f), 0);
    assert_null(f.path);
    profile_free(&p);
}

static void test_clone_symbols(void **state)
{
    (void)state;
    assert_true(ranwhat_is_clone_symbol("dot.arch_x86_64_v3", "dot"));
    assert_true(ranwhat_is_clone_symbol("dot.default", "dot"));
    assert_true(ranwhat_is_clone_symbol("dot.avx2.0", "dot"));
    assert_true(ranwhat_is_clone_symbol("dot.resolver", "dot"));
    assert_true(ranwhat_is_clone_symbol("dot.arch_x86_64_v3.cold", "dot"));
    assert_false(ranwhat_is_clone_symbol("dot", "dot"));
    assert_false(ranwhat_is_clone_symbol("dot.constprop.0", "dot"));
    assert_false(ranwhat_is_clone_symbol("dot.part.1", "dot"));
    assert_false(ranwhat_is_clone_symbol("dot.cold", "dot"));
    assert_false(ranwhat_is_clone_symbol("dotx.avx2", "dot"));
    /* fmvgen's dispatch names (cpuid copies, resolver, trampoline, pointer mode's body) */
    assert_true(ranwhat_is_clone_symbol("fmvgen_cp_dot_x86_64_v3", "dot"));
    assert_true(ranwhat_is_clone_symbol("fmvgen_cp_dot_default", "dot"));
    assert_true(ranwhat_is_clone_symbol("fmvgen_resolve_dot", "dot"));
    assert_true(ranwhat_is_clone_symbol("dot.fmvgen_init", "dot"));
    assert_true(ranwhat_is_clone_symbol("fmvgen_mv_dot.avx2", "dot"));
    assert_false(ranwhat_is_clone_symbol("fmvgen_cp_dotx_avx2", "dot"));
    assert_false(ranwhat_is_clone_symbol("fmvgen_cpu_levels", "dot"));

    /* variant runs: plain dot only, in the user's library */
    struct ranwhat_tally t = {0};
    struct profile p = {0};
    profile_parse_report(" 80% | 300 |/tmp/lt/bin/prog |0x1 B [.] dot\n"
                         " 10% | 30 |/tmp/lt/bin/prog |0x2 B [.] dot.constprop.0\n"
                         " 10% | 30 |/tmp/lt/bin/prog |0x3 B [.] dotx\n", &p);
    ranwhat_tally_add(&t, &p, "dot");
    ranwhat_tally_add(&t, &p, "dot");
    assert_int_equal(t.samples, 660);
    assert_int_equal(t.clone_samples, 0);
    assert_string_equal(t.plain_dso, "/tmp/lt/bin/prog");
    assert_true(ranwhat_clones_missing(&t, 300, 1, 20));
    assert_false(ranwhat_clones_missing(&t, 300, 0, 20));   /* no clones in the variant's files: nothing proven */
    assert_false(ranwhat_clones_missing(&t, 10, 1, 20));    /* cold in the baseline */
    char *msg = ranwhat_describe_missing(&t, "dot", "fma-levels", COPY, "--no-namespaces was given");
    assert_non_null(strstr(msg, "/tmp/lt/bin/prog: fma-levels ran plain dot here (660 samples), never one of its "
                                "clones, which the variant's build in " COPY " holds; likely cause: this program"));
    assert_non_null(strstr(msg, "private mount namespaces were not used: --no-namespaces was given"));
    free(msg);
    profile_free(&p);

    profile_parse_report(" 80% | 300 |" COPY "/bin/prog |0x1 B [.] dot.arch_x86_64_v4\n", &p);
    ranwhat_tally_add(&t, &p, "dot");
    assert_int_equal(t.clone_samples, 300);
    assert_false(ranwhat_clones_missing(&t, 300, 1, 20));
    ranwhat_tally_free(&t);
    profile_free(&p);
}

static void test_same_objects(void **state)
{
    (void)state;
    struct profile p;
    load(&p, REPORT);
    char *a = ranwhat_project_objects(&p, &PLACES);
    assert_string_equal(a, "bin/.libs/lt-prog");   /* the user's libraries are not the copy's */
    free(p.maps[6].path);
    p.maps[6].path = xstrdup(COPY "/lib/libdot.so");
    char *b = ranwhat_project_objects(&p, &PLACES);
    assert_string_equal(b, "bin/.libs/lt-prog\nlib/libdot.so");
    assert_null(ranwhat_same_objects(a, "run 1 of baseline", a, "run 2 of baseline", "./bin/prog"));
    char *msg = ranwhat_same_objects(a, "run 1 of baseline", b, "run 2 of baseline", "./bin/prog");
    assert_string_equal(msg, "lib/libdot.so: run 2 of baseline of './bin/prog' loaded it, run 1 of baseline did "
                             "not: a workload must run the same programs and libraries in every run and every "
                             "variant (a program that moves between runs cannot be compared); no verdict, nothing "
                             "selected");
    free(msg);
    msg = ranwhat_same_objects(b, "run 1 of baseline", a, "run 1 of fma-free", "./bin/prog");
    assert_non_null(strstr(msg, "lib/libdot.so: run 1 of baseline of './bin/prog' loaded it, run 1 of fma-free did not"));
    free(msg);
    free(a);
    free(b);
    profile_free(&p);

    /* a fresh build dir beside the source copy: its objects as BUILD/... */
    struct ranwhat_places fresh = {.this_copy = WORK "/src-fma-free", .this_dir = WORK "/fma-free",
                                   .root = "/src/p", .builddir = "/build/p", .work = WORK};
    struct profile q = {0};
    profile_parse_maps("p 1 PERF_RECORD_MMAP2 1/1: [0x1(0x1) @ 0 fe:00 1 0]: r-xp " WORK "/fma-free/prog\n", &q);
    char *c = ranwhat_project_objects(&q, &fresh);
    assert_string_equal(c, "BUILD/prog");
    free(c);
    profile_free(&q);
}

static void test_namespace_paths(void **state)
{
    (void)state;
    struct ns_bind b[2] = {{WORK "/src-x", "/src/p"}, {WORK "/x", "/src/p/build"}};
    char *s = ns_outside_path("/src/p/lib/libk.so", b, 2);
    assert_string_equal(s, WORK "/src-x/lib/libk.so");
    free(s);
    s = ns_outside_path("/src/p/build/prog", b, 2);   /* the later, inner mount wins */
    assert_string_equal(s, WORK "/x/prog");
    free(s);
    s = ns_outside_path("/src/p", b, 2);
    assert_string_equal(s, WORK "/src-x");
    free(s);
    s = ns_outside_path("/src/pp/x", b, 2);
    assert_string_equal(s, "/src/pp/x");
    free(s);
    s = ns_outside_path("[vdso]", b, 2);
    assert_string_equal(s, "[vdso]");
    free(s);

    struct strvec argv = STRVEC_INIT;
    ns_command_prefix("/x/fmvgen-ns", b, 2, &argv);
    assert_int_equal(argv.n, 8);
    assert_string_equal(argv.v[1], "--bind");
    assert_string_equal(argv.v[3], "/src/p");
    assert_string_equal(argv.v[7], "--");
    sv_free(&argv);

    /* the helper's usage errors: nothing is entered, status 125 */
    char *no_prog[] = {"fmvgen-ns", "--bind", "/a", "/b", "--", NULL};
    char *bad[] = {"fmvgen-ns", "--bind", "/a", NULL};
    assert_int_equal(ns_helper_main(5, no_prog), 125);
    assert_int_equal(ns_helper_main(3, bad), 125);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_maps),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_library_from_user_tree),
        cmocka_unit_test(test_program_and_other_variant),
        cmocka_unit_test(test_clone_symbols),
        cmocka_unit_test(test_same_objects),
        cmocka_unit_test(test_namespace_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
