/* Unit tests of lib/capture/compiler: argv classification (compile or not,
 * sources and their languages, output, -O level, values of separate-value
 * options never taken for sources), default outputs, compiler driver names,
 * the record flags of each compiler, when those flags would change the
 * build's outputs, the flags that defeat vectorization, and identifying
 * gcc, clang (through links such as cc -> gcc) and a compiler that is
 * neither (a script, at test time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/compiler.h"
#include "records/records.h"
#include "run/spawn.h"
#include "util/util.h"

#define ARGV(...) ((char *[]){__VA_ARGS__, NULL})

static void parse(char **argv, struct compile_args *a) { compile_args_parse(argv, a); }

static void test_plain_compile(void **state)
{
    (void)state;
    struct compile_args a;
    parse(ARGV("gcc", "-O2", "-Iinc", "-c", "src/a.c", "-o", "obj/a.o"), &a);
    assert_true(a.is_compile);
    assert_false(a.links);
    assert_int_equal(a.sources.n, 1);
    assert_string_equal(a.sources.v[0], "src/a.c");
    assert_string_equal(a.language, "c");
    assert_string_equal(a.output, "obj/a.o");
    assert_int_equal(a.opt_level, '2');
    compile_args_free(&a);
}

static void test_separate_values_are_not_sources(void **state)
{
    (void)state;
    struct compile_args a;
    /* Values that look like sources: -include x.c, -MF dep.c, -Xclang
     * value, -MT/-MQ targets, -isystem dir.c, -o joined. */
    parse(ARGV("clang", "-include", "pre.c", "-MF", "dep.c", "-MT", "t.c", "-Xclang", "foo.c", "-isystem",
               "dir.c", "-D", "X=1", "-c", "real.cpp", "-oout.o"),
          &a);
    assert_true(a.is_compile);
    assert_int_equal(a.sources.n, 1);
    assert_string_equal(a.sources.v[0], "real.cpp");
    assert_string_equal(a.language, "c++");
    assert_string_equal(a.output, "out.o");
    compile_args_free(&a);
}

static void test_languages_and_x(void **state)
{
    (void)state;
    struct compile_args a;
    parse(ARGV("cc", "-c", "a.c", "b.cc", "c.cpp", "d.cxx", "e.C", "f.c++", "g.s", "h.S", "-x", "c++", "i.c", "-x",
               "none", "j.c", "-xc", "k.txt", "-x", "assembler", "l.c"),
          &a);
    assert_true(a.is_compile);
    const char *want_src[] = {"a.c", "b.cc", "c.cpp", "d.cxx", "e.C", "f.c++", "i.c", "j.c", "k.txt"};
    const char *want_lang[] = {"c", "c++", "c++", "c++", "c++", "c++", "c++", "c", "c"};
    assert_int_equal(a.sources.n, 9);
    for (size_t i = 0; i < 9; i++) {
        assert_string_equal(a.sources.v[i], want_src[i]);
        assert_string_equal(a.languages.v[i], want_lang[i]);
    }
    compile_args_free(&a);
    /* A header compiled to a PCH is not a source compile. */
    parse(ARGV("g++", "-x", "c++-header", "-c", "pch.hpp"), &a);
    assert_false(a.is_compile);
    compile_args_free(&a);
}

static void test_not_compiles(void **state)
{
    (void)state;
    char **cases[] = {
        ARGV("gcc", "-E", "a.c"),           ARGV("gcc", "-M", "a.c"),
        ARGV("gcc", "-MM", "a.c"),          ARGV("gcc", "-S", "a.c"),
        ARGV("gcc", "-fsyntax-only", "a.c"), ARGV("clang", "-###", "-c", "a.c"),
        ARGV("gcc", "--version"),           ARGV("gcc", "-o", "prog", "a.o", "b.o", "-lm"),
        ARGV("gcc", "-c", "x.s"),           ARGV("gcc", "-dumpfullversion"),
        ARGV("gcc", "-print-file-name=libc.so"), ARGV("cc", "-c", "-"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct compile_args a;
        parse(cases[i], &a);
        if (a.is_compile) fail_msg("case %zu (%s %s) taken for a compile", i, cases[i][1], cases[i][2] ? cases[i][2] : "");
        compile_args_free(&a);
    }
}

static void test_compile_and_link(void **state)
{
    (void)state;
    struct compile_args a;
    parse(ARGV("cc", "-O3", "-o", "array_addition", "array_addition.c", "-lm"), &a);
    assert_true(a.is_compile);
    assert_true(a.links);
    assert_string_equal(a.output, "array_addition");
    char *o = compile_args_output_of(&a, 0, "/p");
    assert_string_equal(o, "/p/array_addition");
    free(o);
    compile_args_free(&a);
    parse(ARGV("cc", "x.c"), &a);
    o = compile_args_output_of(&a, 0, "/p");
    assert_string_equal(o, "/p/a.out");
    free(o);
    compile_args_free(&a);
}

static void test_default_outputs(void **state)
{
    (void)state;
    struct compile_args a;
    parse(ARGV("gcc", "-c", "src/a.c", "../b/weird.name.cpp"), &a);
    char *o0 = compile_args_output_of(&a, 0, "/build");
    char *o1 = compile_args_output_of(&a, 1, "/build");
    assert_string_equal(o0, "/build/a.o");
    assert_string_equal(o1, "/build/weird.name.o");
    free(o0);
    free(o1);
    compile_args_free(&a);
    parse(ARGV("gcc", "-c", "a.c", "-o", "../obj/a.o"), &a);
    o0 = compile_args_output_of(&a, 0, "/build/sub");
    assert_string_equal(o0, "/build/obj/a.o");
    free(o0);
    compile_args_free(&a);
}

static void test_opt_levels(void **state)
{
    (void)state;
    struct {
        char **argv;
        char level;
    } cases[] = {
        {ARGV("cc", "-c", "a.c"), '0'},
        {ARGV("cc", "-O", "-c", "a.c"), '1'},
        {ARGV("cc", "-O3", "-O2", "-c", "a.c"), '2'},
        {ARGV("cc", "-O2", "-O3", "-c", "a.c"), '3'},
        {ARGV("cc", "-O9", "-c", "a.c"), '3'},
        {ARGV("cc", "-Os", "-c", "a.c"), 's'},
        {ARGV("cc", "-Oz", "-c", "a.c"), 'z'},
        {ARGV("cc", "-Og", "-c", "a.c"), 'g'},
        {ARGV("cc", "-O2", "-Ofast", "-c", "a.c"), 'f'},
        {ARGV("cc", "-O0", "-c", "a.c"), '0'},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct compile_args a;
        parse(cases[i].argv, &a);
        if (a.opt_level != cases[i].level) fail_msg("case %zu: level %c, expected %c", i, a.opt_level, cases[i].level);
        compile_args_free(&a);
    }
}

static void test_driver_names(void **state)
{
    (void)state;
    const char *yes[] = {"cc", "c++", "gcc", "g++", "clang", "clang++", "gcc-12", "g++-12", "clang-14",
                         "clang++-19", "x86_64-linux-gnu-gcc", "x86_64-linux-gnu-g++-12", "clang-19.1"};
    const char *no[] = {"fmvgen", "fmvgen-cc", "distcc", "mycc", "gcc-ar", "clang-format", "clang-tidy-14",
                        "ld", "make", "gcc-", "ccache", "cc1"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!compiler_name_is_driver(yes[i])) fail_msg("%s not taken for a compiler driver", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (compiler_name_is_driver(no[i])) fail_msg("%s taken for a compiler driver", no[i]);
}

static void test_record_flags(void **state)
{
    (void)state;
    struct compiler_id gcc11 = {.kind = COMPILER_GCC, .path = "/usr/bin/gcc-11", .version = "11.4.0", .major = 11};
    struct compiler_id gcc = {.kind = COMPILER_GCC, .path = "/usr/bin/gcc", .version = "12.2.0", .major = 12};
    struct compiler_id clang = {.kind = COMPILER_CLANG, .path = "/usr/bin/clang", .version = "14.0.6", .major = 14};
    struct strvec f = STRVEC_INIT;
    char *path = NULL;
    const char *format = NULL;
    /* GCC before 12: JSON records (no files are made beforehand). */
    compiler_record_flags(&gcc11, "/s/.fmvgen/records/x", "/b/obj/util.o", &f, &path, &format);
    assert_string_equal(format, "gcc-json");
    assert_false(compiler_records_use_dumps(&gcc11));
    assert_string_equal(path, "/s/.fmvgen/records/x/util.opt-record.json.gz");
    assert_int_equal(f.n, 5);
    assert_string_equal(f.v[0], "-fsave-optimization-record");
    assert_string_equal(f.v[1], "-dumpdir");
    assert_string_equal(f.v[2], "/s/.fmvgen/records/x/");
    assert_string_equal(f.v[3], "-dumpbase");
    assert_string_equal(f.v[4], "util");
    sv_free(&f);
    free(path);
    /* GCC 12: the three vectorizer dumps, named and created empty. */
    char *dir = make_temp_dir("test-compiler");
    compiler_record_flags(&gcc, dir, "/b/obj/util.o", &f, &path, &format);
    assert_string_equal(format, "gcc-dump");
    assert_true(compiler_records_use_dumps(&gcc));
    char *want = xasprintf("%s/util.vect", dir);
    assert_string_equal(path, want);
    assert_int_equal(f.n, 3);
    static const char *const passes[] = {"vect", "slp1", "slp2"};
    for (int i = 0; i < 3; i++) {
        char *flag = xasprintf("-fdump-tree-%s-optimized=%s/util.%s", passes[i], dir, passes[i]);
        assert_string_equal(f.v[i], flag);
        char *file = xasprintf("%s/util.%s", dir, passes[i]);
        struct stat sb;
        assert_int_equal(stat(file, &sb), 0);
        assert_int_equal(sb.st_size, 0);
        free(file);
        free(flag);
    }
    free(want);
    sv_free(&f);
    free(path);
    remove_tree(dir);
    free(dir);
    compiler_record_flags(&clang, "/r", "prog", &f, &path, &format);
    assert_string_equal(format, "clang-yaml");
    assert_string_equal(path, "/r/prog.opt.yaml");
    assert_int_equal(f.n, 8);
    assert_string_equal(f.v[0], "-Xclang");
    assert_string_equal(f.v[1], "-opt-record-file");
    assert_string_equal(f.v[2], "-Xclang");
    assert_string_equal(f.v[3], "/r/prog.opt.yaml");
    assert_string_equal(f.v[5], "-opt-record-passes");
    assert_string_equal(f.v[7], "loop-vectorize|slp-vectorizer");
    sv_free(&f);
    free(path);
}

static void test_records_change_outputs(void **state)
{
    (void)state;
    struct compiler_id gcc = {.kind = COMPILER_GCC, .major = 11};   /* JSON records */
    struct compiler_id gcc12 = {.kind = COMPILER_GCC, .major = 12}; /* dumps */
    struct compiler_id clang = {.kind = COMPILER_CLANG};
    /* GCC 12's dumps show in no output: -g, -frecord-gcc-switches and the
     * files named after the dump base are all fine; only -flto (records
     * the options, and does not vectorize), the build's own dumps and
     * -fcompare-debug are not. */
    assert_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-O2", "-g", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-ggdb3", "-frecord-gcc-switches", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-fstack-usage", "-MMD", "-gsplit-dwarf", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-save-temps=obj", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-g", "-flto=auto", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-fdump-tree-all", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc12, ARGV("gcc", "-fcompare-debug", "-c", "a.c")));
    /* Safe: plain optimized compiles, -g0 last, -gno-record-gcc-switches,
     * -MD with -o. */
    assert_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-O3", "-c", "a.c", "-o", "a.o")));
    assert_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-g", "-g0", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-g", "-gno-record-gcc-switches", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-MD", "-c", "a.c", "-o", "a.o")));
    assert_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-MD", "-MF", "a.d", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&clang, ARGV("clang", "-g", "-O2", "-c", "a.c")));
    assert_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-flto", "-fno-lto", "-c", "a.c")));
    /* Unsafe. */
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-O2", "-g", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-ggdb3", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-frecord-gcc-switches", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-flto=auto", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-fstack-usage", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "--coverage", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-save-temps=obj", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&gcc, ARGV("gcc", "-MMD", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&clang, ARGV("clang", "-g", "-grecord-command-line", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&clang, ARGV("clang", "-flto=thin", "-c", "a.c")));
    assert_non_null(compiler_records_change_outputs(&clang, ARGV("clang", "-fsave-optimization-record", "-c", "a.c")));
}

static int has_note(const struct strvec *notes, const char *kind, const char *text)
{
    for (size_t i = 0; i < notes->n; i++)
        if (!strncmp(notes->v[i], kind, strlen(kind)) && notes->v[i][strlen(kind)] == '\t' &&
            strstr(notes->v[i], text))
            return 1;
    return 0;
}

static void test_vectorization_notes(void **state)
{
    (void)state;
    struct strvec n = STRVEC_INIT;
    compile_args_vectorization_notes(ARGV("gcc", "-O3", "-fno-tree-vectorize", "-c", "a.c"), &n);
    assert_true(has_note(&n, "no-vectorize-flag", "-fno-tree-vectorize"));
    assert_int_equal(n.n, 1);
    sv_free(&n);
    compile_args_vectorization_notes(ARGV("gcc", "-O3", "-fno-tree-vectorize", "-ftree-vectorize", "-c", "a.c"), &n);
    assert_int_equal(n.n, 0);
    sv_free(&n);
    compile_args_vectorization_notes(ARGV("gcc", "-O2", "-fno-tree-loop-vectorize", "-c", "a.c"), &n);
    assert_true(has_note(&n, "no-vectorize-flag", "-fno-tree-loop-vectorize"));
    sv_free(&n);
    compile_args_vectorization_notes(ARGV("clang", "-O3", "-fno-vectorize", "-fno-slp-vectorize", "-c", "a.c"), &n);
    assert_true(has_note(&n, "no-vectorize-flag", "-fno-vectorize"));
    assert_true(has_note(&n, "no-vectorize-flag", "-fno-slp-vectorize"));
    sv_free(&n);
    const char *low[] = {"-O0", "-O1", "-Os", "-Og", "-Oz"};
    for (size_t i = 0; i < 5; i++) {
        compile_args_vectorization_notes(ARGV("gcc", (char *)low[i], "-c", "a.c"), &n);
        if (!has_note(&n, "low-opt", low[i])) fail_msg("no low-opt note for %s", low[i]);
        sv_free(&n);
    }
    compile_args_vectorization_notes(ARGV("gcc", "-c", "a.c"), &n);
    assert_true(has_note(&n, "low-opt", "no -O option"));
    sv_free(&n);
    /* -O1 with an explicit -ftree-vectorize does vectorize. */
    compile_args_vectorization_notes(ARGV("gcc", "-O1", "-ftree-vectorize", "-c", "a.c"), &n);
    assert_int_equal(n.n, 0);
    sv_free(&n);
    compile_args_vectorization_notes(ARGV("gcc", "-O2", "-c", "a.c"), &n);
    assert_int_equal(n.n, 0);
    sv_free(&n);
}

/* ---- identification (runs the installed compilers) ---- */

static void test_identify_gcc_and_clang(void **state)
{
    (void)state;
    struct compiler_id id;
    assert_int_equal(compiler_identify("gcc", &id), 0);
    assert_int_equal(id.kind, COMPILER_GCC);
    assert_true(id.major >= 4);
    assert_non_null(strchr(id.version, '.'));
    assert_true(id.path[0] == '/');
    assert_string_equal(path_basename(id.path), "gcc");
    compiler_id_free(&id);
    /* cc is a link chain to gcc here; its --version says "cc (...)". */
    char *cc = find_in_path("cc");
    if (cc) {
        free(cc);
        assert_int_equal(compiler_identify("cc", &id), 0);
        assert_int_equal(id.kind, COMPILER_GCC);
        compiler_id_free(&id);
    }
    char *clang = find_in_path("clang");
    if (clang) {
        free(clang);
        assert_int_equal(compiler_identify("clang++", &id), 0);
        assert_int_equal(id.kind, COMPILER_CLANG);
        assert_string_equal(path_basename(id.path), "clang++");   /* the link, not the file it points at */
        assert_true(id.major >= 10);
        compiler_id_free(&id);
    }
}

static char *write_script(const char *dir, const char *name, const char *body)
{
    char *p = path_join(dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(body, f);
    fclose(f);
    chmod(p, 0755);
    return p;
}

static void test_identify_rejects_others_and_caches(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-compiler");
    char *fake = write_script(dir, "cc", "#!/bin/sh\necho 'TinyCC 0.9.27'\n");
    struct compiler_id id;
    fmv_set_quiet(1);
    assert_int_equal(compiler_identify(fake, &id), -1);
    char *missing = path_join(dir, "nope");
    assert_int_equal(compiler_identify(missing, &id), -1);
    fmv_set_quiet(0);
    free(missing);

    /* A script pretending to be GCC 12 is identified, and the cross-process
     * cache remembers it until the file changes. */
    char *gccish = write_script(dir, "gcc-fake",
                                "#!/bin/sh\necho 'gcc-fake (Debian 12.2.0-14) 12.2.0'\n"
                                "echo 'Copyright (C) 2022 Free Software Foundation, Inc.'\n");
    char *cache = path_join(dir, "cache");
    assert_int_equal(compiler_identify_cached(gccish, cache, &id), 0);
    assert_int_equal(id.kind, COMPILER_GCC);
    assert_string_equal(id.version, "12.2.0");
    assert_int_equal(id.major, 12);
    compiler_id_free(&id);
    assert_true(is_directory(cache));
    assert_int_equal(compiler_identify_cached(gccish, cache, &id), 0);
    assert_string_equal(id.version, "12.2.0");
    compiler_id_free(&id);

    remove_tree(dir);
    free(cache);
    free(gccish);
    free(fake);
    free(dir);
}

static int note_function(const struct loop_record *rec, void *ctx)
{
    struct strvec *names = ctx;
    if (rec->function && !sv_contains(names, rec->function)) sv_push(names, rec->function);
    return 0;
}

/* lz4's tests/Makefile: `cc -O3 helper.o prog.c -o prog`, one source and an
 * object input. GCC names the JSON record after output and source then, not
 * after the -dumpbase given ("prog-prog.c.opt-record.json.gz" from GCC 12):
 * compiler_record_file_found finds it in the compile's records dir. Run
 * with the real gcc on the JSON path that GCC < 12 gets (simulated by the
 * compiler_id's version; GCC 12 takes the same flags). */
static void test_json_record_of_link_with_object_inputs(void **state)
{
    (void)state;
    char *dir = make_temp_dir("test-compiler-link");
    char *helper = path_join(dir, "helper.c"), *prog = path_join(dir, "prog.c");
    const char *helper_text = "int helper_offset(int x) { return x + 1; }\n";
    const char *prog_text = "int helper_offset(int);\n"
                            "void add_scaled(float *restrict d, const float *restrict s, int n)\n"
                            "{ for (int i = 0; i < n; i++) d[i] += 2.0f * s[i]; }\n"
                            "int main(void) { float a[64] = {0}, b[64] = {1}; add_scaled(a, b, 64);"
                            " return helper_offset((int)a[0]) != 3; }\n";
    assert_int_equal(write_file_atomic(helper, helper_text, strlen(helper_text)), 0);
    assert_int_equal(write_file_atomic(prog, prog_text, strlen(prog_text)), 0);
    struct run_opts o = {.cwd = dir, .null_stdout = 1};
    char *obj_argv[] = {"gcc", "-O3", "-c", "helper.c", "-o", "helper.o", NULL};
    assert_int_equal(run_argv(obj_argv, &o, NULL), 0);

    struct compiler_id gcc11 = {.kind = COMPILER_GCC, .path = "/usr/bin/gcc", .version = "11.4.0", .major = 11};
    char *records = path_join(dir, "records");
    assert_int_equal(mkdir_p(records, 0755), 0);
    char *output = path_join(dir, "prog");
    struct strvec flags = STRVEC_INIT, argv = STRVEC_INIT;
    char *path = NULL;
    const char *format = NULL;
    compiler_record_flags(&gcc11, records, output, &flags, &path, &format);
    assert_string_equal(format, "gcc-json");
    char *base[] = {"gcc", "-O3", "helper.o", "prog.c", "-o", "prog", NULL};
    sv_push_all(&argv, base);
    sv_push_all(&argv, sv_argv(&flags));
    assert_int_equal(run_argv(sv_argv(&argv), &o, NULL), 0);

    assert_false(file_exists(path));   /* GCC did not use the name it was given */
    char *found = compiler_record_file_found(path, format);
    assert_non_null(found);
    char *rel = path_relative_to(found, records);
    assert_non_null(rel);
    assert_null(strchr(rel, '/'));
    struct strvec names = STRVEC_INIT;
    assert_int_equal(records_read_file(format, found, note_function, &names), 0);
    assert_true(sv_contains(&names, "add_scaled"));
    /* Nothing else was written next to the sources or the output. */
    char *stray = path_join(dir, "prog-prog.c.opt-record.json.gz");
    assert_false(file_exists(stray));

    /* Two JSON files: not one compile's dir, nothing is trusted. */
    char *other = path_join(records, "other.opt-record.json.gz");
    assert_int_equal(write_file_atomic(other, "", 0), 0);
    char *none = compiler_record_file_found(path, format);
    assert_null(none);
    /* A missing Clang or dump record is missing: no search. */
    char *yaml = path_join(records, "prog.opt.yaml");
    assert_null(compiler_record_file_found(yaml, "clang-yaml"));

    free(yaml);
    free(other);
    free(stray);
    sv_free(&names);
    free(rel);
    free(found);
    free(path);
    sv_free(&flags);
    sv_free(&argv);
    free(output);
    free(records);
    free(helper);
    free(prog);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_compile),
        cmocka_unit_test(test_separate_values_are_not_sources),
        cmocka_unit_test(test_languages_and_x),
        cmocka_unit_test(test_not_compiles),
        cmocka_unit_test(test_compile_and_link),
        cmocka_unit_test(test_default_outputs),
        cmocka_unit_test(test_opt_levels),
        cmocka_unit_test(test_driver_names),
        cmocka_unit_test(test_record_flags),
        cmocka_unit_test(test_json_record_of_link_with_object_inputs),
        cmocka_unit_test(test_records_change_outputs),
        cmocka_unit_test(test_vectorization_notes),
        cmocka_unit_test(test_identify_gcc_and_clang),
        cmocka_unit_test(test_identify_rejects_others_and_caches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
