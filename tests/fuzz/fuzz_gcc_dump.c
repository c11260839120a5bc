/* fuzz_gcc_dump.c - GCC's vectorizer dump reader
 * (records_read_gcc_dump_buf). One record is three dumps (vect, slp1,
 * slp2): the input holds them one after another, separated by a line
 * FUZZ_PART_SEPARATOR (a fourth is part of the third); an input without
 * one is the vect dump alone, with empty SLP dumps. */
#include "fuzz_common.h"

#define FUZZ_PART_SEPARATOR "\n----8<----\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    static const char *const names[] = {"fuzz.vect", "fuzz.slp1", "fuzz.slp2"};
    static const char sep[] = FUZZ_PART_SEPARATOR;
    const size_t seplen = sizeof sep - 1;
    struct records_buf parts[3];
    const uint8_t *p = data, *end = data + size;
    for (size_t i = 0; i < 3; i++) {
        const uint8_t *cut = NULL;
        if (i < 2) cut = memmem(p, (size_t)(end - p), sep, seplen);
        /* The separator's first newline ends the part's last line. */
        const uint8_t *stop = cut ? cut + 1 : end;
        parts[i] = (struct records_buf){names[i], p, (size_t)(stop - p)};
        p = cut ? cut + seplen : end;
    }
    struct record_list l = RECORD_LIST_INIT;
    if (records_read_gcc_dump_buf(parts, 3, fuzz_check_record, &l) != 0 && l.n) abort();   /* nothing on failure */
    fuzz_finish_records(&l);
    return 0;
}
