/* Unit tests of lib/candidates/redecl.h on tests/fixtures/redecl-shapes:
 * for each function used above its definition, the declaration text the
 * patch inserts (K&R, function-pointer and array parameters, restrict,
 * typedefs, a static hidden by a macro, C++ canonical types and noexcept),
 * the line it goes on (above the top-level declaration holding the first
 * use, also one a macro writes at file scope), and where no redeclaration
 * can work the exclusion and its reason (a type #included below that line,
 * a parameter-dependent VLA type, a function-pointer return type, a line
 * starting inside an earlier declaration, C++ members, namespaces, extern
 * "C" blocks). Store rows are built by hand with the names GCC writes. */
#include "test_candidates_helpers.h"

#define DIR FIXTURES_DIR "/redecl-shapes"

static const char *const C_ARGV[] = {"gcc", "-std=gnu11", "-O3", "-c", "shapes.c", "-o", "shapes.o", NULL};
static const char *const CXX_ARGV[] = {"g++", "-std=c++17", "-O3", "-c", "shapes.cc", "-o", "shapes.o", NULL};

/* The "redeclared" note of a row: "insert_line|use_line|text", "" when
 * none; asserts the offset is the start of that line. */
static char *redecl_of(struct store *st, int64_t id, const char *name)
{
    char *file = NULL;
    json_t *n = cand_note(st, id, name, NOTE_REDECLARED, &file);
    if (!n) {
        free(file);
        return xstrdup("");
    }
    int line = (int)json_integer_value(json_object_get(n, "insert_line"));
    assert_int_equal(json_integer_value(json_object_get(n, "insert_offset")), cand_line_offset(file, line));
    char *out = xasprintf("%d|%d|%s", line, (int)json_integer_value(json_object_get(n, "use_line")),
                          json_string_value(json_object_get(n, "text")));
    const char *detail = json_string_value(json_object_get(n, "detail"));
    assert_non_null(detail);
    assert_non_null(strstr(detail, json_string_value(json_object_get(n, "text"))));
    json_decref(n);
    free(file);
    return out;
}

static void expect_redecl(struct store *st, int64_t id, const char *name, const char *want)
{
    cand_expect(st, id, name, NULL);
    char *got = redecl_of(st, id, name);
    if (strcmp(got, want) != 0) fail_msg("%s: redeclaration [%s], expected [%s]", name, got, want);
    free(got);
}

/* Excluded as used-before-definition, the detail holding needle. */
static void expect_excluded(struct store *st, int64_t id, const char *name, const char *needle)
{
    cand_expect(st, id, name, "used-before-definition");
    struct cand_row r;
    cand_get(st, id, name, &r);
    if (!strstr(r.detail, needle)) fail_msg("%s: detail [%s] lacks [%s]", name, r.detail, needle);
    if (!strstr(r.detail, "no redeclaration can go before that use"))
        fail_msg("%s: detail [%s] does not say no redeclaration can work", name, r.detail);
    char *notes = redecl_of(st, id, name);
    assert_string_equal(notes, "");
    free(notes);
    cand_row_free(&r);
}

/* The "params" note of a row (candidates/params.h): "void|a,n" or
 * "value|a,n" when it forwards, "refused: why" when it cannot. */
static void expect_params(struct store *st, int64_t id, const char *name, const char *want)
{
    char *file = NULL;
    json_t *n = cand_note(st, id, name, NOTE_PARAMS, &file);
    free(file);
    if (!n) fail_msg("%s: no params note", name);
    struct strbuf got = STRBUF_INIT;
    const char *refused = json_string_value(json_object_get(n, "refused"));
    if (refused) {
        sb_addf(&got, "refused: %s", refused);
        assert_null(json_object_get(n, "names"));
    } else {
        sb_adds(&got, json_is_true(json_object_get(n, "void")) ? "void|" : "value|");
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(n, "names"), i, v) sb_addf(&got, "%s%s", i ? "," : "", json_string_value(v));
    }
    if (strncmp(sb_str(&got), want, strlen(want)) != 0) fail_msg("%s: params [%s], expected [%s]", name, sb_str(&got), want);
    sb_free(&got);
    json_decref(n);
}

static void test_c_shapes(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = cand_add_compile(f->st, DIR, "shapes.c", "c", "gcc", C_ARGV);
    static const struct {
        const char *name;
        int line;
    } LOOPS[] = {{"use_all", 31},   {"use_more", 46}, {"knr_sum", 59},    {"knr_mul", 68},     {"apply_cb", 73},
                 {"fill64", 79},     {"axpy", 84},     {"local_scale", 89}, {"u8_add", 95},     {"pair_add", 104},
                 {"vla_sum", 110},  {"pick_op", 117}, {"macro_used", 123}, {"line_shared", 128}};
    for (size_t i = 0; i < sizeof LOOPS / sizeof LOOPS[0]; i++)
        cand_add_loop(f->st, id, "build", LOOPS[i].name, "shapes.c", LOOPS[i].line);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);

    /* used only after their definitions (or never): no note */
    expect_redecl(f->st, id, "use_all", "");
    /* K&R: a prototype would not match promoted parameters (short k) */
    expect_redecl(f->st, id, "knr_sum", "31|33|int knr_sum();");
    expect_redecl(f->st, id, "knr_mul", "31|34|void knr_mul();");
    expect_redecl(f->st, id, "apply_cb", "31|35|void apply_cb(int *a, int n, void (*cb)(int *, int));");
    expect_redecl(f->st, id, "fill64", "31|36|void fill64(int a[64], int v);");
    expect_redecl(f->st, id, "axpy", "31|37|void axpy(float *restrict y, const float *restrict x, float k, int n);");
    /* LOCAL(void) is static: libclang's storage class says so */
    expect_redecl(f->st, id, "local_scale", "31|38|static void local_scale(int *a, int n);");
    /* typedef names as written, declared above the line */
    expect_redecl(f->st, id, "u8_add", "31|39|void u8_add(u8 *d, const u8 *s, size_t n);");
    /* used in what REGISTER(macro_used) writes at file scope: above the macro */
    expect_redecl(f->st, id, "macro_used", "44|44|void macro_used(int *a, int n);");

    expect_excluded(f->st, id, "pair_add",
                    "used at line 40 before its definition, and no redeclaration can go before that use: its "
                    "signature names pair_t, declared in late.h, which is #included below line 31");
    expect_excluded(f->st, id, "vla_sum", "its signature names the parameter n, declared at line 107 below line 46");
    expect_excluded(f->st, id, "pick_op", "its return type int (*)(int) cannot be written");
    expect_excluded(f->st, id, "line_shared", "line 50, where the declaration holding the use starts, begins inside");

    /* what --dispatch cpuid forwards (candidates/params.h) */
    expect_params(f->st, id, "use_all", "value|a,f,b,p,n");
    expect_params(f->st, id, "axpy", "void|y,x,k,n");
    expect_params(f->st, id, "apply_cb", "void|a,n,cb");
    expect_params(f->st, id, "vla_sum", "void|n,a");
    expect_params(f->st, id, "pick_op", "value|k");
    expect_params(f->st, id, "local_scale", "void|a,n");
    expect_params(f->st, id, "knr_sum", "refused: a K&R definition");
    expect_params(f->st, id, "knr_mul", "refused: a K&R definition");
}

static void test_cxx_shapes(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = cand_add_compile(f->st, DIR, "shapes.cc", "c++", "gcc", CXX_ARGV);
    static const struct {
        const char *name;
        int line;
    } LOOPS[] = {{"_Z11cxx_use_allR3AccRSt6vectorIiSaIiEEPiPKii", 21},
                 {"_ZN3Acc3addEPKii", 33},
                 {"_ZN4kern5scaleEPii", 39},
                 {"c_fill", 46},
                 {"_Z7vec_sumRSt6vectorIiSaIiEEPKii", 52},
                 {"_Z11nothrow_addPiPKii", 57}};
    for (size_t i = 0; i < sizeof LOOPS / sizeof LOOPS[0]; i++)
        cand_add_loop(f->st, id, "build", LOOPS[i].name, "shapes.cc", LOOPS[i].line);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    /* canonical types: no "using namespace std" needed where the line goes */
    expect_redecl(f->st, id, "_Z7vec_sumRSt6vectorIiSaIiEEPKii",
                  "21|26|void vec_sum(std::vector<int> &, const int *, int);");
    expect_redecl(f->st, id, "_Z11nothrow_addPiPKii", "21|27|void nothrow_add(int *, const int *, int) noexcept;");
    expect_excluded(f->st, id, "_ZN3Acc3addEPKii", "a member function can only be redeclared inside its class");
    expect_excluded(f->st, id, "_ZN4kern5scaleEPii", "declared in a namespace");
    expect_excluded(f->st, id, "c_fill", "extern \"C\" block");
    expect_params(f->st, id, "_Z11nothrow_addPiPKii", "refused: a C++ function");
    expect_params(f->st, id, "c_fill", "refused: a C++ function");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_c_shapes, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_cxx_shapes, cand_setup, cand_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
