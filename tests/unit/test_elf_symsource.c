/* Unit tests of lib/elf/symsource.h: two files each with a static `work`,
 * compiled at test time by gcc, clang and clang-19 (when installed) into a
 * PIE, a non-PIE executable (file offsets 0x400000 below the addresses), a
 * PIE linked at 0x200000 and a shared library; each `work` is looked up by
 * its file offset and must name its own file. The truth comes from the
 * DWARF line table (addr2line on a -g build), not from the symbol table
 * the module reads. Also: target_clones clones and their resolver (local
 * symbols of their TU), stripped files (only the .dynsym's exported
 * functions are found), a missing file, a file that is not ELF, offsets
 * outside the file, and a wrong name at an address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/symsource.h"
#include "run/spawn.h"
#include "util/util.h"
#include "test_run_helpers.h"

static const char A_C[] = "static __attribute__((noinline)) long work(long n)\n"
                          "{\n"
                          "    long s = 0;\n"
                          "    for (long i = 0; i < n; i++) s += i * i % 7;\n"
                          "    return s;\n"
                          "}\n"
                          "long a_run(long n) { return work(n); }\n";
static const char B_C[] = "static __attribute__((noinline)) long work(long n)\n"
                          "{\n"
                          "    long s = 1;\n"
                          "    for (long i = 0; i < n; i++) s ^= i * 3;\n"
                          "    return s;\n"
                          "}\n"
                          "long b_run(long n) { return work(n); }\n";
static const char MAIN_C[] = "#include <stdio.h>\n"
                             "long a_run(long n);\n"
                             "long b_run(long n);\n"
                             "int main(int argc, char **argv)\n"
                             "{\n"
                             "    (void)argv;\n"
                             "    printf(\"%ld\\n\", a_run(argc) + b_run(argc));\n"
                             "    return 0;\n"
                             "}\n";
/* static target_clones functions of one name (clang < 18 makes their
 * resolvers global and cannot link two of them: gcc and clang-19 only) */
static const char C1_C[] = "__attribute__((target_clones(\"avx2\", \"default\")))\n"
                           "static void work(int *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * 3 + 1; }\n"
                           "void c1_run(int *a, int n) { work(a, n); }\n";
static const char C2_C[] = "__attribute__((target_clones(\"avx2\", \"default\")))\n"
                           "static void work(int *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * 5 + 2; }\n"
                           "void c2_run(int *a, int n) { work(a, n); }\n";

static char *dir;

static int setup(void **state)
{
    (void)state;
    const char *names[] = {"a.c", "b.c", "main.c", "c1.c", "c2.c"};
    const char *texts[] = {A_C, B_C, MAIN_C, C1_C, C2_C};
    dir = fixture_dir("test-symsource", names, texts, sizeof names / sizeof *names);
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fixture_dir_free(dir);
    return 0;
}

/* Runs argv in dir; its stdout in *out when out is given. 0 on success. */
static int run_in_dir(char *const *argv, char **out)
{
    return run_in(dir, argv, out);
}

/* The file offset of address vaddr (the way perf reports addresses). */
static uint64_t file_offset(const struct elf_file *ef, uint64_t vaddr)
{
    size_t n = 0;
    assert_int_equal(elf_getphdrnum(ef->elf, &n), 0);
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(ef->elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
            vaddr - ph.p_vaddr < ph.p_filesz)
            return vaddr - ph.p_vaddr + ph.p_offset;
    }
    fail_msg("address 0x%llx in no PT_LOAD segment", (unsigned long long)vaddr);
    return 0;
}

/* The source file of address vaddr by the DWARF line table: "a.c". */
static char *dwarf_file(const char *elf, uint64_t vaddr)
{
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)vaddr);
    char *out = NULL;
    char *const argv[] = {"addr2line", "-e", (char *)elf, addr, NULL};
    assert_int_equal(run_in_dir(argv, &out), 0);
    out[strcspn(out, ":")] = 0;
    char *base = xstrdup(path_basename(out));
    free(out);
    return base;
}

/* Every symbol named name in file: looked up by a file offset inside it
 * (its middle, as a sample would be), it must be found with the DWARF's
 * file. Returns how many were checked. */
static size_t check_symbols(struct elf_symsource_cache *c, const char *file, const char *name, int local)
{
    struct elf_file ef;
    assert_int_equal(elf_file_open(file, &ef), 0);
    size_t checked = 0;
    for (size_t i = 0; i < ef.n_syms; i++) {
        const struct elf_sym *s = &ef.syms[i];
        if (strcmp(s->name, name) != 0 || s->type != STT_FUNC) continue;
        uint64_t inside = s->value + s->size / 2;
        struct elf_symsource src;
        assert_int_equal(elf_symsource_lookup(c, file, file_offset(&ef, inside), name, &src), 0);
        assert_string_equal(src.symbol, name);
        assert_int_equal(src.local, local);
        if (local) {
            char *truth = dwarf_file(file, inside);
            assert_non_null(src.file);
            assert_string_equal(path_basename(src.file), truth);
            free(truth);
        } else {
            assert_null(src.file);
        }
        checked++;
    }
    elf_file_close(&ef);
    return checked;
}

static void check_compiler(const char *cc)
{
    if (!have(cc)) {
        fprintf(stderr, "%s not installed: skipped\n", cc);
        return;
    }
    struct {
        const char *out;
        char *flags[5];
        int has_main;
    } links[] = {
        {"pie", {"-fPIE", "-pie", NULL}, 1},
        {"nopie", {"-fno-pie", "-no-pie", NULL}, 1},
        {"pie-moved", {"-fPIE", "-pie", "-Wl,-Ttext-segment=0x200000", NULL}, 1},
        {"lib.so", {"-fPIC", "-shared", NULL}, 0},
    };
    struct elf_symsource_cache *c = elf_symsource_cache_new();
    for (size_t l = 0; l < sizeof links / sizeof *links; l++) {
        struct strvec argv = STRVEC_INIT;
        sv_push_all(&argv, (char *const[]){(char *)cc, "-O2", "-g", "-o", NULL});
        sv_pushf(&argv, "%s-%s", cc, links[l].out);
        sv_push_all(&argv, links[l].flags);
        sv_push_all(&argv, (char *const[]){"a.c", "b.c", NULL});
        if (links[l].has_main) sv_push(&argv, "main.c");
        assert_int_equal(run_in_dir(sv_argv(&argv), NULL), 0);
        char *file = path_join(dir, argv.v[4]);
        /* the two `work`, each found with its own file */
        assert_int_equal(check_symbols(c, file, "work", 1), 2);
        assert_int_equal(check_symbols(c, file, "a_run", 0), 1);
        if (links[l].has_main) assert_int_equal(check_symbols(c, file, "main", 0), 1);

        /* a name that is not the symbol's there: the address was not understood */
        struct elf_file ef;
        assert_int_equal(elf_file_open(file, &ef), 0);
        const struct elf_sym *a_run = elf_file_sym_named(&ef, "a_run"), *work = elf_file_sym_named(&ef, "work");
        assert_non_null(a_run);
        assert_non_null(work);
        uint64_t off = file_offset(&ef, a_run->value), work_off = file_offset(&ef, work->value);
        elf_file_close(&ef);
        struct elf_symsource src;
        assert_int_equal(elf_symsource_lookup(c, file, off, "b_run", &src), -1);
        assert_int_equal(elf_symsource_lookup(c, file, off, NULL, &src), 0);
        assert_string_equal(src.symbol, "a_run");
        /* past the end of the file */
        assert_int_equal(elf_symsource_lookup(c, file, 1u << 30, NULL, &src), -1);

        /* stripped: the static functions are gone; what the .dynsym
         * exports (a library's functions) is still found, global */
        char *stripped = xasprintf("%s.stripped", file);
        char *const strip[] = {"strip", "-o", stripped, file, NULL};
        assert_int_equal(run_in_dir(strip, NULL), 0);
        assert_int_equal(elf_symsource_lookup(c, stripped, work_off, "work", &src), -1);
        if (links[l].has_main) {
            assert_int_equal(elf_symsource_lookup(c, stripped, off, "a_run", &src), -1);
        } else {
            assert_int_equal(elf_symsource_lookup(c, stripped, off, "a_run", &src), 0);
            assert_false(src.local);
            assert_null(src.file);
        }
        free(stripped);
        free(file);
        sv_free(&argv);
    }
    elf_symsource_cache_free(c);
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
    if (!have("clang-19")) skip();
    check_compiler("clang-19");
}

/* Clones and the resolver are local symbols of their TU: each file's
 * work.avx2 (gcc) / work.avx2.0 (clang-19) and work.resolver name it. */
static void check_clones(const char *cc, const char *avx2)
{
    if (!have(cc)) {
        fprintf(stderr, "%s not installed: skipped\n", cc);
        return;
    }
    char *out = xasprintf("%s-clones.so", cc);
    char *const argv[] = {(char *)cc, "-O2", "-g", "-fPIC", "-shared", "-o", out, "c1.c", "c2.c", NULL};
    assert_int_equal(run_in_dir(argv, NULL), 0);
    char *file = path_join(dir, out);
    struct elf_symsource_cache *c = elf_symsource_cache_new();
    assert_int_equal(check_symbols(c, file, avx2, 1), 2);
    assert_int_equal(check_symbols(c, file, "work.resolver", 1), 2);
    elf_symsource_cache_free(c);
    free(file);
    free(out);
}

static void test_clones(void **state)
{
    (void)state;
    check_clones("gcc", "work.avx2");
    if (have("clang-19")) check_clones("clang-19", "work.avx2.0");
}

/* Files that tell nothing: lookups fail, nothing else happens. */
static void test_unreadable_files(void **state)
{
    (void)state;
    struct elf_symsource_cache *c = elf_symsource_cache_new();
    struct elf_symsource src;
    char *missing = path_join(dir, "missing");
    assert_int_equal(elf_symsource_lookup(c, missing, 0x1000, NULL, &src), -1);
    char *text = path_join(dir, "a.c");
    assert_int_equal(elf_symsource_lookup(c, text, 0x10, NULL, &src), -1);
    assert_int_equal(elf_symsource_lookup(c, text, 0x10, NULL, &src), -1);   /* cached, same answer */
    assert_int_equal(elf_symsource_lookup(c, dir, 0x10, NULL, &src), -1);    /* a directory */
    assert_null(src.symbol);
    free(missing);
    free(text);
    elf_symsource_cache_free(c);
    elf_symsource_cache_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang),
        cmocka_unit_test(test_clang19),
        cmocka_unit_test(test_clones),
        cmocka_unit_test(test_unreadable_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
