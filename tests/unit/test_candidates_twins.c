/* Unit tests of libtool's twin compiles in lib/candidates (analyze.h,
 * analyze_group_twins): a source compiled twice, once with -fPIC -DPIC for
 * the shared library, is parsed by libclang once for both when that is the
 * parse each would get, and apart when its files or its other arguments
 * mention PIC, __PIC__, __pic__, __PIE__ or __pie__. Either way each compile's rows are the ones its own flags give
 * (tests/fixtures/candidates-twins). */
#include "test_candidates_helpers.h"

#define T_DIR FIXTURES_DIR "/candidates-twins"

/* libtool's order: the -fPIC copy into .libs/ first, then the static one;
 * define: one more -D argument of both (NULL: none). */
static int64_t add_twin_d(struct store *st, const char *source, int pic, const char *define)
{
    char *src = path_absolute(source, T_DIR);
    char *base = xstrndup(source, strcspn(source, "."));
    char *out = xasprintf("%s/%s%s.o", T_DIR, pic ? ".libs/" : "", base);
    char *hash = hash_file_hex(src);
    const char *d = define ? define : "-DHAVE_CONFIG_H";
    const char *argv_pic[] = {"gcc", "-DHAVE_CONFIG_H", d, "-I.", "-g", "-O2", "-c", source, "-fPIC", "-DPIC",
                              "-o", out, NULL};
    const char *argv_static[] = {"gcc", "-DHAVE_CONFIG_H", d, "-I.", "-g", "-O2", "-c", source, "-o", out, NULL};
    struct compile_info ci = {
        .directory = T_DIR,
        .argv = (char *const *)(pic ? argv_pic : argv_static),
        .compiler = "/usr/bin/gcc",
        .compiler_kind = "gcc",
        .compiler_version = "12.2.0",
        .source = src,
        .output = out,
        .language = "c",
        .exit_status = 0,
        .source_hash = hash,
    };
    int64_t id = store_add_compile(st, &ci);
    assert_true(id > 0);
    free(hash);
    free(out);
    free(base);
    free(src);
    return id;
}

static int64_t add_twin(struct store *st, const char *source, int pic) { return add_twin_d(st, source, pic, NULL); }

/* Both twins of source, each with a loop record of function at line. */
static void add_twins(struct store *st, const char *source, const char *function, int pic_line, int static_line,
                      int64_t *pic, int64_t *stat)
{
    *pic = add_twin(st, source, 1);
    *stat = add_twin(st, source, 0);
    cand_add_loop(st, *pic, "build", function, source, pic_line);
    cand_add_loop(st, *stat, "build", function, source, static_line);
}

static void expect_row(struct store *st, int64_t id, const char *name, const char *status, int line)
{
    struct cand_row r;
    cand_get(st, id, name, &r);
    assert_int_equal(r.count, 1);
    if (strcmp(r.status, status) != 0 || r.line != line)
        fail_msg("compile %lld: %s is %s at line %d, want %s at line %d (%s)", (long long)id, name, r.status,
                 r.line, status, line, r.detail ? r.detail : "");
    cand_row_free(&r);
}

/* No PIC macro anywhere: one parse serves both, and both get the same row. */
static void test_twins_without_pic_get_the_same_rows(void **state)
{
    struct cand_fixture *f = *state;
    int64_t pic, stat;
    add_twins(f->st, "plain.c", "scale", 5, 5, &pic, &stat);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    expect_row(f->st, pic, "scale", "candidate", 2);
    expect_row(f->st, stat, "scale", "candidate", 2);
    assert_int_equal(stats.candidates, 2);
    assert_int_equal(stats.unparsable_tus, 0);
}

/* #ifdef PIC in the source: each compile is located in its own branch. */
static void test_ifdef_pic_parses_each_twin(void **state)
{
    struct cand_fixture *f = *state;
    int64_t pic, stat;
    add_twins(f->st, "picdep.c", "kernel", 7, 13, &pic, &stat);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    expect_row(f->st, pic, "kernel", "candidate", 5);
    expect_row(f->st, stat, "kernel", "candidate", 11);
}

/* __PIC__ and __PIE__ (-fPIC defines the one and drops the other) in an
 * included header only: each compile is located in its own branch of the
 * source's #if. */
static void test_pic_in_a_header_parses_each_twin(void **state)
{
    struct cand_fixture *f = *state;
    int64_t pic, stat;
    add_twins(f->st, "hdr.c", "hdr_kernel", 6, 12, &pic, &stat);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    expect_row(f->st, pic, "hdr_kernel", "candidate", 4);
    expect_row(f->st, stat, "hdr_kernel", "candidate", 10);
}

/* The name comes in through another argument of both (-DCOPY_IS=PIC): the
 * files never mention it, yet each compile is located in its own branch. */
static void test_pic_named_by_an_argument_parses_each_twin(void **state)
{
    struct cand_fixture *f = *state;
    int64_t pic = add_twin_d(f->st, "cmdline.c", 1, "-DCOPY_IS=PIC");
    int64_t stat = add_twin_d(f->st, "cmdline.c", 0, "-DCOPY_IS=PIC");
    cand_add_loop(f->st, pic, "build", "cmd_kernel", "cmdline.c", 5);
    cand_add_loop(f->st, stat, "build", "cmd_kernel", "cmdline.c", 11);
    assert_int_equal(candidates_analyze(f->st, NULL), 0);
    expect_row(f->st, pic, "cmd_kernel", "candidate", 3);
    expect_row(f->st, stat, "cmd_kernel", "candidate", 9);
}

/* Twins of several sources in one store, in libtool's interleaved order,
 * and a third compile of plain.c with other flags (its own parse): every
 * compile keeps its own rows. */
static void test_many_twins_keep_their_own_rows(void **state)
{
    struct cand_fixture *f = *state;
    int64_t p1, s1, p2, s2, p3, s3;
    add_twins(f->st, "plain.c", "scale", 5, 5, &p1, &s1);
    add_twins(f->st, "picdep.c", "kernel", 7, 13, &p2, &s2);
    add_twins(f->st, "hdr.c", "hdr_kernel", 6, 12, &p3, &s3);
    const char *argv_o3[] = {"gcc", "-O3", "-DSCALE_O3", "-c", "plain.c", "-o", "plain-o3.o", NULL};
    char *src = path_absolute("plain.c", T_DIR);
    char *hash = hash_file_hex(src);
    struct compile_info ci = {.directory = T_DIR, .argv = (char *const *)argv_o3, .compiler = "/usr/bin/gcc",
                              .compiler_kind = "gcc", .compiler_version = "12.2.0", .source = src,
                              .output = T_DIR "/plain-o3.o", .language = "c", .source_hash = hash};
    int64_t o3 = store_add_compile(f->st, &ci);
    assert_true(o3 > 0);
    free(hash);
    free(src);
    cand_add_loop(f->st, o3, "build", "scale", "plain.c", 5);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);
    expect_row(f->st, p1, "scale", "candidate", 2);
    expect_row(f->st, s1, "scale", "candidate", 2);
    expect_row(f->st, o3, "scale", "candidate", 2);
    expect_row(f->st, p2, "kernel", "candidate", 5);
    expect_row(f->st, s2, "kernel", "candidate", 11);
    expect_row(f->st, p3, "hdr_kernel", "candidate", 4);
    expect_row(f->st, s3, "hdr_kernel", "candidate", 10);
    assert_int_equal(stats.candidates, 7);
    assert_int_equal(stats.excluded, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_twins_without_pic_get_the_same_rows, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_ifdef_pic_parses_each_twin, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_pic_in_a_header_parses_each_twin, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_pic_named_by_an_argument_parses_each_twin, cand_setup, cand_teardown),
        cmocka_unit_test_setup_teardown(test_many_twins_keep_their_own_rows, cand_setup, cand_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
