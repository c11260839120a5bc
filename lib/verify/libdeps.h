/* libdeps.h - the shared libraries a program loads, found the way ld.so
 * finds them (an "ldd" that reads files instead of running the loader, so it
 * works the same for every CPU): each object's DT_NEEDED names, searched in
 * its DT_RPATH (when it has no DT_RUNPATH; also the executable's), then
 * LD_LIBRARY_PATH, then its DT_RUNPATH, with $ORIGIN expanded.
 *
 * Only the build's libraries are followed: a name not found in those
 * directories is the system's (ld.so.cache, /usr/lib/...) and is listed as
 * such without being opened - glibc's own ifuncs (memcpy...) are not what
 * the user multiversioned. A name in none of the system's usual directories
 * either is marked missing (the program will not start). Libraries of the wrong class or architecture are
 * skipped, as ld.so skips them. */
#ifndef FMVGEN_VERIFY_LIBDEPS_H
#define FMVGEN_VERIFY_LIBDEPS_H

#include <stddef.h>

struct lib_dep {
    char *name;        /* the DT_NEEDED entry: "libfoo.so.1" */
    char *path;        /* where it was found; NULL for a system library */
    int missing;       /* found nowhere, not even in the system's directories */
    char *needed_by;   /* path of the first object that needs it */
};

/* Walks the program's dependencies breadth-first (each library once).
 * ld_library_path may be NULL. Returns 0, or -1 after an error line when the
 * program itself cannot be read as ELF. */
int libdeps_resolve(const char *program, const char *ld_library_path, struct lib_dep **deps, size_t *n);
void libdeps_free(struct lib_dep *deps, size_t n);

#endif
