/* loops.c - the stored names of loop kinds (loops.h). */
#include "store/loops.h"

const char *loop_kind_name(enum loop_kind k)
{
    return k == LOOP_SLP ? "slp" : "loop";
}
