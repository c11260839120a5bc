/* fuzz_gcc_json.c - GCC's -fsave-optimization-record reader
 * (records_read_gcc_json_buf): the input is the file, gzip'd or plain. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    struct record_list l = RECORD_LIST_INIT;
    struct records_buf in = {"fuzz.json.gz", data, size};
    if (records_read_gcc_json_buf(&in, fuzz_check_record, &l) != 0 && l.n) abort();   /* nothing on failure */
    fuzz_finish_records(&l);
    return 0;
}
