/* notes.c - see notes.h. */
#include "store/notes.h"

#include <string.h>

static const char *const NOTE_NAMES[] = {
    [NOTE_SIMD_IFDEF] = "simd-ifdef",         [NOTE_SHARED_LINE] = "shared-line",
    [NOTE_STATIC_MACRO] = "static-macro",     [NOTE_REDECLARED] = "redeclared",
    [NOTE_INLINED_HELPER] = "inlined-helper", [NOTE_INLINED_INTO] = "inlined-into",
    [NOTE_INCLUDED_SOURCE] = "included-source", [NOTE_HELPER_DECLARED_INLINE] = "helper-declared-inline",
    [NOTE_HELPER_LEFT_OUT] = "helper-left-out", [NOTE_VISIBILITY] = "visibility",
    [NOTE_ISA_UNATTRIBUTED] = "isa-unattributed", [NOTE_INLINE_EMITTED] = "inline-out-of-line",
    [NOTE_PARAMS] = "params",                 [NOTE_HEADER_SWITCH] = "header-switch",
    [NOTE_DECLARED_LATER] = "declared-later", [NOTE_ALTERNATIVE_CALLEE] = "alternative-callee",
    [NOTE_LAMBDA_DISPATCH] = "lambda-dispatch",
};

static const char *const TU_NOTE_NAMES[] = {
    [TU_NOTE_ISA_UNMATCHED] = "isa-unmatched", [TU_NOTE_NO_VECTORIZE_FLAG] = "no-vectorize-flag",
    [TU_NOTE_LOW_OPT] = "low-opt",             [TU_NOTE_O2_CHEAP_MODEL] = "o2-cheap-model",
    [TU_NOTE_PROBE_FAILED] = "probe-failed",   [TU_NOTE_NO_RECORDS] = "no-records",
    [TU_NOTE_PROBE_SKIPPED] = "probe-skipped",
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static const char *name_of(const char *const *names, size_t n, int k)
{
    return k > 0 && (size_t)k < n ? names[k] : NULL;
}

static int parse(const char *const *names, size_t n, const char *name)
{
    for (size_t k = 1; name && k < n; k++)
        if (names[k] && !strcmp(names[k], name)) return (int)k;
    return 0;
}

const char *note_kind_name(enum note_kind k) { return name_of(NOTE_NAMES, COUNT(NOTE_NAMES), (int)k); }

enum note_kind note_kind_parse(const char *name)
{
    return (enum note_kind)parse(NOTE_NAMES, COUNT(NOTE_NAMES), name);
}

enum note_kind note_kind_of(const json_t *note)
{
    return note_kind_parse(json_string_value(json_object_get(note, "kind")));
}

json_t *note_new(enum note_kind k, const char *detail)
{
    json_t *n = json_object();
    json_object_set_new(n, "kind", json_string(note_kind_name(k)));
    json_object_set_new(n, "detail", json_string(detail));
    return n;
}

json_t *notes_find(const json_t *notes, enum note_kind k)
{
    size_t i;
    json_t *note;
    json_array_foreach(notes, i, note)
    {
        if (note_kind_of(note) == k) return note;
    }
    return NULL;
}

const char *tu_note_kind_name(enum tu_note_kind k)
{
    return name_of(TU_NOTE_NAMES, COUNT(TU_NOTE_NAMES), (int)k);
}

enum tu_note_kind tu_note_kind_parse(const char *name)
{
    return (enum tu_note_kind)parse(TU_NOTE_NAMES, COUNT(TU_NOTE_NAMES), name);
}
