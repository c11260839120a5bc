/* Unit tests of select/textpad.h (the pad before .text's functions, from
 * the builds' .text starts: GNU ld's layout, where a selection's IFUNC PLT
 * entries before .text move it; figures as the builds of the fixture
 * select-textpad lay them out), of budget_take_pad (charged in each linked
 * file holding it, from the pins' room) and of the patch's pad block
 * (patch/textpad.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "patch/textpad.h"
#include "select/budget.h"
#include "select/textpad.h"
#include "util/util.h"

/* The baseline: .plt (4 entries and its header) ends at 0x1058, .text
 * (aligned to 16) starts at 0x1060. */
static const struct elf_text_start BASE = {.addr = 0x1060, .align = 16, .before_end = 0x1058, .plt_bytes = 0x50};

/* An all-candidates build whose 3 IFUNCs add 3 PLT entries before .text. */
static struct textpad_variant three(uint64_t sel)
{
    struct textpad_variant v = {.name = "fma-free",
                                .start = {.addr = 0x1090, .align = 16, .before_end = 0x1088, .plt_bytes = 0x80},
                                .all_slots = 48,
                                .sel_slots = sel};
    return v;
}

static int pad_of(const struct textpad_file *f, unsigned *pad)
{
    char *why = NULL;
    int rc = textpad_of_file(f, pad, &why);
    if (rc == 0) assert_null(why);
    else assert_non_null(why);
    free(why);
    return rc;
}

static void test_three_ifuncs(void **state)
{
    (void)state;
    /* all 3 selected: .text at 0x1090, 48 bytes on: a pad of 16 */
    struct textpad_variant v = three(48);
    struct textpad_file f = {.path = "prog", .base = BASE, .vars = &v, .n_vars = 1};
    unsigned pad = 99;
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 16);
    /* 1 of them: 16 bytes on, a pad of 48 */
    v = three(16);
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 48);
    /* none of the selected ones calls through the PLT: nothing shifts, no pad */
    v = three(0);
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 0);
}

static void test_four_ifuncs_shift_nothing(void **state)
{
    (void)state;
    struct textpad_variant v = three(0);
    v.start.before_end += 16, v.start.addr += 16, v.start.plt_bytes += 16, v.all_slots = v.sel_slots = 64;
    struct textpad_file f = {.path = "prog", .base = BASE, .vars = &v, .n_vars = 1};
    unsigned pad = 99;
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 0);
}

static void test_pinned_text_aligned_64(void **state)
{
    (void)state;
    /* a pin (aligned to 64) in the selected build's .text: it starts at
     * 0x10c0; the functions were 32 bytes past 0x1040 */
    struct textpad_variant v = three(48);
    struct textpad_file f = {.path = "prog", .base = BASE, .vars = &v, .n_vars = 1, .pinned = 1};
    unsigned pad = 99;
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 32);
    /* no IFUNC entry at all, the pin alone moves .text to 0x1080 */
    v = three(0);
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 32);
}

static void test_two_sets(void **state)
{
    (void)state;
    /* one function from each of two sets' builds: 2 entries, 32 bytes */
    struct textpad_variant v[2] = {three(16), three(16)};
    v[1].name = "fma-levels";
    struct textpad_file f = {.path = "prog", .base = BASE, .vars = v, .n_vars = 2};
    unsigned pad = 99;
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 32);
}

static void test_static_text_aligned(void **state)
{
    (void)state;
    /* -static: .text aligned to 64 in the baseline: it starts at 0 mod 64
     * whatever .iplt holds (8-byte entries there): no pad, no question */
    struct elf_text_start base = {.addr = 0x401100, .align = 64, .before_end = 0x4010d8, .plt_bytes = 0xc0};
    struct textpad_variant v = {.name = "fma-free",
                                .start = {.addr = 0x401100, .align = 64, .before_end = 0x4010f0, .plt_bytes = 0xd8},
                                .all_slots = 48,
                                .sel_slots = 48};
    struct textpad_file f = {.path = "prog", .base = base, .vars = &v, .n_vars = 1};
    unsigned pad = 99;
    assert_int_equal(pad_of(&f, &pad), 0);
    assert_int_equal(pad, 0);
}

static void test_model_does_not_hold(void **state)
{
    (void)state;
    unsigned pad = 99;
    /* lld: the PLT follows .text, the tables before it grow (608 bytes) */
    struct textpad_variant v = {.name = "fma-free",
                                .start = {.addr = 0x1060 + 608, .align = 16, .before_end = 0x1058 + 608,
                                          .plt_bytes = 0, .plt_after = 0x80},
                                .all_slots = 0,
                                .sel_slots = 0};
    struct elf_text_start lbase = BASE;
    lbase.plt_bytes = 0;
    lbase.plt_after = 0x50;
    struct textpad_file f = {.path = "prog", .base = lbase, .vars = &v, .n_vars = 1};
    assert_int_equal(pad_of(&f, &pad), -1);
    /* gold: .rela.plt before .init grows with the PLT (112 bytes moved, 48 of PLT) */
    v = three(48);
    v.start.before_end = 0x1058 + 112, v.start.addr = 0x1060 + 112;
    f.base = BASE;
    assert_int_equal(pad_of(&f, &pad), -1);
    /* an entry the candidates do not account for (the PLT's header when it
     * had none) */
    v = three(48);
    v.all_slots = 32;
    assert_int_equal(pad_of(&f, &pad), -1);
    /* a gap before the baseline's .text the model does not know */
    struct elf_text_start gap = BASE;
    gap.addr += 64;
    f.base = gap;
    v = three(48);
    assert_int_equal(pad_of(&f, &pad), -1);
}

static void test_budget_take_pad(void **state)
{
    (void)state;
    struct select_budget b = {.applied = 1, .limit = 1000, .fit_limit = 900, .after = 800};
    assert_int_equal(budget_take_pad(&b, 48, 2), 1);   /* 96 of the 100 left */
    assert_true(b.pad_bytes == 96.0);
    assert_int_equal(b.n_pad_files, 2);
    assert_true(budget_predicted(&b) == 896.0);
    assert_true(budget_pin_room(&b) == 4.0);
    assert_int_equal(budget_take_pad(&b, 16, 1), 0);   /* no room: nothing taken */
    assert_true(b.pad_bytes == 96.0);
    assert_int_equal(budget_take_pin(&b, 0, 1), 0);    /* the pins see the pad's bytes */
    struct select_budget none = {0};
    assert_int_equal(budget_take_pad(&none, 48, 0), 1);   /* no budget: always room; 0 files count as 1 */
    assert_true(none.pad_bytes == 48.0);
}

static void test_patch_block(void **state)
{
    (void)state;
    char *t = patch_text_pad_block(32, "\n");
    assert_non_null(strstr(t, "#if defined(FMVGEN_CPU_ON) && !defined(FMVGEN_CPU_NO_SECTION) && "
                              "!defined(FMVGEN_NO_TEXT_PAD) && !defined(FMVGEN_TEXT_PAD_)\n"));
    assert_non_null(strstr(t, "\".pushsection .text.unlikely.fmvgen_text_pad, \\\"axG\\\", @progbits, "
                              "fmvgen_text_pad.v1, comdat\\n\""));
    assert_non_null(strstr(t, "fmvgen_text_pad.v1: .skip 32, 0xcc\\n.size fmvgen_text_pad.v1, 32\\n"));
    assert_non_null(strstr(t, ".reloc ., R_X86_64_NONE, fmvgen_text_pad.v1"));
    assert_non_null(strstr(t, ".hidden fmvgen_text_pad.v1"));
    assert_int_equal(t[strlen(t) - 1], '\n');
    assert_non_null(strstr(t, "#endif\n"));
    free(t);
    t = patch_text_pad_block(16, "\r\n");
    assert_non_null(strstr(t, "# define FMVGEN_TEXT_PAD_ 16\r\n"));
    for (const char *c = t; *c; c++)   /* every line ends in \r\n */
        if (*c == '\n') assert_true(c > t && c[-1] == '\r');
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_ifuncs),
        cmocka_unit_test(test_four_ifuncs_shift_nothing),
        cmocka_unit_test(test_pinned_text_aligned_64),
        cmocka_unit_test(test_two_sets),
        cmocka_unit_test(test_static_text_aligned),
        cmocka_unit_test(test_model_does_not_hold),
        cmocka_unit_test(test_budget_take_pad),
        cmocka_unit_test(test_patch_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
