/* fuzz_compdb.c - the compile_commands.json reader (compdb_parse_buffer):
 * the input is the database. Response files are not expanded (an @FILE
 * could name any file, a FIFO or a device); the "command" splitter also
 * gets the whole input as one command line. */
#include "fuzz_common.h"

#include "capture/compdb.h"

static int check_entry(struct compdb_entry *e, void *ctx)
{
    (void)ctx;
    /* compdb.h: a kept entry is a compile with an argv, absolute paths
     * and a language. */
    if (e->index == 0 || e->argv.n == 0 || !e->directory || e->directory[0] != '/' || !e->source ||
        e->source[0] != '/' || !e->language)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    compdb_parse_buffer("fuzz/compile_commands.json", (const char *)data, size, "/fuzz", COMPDB_NO_RESPONSE_FILES,
                        check_entry, NULL);
    char *text = xstrndup((const char *)data, size);
    struct strvec words = STRVEC_INIT;
    compdb_split_command(text, &words);
    sv_free(&words);
    free(text);
    return 0;
}
