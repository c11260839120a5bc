/* Unit test of measure/profile.h's reading of `perf report --sort dso,sym
 * -F overhead,sample,dso,sym -t '|' -v` (perf 6.1's output, copied from
 * runs on this machine): one entry per symbol with its file and address,
 * two static `work` of one program kept apart, kernel symbols marked,
 * perf's header lines skipped, an address of 0 (printed "0"), and the
 * layout without -v; and of the sites in perf script's sample lines. No
 * perf needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "measure/profile.h"

static const char REPORT[] =
    "# To display the perf.data header info, please use --header/--header-only options.\n"
    "#\n"
    "# Samples: 1K of event 'cpu-clock'\n"
    "#\n"
    "# Overhead|     Samples|Shared Object                                 |Symbol\n"
    " 79.71% | 1375       |/tmp/attr/pv/p                                |0x1199             B [.] work\n"
    " 19.42% | 335        |/tmp/attr/pv/p                                |0x11fb             B [.] work\n"
    " 0.06%  | 1          |/usr/lib/x86_64-linux-gnu/libc.so.6           |0x108a40           D [.] __init_misc\n"
    " 0.06%  | 1          |[kernel.kallsyms]                             |0xffffffff82258857 k [k] __get_user_8\n"
    " 0.06%  | 1          |[unknown]                                     |0                  ! [.] 0000000000000000\n"
    /* perf report --kallsyms=/dev/null: a kernel address without a symbol */
    " 1.07%  | 45         |[kernel.kallsyms]                             |0xffffffff82242009 ! [k] 0xffffffff82242009\n"
    "\n";

static void test_verbose_report(void **state)
{
    (void)state;
    struct profile p = {0};
    profile_parse_report(REPORT, &p);
    assert_int_equal(p.n, 6);
    assert_int_equal(p.total_samples, 1375 + 335 + 3 + 45);
    assert_string_equal(p.entries[0].symbol, "work");
    assert_string_equal(p.entries[0].dso, "/tmp/attr/pv/p");
    assert_true(p.entries[0].addr == 0x1199);
    assert_string_equal(p.entries[1].symbol, "work");
    assert_true(p.entries[1].addr == 0x11fb);
    assert_int_equal(profile_samples(&p, "work"), 1710);   /* by name: both */
    assert_string_equal(p.entries[2].dso, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    assert_false(p.entries[2].kernel);
    assert_true(p.entries[3].kernel);
    assert_string_equal(p.entries[3].dso, "[kernel.kallsyms]");
    assert_true(p.entries[3].addr == 0xffffffff82258857ull);
    assert_string_equal(p.entries[4].symbol, "0000000000000000");
    assert_true(p.entries[4].addr == 0);
    assert_true(p.entries[5].kernel);
    assert_string_equal(p.entries[5].symbol, "0xffffffff82242009");
    assert_true(p.entries[5].addr == 0xffffffff82242009ull);
    assert_int_equal(p.entries[5].samples, 45);
    profile_free(&p);
}

/* Without -v (the symbol column is "[.] name"): entries without addresses. */
static void test_plain_report(void **state)
{
    (void)state;
    struct profile p = {0};
    profile_parse_report(" 42.80%  |  1234  |/x/prog |[.] accumulate_rows\nnot a line\n| | |\n", &p);
    assert_int_equal(p.n, 1);
    assert_string_equal(p.entries[0].symbol, "accumulate_rows");
    assert_string_equal(p.entries[0].dso, "/x/prog");
    assert_true(p.entries[0].addr == 0);
    assert_int_equal(p.total_samples, 1234);
    profile_free(&p);
}

/* perf script -F comm,pid,ip,sym,symoff,dso with mmap and task records
 * (one pass for maps and sites): the samples of the asked-for symbols (and
 * their '.' pieces), by address, merged and sorted; records, other symbols
 * and garbage skipped; a comm with spaces, a dso path holding " (". */
static void test_sites(void **state)
{
    (void)state;
    struct profile p = {0};
    const char *text =
        "         swapper     0 PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1259b00) @ 0xffffffff81000000]: x "
        "[kernel.kallsyms]_text\n"
        "            prog 30339 PERF_RECORD_COMM exec: prog:30339/30339\n"
        "            prog 30339 PERF_RECORD_MMAP2 30339/30339: [0x561db156b000(0x1000) @ 0x1000 fe:00 11558923 0]: "
        "r-xp /tmp/p/prog\n"
        "            prog 30339      561db156b193 main+0x143 (/tmp/p/prog)\n"
        "            prog 30339      561db156b20b main+0x1bb (/tmp/p/prog)\n"
        "       my prog 2 30340      561db156b193 main+0x143 (/tmp/p/prog)\n"
        "            prog 30339      561db156c000 main.cold+0x10 (/tmp/p/prog)\n"
        "            prog 30339      561db156d000 mainly+0x10 (/tmp/p/prog)\n"
        "            prog 30339      7f00000a1000 work+0x22 (/tmp/p/libw.so)\n"
        "            prog 30339      7f00000a2000 work+0x30 (/tmp/a (copy)/libw.so)\r\n"
        "            prog 30339  ffffffff815fa201 [unknown] ([kernel.kallsyms])\n"
        "            prog 30339      7f0000001000 [unknown] ([unknown])\n"
        "            prog 30339      561db156b193 main+0xzz (/tmp/p/prog)\n"
        "     561db156b20b main+0x1bb (/tmp/p/prog)\n"   /* without comm and pid */
        "garbage\n";
    char *names[] = {"main", "work", NULL};
    assert_int_equal(profile_parse_sites(text, names, &p), 7);
    assert_int_equal(p.n_sites, 5);
    assert_string_equal(p.sites[0].dso, "/tmp/a (copy)/libw.so");
    assert_string_equal(p.sites[0].symbol, "work");
    assert_true(p.sites[0].offset == 0x30);
    assert_string_equal(p.sites[1].dso, "/tmp/p/libw.so");
    assert_true(p.sites[1].offset == 0x22);
    assert_string_equal(p.sites[2].symbol, "main");
    assert_true(p.sites[2].offset == 0x143);
    assert_int_equal(p.sites[2].samples, 2);
    assert_true(p.sites[3].offset == 0x1bb);
    assert_int_equal(p.sites[3].samples, 2);
    assert_string_equal(p.sites[4].symbol, "main.cold");
    assert_int_equal(p.sites[4].samples, 1);
    /* a second run's text merges into the same sites */
    assert_int_equal(profile_parse_sites("  prog 1  1 main+0x1bb (/tmp/p/prog)\n", names, &p), 1);
    assert_int_equal(p.n_sites, 5);
    assert_int_equal(p.sites[3].samples, 3);
    profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sites),
        cmocka_unit_test(test_verbose_report),
        cmocka_unit_test(test_plain_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
