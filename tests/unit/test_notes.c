/* Unit tests of lib/store/notes.h, reasons.h and kinds.h: every kind and reason
 * encodes to the spelling the store contract (docs/DESIGN.md) fixes and
 * decodes back; unknown or missing names decode to *_UNKNOWN (or
 * REASON_NONE for a candidate's NULL), never to another kind; note objects
 * are built and found by kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "store/kinds.h"
#include "store/notes.h"
#include "store/reasons.h"

/* The spellings on disk, written out here on purpose: changing one in
 * notes.c or reasons.c changes the store schema and must fail this test. */
static const struct {
    enum note_kind kind;
    const char *name;
} NOTES[] = {
    {NOTE_SIMD_IFDEF, "simd-ifdef"},         {NOTE_SHARED_LINE, "shared-line"},
    {NOTE_STATIC_MACRO, "static-macro"},     {NOTE_REDECLARED, "redeclared"},
    {NOTE_INLINED_HELPER, "inlined-helper"}, {NOTE_HELPER_DECLARED_INLINE, "helper-declared-inline"},
    {NOTE_HELPER_LEFT_OUT, "helper-left-out"}, {NOTE_INLINED_INTO, "inlined-into"},
    {NOTE_INCLUDED_SOURCE, "included-source"}, {NOTE_VISIBILITY, "visibility"},
    {NOTE_ISA_UNATTRIBUTED, "isa-unattributed"},
    {NOTE_INLINE_EMITTED, "inline-out-of-line"},
    {NOTE_PARAMS, "params"},
    {NOTE_HEADER_SWITCH, "header-switch"},
    {NOTE_DECLARED_LATER, "declared-later"},
    {NOTE_ALTERNATIVE_CALLEE, "alternative-callee"},
    {NOTE_LAMBDA_DISPATCH, "lambda-dispatch"},
};

static const struct {
    enum tu_note_kind kind;
    const char *name;
} TU_NOTES[] = {
    {TU_NOTE_ISA_UNMATCHED, "isa-unmatched"}, {TU_NOTE_NO_VECTORIZE_FLAG, "no-vectorize-flag"},
    {TU_NOTE_LOW_OPT, "low-opt"},             {TU_NOTE_O2_CHEAP_MODEL, "o2-cheap-model"},
    {TU_NOTE_PROBE_FAILED, "probe-failed"},   {TU_NOTE_NO_RECORDS, "no-records"},
};

static const struct {
    enum exclusion_reason reason;
    const char *name;
} REASONS[] = {
    {REASON_PARSE_ERROR, "parse-error"},
    {REASON_MAIN, "main"},
    {REASON_HEADER, "header"},
    {REASON_MACRO, "macro"},
    {REASON_TEMPLATE, "template"},
    {REASON_LAMBDA, "lambda"},
    {REASON_VIRTUAL, "virtual"},
    {REASON_COROUTINE, "coroutine"},
    {REASON_INLINE, "inline"},
    {REASON_VARIADIC, "variadic"},
    {REASON_ATTRIBUTE, "attribute"},
    {REASON_CONSTRUCTOR, "constructor"},
    {REASON_INTRINSICS, "intrinsics"},
    {REASON_INLINE_ASM, "inline-asm"},
    {REASON_USED_BEFORE_DEFINITION, "used-before-definition"},
    {REASON_INTERNAL_TEMPLATE, "internal-template"},
    {REASON_TAG_NAME, "tag-name"},
    {REASON_NOT_FOUND, "not-found"},
    {REASON_DECLARED_AFTER_DEFINITION, "declared-after-definition"},
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static void test_note_kinds_round_trip(void **state)
{
    (void)state;
    /* Every enumerator between UNKNOWN and the last is listed above. */
    assert_int_equal(COUNT(NOTES), NOTE_LAMBDA_DISPATCH);
    for (size_t i = 0; i < COUNT(NOTES); i++) {
        assert_string_equal(note_kind_name(NOTES[i].kind), NOTES[i].name);
        assert_int_equal(note_kind_parse(NOTES[i].name), NOTES[i].kind);
    }
    assert_null(note_kind_name(NOTE_UNKNOWN));
    assert_null(note_kind_name((enum note_kind)(NOTE_LAMBDA_DISPATCH + 1)));
    assert_int_equal(note_kind_parse(NULL), NOTE_UNKNOWN);
    assert_int_equal(note_kind_parse(""), NOTE_UNKNOWN);
    assert_int_equal(note_kind_parse("Simd-Ifdef"), NOTE_UNKNOWN);
    /* A TU note's name is no function note's kind. */
    assert_int_equal(note_kind_parse("isa-unmatched"), NOTE_UNKNOWN);
}

static void test_tu_note_kinds_round_trip(void **state)
{
    (void)state;
    assert_int_equal(COUNT(TU_NOTES), TU_NOTE_NO_RECORDS);
    for (size_t i = 0; i < COUNT(TU_NOTES); i++) {
        assert_string_equal(tu_note_kind_name(TU_NOTES[i].kind), TU_NOTES[i].name);
        assert_int_equal(tu_note_kind_parse(TU_NOTES[i].name), TU_NOTES[i].kind);
    }
    assert_null(tu_note_kind_name(TU_NOTE_UNKNOWN));
    assert_int_equal(tu_note_kind_parse(NULL), TU_NOTE_UNKNOWN);
    assert_int_equal(tu_note_kind_parse("simd-ifdef"), TU_NOTE_UNKNOWN);
}

static void test_reasons_round_trip(void **state)
{
    (void)state;
    assert_int_equal(COUNT(REASONS) + 1, REASON_UNKNOWN);
    for (size_t i = 0; i < COUNT(REASONS); i++) {
        assert_string_equal(reason_name(REASONS[i].reason), REASONS[i].name);
        assert_int_equal(reason_parse(REASONS[i].name), REASONS[i].reason);
    }
    /* A candidate: no reason, stored as NULL. */
    assert_int_equal(REASON_NONE, 0);
    assert_null(reason_name(REASON_NONE));
    assert_int_equal(reason_parse(NULL), REASON_NONE);
    /* A name another version stored: excluded, for a reason not known here. */
    assert_int_equal(reason_parse("no-such-reason"), REASON_UNKNOWN);
    assert_null(reason_name(REASON_UNKNOWN));
}

static void test_candidate_kinds(void **state)
{
    (void)state;
    static const struct {
        enum candidate_kind kind;
        const char *name;
    } KINDS[] = {
        {KIND_ISA, "isa"},
        {KIND_TARGET_VECTORIZED, "target-vectorized"},
        {KIND_VECTORIZED, "vectorized"},
    };
    for (size_t i = 0; i < COUNT(KINDS); i++) {
        assert_string_equal(candidate_kind_name(KINDS[i].kind), KINDS[i].name);
        assert_int_equal(candidate_kind_parse(KINDS[i].name), KINDS[i].kind);
        json_t *j = candidate_kind_json(KINDS[i].kind);
        assert_string_equal(json_string_value(j), KINDS[i].name);
        json_decref(j);
    }
    /* No kind (NULL on disk) and a name another version stored. */
    assert_int_equal(candidate_kind_parse(NULL), KIND_NONE);
    assert_int_equal(candidate_kind_parse("vectorised"), KIND_UNKNOWN);
    assert_null(candidate_kind_name(KIND_NONE));
    assert_null(candidate_kind_name(KIND_UNKNOWN));
    json_t *j = candidate_kind_json(KIND_UNKNOWN);
    assert_true(json_is_null(j));
    json_decref(j);
    /* The one that says more wins, whichever comes first. */
    assert_int_equal(candidate_kind_max(KIND_ISA, KIND_VECTORIZED), KIND_VECTORIZED);
    assert_int_equal(candidate_kind_max(KIND_VECTORIZED, KIND_TARGET_VECTORIZED), KIND_VECTORIZED);
    assert_int_equal(candidate_kind_max(KIND_TARGET_VECTORIZED, KIND_ISA), KIND_TARGET_VECTORIZED);
    assert_int_equal(candidate_kind_max(KIND_NONE, KIND_ISA), KIND_ISA);
    assert_int_equal(candidate_kind_max(KIND_UNKNOWN, KIND_ISA), KIND_ISA);
}

static void test_note_objects(void **state)
{
    (void)state;
    json_t *notes = json_array();
    json_t *a = note_new(NOTE_SHARED_LINE, "line 3 also holds 'namespace {'");
    assert_string_equal(json_string_value(json_object_get(a, "kind")), "shared-line");
    assert_string_equal(json_string_value(json_object_get(a, "detail")), "line 3 also holds 'namespace {'");
    assert_int_equal(note_kind_of(a), NOTE_SHARED_LINE);
    json_array_append_new(notes, a);
    json_array_append_new(notes, json_pack("{s:s}", "kind", "from-a-newer-version"));
    json_array_append_new(notes, json_pack("{s:s}", "detail", "no kind"));
    json_t *r1 = note_new(NOTE_REDECLARED, "first");
    json_t *r2 = note_new(NOTE_REDECLARED, "second");
    json_array_append_new(notes, r1);
    json_array_append_new(notes, r2);
    assert_ptr_equal(notes_find(notes, NOTE_REDECLARED), r1);
    assert_ptr_equal(notes_find(notes, NOTE_SHARED_LINE), a);
    assert_null(notes_find(notes, NOTE_INCLUDED_SOURCE));
    assert_int_equal(note_kind_of(json_array_get(notes, 1)), NOTE_UNKNOWN);
    assert_int_equal(note_kind_of(json_array_get(notes, 2)), NOTE_UNKNOWN);
    assert_int_equal(note_kind_of(NULL), NOTE_UNKNOWN);
    assert_null(notes_find(NULL, NOTE_REDECLARED));
    json_decref(notes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_note_kinds_round_trip),
        cmocka_unit_test(test_tu_note_kinds_round_trip),
        cmocka_unit_test(test_reasons_round_trip),
        cmocka_unit_test(test_candidate_kinds),
        cmocka_unit_test(test_note_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
