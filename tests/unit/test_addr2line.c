/* test_addr2line.c - elf/addr2line.h: addr2line's inline frames parsed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "elf/addr2line.h"
#include "util/util.h"

struct seen {
    struct strvec lines;
};

static void record(unsigned long long addr, char *const *names, char *const *files, const int *lines, size_t n,
                   void *ctx)
{
    struct seen *s = ctx;
    struct strbuf b = STRBUF_INIT;
    sb_addf(&b, "%llx:", addr);
    for (size_t i = 0; i < n; i++) sb_addf(&b, " %s@%s:%d", names[i], files[i], lines[i]);
    if (!n) sb_adds(&b, " unknown");
    sv_push(&s->lines, sb_str(&b));
    sb_free(&b);
}

static void test_parse(void **state)
{
    (void)state;
    struct seen s = {STRVEC_INIT};
    addr2line_parse("0x0000000000001193\n"
                    "kernel_axpy\n"
                    "/tmp/p/kernels.c:18 (discriminator 3)\n"
                    "main\n"
                    "/tmp/p/kernels.c:66\n"
                    "0x00000000000012a2\n"
                    "main\n"
                    "/tmp/p/kernels.c:63 (discriminator 3)\n"
                    "0x0000000000001300\n"
                    "??\n"
                    "??:0\n"
                    "0x0000000000001350\n"
                    "main\n"
                    "??:?\n",
                    record, &s);
    assert_int_equal(s.lines.n, 4);
    assert_string_equal(s.lines.v[0], "1193: kernel_axpy@/tmp/p/kernels.c:18 main@/tmp/p/kernels.c:66");
    assert_string_equal(s.lines.v[1], "12a2: main@/tmp/p/kernels.c:63");
    assert_string_equal(s.lines.v[2], "1300: unknown");
    assert_string_equal(s.lines.v[3], "1350: unknown");   /* a name but no line: no -g */
    sv_free(&s.lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
