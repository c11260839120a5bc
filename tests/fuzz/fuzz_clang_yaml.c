/* fuzz_clang_yaml.c - Clang's optimization record reader
 * (records_read_clang_yaml_buf): the input is the YAML file. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    struct record_list l = RECORD_LIST_INIT;
    struct records_buf in = {"fuzz.opt.yaml", data, size};
    if (records_read_clang_yaml_buf(&in, fuzz_check_record, &l) != 0 && l.n) abort();   /* nothing on failure */
    fuzz_finish_records(&l);
    return 0;
}
