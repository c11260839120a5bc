/* fuzz_optinfo_log.c - the build log reader (records_read_optinfo_log_buf):
 * the input is the log. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    struct record_list l = RECORD_LIST_INIT;
    struct records_buf in = {"fuzz.log", data, size};
    if (records_read_optinfo_log_buf(&in, fuzz_check_record, &l) != 0 && l.n) abort();   /* nothing on failure */
    /* A log names no function (records.h). */
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].function) abort();
    fuzz_finish_records(&l);
    return 0;
}
