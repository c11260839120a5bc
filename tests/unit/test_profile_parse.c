/* Unit test of measure/profile.h's reading of `perf report --sort dso,sym
 * -F overhead,sample,dso,sym -t '|' -v` (perf 6.1's output, copied from
 * runs on this machine): one entry per symbol with its file and address,
 * two static `work` of one program kept apart, kernel symbols marked,
 * perf's header lines skipped, an address of 0 (printed "0"), and the
 * layout without -v. No perf needed. */
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
    "\n";

static void test_verbose_report(void **state)
{
    (void)state;
    struct profile p = {0};
    profile_parse_report(REPORT, &p);
    assert_int_equal(p.n, 5);
    assert_int_equal(p.total_samples, 1375 + 335 + 3);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verbose_report),
        cmocka_unit_test(test_plain_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
