/* Unit tests of lib/candidates on the C++ fixture (tests/fixtures/
 * candidates-cxx): store rows built by hand with the symbols GCC 12 and
 * Clang really write for C++ (mangled; checked with -fno-inline builds and
 * nm), mapped to overloads, members, templates, lambdas, coroutines; exact
 * insert lines for static / template<> / [[attributes]] on their own line. */
#include "test_candidates_helpers.h"

#define CXX_DIR FIXTURES_DIR "/candidates-cxx"

static const char *const CXX_ARGV[] = {"g++", "-std=c++17", "-O3", "-fno-inline", "-c", "rules.cpp", "-o",
                                       "rules.o", NULL};

static const struct {
    const char *symbol;     /* as the compiler writes it (clone suffix already stripped by lib/records) */
    const char *reason;     /* NULL: candidate */
    int loop_line;
    int insert_line;        /* 0: not checked */
} CXX_RULES[] = {
    {"_ZN2ns3addEPfPKfi", NULL, 8, 6},
    {"_ZN2ns3addEPdPKdi", NULL, 13, 11},
    {"_ZN2ns6ScalerC2EPii", "inline", 17, 17},
    {"_ZN2ns6Scaler8in_classEPii", "inline", 18, 18},
    {"_ZN2ns6Scaler4virtEPii", "virtual", 19, 19},
    {"_ZNK2ns6Scaler12out_of_classEPfi", NULL, 27, 25},
    {"_ZN2ns6Scaler13static_memberEPKii", NULL, 34, 30},
    {"_Z4taddIiEvPT_i", "template", 43, 40},
    {"_Z4taddIdEvPT_i", "template", 43, 40},   /* another instance: its own row */
    {"_Z4taddIfEvPT_i", "template", 50, 47},
    {"_ZNK3VecIiE3sumEv", "template", 62, 59},
    {"_ZZ11with_lambdaPiiENKUliE_clEi", "lambda", 69, 0},     /* GCC */
    {"_ZZ11with_lambdaPiiENK3$_0clEi", "lambda", 69, 0},      /* Clang */
    {"_ZN12_GLOBAL__N_17anon_fnEPii", NULL, 77, 75},
    {"_ZL16static_prev_linePsi", NULL, 85, 82},
    {"_Z15cxx_attr_targetPii", "attribute", 89, 89},
    {"_Z12cxx_attr_hotPii", NULL, 94, 91},   /* hot, which clang refuses beside target_clones: redeclared above */
    {"_Z5cexpri", "inline", 97, 97},
    {"c_linkage", NULL, 101, 99},
    {"_ZN12_GLOBAL__N_111shared_lineEPii", NULL, 104, 104},
    {"_Z10use_scalerPii", NULL, 109, 107},
    {"_Z12not_compiledv", "not-found", 1, 0},
    {"_ZN6BufferC2Ev", "not-found", 120, 0},   /* = default */
};

static int64_t add_cxx_rules(struct store *st)
{
    int64_t id = cand_add_compile(st, CXX_DIR, "rules.cpp", "c++", "gcc", CXX_ARGV);
    for (size_t i = 0; i < sizeof CXX_RULES / sizeof CXX_RULES[0]; i++)
        cand_add_loop(st, id, "build", CXX_RULES[i].symbol, "rules.cpp", CXX_RULES[i].loop_line);
    return id;
}

static void test_every_cxx_rule_has_its_reason(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_cxx_rules(f->st);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    assert_int_equal(stats.unparsable_tus, 0);
    size_t n = sizeof CXX_RULES / sizeof CXX_RULES[0];
    for (size_t i = 0; i < n; i++) cand_expect(f->st, id, CXX_RULES[i].symbol, CXX_RULES[i].reason);
    assert_int_equal(cand_count(f->st, "1"), (int)n);
}

static void test_cxx_insert_lines(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_cxx_rules(f->st);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    for (size_t i = 0; i < sizeof CXX_RULES / sizeof CXX_RULES[0]; i++) {
        if (!CXX_RULES[i].insert_line) continue;
        struct cand_row r;
        cand_get(f->st, id, CXX_RULES[i].symbol, &r);
        if (r.insert_line != CXX_RULES[i].insert_line)
            fail_msg("%s: insert_line %d, expected %d", CXX_RULES[i].symbol, r.insert_line, CXX_RULES[i].insert_line);
        assert_int_equal(r.insert_offset, cand_line_offset(r.file, r.insert_line));
        cand_row_free(&r);
    }
    cand_expect_insert(f->st, id, "_ZL16static_prev_linePsi", 82, "static\n");
    cand_expect_insert(f->st, id, "_Z4taddIfEvPT_i", 47, "template <>\n");
    cand_expect_insert(f->st, id, "_Z4taddIiEvPT_i", 40, "template <class T>\n");
    cand_expect_insert(f->st, id, "_Z12cxx_attr_hotPii", 91, "[[gnu::hot]]\n");
    cand_expect_insert(f->st, id, "_ZN2ns6Scaler13static_memberEPKii", 30, "int\n");
}

static void test_cxx_display_names_and_details(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_cxx_rules(f->st);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    static const struct {
        const char *symbol, *display, *detail;
    } WANT[] = {
        {"_ZN2ns3addEPfPKfi", "ns::add(float *, const float *, int)", NULL},
        {"_ZNK2ns6Scaler12out_of_classEPfi", "ns::Scaler::out_of_class(float *, int)", NULL},
        {"_ZN12_GLOBAL__N_17anon_fnEPii", "(anonymous namespace)::anon_fn(int *, int)", NULL},
        {"_Z4taddIiEvPT_i", "void tadd<int>(int*, int)", "instance of a function template"},
        {"_Z4taddIfEvPT_i", NULL, "explicit specialization of template tadd"},
        {"_ZNK3VecIiE3sumEv", NULL, "member of class template Vec"},
        {"_ZN2ns6Scaler8in_classEPii", NULL, "defined inside its class"},
        {"_Z5cexpri", NULL, "constexpr"},
        {"_ZZ11with_lambdaPiiENKUliE_clEi", "with_lambda(int*, int)::{lambda(int)#1}::operator()(int) const", "lambda"},
        {"_Z12not_compiledv", "not_compiled()", "no definition"},
    };
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        struct cand_row r;
        cand_get(f->st, id, WANT[i].symbol, &r);
        assert_int_equal(r.count, 1);
        if (WANT[i].display) assert_string_equal(r.display_name, WANT[i].display);
        if (WANT[i].detail && (!r.detail || !strstr(r.detail, WANT[i].detail)))
            fail_msg("%s: detail '%s' lacks '%s'", WANT[i].symbol, r.detail ? r.detail : "", WANT[i].detail);
        cand_row_free(&r);
    }
    /* A lambda is not located; its row points at the loop. */
    struct cand_row r;
    cand_get(f->st, id, "_ZZ11with_lambdaPiiENKUliE_clEi", &r);
    assert_int_equal(r.line, 69);
    assert_int_equal(r.insert_offset, -1);
    assert_non_null(strstr(r.file, "candidates-cxx/rules.cpp"));
    cand_row_free(&r);
}

static void test_shared_line_is_noted(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = add_cxx_rules(f->st);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    char *n = cand_notes_text(f->st, id, "_ZN12_GLOBAL__N_111shared_lineEPii");
    assert_non_null(strstr(n, "shared-line:line 104 also holds 'namespace { '"));
    free(n);
    n = cand_notes_text(f->st, id, "c_linkage");
    assert_non_null(strstr(n, "shared-line:line 99 also holds 'extern \"C\" '"));
    free(n);
    /* A [[attribute]] before the name is part of the definition: the
     * redeclaration goes above it. */
    n = cand_notes_text(f->st, id, "_Z12cxx_attr_hotPii");
    assert_string_equal(n, "redeclared:carries __attribute__((hot)), which clang cannot combine with target_clones on a "
                           "function's first declaration: the patch declares it with the attribute at line 91, above "
                           "its definition, which clang then accepts: void cxx_attr_hot(int *, int);");
    free(n);
}

static void test_log_records_find_enclosing_function(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = cand_add_compile(f->st, CXX_DIR, "rules.cpp", "c++", "gcc", CXX_ARGV);
    cand_add_loop(f->st, id, "build", NULL, "rules.cpp", 13);
    cand_add_loop(f->st, id, "build", "_ZN2ns3addEPdPKdi", "rules.cpp", 13);
    cand_add_loop(f->st, id, "build", NULL, "rules.cpp", 62);
    cand_add_loop(f->st, id, "build", NULL, "rules.cpp", 2);   /* a comment: no function there */
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    cand_expect(f->st, id, "_ZN2ns3addEPdPKdi", NULL);
    struct cand_row r;
    cand_get(f->st, id, "rules.cpp:2", &r);
    assert_int_equal(r.count, 1);
    assert_string_equal(r.reason, "not-found");
    cand_row_free(&r);
    assert_int_equal(cand_count(f->st, "reason='template' AND display_name LIKE 'Vec::sum%'"), 1);
    assert_int_equal(cand_count(f->st, "1"), 3);
}

static void test_coroutine(void **state)
{
    struct cand_fixture *f = *state;
    const char *argv[] = {"clang++", "-std=c++20", "-O3", "-c", "coro.cpp", "-o", "coro.o", NULL};
    int64_t id = cand_add_compile(f->st, CXX_DIR, "coro.cpp", "c++", "clang", argv);
    cand_add_loop(f->st, id, "build", "_Z4fillPii", "coro.cpp", 17);
    cand_add_loop(f->st, id, "build", "_Z5plainPii", "coro.cpp", 23);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    assert_int_equal(stats.unparsable_tus, 0);
    cand_expect(f->st, id, "_Z4fillPii", "coroutine");
    cand_expect(f->st, id, "_Z5plainPii", NULL);
    struct cand_row r;
    cand_get(f->st, id, "_Z4fillPii", &r);
    assert_non_null(strstr(r.detail, "co_return"));
    cand_row_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_cxx_rule_has_its_reason, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_cxx_insert_lines, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_cxx_display_names_and_details, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_shared_line_is_noted, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_log_records_find_enclosing_function, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_coroutine, cand_setup, cand_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
