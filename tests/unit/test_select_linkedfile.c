/* Unit tests of lib/select/linkedfile.h's path mapping: a variant's file
 * at the project's path and back to the baseline's copy, in the three
 * layouts of select/tree.h (in-tree; build dir below the root; a fresh
 * build dir beside a source copy), and files outside both. Which candidate
 * a file holds is tested end to end by cli_test_select_linked_name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "select/linkedfile.h"

static void expect_path(char *got, const char *want)
{
    if (!want) assert_null(got);
    else assert_string_equal(got, want);
    free(got);
}

static void test_in_tree(void **state)
{
    (void)state;
    const char *root = "/p", *bd = "/p", *copy = "/w/fma-levels", *dir = "/w/fma-levels";
    expect_path(linked_files_project_path("/w/fma-levels/bin/fft", copy, dir, root, bd), "/p/bin/fft");
    expect_path(linked_files_copy_path("/p/bin/fft", "/w/baseline", "/w/baseline", root, bd), "/w/baseline/bin/fft");
    /* a system library, a sibling whose name starts alike */
    expect_path(linked_files_project_path("/usr/lib/libm.so.6", copy, dir, root, bd), NULL);
    expect_path(linked_files_project_path("/w/fma-levels2/bin/fft", copy, dir, root, bd), NULL);
    expect_path(linked_files_copy_path("/usr/lib/libm.so.6", "/w/baseline", "/w/baseline", root, bd), NULL);
}

static void test_build_below_root(void **state)
{
    (void)state;
    const char *root = "/p", *bd = "/p/build";
    expect_path(linked_files_project_path("/w/v/build/lib/libk.so", "/w/v", "/w/v/build", root, bd),
                "/p/build/lib/libk.so");
    expect_path(linked_files_project_path("/w/v/tools/prog", "/w/v", "/w/v/build", root, bd), "/p/tools/prog");
    expect_path(linked_files_copy_path("/p/build/lib/libk.so", "/w/b", "/w/b/build", root, bd), "/w/b/build/lib/libk.so");
    expect_path(linked_files_copy_path("/p/tools/prog", "/w/b", "/w/b/build", root, bd), "/w/b/tools/prog");
}

static void test_fresh_build_dir(void **state)
{
    (void)state;
    const char *root = "/src/p", *bd = "/tmp/bd";
    expect_path(linked_files_project_path("/w/v/prog", "/w/src-v", "/w/v", root, bd), "/tmp/bd/prog");
    expect_path(linked_files_project_path("/w/src-v/scripts/x", "/w/src-v", "/w/v", root, bd), "/src/p/scripts/x");
    expect_path(linked_files_copy_path("/tmp/bd/prog", "/w/src-b", "/w/b", root, bd), "/w/b/prog");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_tree),
        cmocka_unit_test(test_build_below_root),
        cmocka_unit_test(test_fresh_build_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
