/* Unit tests of select/libcalls.h on hand-made profiles: the dropped calls
 * taken from the data (patch_function.dropped_calls), not the evidence
 * text; glibc's implementation names matched to
 * the callee; samples in a dropped callee counted as the dropping
 * candidate's in every arm (baseline, variant, A/A), split by baseline
 * samples when two candidates drop it (and said: shared_with), equally
 * when neither was sampled; callees no candidate drops left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "select/libcalls.h"

/* The dropped calls come from the data (functions.dropped_calls), never
 * from the evidence text: a text that names other calls, or none, changes
 * nothing; a row without the data (an analysis before schema 4) credits
 * nothing and is named. */
static void test_dropped_from_data(void **state)
{
    (void)state;
    struct patch_function fns[4];
    memset(fns, 0, sizeof fns);
    fns[0].name = "quantize";
    fns[0].evidence = "roundss replaces floorf, ceilf (3 calls)";
    sv_push(&fns[0].dropped_calls, "floorf");
    sv_push(&fns[0].dropped_calls, "ceilf");
    sv_push(&fns[0].dropped_calls, "floorf");
    fns[0].dropped_known = 1;
    fns[1].name = "popsum";   /* the text reworded: no "replaces" in it */
    fns[1].evidence = "__popcountdi2 becomes popcnt";
    sv_push(&fns[1].dropped_calls, "__popcountdi2");
    fns[1].dropped_known = 1;
    fns[2].name = "lround_all";   /* no evidence text at all */
    sv_push(&fns[2].dropped_calls, "lrint");
    fns[2].dropped_known = 1;
    fns[3].name = "old_row";   /* the text says a call is dropped, the data is not known */
    fns[3].display_name = "old_row(int)";
    fns[3].evidence = "popcnt replaces __popcountdi2";
    struct strvec dropped[4] = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT};
    struct strvec unknown = STRVEC_INIT;
    libcalls_dropped(fns, 4, dropped, &unknown);
    assert_int_equal(dropped[0].n, 2);
    assert_string_equal(dropped[0].v[0], "floorf");
    assert_string_equal(dropped[0].v[1], "ceilf");
    assert_int_equal(dropped[1].n, 1);
    assert_string_equal(dropped[1].v[0], "__popcountdi2");
    assert_int_equal(dropped[2].n, 1);
    assert_string_equal(dropped[2].v[0], "lrint");
    assert_int_equal(dropped[3].n, 0);
    assert_int_equal(unknown.n, 1);
    assert_string_equal(unknown.v[0], "old_row(int)");
    /* and the samples follow the data: lrint's go to lround_all, which
     * has no evidence text */
    struct libcall_log log = {0};
    static const char *const syms[] = {"__lrint_c", "__popcountdi2"};
    static const long n[] = {12, 6};
    struct profile p;
    memset(&p, 0, sizeof p);
    p.entries = calloc(2, sizeof *p.entries);
    p.n = 2;
    for (size_t i = 0; i < 2; i++) p.entries[i].symbol = (char *)syms[i], p.entries[i].samples = n[i];
    libcalls_log_profile(&log, &p, dropped, 4, 0, 0, 0, 0);
    free(p.entries);
    assert_int_equal(log.n, 2);
    double samples[4] = {0}, credited[4] = {0};
    const char *names[4] = {"quantize", "popsum", "lround_all", "old_row"};
    libcalls_apply(&log, dropped, names, 1, 1, 4, 1, samples, NULL, credited, NULL, NULL);
    assert_true(samples[1] == 6 && samples[2] == 12 && samples[0] == 0 && samples[3] == 0);
    libcall_log_free(&log);
    for (size_t i = 0; i < 4; i++) {
        sv_free(&dropped[i]);
        sv_free(&fns[i].dropped_calls);
    }
    sv_free(&unknown);
}

static void test_symbol_is(void **state)
{
    (void)state;
    assert_true(libcalls_symbol_is("floorf", "floorf"));
    assert_true(libcalls_symbol_is("__floorf_sse41", "floorf"));
    assert_true(libcalls_symbol_is("__floorf_c", "floorf"));
    assert_false(libcalls_symbol_is("__floor_sse41", "floorf"));
    assert_false(libcalls_symbol_is("floorf_helper", "floorf"));
    assert_false(libcalls_symbol_is("__floorf_", "floorf"));
    assert_false(libcalls_symbol_is("__floorf_x.y", "floorf"));
    assert_true(libcalls_symbol_is("__popcountdi2", "__popcountdi2"));
}

/* One profile with the given symbols and samples. */
static void profile_of(struct profile *p, const char *const *syms, const long *n, size_t k)
{
    memset(p, 0, sizeof *p);
    p->entries = calloc(k, sizeof *p->entries);
    p->n = k;
    for (size_t i = 0; i < k; i++) {
        p->entries[i].symbol = (char *)syms[i];
        p->entries[i].samples = n[i];
        p->total_samples += n[i];
    }
}

#define NF 3
#define NV 2
#define NR 2

static void test_apply(void **state)
{
    (void)state;
    /* quantize drops floorf; hamming and popsum both drop __popcountdi2 */
    const char *names[NF] = {"quantize", "hamming", "popsum"};
    struct strvec dropped[NF] = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT};
    sv_push(&dropped[0], "floorf");
    sv_push(&dropped[1], "__popcountdi2");
    sv_push(&dropped[2], "__popcountdi2");
    /* the functions' own samples: [((w * NV + v) * NF + f) * NR + r] */
    double samples[NV * NF * NR] = {
        10, 10, 30, 30, 10, 10,   /* baseline: quantize, hamming, popsum */
        8, 8, 20, 20, 0, 0,       /* the variant */
    };
    double aa[NF * NR] = {10, 10, 30, 30, 10, 10};
    struct libcall_log log = {0};
    static const char *const base_syms[] = {"__floorf_sse41", "__popcountdi2", "memcpy", "quantize"};
    static const long base_n[] = {40, 20, 50, 10};
    static const char *const var_syms[] = {"__popcountdi2", "memcpy"};
    static const long var_n[] = {4, 50};
    for (size_t r = 0; r < NR; r++) {
        struct profile p;
        profile_of(&p, base_syms, base_n, 4);
        libcalls_log_profile(&log, &p, dropped, NF, 0, 0, r, 0);
        libcalls_log_profile(&log, &p, dropped, NF, 0, 0, r, 1);   /* the A/A arm */
        free(p.entries);
        profile_of(&p, var_syms, var_n, 2);
        libcalls_log_profile(&log, &p, dropped, NF, 0, 1, r, 0);
        free(p.entries);
    }
    assert_int_equal(log.n, NR * 5);   /* memcpy and quantize itself are no dropped call */
    double credited[NF] = {0};
    struct strvec seen[NF] = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT};
    struct strvec shared[NF] = {STRVEC_INIT, STRVEC_INIT, STRVEC_INIT};
    libcalls_apply(&log, dropped, names, 1, NV, NF, NR, samples, aa, credited, seen, shared);
    /* floorf's 40 go to quantize alone, in the baseline and the A/A arm */
    assert_true(samples[0] == 50 && samples[1] == 50);
    assert_true(aa[0] == 50 && aa[1] == 50);
    assert_true(samples[NF * NR + 0] == 8);   /* the variant had no floorf */
    /* __popcountdi2's 20: 3:1 by the baseline samples (30 vs 10) */
    assert_true(samples[2] == 45 && samples[4] == 15);
    assert_true(aa[2] == 45 && aa[4] == 15);
    /* the variant's 4: with the baseline's weights too */
    assert_true(samples[NF * NR + 2] == 23 && samples[NF * NR + 4] == 1);
    assert_true(credited[0] == 40 && credited[1] == 15 && credited[2] == 5);
    assert_int_equal(seen[0].n, 1);
    assert_string_equal(seen[0].v[0], "floorf");
    assert_int_equal(shared[0].n, 0);
    assert_int_equal(shared[1].n, 1);
    assert_string_equal(shared[1].v[0], "popsum");
    assert_string_equal(shared[2].v[0], "hamming");
    libcall_log_free(&log);

    /* neither dropper sampled in the baseline: split equally */
    double zero[NV * NF * NR] = {0};
    struct profile p;
    profile_of(&p, base_syms, base_n, 2);
    libcalls_log_profile(&log, &p, dropped, NF, 0, 0, 0, 0);
    free(p.entries);
    libcalls_apply(&log, dropped, names, 1, NV, NF, NR, zero, NULL, NULL, NULL, NULL);
    assert_true(zero[0] == 40 && zero[2] == 10 && zero[4] == 10);
    libcall_log_free(&log);
    for (size_t f = 0; f < NF; f++) {
        sv_free(&dropped[f]);
        sv_free(&seen[f]);
        sv_free(&shared[f]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dropped_from_data),
        cmocka_unit_test(test_symbol_is),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
