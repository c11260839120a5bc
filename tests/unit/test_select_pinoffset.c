/* Unit tests of select/pinoffset.h on tests/fixtures/pin-offset, compiled
 * at test time by gcc, clang and clang-19 when installed: work.c built into
 * two shared libraries that place work at 16 and at 48 mod 64 (libtool's
 * two compiles of one source: LAME's choose_table_nonMMX copy ran at 48 in
 * the program, 16 in the library no workload loaded, and was not pinned at
 * all). The offset is the file's the runs sampled the function in, unless
 * another file the runs ran code from holds it elsewhere; with no such file
 * the files must agree; a name no file holds has none.
 * pin_linked_copies: work.c linked into a program (main.c, its static
 * object) and a shared library (its -fPIC compile) is two compiles a pin's
 * padding is paid in, and the budget charges the pin twice (LAME's 18 pins
 * were charged once each and paid in frontend/lame and libmp3lame.so). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elffile.h"
#include "select/budget.h"
#include "select/pinoffset.h"
#include "util/util.h"
#include "test_run_helpers.h"

#define SRC FIXTURES_DIR "/pin-offset/work.c"
#define MAIN FIXTURES_DIR "/pin-offset/main.c"

static char *build(const char *cc, const char *dir, const char *name, const char *k)
{
    char *out = path_join(dir, name), *def = xasprintf("-DK=%s", k);
    char *const argv[] = {(char *)cc, "-O2", "-shared", "-fPIC", def, SRC, "-o", out, NULL};
    run_ok(argv);
    free(def);
    return out;
}

/* pin_offset over the files paths (opened here), ran_in as given. */
static int offset_of(char *const *paths, size_t n, const char *name, const struct strvec *ran,
                     const struct strvec *running, int *disagree)
{
    struct elf_file efs[4];
    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++) assert_int_equal(elf_file_open(paths[i], &efs[i]), 0);
    int k = pin_offset(efs, (const char *const *)paths, n, name, ran, running, disagree);
    for (size_t i = 0; i < n; i++) elf_file_close(&efs[i]);
    return k;
}

/* work.c's object linked into a program with main.c, as libtool links a
 * library's static objects into its program. */
static char *build_program(const char *cc, const char *dir, const char *k)
{
    char *obj = path_join(dir, "work.o"), *out = path_join(dir, "prog"), *def = xasprintf("-DK=%s", k);
    char *const compile[] = {(char *)cc, "-O2", "-c", def, SRC, "-o", obj, NULL};
    run_ok(compile);
    char *const link[] = {(char *)cc, "-O2", MAIN, obj, "-o", out, NULL};
    run_ok(link);
    unlink(obj);
    free(obj);
    free(def);
    return out;
}

/* pin_linked_copies over the files paths (opened here). */
static size_t copies_of(char *const *paths, size_t n, const char *name)
{
    struct elf_file efs[4];
    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++) assert_int_equal(elf_file_open(paths[i], &efs[i]), 0);
    size_t c = pin_linked_copies(efs, n, name);
    for (size_t i = 0; i < n; i++) elf_file_close(&efs[i]);
    return c;
}

/* A program and a shared library both holding work: a pin on work pays
 * its padding in both, and the budget charges it twice. */
static void check_linked_twice(const char *cc, const char *dir, char *lib)
{
    char *prog = build_program(cc, dir, "48");
    char *both[] = {prog, lib};
    assert_int_equal(copies_of(both, 2, "work"), 2);
    assert_int_equal(copies_of(both, 1, "work"), 1);
    assert_int_equal(copies_of(both, 2, "absent"), 0);
    /* the same offset in both: one pin, two paddings */
    assert_int_equal(offset_of(both, 2, "work", NULL, NULL, NULL), 48);
    size_t n = copies_of(both, 2, "work");
    struct select_budget b;
    memset(&b, 0, sizeof b);
    b.applied = 1;
    b.limit = 1200;
    b.fit_limit = 1100;
    b.after = 700;   /* 400 bytes of room: 111 once, 222 twice */
    assert_int_equal(budget_take_pin(&b, 48, n), 1);
    assert_true(b.pin_bytes == 2 * BUDGET_PIN_BYTES(48));
    assert_int_equal(b.n_pin_copies, 2);
    assert_true(budget_predicted(&b) == 700 + 222);
    /* 178 bytes of room left: the pin charged once (111) would fit, twice
     * (222) does not, and nothing is taken */
    assert_true(budget_pin_room(&b) == 178);
    assert_int_equal(budget_take_pin(&b, 48, n), 0);
    assert_true(b.pin_bytes == 222);
    assert_int_equal(b.n_pins, 1);
    unlink(prog);
    free(prog);
}

static void check_compiler(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    char *dir = make_temp_dir("test-pinoffset");
    char *at16 = build(cc, dir, "lib16.so", "16"), *at48 = build(cc, dir, "lib48.so", "48");
    char *again48 = build(cc, dir, "prog48.so", "48");
    char *files[] = {at16, at48};
    int disagree = -1;

    /* the runs sampled work in the 48 file: its offset, though the files disagree */
    struct strvec ran = STRVEC_INIT;
    sv_push(&ran, at48);
    assert_int_equal(offset_of(files, 2, "work", &ran, NULL, &disagree), 48);
    assert_int_equal(disagree, 1);
    sv_free(&ran);
    sv_push(&ran, at16);
    assert_int_equal(offset_of(files, 2, "work", &ran, NULL, &disagree), 16);
    assert_int_equal(disagree, 1);
    sv_free(&ran);

    /* both files ran code (two programs of a suite), the function was
     * sampled in one: a pin would move it in the other */
    sv_push(&ran, at48);
    struct strvec running = STRVEC_INIT;
    sv_push(&running, at16);
    sv_push(&running, at48);
    assert_int_equal(offset_of(files, 2, "work", &ran, &running, &disagree), PIN_OFFSET_SEVERAL);
    /* only the sampled file ran (the other a library no run loaded) */
    sv_free(&running);
    sv_push(&running, at48);
    assert_int_equal(offset_of(files, 2, "work", &ran, &running, &disagree), 48);
    sv_free(&running);
    sv_free(&ran);

    /* nothing tells which ran: the files must agree, and do not */
    assert_int_equal(offset_of(files, 2, "work", NULL, NULL, &disagree), PIN_OFFSET_SEVERAL);
    assert_int_equal(disagree, 1);
    /* a sampled file that holds no work (another program) tells nothing */
    sv_push(&ran, "/nonexistent/prog");
    assert_int_equal(offset_of(files, 2, "work", &ran, NULL, &disagree), PIN_OFFSET_SEVERAL);
    sv_free(&ran);

    /* files that agree: their offset, ran_in or not */
    char *same[] = {at48, again48};
    assert_int_equal(offset_of(same, 2, "work", NULL, NULL, &disagree), 48);
    assert_int_equal(disagree, 0);
    sv_push(&ran, again48);
    assert_int_equal(offset_of(same, 2, "work", &ran, NULL, &disagree), 48);
    sv_free(&ran);

    /* no such function */
    assert_int_equal(offset_of(files, 2, "absent", NULL, NULL, &disagree), PIN_OFFSET_NONE);
    assert_int_equal(disagree, 0);

    check_linked_twice(cc, dir, at48);

    unlink(at16);
    unlink(at48);
    unlink(again48);
    rmdir(dir);
    free(at16);
    free(at48);
    free(again48);
    free(dir);
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
}

static void test_clang19(void **state)
{
    (void)state;
    check_compiler("clang-19");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang),
        cmocka_unit_test(test_clang19),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
