/* Unit tests of lib/elf/linkedcode.h: x.c and y.c each define a global
 * `run` (other code), compiled at test time by gcc, clang and clang-19
 * (when installed) into objects, -fPIC and not, and linked into programs
 * (PIE and non-PIE) and a shared library with h.c, which defines the
 * function and the variable run reaches (a call, a GOT load the linker
 * relaxes to lea in an executable) - run also reads its own constant table
 * and string (relocations against its object's sections). Each linked
 * `run` must be its own object's code and not the other's. Also: an
 * object that defines no global run, a missing object, a linked file
 * without run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/linkedcode.h"
#include "run/spawn.h"
#include "util/util.h"
#include "test_run_helpers.h"

static const char X_C[] = "extern long counter;\n"
                          "long helper(long);\n"
                          "static const long table[8] = {3, 1, 4, 1, 5, 9, 2, 6};\n"
                          "const char *name_of(void) { return \"x\"; }\n"
                          "long run(long n)\n"
                          "{\n"
                          "    long s = counter;\n"
                          "    for (long i = 0; i < n; i++) s += table[i & 7] * helper(i);\n"
                          "    return s + name_of()[0];\n"
                          "}\n";
static const char Y_C[] = "extern long counter;\n"
                          "long helper(long);\n"
                          "static const long table[8] = {2, 7, 1, 8, 2, 8, 1, 8};\n"
                          "long run(long n)\n"
                          "{\n"
                          "    long s = 1;\n"
                          "    for (long i = 0; i < n; i++) s ^= table[i & 7] + helper(i) + counter;\n"
                          "    return s;\n"
                          "}\n";
static const char H_C[] = "long counter = 5;\n"
                          "long helper(long i) { return i * 3 + counter; }\n";
static const char MAIN_C[] = "#include <stdio.h>\n"
                             "long run(long n);\n"
                             "int main(int argc, char **argv)\n"
                             "{\n"
                             "    (void)argv;\n"
                             "    printf(\"%ld\\n\", run(argc));\n"
                             "    return 0;\n"
                             "}\n";
/* a static run only: no global function of the name */
static const char Z_C[] = "static long run(long n) { return n * 2; }\n"
                          "long z_run(long n) { return run(n); }\n";

static char *dir;

static int setup(void **state)
{
    (void)state;
    const char *names[] = {"x.c", "y.c", "h.c", "main.c", "z.c"};
    const char *texts[] = {X_C, Y_C, H_C, MAIN_C, Z_C};
    dir = fixture_dir("test-linkedcode", names, texts, sizeof names / sizeof *names);
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fixture_dir_free(dir);
    return 0;
}

static void run_in_dir(char *const *argv)
{
    assert_int_equal(run_in(dir, argv, NULL), 0);
}

static void compile(const char *cc, const char *pic, const char *src, const char *obj)
{
    run_in_dir((char *const[]){(char *)cc, "-O2", (char *)pic, "-c", "-o", (char *)obj, (char *)src, NULL});
}

/* 1/0 as elf_linked_from_object answers for name in the linked file. */
static int from(const char *linked, const char *name, const char *object)
{
    char *lp = path_join(dir, linked), *op = path_join(dir, object), *why = NULL;
    struct elf_file ef;
    assert_int_equal(elf_file_open(lp, &ef), 0);
    int m = elf_linked_from_object(&ef, name, op, &why);
    if (m < 0) fprintf(stderr, "%s\n", why ? why : "?");
    free(why);
    elf_file_close(&ef);
    free(lp);
    free(op);
    return m;
}

static void check_compiler(const char *cc)
{
    /* non-PIC objects, a non-PIE program each */
    const char *srcs[] = {"x.c", "y.c", "h.c", "main.c", "z.c"};
    const char *objs[] = {"x.o", "y.o", "h.o", "main.o", "z.o"}, *pics[] = {"xp.o", "yp.o", "hp.o", "mainp.o", "zp.o"};
    for (int i = 0; i < 5; i++) {
        compile(cc, "-fno-pic", srcs[i], objs[i]);
        compile(cc, "-fPIC", srcs[i], pics[i]);
    }
    run_in_dir((char *const[]){(char *)cc, "-no-pie", "-o", "px", "main.o", "x.o", "h.o", NULL});
    run_in_dir((char *const[]){(char *)cc, "-no-pie", "-o", "py", "main.o", "y.o", "h.o", NULL});
    /* PIC objects: PIE programs (GOT loads relaxed) and a shared library */
    run_in_dir((char *const[]){(char *)cc, "-pie", "-o", "pxp", "mainp.o", "xp.o", "hp.o", NULL});
    run_in_dir((char *const[]){(char *)cc, "-pie", "-o", "pyp", "mainp.o", "yp.o", "hp.o", NULL});
    run_in_dir((char *const[]){(char *)cc, "-shared", "-o", "libx.so", "xp.o", "hp.o", NULL});

    assert_int_equal(from("px", "run", "x.o"), 1);
    assert_int_equal(from("px", "run", "y.o"), 0);
    assert_int_equal(from("py", "run", "y.o"), 1);
    assert_int_equal(from("py", "run", "x.o"), 0);
    assert_int_equal(from("pxp", "run", "xp.o"), 1);
    assert_int_equal(from("pxp", "run", "yp.o"), 0);
    assert_int_equal(from("pyp", "run", "yp.o"), 1);
    assert_int_equal(from("libx.so", "run", "xp.o"), 1);
    assert_int_equal(from("libx.so", "run", "yp.o"), 0);
    /* no global run in the object: not it */
    assert_int_equal(from("px", "run", "z.o"), 0);
    /* a name the linked file lacks: not the object's; a missing object: cannot tell */
    assert_int_equal(from("px", "no_such_function", "x.o"), 0);
    assert_int_equal(from("px", "run", "missing.o"), -1);
}

static void test_gcc(void **state)
{
    (void)state;
    check_compiler("gcc");
}

static void test_clang(void **state)
{
    (void)state;
    if (!have("clang")) skip();
    check_compiler("clang");
}

static void test_clang19(void **state)
{
    (void)state;
    if (!have("clang-19")) skip();
    check_compiler("clang-19");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang),
        cmocka_unit_test(test_clang19),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
