/* Unit tests of lib/patch/redecl.h on tests/fixtures/outside-used-early's
 * early.c with a store filled by hand: a candidate's "redeclared" note puts
 * its declaration, with the macro its definition gets, above the first use;
 * at one offset the preamble comes first, then the redeclarations, then the
 * definition's own attribute line; the preamble moves above a redeclaration
 * that precedes every definition; a stale place is refused; a function left
 * out of the plan (select) gets no redeclaration; per-function sets use
 * their own macro; a redeclaration line marks no definition (marker.h). The
 * patched text is compiled by tests/cli/test_outside_used_early.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/marker.h"
#include "patch/plan.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

#include "test_plan_helpers.h"

/* the lines around each redeclaration (patch/redecl.h) */
#define PUSH "#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wredundant-decls\"\n"
#define POP "#pragma GCC diagnostic pop\n"

static const char *const FILES[] = {"early.c", "early.h", "main.c"};

static void open_early(struct project *p)
{
    project_open_fixture(p, "outside-used-early", FILES, 3);
}

/* The offset and line of the line of early.c starting with prefix. */
static size_t line_of(struct project *p, const char *prefix, int *line)
{
    char *path = path_join(p->dir, "early.c");
    char *text = read_file(path, NULL);
    assert_non_null(text);
    const char *at = strstr(text, prefix);
    assert_non_null(at);
    size_t off = (size_t)(at - text);
    *line = 1;
    for (size_t i = 0; i < off; i++) *line += text[i] == '\n';
    free(text);
    free(path);
    return off;
}

/* Gives candidate name the note of a redeclaration at the line starting
 * with where (offset shifted by skew, line by dline: stale places). */
static void set_redecl(struct project *p, const char *name, const char *where, const char *decl, long skew, int dline)
{
    int line;
    size_t off = line_of(p, where, &line);
    json_t *notes = json_pack("[{s:s, s:s, s:i, s:I, s:i, s:s}]", "kind", "redeclared", "detail", "used early",
                              "use_line", line, "insert_offset", (json_int_t)off + skew, "insert_line", line + dline,
                              "text", decl);
    char *text = json_dumps(notes, JSON_COMPACT);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(p->st), "UPDATE functions SET notes = ? WHERE name = ?", -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
    assert_int_equal(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
    free(text);
    json_decref(notes);
}

static void add_three(struct project *p)
{
    add_candidate(p, "early.c", "sum_rows", "void sum_rows(");
    add_candidate(p, "early.c", "add_static", "static void add_static(int *a, const int *b, int n)\n{");
    add_candidate(p, "early.c", "add_public", "void add_public(int *a, const int *b, int n)\n{");
    set_redecl(p, "add_static", "void sum_rows(", "static void add_static(int *a, const int *b, int n);", 0, 0);
    set_redecl(p, "add_public", "void sum_rows(", "void add_public(int *a, const int *b, int n);", 0, 0);
}

static void test_order_at_one_offset(void **state)
{
    (void)state;
    struct project p;
    open_early(&p);
    add_three(&p);
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    assert_int_equal(plan.nfunctions, 3);
    const char *data = plan.files[0].new_data;
    /* the functions' order at that offset, then sum_rows' own line */
    /* each between pragmas that keep -Wredundant-decls quiet */
    const char *block = strstr(data, PUSH "FMVGEN_CLONES_STATIC static void add_static(int *a, const int *b, int n);\n" POP
                                     PUSH "FMVGEN_CLONES(add_public) void add_public(int *a, const int *b, int n);\n" POP
                                     "FMVGEN_CLONES(sum_rows)\n"
                                     "void sum_rows(");
    assert_non_null(block);
    const char *preamble = strstr(data, "#ifndef FMVGEN_CLONES_STATIC");
    assert_non_null(preamble);
    assert_true(preamble < block);
    /* the definitions keep their lines */
    assert_non_null(strstr(data, "FMVGEN_CLONES_STATIC\nstatic void add_static(int *a, const int *b, int n)\n{"));
    assert_non_null(strstr(data, "FMVGEN_CLONES(add_public)\nvoid add_public(int *a, const int *b, int n)\n{"));
    /* the diff says the same */
    assert_non_null(strstr(plan.text, "\n+FMVGEN_CLONES_STATIC static void add_static(int *a, const int *b, int n);\n"
                                      "+#pragma GCC diagnostic pop\n+#pragma GCC diagnostic push\n"
                                      "+#pragma GCC diagnostic ignored \"-Wredundant-decls\"\n"
                                      "+FMVGEN_CLONES(add_public) void add_public(int *a, const int *b, int n);\n"
                                      "+#pragma GCC diagnostic pop\n"
                                      "+FMVGEN_CLONES(sum_rows)\n void sum_rows("));
    assert_non_null(strstr(plan.text, "note (redeclared): used early"));
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

static void test_preamble_above_first_redeclaration(void **state)
{
    (void)state;
    struct project p;
    open_early(&p);
    add_candidate(&p, "early.c", "scale_by_pointer", "void scale_by_pointer(int *a, int k, int n)\n{");
    set_redecl(&p, "scale_by_pointer", "void (*const scale_ptr)", "void scale_by_pointer(int *a, int k, int n);", 0, 0);
    struct strvec t = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    struct patch_plan plan;
    assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), 0);
    const char *data = plan.files[0].new_data;
    const char *preamble = strstr(data, "#ifndef FMVGEN_CLONES_STATIC");
    const char *decl = strstr(data, PUSH "FMVGEN_CLONES(scale_by_pointer) void scale_by_pointer(int *a, int k, int n);\n"
                                    POP "void (*const scale_ptr)");
    assert_non_null(preamble);
    assert_non_null(decl);
    assert_true(preamble < decl);
    /* one preamble */
    assert_null(strstr(preamble + 1, "#ifndef FMVGEN_CLONES_STATIC"));
    patch_plan_free(&plan);
    sv_free(&t);
    project_close(&p);
}

static void test_stale_places_refused(void **state)
{
    (void)state;
    static const struct {
        const char *where;
        long skew;
        int dline;
    } STALE[] = {
        {"void sum_rows(", 3, 0},                   /* not a line start */
        {"void sum_rows(", 0, 1},                   /* another line than stored */
        {"void add_after(int *a, const int", 0, 0}, /* below the definition */
    };
    for (size_t i = 0; i < sizeof STALE / sizeof STALE[0]; i++) {
        struct project p;
        open_early(&p);
        add_candidate(&p, "early.c", "add_public", "void add_public(int *a, const int *b, int n)\n{");
        set_redecl(&p, "add_public", STALE[i].where, "void add_public(int *a, const int *b, int n);", STALE[i].skew,
                   STALE[i].dline);
        struct strvec t = STRVEC_INIT;
        assert_int_equal(targets_parse("avx2", &t), 0);
        struct patch_plan plan;
        assert_int_equal(patch_plan_build(p.st, &t, 0, &plan), -1);
        patch_plan_free(&plan);
        sv_free(&t);
        project_close(&p);
    }
}

static void test_only_planned_functions_are_redeclared(void **state)
{
    (void)state;
    struct project p;
    open_early(&p);
    add_three(&p);
    struct strvec t = STRVEC_INIT, only = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &t), 0);
    sv_push(&only, "add_static");
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_only(p.st, &t, 0, &only, &plan), 0);
    assert_int_equal(plan.nfunctions, 1);
    const char *data = plan.files[0].new_data;
    assert_non_null(strstr(data, "FMVGEN_CLONES_STATIC static void add_static(int *a, const int *b, int n);\n" POP
                                 "void sum_rows("));
    assert_null(strstr(data, "void add_public(int *a, const int *b, int n);\nvoid"));
    assert_null(strstr(data, "FMVGEN_CLONES(add_public)"));
    patch_plan_free(&plan);
    /* per-function sets: the redeclaration takes its function's macro */
    struct patch_assignments a = {0};
    struct strvec v3 = STRVEC_INIT;
    assert_int_equal(targets_parse("arch=x86-64-v3", &v3), 0);
    patch_assign(&a, "add_public", &t);
    patch_assign(&a, "sum_rows", &v3);
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    assert_non_null(strstr(plan.files[0].new_data,
                           "FMVGEN_CLONES_AVX2(add_public) void add_public(int *a, const int *b, int n);\n" POP
                           "FMVGEN_CLONES_X86_64_V3(sum_rows)\nvoid sum_rows("));
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    sv_free(&v3);
    sv_free(&only);
    sv_free(&t);
    project_close(&p);
}

static void test_redeclaration_line_is_no_marker(void **state)
{
    (void)state;
    const char *text = "FMVGEN_CLONES(f) void f(int);\nvoid g(void)\n{\n}\n";
    size_t g = (size_t)(strstr(text, "void g") - text);
    assert_int_equal(patch_marker_at(text, strlen(text), g, NULL), 0);
    assert_int_equal(patch_marker_at(text, strlen(text), 0, NULL), 0);
    const char *stat = "FMVGEN_CLONES_STATIC static void f(int);\nFMVGEN_CLONES_STATIC  \r\nstatic void f(int x)\n";
    size_t f = (size_t)(strstr(stat, "static void f(int x)") - stat);
    size_t at = 0;
    assert_int_equal(patch_marker_at(stat, strlen(stat), f, &at), strlen("FMVGEN_CLONES_STATIC"));
    assert_int_equal(at, strlen("FMVGEN_CLONES_STATIC static void f(int);\n"));
    const char *ext = "FMVGEN_CLONES(add)\nvoid add(void)\n";
    assert_int_equal(patch_marker_at(ext, strlen(ext), strlen("FMVGEN_CLONES(add)\n"), NULL), strlen("FMVGEN_CLONES"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_at_one_offset),
        cmocka_unit_test(test_preamble_above_first_redeclaration),
        cmocka_unit_test(test_stale_places_refused),
        cmocka_unit_test(test_only_planned_functions_are_redeclared),
        cmocka_unit_test(test_redeclaration_line_is_no_marker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
