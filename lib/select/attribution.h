/* attribution.h - a profile's samples folded onto the functions fmvgen
 * patches. A multiversioned function shows up in a profile under its clones'
 * symbols (GCC: foo.arch_x86_64_v3, foo.avx2, foo.default; Clang:
 * foo.avx2.0, foo.default.1, foo.ifunc) and its compiler-made pieces
 * (foo.cold, foo.part.0, foo.constprop.0): all of them are foo's time.
 * C and mangled C++ names hold no '.', so everything from the first '.' on
 * is such a suffix.
 *
 * The profile comes from lib/measure/profile.h, which runs `perf record -e
 * cpu-clock` with its default inheritance: child processes of the workload
 * (a shell, a test driver) are sampled too. */
#ifndef FMVGEN_SELECT_ATTRIBUTION_H
#define FMVGEN_SELECT_ATTRIBUTION_H

#include "measure/profile.h"

/* The function a symbol belongs to: "foo" for "foo.avx2.0". Caller frees. */
char *attribution_base_name(const char *symbol);

/* The clone suffix of a symbol ("avx2", "arch_x86_64_v3", "default"), without
 * Clang's ".N"; "" for a plain symbol. Caller frees. */
char *attribution_clone_suffix(const char *symbol);

/* User-space samples of function (all its clones and pieces). */
long attribution_samples(const struct profile *p, const char *function);

/* The symbol of function that collected the most samples (the clone that
 * ran here), or NULL when none did; the dispatcher (foo.resolver, Clang's
 * foo.ifunc) is not a clone and never the answer. Points into p. */
const char *attribution_hottest_symbol(const struct profile *p, const char *function);

#endif
