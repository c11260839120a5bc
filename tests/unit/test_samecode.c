/* test_samecode.c - elf/samecode.h on hand-made x86-64 code: the same
 * instructions at two addresses are the same code (a call and a RIP-relative
 * load outside, a jump inside), and each kind of difference makes them
 * different: another call target, another data address, another register,
 * another jump offset inside, another length, bytes that do not decode. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "elf/samecode.h"

/* At addr: call CALL; je +7 (to the ret); mov rax/rcx, [rip -> DATA]; ret. */
static size_t make(uint8_t *out, uint64_t addr, uint64_t call, uint64_t data, uint8_t modrm, uint8_t je)
{
    int32_t rel = (int32_t)(call - (addr + 5));
    int32_t disp = (int32_t)(data - (addr + 14));
    uint8_t code[15] = {0xe8, 0, 0, 0, 0, 0x74, je, 0x48, 0x8b, modrm, 0, 0, 0, 0, 0xc3};
    memcpy(code + 1, &rel, 4);
    memcpy(code + 10, &disp, 4);
    memcpy(out, code, sizeof code);
    return sizeof code;
}

#define RAX 0x05
#define RCX 0x0d

static void test_same_code_at_two_addresses(void **state)
{
    (void)state;
    uint8_t a[16], b[16];
    size_t na = make(a, 0x1000, 0x5000, 0x6000, RAX, 7);
    size_t nb = make(b, 0x2000, 0x5000, 0x6000, RAX, 7);
    assert_memory_not_equal(a, b, na);   /* the bytes differ... */
    assert_int_equal(elf_code_same(a, na, 0x1000, b, nb, 0x2000), 1);   /* ...the code does not */
    assert_int_equal(elf_code_same(b, nb, 0x2000, a, na, 0x1000), 1);
    /* the same bytes at another address reach other things */
    assert_int_equal(elf_code_same(a, na, 0x1000, a, na, 0x2000), 0);
}

static void test_each_difference(void **state)
{
    (void)state;
    uint8_t a[16], b[16];
    size_t na = make(a, 0x1000, 0x5000, 0x6000, RAX, 7);
    size_t nb = make(b, 0x2000, 0x5010, 0x6000, RAX, 7);
    assert_int_equal(elf_code_same(a, na, 0x1000, b, nb, 0x2000), 0);   /* another callee */
    nb = make(b, 0x2000, 0x5000, 0x6008, RAX, 7);
    assert_int_equal(elf_code_same(a, na, 0x1000, b, nb, 0x2000), 0);   /* another datum */
    nb = make(b, 0x2000, 0x5000, 0x6000, RCX, 7);
    assert_int_equal(elf_code_same(a, na, 0x1000, b, nb, 0x2000), 0);   /* another register */
    nb = make(b, 0x2000, 0x5000, 0x6000, RAX, 6);
    assert_int_equal(elf_code_same(a, na, 0x1000, b, nb, 0x2000), 0);   /* jumps elsewhere inside */
    assert_int_equal(elf_code_same(a, na, 0x1000, b, nb - 1, 0x2000), 0);   /* shorter */
    assert_int_equal(elf_code_same(a, 0, 0x1000, b, 0, 0x2000), 0);         /* empty */
    /* bytes that do not decode must be equal too */
    uint8_t x[] = {0xc3, 0x06}, y[] = {0xc3, 0x07};   /* invalid in 64-bit mode */
    assert_int_equal(elf_code_same(x, sizeof x, 0x1000, x, sizeof x, 0x2000), 1);
    assert_int_equal(elf_code_same(x, sizeof x, 0x1000, y, sizeof y, 0x2000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_code_at_two_addresses),
        cmocka_unit_test(test_each_difference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
