/* Unit tests of lib/elf/codesize: which files of a build directory are its
 * linked x86-64 ELF files, and the code bytes and per-function clone bytes
 * measured in them, on the inspect-clones fixture compiled at test time by
 * gcc (and clang when installed). The sizes are checked against the symbol
 * sizes of lib/elf/clones.h and against binutils' `size -A`; the files
 * holding each function's clones and each file's CPU-detection code
 * (elf/cpudetect.h: present with a resolver, 0 without, unknown stripped). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/clones.h"
#include "elf/codesize.h"
#include "elf/cpudetect.h"
#include "elf/elffile.h"
#include "run/spawn.h"
#include "util/util.h"
#include "test_run_helpers.h"

/* cc -O3 EXTRA... SRC -o OUT */
static void compile(const char *cc, const char *extra1, const char *extra2, const char *src, const char *out)
{
    struct strvec argv = STRVEC_INIT;
    sv_push(&argv, cc);
    sv_push(&argv, "-O3");
    if (extra1) sv_push(&argv, extra1);
    if (extra2) sv_push(&argv, extra2);
    sv_push(&argv, src);
    sv_push(&argv, "-o");
    sv_push(&argv, out);
    struct run_opts o = {.capture_stderr = 1};
    struct run_result r;
    int rc = run_argv(sv_argv(&argv), &o, &r);
    if (rc) fprintf(stderr, "%s failed: %s\n", cc, r.err ? r.err : "");
    assert_int_equal(rc, 0);
    run_result_free(&r);
    sv_free(&argv);
}

/* A build directory: prog, sub/libscale.so, plus things that are not
 * linked files of the build (an object, a symlink, .fmvgen/, a text file,
 * CMake's and meson's compiler checks). */
static char *make_build(const char *cc, const char *march)
{
    char *dir = make_temp_dir("test-codesize");
    char *sub = path_join(dir, "sub"), *fmv = path_join(dir, ".fmvgen");
    mkdir_p(sub, 0755);
    mkdir_p(fmv, 0755);
    char *prog = path_join(dir, "prog"), *lib = path_join(sub, "libscale.so"), *obj = path_join(dir, "prog.o");
    char *hidden = path_join(fmv, "prog"), *link = path_join(dir, "prog-link"), *text = path_join(dir, "notes.txt");
    compile(cc, march, NULL, FIXTURES_DIR "/inspect-clones/prog.c", prog);
    compile(cc, "-shared", "-fPIC", FIXTURES_DIR "/inspect-clones/lib.c", lib);
    compile(cc, "-c", NULL, FIXTURES_DIR "/inspect-clones/prog.c", obj);
    compile(cc, NULL, NULL, FIXTURES_DIR "/inspect-clones/prog.c", hidden);
    /* the build system's compiler checks: CMake's compiler-id and ABI
     * programs, meson's sanity check - not the project's code */
    char *cmk = path_join(dir, "CMakeFiles/3.25.1/CompilerIdC"), *mes = path_join(dir, "meson-private");
    mkdir_p(cmk, 0755);
    mkdir_p(mes, 0755);
    char *cmk_out = path_join(cmk, "a.out"), *mes_out = path_join(mes, "sanitycheckc.exe");
    compile(cc, NULL, NULL, FIXTURES_DIR "/inspect-clones/prog.c", cmk_out);
    compile(cc, NULL, NULL, FIXTURES_DIR "/inspect-clones/prog.c", mes_out);
    free(cmk);
    free(mes);
    free(cmk_out);
    free(mes_out);
    assert_int_equal(symlink(prog, link), 0);
    assert_int_equal(write_file_atomic(text, "\177ELF but not really\n", 21), 0);
    free(sub);
    free(fmv);
    free(prog);
    free(lib);
    free(obj);
    free(hidden);
    free(link);
    free(text);
    return dir;
}

/* The bytes of allocated executable sections by `size -A` (sections named
 * .init, .plt*, .text, .fini, ... are the code of a gcc/clang link). */
static uint64_t size_a_code(const char *path)
{
    char *const argv[] = {"size", "-A", (char *)path, NULL};
    struct run_opts o = {.capture_stdout = 1};
    struct run_result r;
    assert_int_equal(run_argv(argv, &o, &r), 0);
    uint64_t total = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[128];
        unsigned long long size;
        if (sscanf(line, "%127s %llu", name, &size) != 2) continue;
        if (!strcmp(name, ".init") || !strcmp(name, ".fini") || !strcmp(name, ".text") || !strncmp(name, ".plt", 4))
            total += size;
    }
    run_result_free(&r);
    return total;
}

/* What clones.h says target_clones added to name in path: non-default
 * clones plus the resolver. */
static uint64_t added_by_symbols(const char *path, const char *name, int *versions)
{
    struct elf_mv_list l;
    assert_int_equal(elf_mv_read(path, &l), 0);
    uint64_t bytes = 0;
    for (size_t i = 0; i < l.n_functions; i++) {
        if (strcmp(l.functions[i].name, name)) continue;
        bytes += l.functions[i].resolver_size;
        for (size_t c = 0; c < l.functions[i].n_clones; c++)
            if (!l.functions[i].clones[c].is_default) bytes += l.functions[i].clones[c].size;
        *versions = (int)l.functions[i].n_clones;
    }
    elf_mv_list_free(&l);
    return bytes;
}

static void check_compiler(const char *cc)
{
    if (!have(cc)) {
        print_message("%s not installed: skipped\n", cc);
        return;
    }
    char *dir = make_build(cc, NULL);
    char *prog = path_join(dir, "prog"), *lib = path_join(dir, "sub/libscale.so");

    /* the linked files only, sorted */
    struct strvec files = STRVEC_INIT;
    elf_find_linked(dir, &files);
    assert_int_equal(files.n, 2);
    assert_string_equal(files.v[0], prog);
    assert_string_equal(files.v[1], lib);
    assert_true(elf_is_linked_x86_64(prog));
    char *obj = path_join(dir, "prog.o");
    assert_false(elf_is_linked_x86_64(obj));
    free(obj);

    struct code_size cs;
    assert_int_equal(code_size_of_dir(dir, &cs), 0);
    assert_int_equal(cs.n_files, 2);
    assert_int_equal(cs.n_unreadable, 0);
    assert_int_equal(cs.code_bytes, size_a_code(prog) + size_a_code(lib));
    /* the three multiversioned functions, sorted, with their added bytes */
    assert_int_equal(cs.n_functions, 3);
    assert_string_equal(cs.functions[0].name, "add_arrays");
    assert_string_equal(cs.functions[1].name, "collatz_steps");
    assert_string_equal(cs.functions[2].name, "scale_floats");
    uint64_t sum = 0;
    const char *names[] = {"add_arrays", "collatz_steps", "scale_floats"};
    const char *where[] = {prog, prog, lib};
    int n_versions[] = {3, 2, 3};
    for (int i = 0; i < 3; i++) {
        const struct code_size_function *f = code_size_find(&cs, names[i]);
        assert_non_null(f);
        int versions = 0;
        uint64_t expect = added_by_symbols(where[i], names[i], &versions);
        assert_true(expect > 0);
        /* the symbols, the padding after them and the PLT entries: main
         * calls add_arrays and collatz_steps through one each, the library
         * does not call scale_floats */
        assert_int_equal(f->clone_bytes + f->resolver_bytes, expect);
        assert_int_equal(code_size_plt_bytes(f), where[i] == prog ? 16 : 0);
        assert_true(f->padding_bytes < 16 * (uint64_t)n_versions[i]);
        assert_int_equal(code_size_added(f), expect + f->padding_bytes + code_size_plt_bytes(f));
        assert_int_equal(f->n_versions, n_versions[i]);
        assert_int_equal(versions, n_versions[i]);
        assert_true(f->default_bytes > 0);
        assert_true(f->resolver_bytes > 0);
        assert_false(f->estimated);
        sum += f->clone_bytes + f->resolver_bytes;
    }
    assert_int_equal(cs.clone_bytes + cs.resolver_bytes, sum);
    assert_null(code_size_find(&cs, "main"));
    assert_true(cs.code_bytes > sum);
    /* each function knows the files holding its clones; each file its CPU
     * detection: the runtime's __cpu_indicator_init and the helpers of its
     * object (more than that symbol alone), in both files (each has a
     * resolver) */
    for (int i = 0; i < 3; i++) {
        const struct code_size_function *f = code_size_find(&cs, names[i]);
        assert_int_equal(f->n_files, 1);
        assert_string_equal(cs.files[f->files[0]].path, where[i]);
    }
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(cs.files[i].code_bytes, size_a_code(cs.files[i].path));
        struct elf_file ef;
        assert_int_equal(elf_file_open(cs.files[i].path, &ef), 0);
        const struct elf_sym *init = elf_file_sym_named(&ef, "__cpu_indicator_init");
        assert_non_null(init);
        assert_true(cs.files[i].cpu_detect_bytes > (int64_t)init->size);
        elf_file_close(&ef);
    }

    /* the CRC tells same code from different code, wherever the build ran */
    char *dir2 = make_build(cc, NULL), *dir3 = make_build(cc, "-march=x86-64-v3");
    struct code_size cs2, cs3;
    assert_int_equal(code_size_of_dir(dir2, &cs2), 0);
    assert_int_equal(code_size_of_dir(dir3, &cs3), 0);
    assert_int_equal(cs2.code_crc, cs.code_crc);
    assert_int_equal(cs2.code_bytes, cs.code_bytes);
    assert_int_not_equal(cs3.code_crc, cs.code_crc);
    code_size_free(&cs2);
    code_size_free(&cs3);

    /* an unreadable file: one error, the others still measured */
    char *bad = path_join(dir, "bad");
    char *data = read_file(prog, NULL);
    assert_non_null(data);
    assert_int_equal(write_file_atomic(bad, data, 64), 0);   /* the header, cut */
    free(data);
    char *const list[] = {prog, bad, lib};
    struct code_size cs4;
    fmv_set_quiet(1);
    assert_int_equal(code_size_measure(list, 3, &cs4), -1);
    fmv_set_quiet(0);
    assert_int_equal(cs4.n_files, 2);
    assert_int_equal(cs4.n_unreadable, 1);
    assert_int_equal(cs4.code_bytes, cs.code_bytes);
    assert_int_equal(cs4.n_functions, 3);
    code_size_free(&cs4);
    free(bad);

    /* a program without resolvers has no CPU detection; a stripped one
     * cannot tell */
    char *plain = path_join(dir, "plain"), *stripped = path_join(dir, "stripped"), *plain_c = path_join(dir, "plain.c");
    const char *plain_src = "int main(void) { return 0; }\n";
    assert_int_equal(write_file_atomic(plain_c, plain_src, strlen(plain_src)), 0);
    compile(cc, NULL, NULL, plain_c, plain);
    compile(cc, "-s", NULL, FIXTURES_DIR "/inspect-clones/prog.c", stripped);
    char *const list2[] = {plain, stripped};
    struct code_size cs5;
    assert_int_equal(code_size_measure(list2, 2, &cs5), 0);
    assert_int_equal(cs5.n_files, 2);
    assert_int_equal(cs5.files[0].cpu_detect_bytes, 0);
    assert_int_equal(cs5.files[1].cpu_detect_bytes, -1);
    code_size_free(&cs5);
    free(plain);
    free(plain_c);
    free(stripped);

    code_size_free(&cs);
    sv_free(&files);
    remove_tree(dir);
    remove_tree(dir2);
    remove_tree(dir3);
    free(dir);
    free(dir2);
    free(dir3);
    free(prog);
    free(lib);
}

static void test_gcc(void **state)
{
    (void)state;
    check_compiler("gcc");
}

static void test_clang19(void **state)
{
    (void)state;
    /* clang 14 builds arch=x86-64-v4 clones too, but only 19 dispatches
     * them; the sizes are what matters here (skipped without clang-19) */
    check_compiler("clang-19");
}

static void test_empty_dir(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-codesize");
    struct code_size cs;
    assert_int_equal(code_size_of_dir(dir, &cs), 0);
    assert_int_equal(cs.n_files, 0);
    assert_int_equal(cs.code_bytes, 0);
    assert_int_equal(cs.n_functions, 0);
    code_size_free(&cs);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc),
        cmocka_unit_test(test_clang19),
        cmocka_unit_test(test_empty_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
