/* test_select_hostlines.c - select/hostlines.h: a kernel inlined into main
 * credited with main's samples at its addresses, on a program compiled here with gcc -O2 -g (and without
 * -g: unresolved). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf/elffile.h"
#include "run/spawn.h"
#include "select/hostlines.h"
#include "util/util.h"

static void test_hosts_of(void **state)
{
    (void)state;
    json_t *notes = json_loads("[{\"kind\": \"redeclared\"}, {\"kind\": \"inlined-into\", \"hosts\": "
                               "[{\"name\": \"main\", \"reason\": \"main\"}, {\"name\": \"sum\", \"reason\": "
                               "\"variadic\"}]}]", 0, NULL);
    struct strvec hosts = STRVEC_INIT;
    sv_push(&hosts, "main");
    assert_int_equal(hostlines_hosts_of(notes, &hosts, NULL), 2);
    assert_int_equal(hosts.n, 2);
    assert_string_equal(hosts.v[1], "sum");
    assert_int_equal(hostlines_hosts_of(NULL, &hosts, NULL), 0);
    sv_free(&hosts);
    json_decref(notes);
    /* C++ hosts: the profile knows them by their symbols, the report by
     * their display names */
    notes = json_loads("[{\"kind\": \"inlined-into\", \"hosts\": [{\"name\": \"run_all(int, ...)\", \"symbol\": "
                       "\"_Z7run_alliz\", \"reason\": \"variadic\"}, {\"name\": \"main(int, char **)\", \"symbol\": "
                       "\"main\", \"reason\": \"main\"}, {\"name\": \"mix(int)\", \"symbol\": \"\", \"reason\": "
                       "\"variadic\"}]}]", 0, NULL);
    struct strvec names = STRVEC_INIT;
    assert_int_equal(hostlines_hosts_of(notes, &hosts, &names), 3);
    assert_int_equal(hosts.n, 3);
    assert_int_equal(names.n, 3);
    assert_string_equal(hosts.v[0], "_Z7run_alliz");
    assert_string_equal(names.v[0], "run_all(int, ...)");
    assert_string_equal(hosts.v[1], "main");
    assert_string_equal(names.v[1], "main(int, char **)");
    assert_string_equal(hosts.v[2], "mix(int)");   /* no symbol: its name */
    assert_int_equal(hostlines_hosts_of(notes, &hosts, &names), 3);
    assert_int_equal(hosts.n, 3);                  /* no duplicates, in either */
    assert_int_equal(names.n, 3);
    sv_free(&hosts);
    sv_free(&names);
    json_decref(notes);
    assert_false(hostlines_unjudged(0, 100));
    assert_false(hostlines_unjudged(10, 100));
    assert_true(hostlines_unjudged(11, 100));
    /* WavPack's wavpack main (held-out run): 1 of 8 samples over 5 runs
     * unplaced in a -g build; a cold host is judged, not "build with -g" */
    assert_int_equal(hostlines_verdict(1, 8, 100), HOSTLINES_JUDGED);
    assert_int_equal(hostlines_verdict(20, 100, 100), HOSTLINES_UNPLACED);
    assert_int_equal(hostlines_verdict(100, 100, 100), HOSTLINES_NO_LINES);
    assert_int_equal(hostlines_verdict(10, 100, 100), HOSTLINES_JUDGED);
}

static const char *PROGRAM = "static int a[4096], b[4096];\n"                       /* 1 */
                             "static void kernel(int *x, const int *y, int r)\n"      /* 2 */
                             "{\n"                                                    /* 3 */
                             "    for (int i = 0; i < 4096; i++) x[i] = x[i] * y[i] + r;\n"
                             "}\n"                                                    /* 5 */
                             "int main(int argc, char **argv)\n"
                             "{\n"
                             "    (void)argv;\n"
                             "    for (int i = 0; i < 4096; i++) b[i] = i | argc;\n"  /* 9: main's own */
                             "    for (int r = 0; r < 1000; r++) kernel(a, b, r);\n"
                             "    return a[7] & 1;\n"
                             "}\n";

/* Compiles PROGRAM into dir/prog with flags; 0 on success. */
static int compile(const char *dir, const char *flags)
{
    char *src = path_join(dir, "k.c"), *prog = path_join(dir, "prog");
    write_file_atomic(src, PROGRAM, strlen(PROGRAM));
    char *const argv[] = {"gcc", "-O2", (char *)flags, "-o", prog, src, NULL};
    struct run_opts o = {.null_stdout = 1, .null_stderr = 1};
    struct run_result res;
    int rc = run_argv(argv, &o, &res);
    run_result_free(&res);
    free(src);
    free(prog);
    return rc;
}

/* Every byte of main as a site with one sample: the kernel's addresses are
 * credited to it, main's own are not, and all are main's. */
static void count_over_main(const char *flags, long *credited, long *unresolved, long *host)
{
    char dir[] = "/tmp/test-hostlines.XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(compile(dir, flags), 0);
    char *prog = path_join(dir, "prog");
    struct elf_file ef;
    assert_int_equal(elf_file_open(prog, &ef), 0);
    const struct elf_sym *m = elf_file_sym_named(&ef, "main");
    assert_non_null(m);
    struct profile p = {0};
    p.n_sites = (size_t)m->size;
    p.sites = calloc(p.n_sites, sizeof *p.sites);
    for (size_t i = 0; i < p.n_sites; i++)
        p.sites[i] = (struct profile_site){xstrdup("main"), xstrdup(prog), i, 1};
    elf_file_close(&ef);
    char *files[] = {"/src/k.c", NULL}, *hosts[] = {"main", NULL};
    struct hostlines_function fn = {.name = "kernel", .files = files, .hosts = hosts, .file = "/src/k.c",
                                    .line = 2, .end_line = 5};
    struct hostlines *h = hostlines_new();
    hostlines_count(h, &p, &fn, 1, credited, unresolved, host);
    /* a second count resolves nothing anew and gives the same */
    long c2, u2, h2;
    hostlines_count(h, &p, &fn, 1, &c2, &u2, &h2);
    assert_int_equal(c2, *credited);
    assert_int_equal(u2, *unresolved);
    assert_int_equal(h2, *host);
    hostlines_free(h);
    profile_free(&p);
    remove_tree(dir);
    free(prog);
}

static void test_count(void **state)
{
    (void)state;
    long credited, unresolved, host;
    count_over_main("-g", &credited, &unresolved, &host);
    assert_true(host > 0);
    assert_true(credited > 0);            /* the kernel's loop, inside main */
    assert_true(credited < host);         /* main's own loop is not the kernel's */
    assert_false(hostlines_unjudged(unresolved, host));
    count_over_main("-g0", &credited, &unresolved, &host);
    assert_int_equal(credited, 0);
    assert_true(hostlines_unjudged(unresolved, host));
    assert_int_equal(hostlines_verdict(unresolved, host, 1), HOSTLINES_NO_LINES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hosts_of),
        cmocka_unit_test(test_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
