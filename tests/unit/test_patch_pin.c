/* Unit tests of the pins of patch/plan.h (struct patch_pin, patch/pin.c):
 * on the select-mixed fixture, add_ints cloned and three other candidates
 * pinned - triple_all at 32 mod 64 in the same file, square_ints at 0 in a
 * file with no clone, the static K&R-style triple at 16 - and add_ints
 * pinned too (cloned, so not pinned). The patched files get the attribute
 * line above each pinned definition and nothing else for them, the header
 * lists them; built by gcc, clang 14 and clang 19 (when installed) the
 * program runs and each pinned external function starts at its offset
 * mod 64. Functions that are no candidate (patch_pin_at, as select pins a
 * hot function candidates/pinsite.h located): dot_ints at 8 and main (in
 * main.c, a file with no candidate) at 40 get their lines and keep their
 * offsets too; the header says they are no candidate; a patch_pin_at
 * naming a cloned candidate or a file's hash that changed is refused.
 * test_copy_pins: with --dispatch cpuid, the copies of a cloned function
 * pinned (struct patch_copy_pin: select keeps each copy at the offset it
 * had where its gain was measured) get the attribute on their own line, and
 * in the program built by gcc, clang 14 and clang 19 each copy starts at
 * its offset. */
#include "test_plan_helpers.h"

#include <stdio.h>

#include "patch/plan.h"
#include "patch/pointer.h"
#include "run/spawn.h"
#include "targets/targets.h"

static const char *const FILES[] = {"mixed.c", "other.c", "mixed.h", "main.c"};

static char *file_of(const struct patch_plan *plan, const char *rel)
{
    for (size_t i = 0; i < plan->nfiles; i++)
        if (!strcmp(plan->files[i].rel, rel)) return plan->files[i].new_data;
    fail_msg("%s is not in the plan", rel);
    return NULL;
}

/* patch_pin_at for name, whose definition starts with first_line in file. */
/* Builds prog from mixed.c, other.c and main.c in dir with compiler cc
 * and runs it (both must succeed; what: what the build holds, for the
 * failure); 0 when cc is not installed (said on stderr), else 1. */
static int build_and_run(const char *dir, const char *cc, const char *what)
{
    if (!have_command(cc)) {
        fprintf(stderr, "SKIP: %s is not installed\n", cc);
        return 0;
    }
    char *argv[] = {(char *)cc, "-O2", "-o", "prog", "mixed.c", "other.c", "main.c", NULL};
    if (run_in(dir, argv, NULL) != 0) fail_msg("%s does not build the pinned %s", cc, what);
    char *run[] = {"./prog", NULL};
    assert_int_equal(run_in(dir, run, NULL), 0);
    return 1;
}

static void pin_at(struct project *p, struct patch_assignments *a, const char *file, const char *name,
                   const char *first_line, const char *note, unsigned k, const char *hash_override)
{
    char *path = path_join(p->dir, file);
    size_t len;
    char *text = read_file(path, &len);
    assert_non_null(text);
    const char *at = strstr(text, first_line);
    assert_non_null(at);
    int line = 1;
    for (const char *c = text; c < at; c++) line += *c == '\n';
    char *hash = hash_bytes_hex(text, len);
    patch_pin_at(a, name, path, file, (size_t)(at - text), line, name, hash_override ? hash_override : hash, note, k);
    free(hash);
    free(text);
    free(path);
}

/* The address nm gives symbol name in prog (-1 when absent). */
static long long address_of(const char *dir, const char *prog, const char *name)
{
    char *argv[] = {"nm", (char *)prog, NULL}, *out = NULL;
    assert_int_equal(run_in(dir, argv, &out), 0);
    long long addr = -1;
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        unsigned long long a;
        char type, sym[128];
        if (sscanf(l, "%llx %c %127s", &a, &type, sym) == 3 && !strcmp(sym, name)) addr = (long long)a;
    }
    free(out);
    return addr;
}

static void test_pins(void **state)
{
    (void)state;
    struct project p;
    project_open_fixture(&p, "select-mixed", FILES, sizeof FILES / sizeof *FILES);
    add_candidate(&p, "mixed.c", "add_ints", "void add_ints(");
    add_candidate(&p, "mixed.c", "triple", "static void\ntriple(");
    add_candidate(&p, "mixed.c", "triple_all", "void triple_all(");
    add_candidate(&p, "other.c", "square_ints", "void square_ints(");
    struct patch_assignments a = {0};
    struct strvec avx2 = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    patch_assign(&a, "add_ints", &avx2);
    patch_pin_in(&a, "triple_all", "mixed.c", 32);
    patch_pin_in(&a, "square_ints", "other.c", 64);   /* taken mod 64: 0 */
    patch_pin_in(&a, "triple", "mixed.c", 16);
    patch_pin_in(&a, "add_ints", "mixed.c", 8);       /* cloned: not pinned */
    patch_pin_in(&a, "dot_ints", "mixed.c", 8);       /* no candidate: nothing */
    /* no candidates, located as select's pinsite would */
    pin_at(&p, &a, "mixed.c", "dot_ints", "long dot_ints(", "not a candidate", 8, NULL);
    pin_at(&p, &a, "main.c", "main", "int main(void)", "not a candidate: excluded as main", 104, NULL);
    pin_at(&p, &a, "mixed.c", "add_ints", "void add_ints(", "not a candidate", 24, NULL);   /* cloned: not pinned */
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), 0);
    assert_int_equal(plan.nfunctions, 1);
    assert_int_equal(plan.npinned, 5);
    const char *mixed = file_of(&plan, "mixed.c"), *other = file_of(&plan, "other.c");
    if (getenv("TEST_PATCH_SHOW")) fprintf(stderr, "%s\n%s\n%s", plan.text, mixed, other);
    assert_non_null(strstr(mixed, "\n__attribute__((__aligned__(64), __patchable_function_entry__(32, 32)))\n"
                                  "void triple_all("));
    assert_non_null(strstr(mixed, "\n__attribute__((__aligned__(64), __patchable_function_entry__(16, 16)))\n"
                                  "static void\ntriple("));
    assert_non_null(strstr(other, "\n\n__attribute__((__aligned__(64)))\nvoid square_ints("));
    assert_non_null(strstr(mixed, "\nFMVGEN_CLONES(add_ints)\nvoid add_ints("));
    /* dot_ints (no candidate) at 8; add_ints (cloned) neither at 8 nor 24 */
    assert_non_null(strstr(mixed, "\n__attribute__((__aligned__(64), __patchable_function_entry__(8, 8)))\n"
                                  "long dot_ints("));
    assert_null(strstr(mixed, "__patchable_function_entry__(8, 8)))\nFMVGEN"));
    assert_null(strstr(mixed, "__patchable_function_entry__(24, 24)"));
    const char *mainc = file_of(&plan, "main.c");
    assert_non_null(strstr(mainc, "\n__attribute__((__aligned__(64), __patchable_function_entry__(40, 40)))\n"
                                  "int main(void)"));
    assert_null(strstr(mainc, "FMVGEN_CLONES"));
    /* other.c has no clone: no preamble */
    assert_null(strstr(other, "FMVGEN_CLONES"));
    assert_non_null(strstr(plan.text, "Kept in place (5):"));
    assert_non_null(strstr(plan.text, "  mixed.c:13 dot_ints: at 8 mod 64 (not a candidate)\n"));
    assert_non_null(strstr(plan.text, "  main.c:11 main: at 40 mod 64 (not a candidate: excluded as main)\n"));
    assert_non_null(strstr(plan.text, "  mixed.c:28 triple_all: at 32 mod 64\n"));
    assert_non_null(strstr(plan.text, "  other.c:5 square_ints: at 0 mod 64\n"));

    const char *written[] = {"mixed.c", "other.c", "main.c"};
    for (size_t i = 0; i < 3; i++) {
        char *path = path_join(p.dir, written[i]);
        const char *text = file_of(&plan, written[i]);
        assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
        free(path);
    }
    const char *compilers[] = {"gcc", "clang-14", "clang-19"};
    for (size_t c = 0; c < sizeof compilers / sizeof *compilers; c++) {
        if (!build_and_run(p.dir, compilers[c], "files")) continue;
        long long ta = address_of(p.dir, "prog", "triple_all"), sq = address_of(p.dir, "prog", "square_ints");
        long long dt = address_of(p.dir, "prog", "dot_ints"), mn = address_of(p.dir, "prog", "main");
        assert_true(ta > 0 && sq > 0 && dt > 0 && mn > 0);
        if (ta % 64 != 32 || sq % 64 != 0 || dt % 64 != 8 || mn % 64 != 40)
            fail_msg("%s: triple_all at 0x%llx, square_ints at 0x%llx, dot_ints at 0x%llx, main at 0x%llx",
                     compilers[c], ta, sq, dt, mn);
    }
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    sv_free(&avx2);
    project_close(&p);
}

/* A non-candidate's pin on a file changed since the scan: refused with
 * the file named, nothing built. */
static void test_pin_stale(void **state)
{
    (void)state;
    struct project p;
    project_open_fixture(&p, "select-mixed", FILES, sizeof FILES / sizeof *FILES);
    add_candidate(&p, "mixed.c", "add_ints", "void add_ints(");
    struct patch_assignments a = {0};
    struct strvec avx2 = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    patch_assign(&a, "add_ints", &avx2);
    pin_at(&p, &a, "main.c", "main", "int main(void)", NULL, 40, "0000000000000000-1");
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned(p.st, &a, &plan), -1);
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    sv_free(&avx2);
    project_close(&p);
}

/* What the scan records of add_ints for --dispatch cpuid: its parameters'
 * names (forwarded by the copies) and where its body ends. */
static void add_ints_params(struct project *p)
{
    char *path = path_join(p->dir, "mixed.c");
    size_t len;
    char *text = read_file(path, &len);
    assert_non_null(text);
    const char *close = strstr(strstr(text, "void add_ints("), "\n}");
    assert_non_null(close);
    int end_line = 2;
    for (const char *c = text; c < close; c++) end_line += *c == '\n';
    free(text);
    free(path);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(p->st),
                                        "UPDATE functions SET notes = '[{\"kind\":\"params\",\"detail\":\"forwarded\","
                                        "\"names\":[\"a\",\"b\",\"n\"],\"void\":true}]', end_line = ?, end_col = 2 "
                                        "WHERE name = 'add_ints'",
                                        -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_int(q, 1, end_line);
    assert_int_equal(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
}

static void test_copy_pins(void **state)
{
    (void)state;
    struct project p;
    project_open_fixture(&p, "select-mixed", FILES, sizeof FILES / sizeof *FILES);
    add_candidate(&p, "mixed.c", "add_ints", "void add_ints(");
    add_candidate(&p, "other.c", "square_ints", "void square_ints(");
    add_ints_params(&p);
    struct patch_assignments a = {0};
    struct strvec avx2 = STRVEC_INIT;
    assert_int_equal(targets_parse("avx2", &avx2), 0);
    patch_assign(&a, "add_ints", &avx2);
    patch_copy_pin_in(&a, "add_ints", "mixed.c", "avx2", 48);
    patch_copy_pin_in(&a, "add_ints", "mixed.c", "default", 64);    /* mod 64: 0 */
    patch_copy_pin_in(&a, "square_ints", "other.c", "avx2", 16);   /* not cloned: nothing */
    struct patch_plan plan;
    assert_int_equal(patch_plan_build_assigned_dispatch(p.st, &a, PATCH_DISPATCH_CPUID, &plan), 0);
    assert_int_equal(plan.nfunctions, 1);
    assert_int_equal(plan.nfiles, 1);   /* other.c: its pin names no clone */
    const char *mixed = file_of(&plan, "mixed.c");
    if (getenv("TEST_PATCH_SHOW")) fprintf(stderr, "%s\n%s", plan.text, mixed);
    assert_non_null(strstr(mixed, "\n__attribute__((__aligned__(64), __patchable_function_entry__(48, 48))) "
                                  "static FMVGEN_CPU_T_AVX2 void fmvgen_cp_add_ints_avx2("));
    assert_non_null(strstr(mixed, "\n__attribute__((__aligned__(64))) static FMVGEN_CPU_T_DEFAULT void "
                                  "fmvgen_cp_add_ints_default("));
    /* the header lists them */
    assert_non_null(strstr(plan.text, "Copies kept where they were measured (1 function):"));
    assert_non_null(strstr(plan.text, " add_ints: avx2 at 48, default at 0 mod 64\n"));
    assert_null(strstr(plan.text, "square_ints: avx2"));

    char *path = path_join(p.dir, "mixed.c");
    assert_int_equal(write_file_atomic(path, mixed, strlen(mixed)), 0);
    free(path);
    const char *compilers[] = {"gcc", "clang-14", "clang-19"};
    for (size_t c = 0; c < sizeof compilers / sizeof *compilers; c++) {
        if (!build_and_run(p.dir, compilers[c], "copies")) continue;
        long long cp = address_of(p.dir, "prog", "fmvgen_cp_add_ints_avx2"),
                  cd = address_of(p.dir, "prog", "fmvgen_cp_add_ints_default");
        assert_true(cp > 0 && cd > 0);
        if (cp % 64 != 48 || cd % 64 != 0)
            fail_msg("%s: fmvgen_cp_add_ints_avx2 at 0x%llx, fmvgen_cp_add_ints_default at 0x%llx", compilers[c], cp, cd);
    }
    patch_plan_free(&plan);
    patch_assignments_free(&a);
    sv_free(&avx2);
    project_close(&p);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pins),
        cmocka_unit_test(test_pin_stale),
        cmocka_unit_test(test_copy_pins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
