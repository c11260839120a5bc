/* fuzz_common.h - what every fuzz target shares: quiet error lines (each
 * input that is wrong prints one otherwise), and a record sink that copies
 * what a reader delivers and checks the promises of records.h on it.
 *
 * A target reads only its input, writes no file, runs no program, frees
 * all it allocates and never exits: libFuzzer and the replay test
 * (replay_main.c) run thousands of inputs in one process. */
#ifndef FMVGEN_FUZZ_COMMON_H
#define FMVGEN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "records/records.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_quiet(void)
{
    static int done;
    if (!done) fmv_set_quiet(1);
    done = 1;
}

/* records.h: a delivered record has a message, a known kind and no
 * negative width; a function name is never "" and holds no clone suffix
 * (no '.'; a name that starts with one is no
 * symbol a compiler writes, and is kept as it is). */
static inline int fuzz_check_record(const struct loop_record *r, void *list)
{
    if (!r->message || (r->kind != LOOP_VECTORIZED && r->kind != LOOP_SLP)) abort();
    if (r->vector_bytes < 0 || r->vector_lanes < 0) abort();
    if (r->function && (!*r->function || (r->function[0] != '.' && strchr(r->function, '.')))) abort();
    (void)loop_kind_name(r->kind);
    return record_list_add(r, list);
}

/* Runs a reader's records through the list operations the ingest uses. */
static inline void fuzz_finish_records(struct record_list *l)
{
    record_list_dedup(l);
    record_list_free(l);
}

#endif
