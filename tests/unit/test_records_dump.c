/* Unit tests of the GCC dump reader (lib/records/gcc_dump.c) on dumps that
 * gcc writes at test time for tests/fixtures/records, with the very flags
 * the wrapper uses (compiler_record_flags): the function is the one
 * compiled after inlining (C name or mangled C++ symbol, clone suffix
 * stripped), SLP and loops apart, widths in bytes, a loop in a macro in two
 * functions, -g. Each compile also writes GCC's JSON records, and the two
 * readers must agree record for record. Then damaged dumps: each is named
 * in one error line and yields nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "capture/compiler.h"
#include "test_records_util.h"

struct compiled {
    char *dump;   /* the record path of the dumps (the .vect file) */
    char *json;   /* GCC's JSON records of the same compile */
    char *obj;
};

static void compiled_free(struct compiled *c)
{
    free(c->dump);
    free(c->json);
    free(c->obj);
}

/* Compiles fixture src with gcc -O3 + extra (NULL-terminated) into
 * tmp/tag/, with the wrapper's dump flags and, when json, GCC's JSON
 * records too. */
static struct compiled compile_fixture(const char *tmp, const char *tag, const char *src, const char *const *extra,
                                       int json)
{
    struct compiled c = {0};
    char *dir = path_join(tmp, tag);
    assert_int_equal(mkdir_p(dir, 0755), 0);
    char *source = fixture_path(src);
    c.obj = path_join(dir, "out.o");
    struct compiler_id gcc = {.kind = COMPILER_GCC, .path = "gcc", .version = "12", .major = 12};
    struct strvec flags = STRVEC_INIT, argv = STRVEC_INIT;
    const char *format = NULL;
    compiler_record_flags(&gcc, dir, c.obj, &flags, &c.dump, &format);
    assert_string_equal(format, "gcc-dump");
    sv_push(&argv, strstr(src, ".cpp") ? "g++" : "gcc");
    sv_push(&argv, "-O3");
    for (; extra && *extra; extra++) sv_push(&argv, *extra);
    sv_push(&argv, "-c");
    sv_push(&argv, source);
    sv_push(&argv, "-o");
    sv_push(&argv, c.obj);
    sv_push_all(&argv, sv_argv(&flags));
    if (json) {
        sv_push(&argv, "-fsave-optimization-record");
        sv_push(&argv, "-dumpdir");
        sv_pushf(&argv, "%s/", dir);
        sv_push(&argv, "-dumpbase");
        sv_push(&argv, "json");
        c.json = path_join(dir, "json.opt-record.json.gz");
    }
    struct run_opts opts = {.capture_stderr = 1};
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    if (rc != 0) fprintf(stderr, "%s", res.err ? res.err : "gcc did not run\n");
    assert_int_equal(rc, 0);
    run_result_free(&res);
    sv_free(&flags);
    sv_free(&argv);
    free(source);
    free(dir);
    return c;
}

static void read_ok(const char *format, const char *path, struct record_list *l)
{
    assert_int_equal(records_read_file(format, path, record_list_add, l), 0);
    record_list_dedup(l);
}

/* The dump reader and the JSON reader find the same records. */
static void assert_same_as_json(const struct compiled *c)
{
    struct record_list d = RECORD_LIST_INIT, j = RECORD_LIST_INIT;
    read_ok("gcc-dump", c->dump, &d);
    read_ok("gcc-json", c->json, &j);
    assert_int_equal(d.n, j.n);
    for (size_t i = 0; i < d.n; i++) {
        assert_string_equal(d.v[i].function, j.v[i].function);
        assert_string_equal(d.v[i].file, j.v[i].file);
        assert_int_equal(d.v[i].line, j.v[i].line);
        assert_int_equal(d.v[i].column, j.v[i].column);
        assert_int_equal(d.v[i].kind, j.v[i].kind);
        assert_int_equal(d.v[i].vector_bytes, j.v[i].vector_bytes);
        assert_string_equal(d.v[i].message, j.v[i].message);
    }
    record_list_free(&d);
    record_list_free(&j);
}

static void test_c_inlined_helper_slp_and_clones(void **state)
{
    struct compiled c = compile_fixture(*state, "c", "kernels.c", NULL, 1);
    struct record_list l = RECORD_LIST_INIT;
    read_ok("gcc-dump", c.dump, &l);
    /* The helper's loop belongs to foo, at the helper's line. */
    assert_int_equal(count_function(&l, "add_helper"), 0);
    const struct loop_record *foo = find_record(&l, "foo", LOOP_VECTORIZED);
    assert_non_null(foo);
    assert_int_equal(foo->line, marked_line("kernels.c", "helper-loop"));
    assert_true(foo->column > 0);
    assert_int_equal(foo->vector_bytes, 16);   /* the 8-byte epilogue folded in */
    assert_int_equal(foo->vector_lanes, 0);
    assert_non_null(strstr(foo->file, "kernels.c"));
    assert_string_equal(foo->message, "loop vectorized using 16 byte vectors");
    /* SLP is its own kind (from the slp dumps), not a loop. */
    const struct loop_record *slp = find_record(&l, "slp4", LOOP_SLP);
    assert_non_null(slp);
    assert_int_equal(slp->line, marked_line("kernels.c", "slp"));
    assert_int_equal(slp->vector_bytes, 16);
    assert_null(find_record(&l, "slp4", LOOP_VECTORIZED));
    /* "scale.constprop.0" is scale. */
    assert_non_null(find_record(&l, "scale", LOOP_VECTORIZED));
    for (size_t i = 0; i < l.n; i++) assert_null(strchr(l.v[i].function, '.'));
    assert_int_equal(count_function(&l, "dot64"), 0);   /* needs SSE4.1/AVX2 */
    assert_int_equal(count_function(&l, "scalar_only"), 0);
    record_list_free(&l);
    assert_same_as_json(&c);
    compiled_free(&c);
}

static void test_wider_isa_widths(void **state)
{
    static const char *const avx2[] = {"-mavx2", NULL};
    struct compiled c = compile_fixture(*state, "avx2", "kernels.c", avx2, 1);
    struct record_list l = RECORD_LIST_INIT;
    read_ok("gcc-dump", c.dump, &l);
    const struct loop_record *dot = find_record(&l, "dot64", LOOP_VECTORIZED);
    assert_non_null(dot);
    assert_int_equal(dot->line, marked_line("kernels.c", "dot64-loop"));
    assert_int_equal(dot->vector_bytes, 32);
    assert_int_equal(find_record(&l, "slp4", LOOP_SLP)->vector_bytes, 32);
    record_list_free(&l);
    assert_same_as_json(&c);
    compiled_free(&c);
}

static void test_cxx_mangled_symbols(void **state)
{
    struct compiled c = compile_fixture(*state, "cxx", "methods.cpp", NULL, 1);
    struct record_list l = RECORD_LIST_INIT;
    read_ok("gcc-dump", c.dump, &l);
    /* The header's second name, not its printable "ns::Vec::add". */
    static const char *const expected[] = {
        "_ZN2ns3Vec3addERKS0_", "_ZN2ns5saxpyEPfPKffi", "_ZN2ns5saxpyEPdPKddi", "_Z3useRN2ns3VecE", "cfun",
    };
    assert_int_equal(l.n, sizeof expected / sizeof *expected);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        assert_non_null(find_record(&l, expected[i], LOOP_VECTORIZED));
    assert_int_equal(find_record(&l, "_Z3useRN2ns3VecE", LOOP_VECTORIZED)->line,
                     marked_line("methods.cpp", "scale-method"));
    record_list_free(&l);
    assert_same_as_json(&c);
    compiled_free(&c);
}

static void test_macro_loop_in_two_functions(void **state)
{
    struct compiled c = compile_fixture(*state, "macro", "macro.c", NULL, 1);
    struct record_list l = RECORD_LIST_INIT;
    read_ok("gcc-dump", c.dump, &l);
    assert_int_equal(l.n, 2);
    const struct loop_record *f = find_record(&l, "add_floats", LOOP_VECTORIZED);
    const struct loop_record *i = find_record(&l, "add_ints", LOOP_VECTORIZED);
    assert_non_null(f);
    assert_non_null(i);
    /* GCC places a macro's loop at its expansion. */
    assert_int_equal(f->line, marked_line("macro.c", "use-floats"));
    assert_int_equal(i->line, marked_line("macro.c", "use-ints"));
    record_list_free(&l);
    assert_same_as_json(&c);
    compiled_free(&c);
}

/* With -g the dumps leave the object as it is (unlike GCC's JSON flag,
 * which DW_AT_producer records), and give the same records. */
static void test_debug_info_object_unchanged(void **state)
{
    static const char *const g[] = {"-g", NULL};
    struct compiled c = compile_fixture(*state, "g", "methods.cpp", g, 0);
    char *plain = path_join(*state, "plain.o");
    char *source = fixture_path("methods.cpp");
    struct run_result res;
    char *argv[] = {"g++", "-O3", "-g", "-c", source, "-o", plain, NULL};
    assert_int_equal(run_argv(argv, NULL, &res), 0);
    run_result_free(&res);
    size_t na, nb;
    char *a = read_file(plain, &na), *b = read_file(c.obj, &nb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    struct record_list l = RECORD_LIST_INIT;
    read_ok("gcc-dump", c.dump, &l);
    assert_int_equal(l.n, 5);
    record_list_free(&l);
    free(a);
    free(b);
    free(source);
    free(plain);
    compiled_free(&c);
}

/* Writes the three dump files of record path tmp/name.vect. */
static char *write_dumps(const char *tmp, const char *name, const char *vect, const char *slp1, const char *slp2)
{
    char *base = xasprintf("%s/%s.vect", tmp, name);
    const char *texts[] = {vect, slp1, slp2};
    for (int i = 0; records_gcc_dump_passes[i]; i++) {
        if (!texts[i]) continue;   /* NULL: the file is missing */
        char *file = records_gcc_dump_file(base, records_gcc_dump_passes[i]);
        assert_int_equal(write_file_atomic(file, texts[i], strlen(texts[i])), 0);
        free(file);
    }
    return base;
}

#define HEADER(fn, asm) "\n;; Function " fn " (" asm ", funcdef_no=0, decl_uid=1, cgraph_uid=1, symbol_order=0)\n\n"

static void test_hand_written_shapes(void **state)
{
    /* IR lines are indented (a string constant holding a message's text
     * is not a message); a header's first name may hold spaces and
     * parentheses; a location-less message has no file; files with colons
     * and spaces keep them. */
    const char *vect = HEADER("main()::<lambda(int)>::operator()", "_ZZ4mainENKUliE_clEi")
        "my dir/a:b.c:7:3: optimized: loop vectorized using 32 byte vectors\n"
        "Removing basic block 4\n"
        "  _1 = strcmp (\"a.c:1:1: optimized: loop vectorized using 64 byte vectors\", 1);\n"
        "a.c:8:1: missed: couldn't vectorize loop\n"
        HEADER("f", "f.part.0")
        "optimized: basic block part vectorized using 16 byte vectors\n";
    char *p = write_dumps(*state, "shapes", vect, "", "\n");
    struct record_list l = RECORD_LIST_INIT;
    assert_int_equal(records_read_gcc_dump(p, record_list_add, &l), 0);
    assert_int_equal(l.n, 2);
    const struct loop_record *lam = find_record(&l, "_ZZ4mainENKUliE_clEi", LOOP_VECTORIZED);
    assert_non_null(lam);
    assert_string_equal(lam->file, "my dir/a:b.c");
    assert_int_equal(lam->line, 7);
    assert_int_equal(lam->column, 3);
    assert_int_equal(lam->vector_bytes, 32);
    const struct loop_record *f = find_record(&l, "f", LOOP_SLP);
    assert_non_null(f);
    assert_null(f->file);
    assert_int_equal(f->line, 0);
    record_list_free(&l);
    free(p);

    /* Three empty dumps: a TU where no pass ran on a function. */
    p = write_dumps(*state, "empty", "", "", "");
    assert_int_equal(records_read_gcc_dump(p, record_list_add, &l), 0);
    assert_int_equal(l.n, 0);
    free(p);
}

static void expect_failure(const char *path, const char *needle)
{
    struct record_list l = RECORD_LIST_INIT;
    char *err = NULL;
    assert_int_equal(read_capturing_stderr(records_read_gcc_dump, path, &l, &err), -1);
    assert_int_equal(l.n, 0);   /* nothing delivered from a damaged compile */
    if (!strstr(err, needle)) fail_msg("error %s lacks '%s'", err, needle);
    assert_non_null(strstr(err, "fmvgen: "));
    assert_non_null(strstr(records_error(), needle));
    int lines = 0;
    for (const char *c = err; *c; c++) lines += *c == '\n';
    assert_int_equal(lines, 1);
    free(err);
}

static void test_damaged_dumps(void **state)
{
    const char *good = HEADER("g", "g") "a.c:1:2: optimized: loop vectorized using 16 byte vectors\n";
    /* The loop vectorizer's dump is fine, an SLP dump is cut short: the
     * whole compile's records are withheld, the cut file named. */
    char *p = write_dumps(*state, "cut", good, HEADER("g", "g") "a.c:3:1: optimized: basic block part vec", "");
    expect_failure(p, "cut.slp1: truncated GCC dump");
    free(p);
    p = write_dumps(*state, "missing", good, "", NULL);
    expect_failure(p, "missing.slp2: cannot read");
    free(p);
    p = write_dumps(*state, "junk", "{\"not\": \"a dump\"}\n", "", "");
    expect_failure(p, "junk.vect: not a GCC dump");
    free(p);
    p = write_dumps(*state, "header", "\n;; Function g\n", "", "");
    expect_failure(p, "header.vect: not a GCC dump: line 2");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c_inlined_helper_slp_and_clones),
        cmocka_unit_test(test_wider_isa_widths),
        cmocka_unit_test(test_cxx_mangled_symbols),
        cmocka_unit_test(test_macro_loop_in_two_functions),
        cmocka_unit_test(test_debug_info_object_unchanged),
        cmocka_unit_test(test_hand_written_shapes),
        cmocka_unit_test(test_damaged_dumps),
    };
    return cmocka_run_group_tests(tests, records_tmp_setup, records_tmp_teardown);
}
