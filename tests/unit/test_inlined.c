/* Unit tests of lib/candidates/inlined.h on tests/fixtures/inlined-kernels
 * with loop records written by hand as GCC writes them once it inlined the
 * static kernels into main: the kernels become candidates with an
 * "inlined-into" note; a callee inlined into two excluded functions is one
 * row naming both, and one also inlined into a candidate says so; a callee
 * with records of its own keeps its own row and no note; a kernel declared
 * inline stays excluded (noted); a kernel's own static helper is folded
 * into it as an inlined helper; main's own loops and positions outside any
 * function make nothing. */
#include "test_candidates_helpers.h"

#define DIR FIXTURES_DIR "/inlined-kernels"

static const char *const ARGV[] = {"gcc", "-O3", "-c", "kernels.c", "-o", "kernels.o", NULL};

/* The inlined-into note of a row: "host+host|detail", "" when none. */
static char *inlined_note(struct store *st, int64_t id, const char *name)
{
    json_t *n = cand_note(st, id, name, NOTE_INLINED_INTO, NULL);
    if (!n) return xstrdup("");
    struct strbuf sb = STRBUF_INIT;
    size_t k;
    json_t *h;
    json_array_foreach(json_object_get(n, "hosts"), k, h) sb_addf(&sb, "%s%s", k ? "+" : "", json_string_value(json_object_get(h, "name")));
    sb_addf(&sb, "|%s", json_string_value(json_object_get(n, "detail")));
    json_decref(n);
    return sb_detach(&sb);
}

static void expect_note(struct store *st, int64_t id, const char *name, const char *hosts, const char *needle)
{
    char *got = inlined_note(st, id, name);
    size_t hn = strlen(hosts);
    if (strncmp(got, hosts, hn) != 0 || got[hn] != '|' || !strstr(got, needle))
        fail_msg("%s: note [%s], expected hosts %s and [%s]", name, got, hosts, needle);
    free(got);
}

static void test_kernels_inlined_into_main(void **state)
{
    struct cand_fixture *f = *state;
    int64_t id = cand_add_compile(f->st, DIR, "kernels.c", "c", "gcc", ARGV);
    static const struct {
        const char *function;
        int line;
    } RECORDS[] = {
        {"main", 18}, {"main", 23}, {"main", 35}, {"main", 40}, {"main", 60}, {"main", 1},   /* 1: no function there */
        {"checksum_all", 35}, {"checksum_all", 52},
        {"kernel_dot", 29}, {"kernel_dot", 35},   /* a candidate of its own, which inlined shared_kernel too */
        {"main", 29},
        {"main", 88}, {"main", 93},   /* row_op, inlined into kernel_rows, inlined into main */
    };
    for (size_t i = 0; i < sizeof RECORDS / sizeof RECORDS[0]; i++)
        cand_add_loop(f->st, id, "build", RECORDS[i].function, "kernels.c", RECORDS[i].line);
    struct analyze_stats stats;
    assert_int_equal(candidates_analyze(f->st, &stats), 0);

    cand_expect(f->st, id, "main", "main");
    cand_expect(f->st, id, "checksum_all", "variadic");
    cand_expect(f->st, id, "kernel_axpy", NULL);
    expect_note(f->st, id, "kernel_axpy", "main",
                "its loops (line 18) were compiled inlined into main (excluded: main), so the candidate is "
                "kernel_axpy itself; cloned, it stays out of line: one call more at each call from main");
    cand_expect(f->st, id, "kernel_stencil", NULL);
    expect_note(f->st, id, "kernel_stencil", "main", "(line 23)");
    /* inlined into two excluded functions: one row, one note naming both;
     * and into the candidate kernel_dot */
    cand_expect(f->st, id, "shared_kernel", NULL);
    expect_note(f->st, id, "shared_kernel", "main+checksum_all",
                "inlined into main (excluded: main) and checksum_all (excluded: variadic), so the candidate is "
                "shared_kernel itself");
    expect_note(f->st, id, "shared_kernel", "main+checksum_all",
                "It was also inlined into kernel_dot, a candidate, whose clones call it out of line too");
    /* records of its own: its own row, no note */
    cand_expect(f->st, id, "kernel_dot", NULL);
    char *own = inlined_note(f->st, id, "kernel_dot");
    assert_string_equal(own, "");
    free(own);
    /* declared inline: excluded as such, the note says why it is no candidate */
    cand_expect(f->st, id, "axpy_inline", "inline");
    expect_note(f->st, id, "axpy_inline", "main", "axpy_inline is no candidate either (inline)");
    /* a kernel's own helper: no row, an inlined-helper note on the kernel
     * (FMVGEN_CLONES_INLINE) */
    cand_expect(f->st, id, "kernel_rows", NULL);
    char *notes = cand_notes_text(f->st, id, "kernel_rows");
    if (!strstr(notes, "inlined-helper:row_op (line 86) was inlined with kernel_rows into the excluded function, "
                       "and only kernel_rows uses it"))
        fail_msg("kernel_rows: notes [%s]", notes);
    free(notes);
    assert_int_equal(cand_count(f->st, "name = 'row_op'"), 0);
    /* main, checksum_all and six callees: nothing for line 1 or main's own loop */
    assert_int_equal(cand_count(f->st, "1"), 8);
    assert_int_equal(stats.candidates, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kernels_inlined_into_main, cand_setup, cand_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
