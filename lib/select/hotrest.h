/* hotrest.h - the hot functions of the baseline that are no candidate:
 * what select cannot clone and a user must know of to read "0 of N
 * selected" (a C++ library whose hot code is all virtual, a kernel the
 * scan excluded). After the profiled rounds, every symbol of the project's
 * own linked files (placement.h's log: files outside the build copy, libc
 * and libm, are not in it) that is hot in the baseline by select's rule
 * (min_share of some workload's samples, SELECT_MIN_SAMPLES per run) and is
 * neither a candidate nor a compiler-made clone or resolver is listed,
 * hottest first, with why it is no candidate: its functions row in the
 * store (excluded: the reason; a host whose inlined kernels are
 * candidates says so), else "no record" (the scan saw no vectorized loop
 * and no code that changes at the target in it). r->hot_rest gets them;
 * a note names the first SELECT_HOT_REST_SHOWN; report.json lists all as
 * "hot_non_candidates". Not for use outside lib/select. */
#ifndef FMVGEN_SELECT_HOTREST_H
#define FMVGEN_SELECT_HOTREST_H

#include "select/session.h"

#define SELECT_HOT_REST_SHOWN 8

/* 1 when symbol is a candidate's (its name, or the name less a compiler
 * suffix: "foo.part.0") or a compiler-made clone, copy or resolver
 * (elf/fmvnames.h). */
int select_candidate_symbol(const struct select_session *s, const char *symbol);

/* Fills s->rep.hot_rest (result.h) and says it (above); nothing when none
 * is hot. */
void session_note_hot_rest(struct select_session *s);

#endif
