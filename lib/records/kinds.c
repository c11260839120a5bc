/* kinds.c - names of loop kinds, shared by the readers and the store. */
#include "records/records.h"

const char *loop_kind_name(enum loop_kind k)
{
    return k == LOOP_SLP ? "slp" : "loop";
}
