/* dispatch_gdb.h - the dispatch map of a STATIC executable, which cannot
 * take the preloaded helper of dispatch.h: gdb runs the program (natively,
 * or attached to `qemu-x86_64 -g PORT -cpu MODEL`), stops it at main (at its
 * first instruction when there is no main symbol), calls each resolver of
 * the plan as an inferior function and prints what it returns. Stopping at
 * main matters for glibc's own ifuncs: their resolvers read CPU data that
 * the static startup code fills in before main (GCC's and Clang's resolvers
 * run __builtin_cpu_init themselves and would work from the first
 * instruction too).
 *
 * Used by dispatch_run when plan->gdb is set. */
#ifndef FMVGEN_VERIFY_DISPATCH_GDB_H
#define FMVGEN_VERIFY_DISPATCH_GDB_H

#include <stdint.h>

#include "verify/dispatch.h"

/* Fills res (already sized for the plan by dispatch_run) from one gdb
 * session. argv: PROG ARGS. qemu NULL: natively. Returns 0 when gdb got
 * through every call (an entry may still be unanswered when its call
 * failed), -1 with res->error set otherwise. gdb and qemu are bounded by
 * timeout_s; qemu is killed when gdb ends without ending it. */
int dispatch_gdb_run(const struct dispatch_plan *plan, char *const *argv, const char *qemu, const char *model,
                     double timeout_s, struct dispatch_result *res);

/* Records what the resolver of entry idx returned, as a file address (the
 * run-time address minus the object's load bias): the clone it names, or
 * why it names none. Shared by the helper's and gdb's readers. */
void dispatch_record_answer(const struct dispatch_plan *plan, struct dispatch_result *res, size_t idx,
                            uint64_t file_addr);

#endif
