/* Unit tests of elf_code_same_moved (lib/elf/samecode.h) on programs
 * compiled at test time by gcc, clang and clang-19 (when installed): a
 * function `work` that calls `step` and reads a global array, linked after
 * a function `pad` of two sizes, so that it, its callee and its data all
 * move. Moved, it is the same code (and elf_code_same, which compares
 * outside addresses by value, says it is not); calling a function of
 * another name instead (step renamed by -D) makes it different; so does
 * another instruction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/samecode.h"
#include "run/spawn.h"
#include "util/util.h"
#include "test_run_helpers.h"

static const char PAD_C[] = "#ifndef PADN\n#define PADN 4\n#endif\n"
                            "long pad(long x)\n{\n"
                            "#define P(k) x = x * 3 + (k); x ^= x >> 7;\n"
                            "#if PADN > 4\n    P(1) P(2) P(3) P(4) P(5) P(6) P(7) P(8) P(9) P(10) P(11) P(12)\n#endif\n"
                            "    P(13)\n    return x;\n}\n";
static const char WORK_C[] = "#ifndef OP\n#define OP +\n#endif\n"
                             "long table[64];\n"
                             "long step(long x);\n"
                             "__attribute__((noinline)) long work(long n)\n{\n"
                             "    long s = 0;\n"
                             "    for (long i = 0; i < n; i++) s = step(s) OP table[i & 63];\n"
                             "    return s;\n}\n";
static const char STEP_C[] = "__attribute__((noinline)) long step(long x) { return x * 7 + 1; }\n";
static const char MAIN_C[] = "#include <stdio.h>\n"
                             "long pad(long x);\nlong work(long n);\n"
                             "int main(int argc, char **argv)\n{\n    (void)argv;\n"
                             "    printf(\"%ld\\n\", pad(argc) + work(argc));\n    return 0;\n}\n";

static char *dir;

static int setup(void **state)
{
    (void)state;
    const char *names[] = {"pad.c", "work.c", "step.c", "main.c"};
    const char *texts[] = {PAD_C, WORK_C, STEP_C, MAIN_C};
    dir = fixture_dir("test-samecode-moved", names, texts, sizeof names / sizeof *names);
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fixture_dir_free(dir);
    return 0;
}

/* Links main.c pad.c work.c step.c with cc -O2 and the extra -D flags into
 * dir/out. */
static void build(const char *cc, const char *out, const char *pad_def, const char *work_def)
{
    char *const argv[] = {(char *)cc, "-O2", "-o", (char *)out, "main.c", "-D", (char *)pad_def, "pad.c",
                          "-D", (char *)work_def, "work.c", "-D", (char *)work_def, "step.c", NULL};
    assert_int_equal(run_in(dir, argv, NULL), 0);
}

static int same_work(const char *a, const char *b, int *by_value)
{
    char *pa = path_join(dir, a), *pb = path_join(dir, b);
    struct elf_file ea, eb;
    assert_int_equal(elf_file_open(pa, &ea), 0);
    assert_int_equal(elf_file_open(pb, &eb), 0);
    const struct elf_sym *sa = elf_file_sym_named(&ea, "work"), *sb = elf_file_sym_named(&eb, "work");
    assert_non_null(sa);
    assert_non_null(sb);
    int same = elf_code_same_moved(&ea, sa, &eb, sb);
    if (by_value) {
        assert_true(sa->value != sb->value);   /* the test moves it */
        *by_value = elf_code_same(elf_file_bytes(&ea, sa->value, sa->size), sa->size, sa->value,
                                  elf_file_bytes(&eb, sb->value, sb->size), sb->size, sb->value);
    }
    elf_file_close(&ea);
    elf_file_close(&eb);
    free(pa);
    free(pb);
    return same;
}

static void check(const char *cc)
{
    if (!have(cc)) {
        fprintf(stderr, "SKIP: %s is not installed\n", cc);
        return;
    }
    build(cc, "small", "PADN=4", "X=1");
    build(cc, "big", "PADN=40", "X=1");
    build(cc, "renamed", "PADN=40", "step=step2");
    build(cc, "other", "PADN=40", "OP=-");
    int by_value = -1;
    assert_int_equal(same_work("small", "big", &by_value), 1);
    assert_int_equal(by_value, 0);   /* its call and its data moved */
    assert_int_equal(same_work("small", "renamed", NULL), 0);
    assert_int_equal(same_work("small", "other", NULL), 0);
    assert_int_equal(same_work("big", "big", NULL), 1);
}

static void test_gcc(void **state)
{
    (void)state;
    check("gcc");
}

static void test_clang(void **state)
{
    (void)state;
    check("clang");
}

static void test_clang19(void **state)
{
    (void)state;
    check("clang-19");
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
