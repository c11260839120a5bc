/* codeprofile.h - keeps the ISA profile (elf/funcisa.h) of every function a
 * scan's own compile emitted: the probe's on_object hook (probe.h), run
 * before the probe's temp dir goes. Stores function_profiles rows of the
 * (compile, variant); for variant "build" (scan --compdb) also the
 * object_functions list. An object that cannot be read (an LTO object
 * without code, ...) gives the compile a tu_notes 'isa-unmatched' line
 * ("<variant>: why"), not an error. Returns 0, or -1 on a store error.
 * The profiles include the shares of callees each function inlined
 * (codeprofile_read), for code built with -g. */
#ifndef FMVGEN_CAPTURE_CODEPROFILE_H
#define FMVGEN_CAPTURE_CODEPROFILE_H

#include <stddef.h>

#include "util/util.h"

struct store;
struct compile_row;
struct func_isa_list;

/* The profiles of object's functions and the shares of the callees they
 * inlined (elf/funcisa.h funcisa_read_object_shares, the inline frames by
 * binutils' addr2line). Returns 0, or -1 with *why (caller frees). */
int codeprofile_read(const char *object, struct func_isa_list *out, char **why);

/* codeprofile_store's ctx (NULL: none): the profiles of the objects read
 * last, so that an object the probe shares between libtool's twin compiles
 * (probe.h share_twins: one object, on_object once per compile) is read
 * once. Keyed by the object's path, which the probe never reuses within a
 * run: free it (codeprofile_cache_free) when the probe run is over. */
#define CODEPROFILE_CACHE 8   /* objects kept: twins of a -j build interleave */
struct codeprofile_entry {
    char *object;
    int ok;                        /* read; else why */
    char *why;
    struct strvec names, profiles; /* store_set_function_profiles' rows */
};
struct codeprofile_cache {
    struct codeprofile_entry v[CODEPROFILE_CACHE];
    size_t n;
    size_t reads;                  /* objects read so far */
};
void codeprofile_entry_free(struct codeprofile_entry *e);
void codeprofile_cache_free(struct codeprofile_cache *cache);

int codeprofile_store(struct store *st, const struct compile_row *row, const char *variant, const char *object,
                      void *ctx);

#endif
