/* Unit test of measure/profile.h's profile_run_with against perf on this
 * machine (skipped when perf cannot record here): a fixture program built
 * with gcc, clang 14 and clang 19 (each skipped when absent), profiled once
 * with maps and sites, must give what is known of it - the hot function
 * holds the most samples, its dso is the program's path and its address a
 * file offset inside the symbol (a PIE: offsets equal addresses), the
 * total is the sum of the entries kernel ones included, kernel entries are
 * marked, the sites of a function add up to its samples in the report, the
 * program is its pid's first map - from three perf processes at most
 * (record, report, one script; counted by a prefix that logs them). A C++
 * function's sites are asked for by its ELF (mangled) name, as entries
 * spell it, and found. */
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
#include "measure/profile.h"
#include "run/spawn.h"
#include "util/util.h"

/* heavy ~4x light; the write loop spends its time in the kernel */
static const char PROGRAM[] =
    "#include <fcntl.h>\n"
    "#include <unistd.h>\n"
    "volatile double sink;\n"
    "__attribute__((noinline)) void heavy(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; sink = s; }\n"
    "__attribute__((noinline)) void light(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.25; sink = s; }\n"
    "int main(void) {\n"
    "    int fd = open(\"/dev/null\", O_WRONLY);\n"
    "    for (int i = 0; i < 20000; i++) if (write(fd, \"x\", 1) != 1) return 1;\n"
    "    heavy(80000000); light(20000000); return 0;\n"
    "}\n";

static const char CXX_PROGRAM[] =
    "namespace ns {\n"
    "__attribute__((noinline)) double heavy(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }\n"
    "}\n"
    "volatile double sink;\n"
    "int main() { sink = ns::heavy(40000000); return 0; }\n";

struct fixture {
    char *tmp, *bin, *log;
    char *prefix[4];
};

/* Builds source (named file) with compiler into f->bin, and the logging
 * prefix; 0, or -1 when the compiler is absent. */
static int setup(struct fixture *f, const char *compiler, const char *file, const char *source)
{
    memset(f, 0, sizeof *f);
    char *cc = find_in_path(compiler);
    if (!cc) return -1;
    free(cc);
    f->tmp = make_temp_dir("test-profile-run");
    char *src = path_join(f->tmp, file);
    assert_int_equal(write_file_atomic(src, source, strlen(source)), 0);
    f->bin = path_join(f->tmp, "prog");
    char *const argv[] = {(char *)compiler, "-O1", "-g", "-fPIE", "-pie", "-o", f->bin, src, NULL};
    struct run_opts quiet = {.capture_stdout = 1, .capture_stderr = 1};
    assert_int_equal(run_argv(argv, &quiet, NULL), 0);
    free(src);
    /* the prefix logs each perf command's subcommand ($1 is "perf") */
    f->log = path_join(f->tmp, "perf.log");
    char *script = path_join(f->tmp, "log-perf.sh");
    char *text = xasprintf("printf '%%s\\n' \"$2\" >> '%s'\nexec \"$@\"\n", f->log);
    assert_int_equal(write_file_atomic(script, text, strlen(text)), 0);
    free(text);
    f->prefix[0] = "sh";
    f->prefix[1] = script;
    return 0;
}

static void teardown(struct fixture *f)
{
    free(f->prefix[1]);
    free(f->bin);
    free(f->log);
    if (f->tmp) remove_tree(f->tmp);
    free(f->tmp);
}

/* Profiles f->bin with maps and the sites of site_names; skips (after
 * cleaning up) when perf cannot record here. */
static void profile_or_skip(struct fixture *f, char *const *site_names, struct profile *p)
{
    struct profile_opts o = {.prefix = f->prefix, .maps = 1, .sites = site_names, .period_ns = 100000};
    char *const argv[] = {f->bin, NULL};
    char *why = NULL;
    if (profile_run_with(argv, f->tmp, f->tmp, &o, p, &why) != 0) {
        assert_non_null(why);
        assert_non_null(strstr(why, "perf"));
        free(why);
        teardown(f);
        skip();
    }
    assert_null(why);
}

static const struct profile_entry *entry_named(const struct profile *p, const char *symbol)
{
    const struct profile_entry *best = NULL;
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->entries[i].symbol, symbol) && (!best || p->entries[i].samples > best->samples))
            best = &p->entries[i];
    return best;
}

static long site_samples(const struct profile *p, const char *symbol, const char *dso, uint64_t size)
{
    long n = 0;
    for (size_t i = 0; i < p->n_sites; i++) {
        if (strcmp(p->sites[i].symbol, symbol) != 0) continue;
        assert_string_equal(p->sites[i].dso, dso);
        assert_true(p->sites[i].offset < size);
        n += p->sites[i].samples;
    }
    return n;
}

static void check_c(const char *compiler)
{
    struct fixture f;
    if (setup(&f, compiler, "hot.c", PROGRAM) != 0) skip();
    struct profile p;
    char *sites[] = {"heavy", NULL};
    profile_or_skip(&f, sites, &p);

    /* record, report and one script for the maps and the sites */
    char *log = read_file(f.log, NULL);
    assert_non_null(log);
    assert_string_equal(log, "record\nreport\nscript\n");
    free(log);

    long sum = 0, kernel = 0;
    const struct profile_entry *hottest = NULL;
    for (size_t i = 0; i < p.n; i++) {
        const struct profile_entry *e = &p.entries[i];
        sum += e->samples;
        if (e->kernel) {
            assert_string_equal(e->dso, "[kernel.kallsyms]");
            kernel += e->samples;
        } else if (!hottest || e->samples > hottest->samples) {
            hottest = e;
        }
    }
    assert_int_equal(p.total_samples, sum);
    /* root, or a paranoid setting that lets perf sample the kernel: the
     * write loop's time is there */
    char *paranoid = read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
    if (geteuid() == 0 || (paranoid && atoi(paranoid) <= 1)) assert_true(kernel > 0);
    free(paranoid);

    assert_non_null(hottest);
    assert_string_equal(hottest->symbol, "heavy");
    assert_string_equal(hottest->dso, f.bin);
    const struct profile_entry *light = entry_named(&p, "light");
    assert_non_null(light);
    assert_true(light->samples > 0 && light->samples < hottest->samples);

    struct elf_file ef;
    assert_int_equal(elf_file_open(f.bin, &ef), 0);
    const struct elf_sym *heavy = elf_file_sym_named(&ef, "heavy");
    assert_non_null(heavy);
    assert_true(hottest->addr >= heavy->value && hottest->addr < heavy->value + heavy->size);
    /* the same samples, by address (perf script) and by symbol (perf report) */
    assert_int_equal(site_samples(&p, "heavy", f.bin, heavy->size), profile_samples(&p, "heavy"));
    elf_file_close(&ef);
    assert_int_equal(site_samples(&p, "light", f.bin, UINT64_MAX), 0);   /* not asked for */

    int first = 0;
    for (size_t i = 0; i < p.n_maps; i++)
        if (!strcmp(p.maps[i].path, f.bin)) first |= p.maps[i].first;
    assert_true(first);
    profile_free(&p);
    teardown(&f);
}

static void test_c_gcc(void **state) { (void)state; check_c("gcc"); }
static void test_c_clang14(void **state) { (void)state; check_c("clang-14"); }
static void test_c_clang19(void **state) { (void)state; check_c("clang-19"); }

/* A C++ function asked for as the ELF spells it: its sites are found. */
static void check_cxx(const char *compiler)
{
    struct fixture f;
    if (setup(&f, compiler, "hot.cc", CXX_PROGRAM) != 0) skip();
    struct profile p;
    char *sites[] = {"_ZN2ns5heavyEl", NULL};
    profile_or_skip(&f, sites, &p);
    long samples = profile_samples(&p, "_ZN2ns5heavyEl");
    assert_true(samples > 0);
    assert_int_equal(site_samples(&p, "_ZN2ns5heavyEl", f.bin, UINT64_MAX), samples);
    profile_free(&p);
    teardown(&f);
}

static void test_cxx_gcc(void **state) { (void)state; check_cxx("g++"); }
static void test_cxx_clang19(void **state) { (void)state; check_cxx("clang++-19"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c_gcc),
        cmocka_unit_test(test_c_clang14),
        cmocka_unit_test(test_c_clang19),
        cmocka_unit_test(test_cxx_gcc),
        cmocka_unit_test(test_cxx_clang19),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
