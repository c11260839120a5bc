/* test_uses.c - candidates/locate.h locate_uses: the uses of a function in
 * a file, in AST order, within the top-level declarations starting before
 * a limit; asked several times about one TU (different functions, limits
 * and files, as redecl.c, helpers.c and inlined.c ask) each answer is the
 * one a fresh walk gives. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "candidates/locate.h"
#include "candidates/tu.h"
#include "store/store.h"
#include "util/util.h"

static const char HEADER[] = "int f(int);\n"
                             "static inline int h(int x) { return f(x) + 1; }\n";
static const char SOURCE[] = "#include \"uses.h\"\n"
                             "int g(int x) { return f(x) * 2; }\n"
                             "int (*pf)(int) = f;\n"
                             "int f(int x) { return x + 1; }\n"
                             "int k(int x) { return f(f(x)) + g(x) + h(x); }\n";

/* "line:top" for each use, comma-separated. */
static char *describe(const struct use_site *u, size_t n)
{
    struct strbuf b = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        CXString s = clang_getCursorSpelling(u[i].top);
        sb_addf(&b, "%s%u:%s", i ? "," : "", u[i].line, clang_getCString(s));
        clang_disposeString(s);
        if (i) assert_true(u[i].offset > u[i - 1].offset);
    }
    return sb_detach(&b);
}

static void expect_uses(struct parsed_tu *tu, const struct fn_def *def, CXFile file, unsigned limit, const char *want)
{
    struct use_site *u = NULL;
    size_t n = locate_uses(tu, def->cursor, file, limit, &u);
    char *got = describe(u, n);
    assert_string_equal(got, want);
    free(got);
    free(u);
}

static void test_uses(void **state)
{
    (void)state;
    char *dir = make_temp_dir("uses");
    assert_non_null(dir);
    char *src = path_join(dir, "uses.c"), *hdr = path_join(dir, "uses.h");
    assert_int_equal(write_file_atomic(src, SOURCE, strlen(SOURCE)), 0);
    assert_int_equal(write_file_atomic(hdr, HEADER, strlen(HEADER)), 0);
    char *argv[] = {"gcc", "-O2", "-c", "uses.c", "-o", "uses.o", NULL};
    struct compile_row c = {.directory = dir, .compiler = "gcc", .compiler_kind = "gcc", .source = "uses.c",
                            .output = "uses.o", .language = "c", .argv = argv};
    CXIndex index = clang_createIndex(0, 0);
    char *error = NULL;
    struct parsed_tu *tu = tu_parse(index, &c, NULL, 0, &error);
    assert_non_null(tu);
    struct fn_def f = {0}, g = {0};
    assert_int_equal(locate_by_name(tu, "f", &f), DEF_FOUND);
    assert_int_equal(locate_by_name(tu, "g", &g), DEF_FOUND);
    CXFile main = tu_main_file(tu);
    CXFile header = clang_getFile(tu_handle(tu), hdr);
    assert_non_null(header);

    expect_uses(tu, &f, main, UINT_MAX, "2:g,3:pf,5:k,5:k");
    /* the same file again, a limit: only declarations starting before f's definition */
    expect_uses(tu, &f, main, f.offset, "2:g,3:pf");
    expect_uses(tu, &f, main, 0, "");
    expect_uses(tu, &g, main, UINT_MAX, "5:k");
    /* another file of the TU: its own uses, not the main file's */
    expect_uses(tu, &f, header, UINT_MAX, "2:h");
    expect_uses(tu, &g, header, UINT_MAX, "");
    expect_uses(tu, &f, main, UINT_MAX, "2:g,3:pf,5:k,5:k");
    expect_uses(tu, &f, NULL, UINT_MAX, "");

    fn_def_free(&f);
    fn_def_free(&g);
    tu_free(tu);
    clang_disposeIndex(index);
    free(error);
    remove_tree(dir);
    free(src);
    free(hdr);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_uses)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
