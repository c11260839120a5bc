/* build.h - building one variant of a project (baseline -O3, -O3 -mavx2,
 * -O3 with the FMV patch, ...) for measuring it. The build always runs in a
 * private copy under a directory the caller owns (a temp dir), never in the
 * user's tree: a variant's objects must not mix with another's, and the
 * user's own build stays as it was.
 *
 * Used by `fmvgen demo`, and meant for any command that compares builds
 * (e.g. a future `fmvgen select`). Timing the built program is timing.h's job. */
#ifndef FMVGEN_MEASURE_BUILD_H
#define FMVGEN_MEASURE_BUILD_H

struct variant_spec {
    const char *name;          /* names the copy (WORK_DIR/NAME) and the messages */
    const char *source_dir;    /* the project to copy; left untouched */
    const char *work_dir;      /* an existing directory that receives the copy */
    char *const *build_argv;   /* the build command, run in the copy, e.g. {"make", "-B", NULL} */
    const char *cc;            /* NULL: CC as inherited */
    const char *cflags;        /* NULL: CFLAGS as inherited */
    /* 1: also append CC=... and CFLAGS=... to build_argv. For make these
     * command-line variables override the Makefile's own assignments, which
     * the environment does not; other build tools only get the environment. */
    int make_vars;
    double timeout_s;          /* 0: no limit */
};

struct variant_build {
    char *dir;      /* absolute path of the copy, where the build ran */
    char *log;      /* the build's stdout then stderr */
    char *failure;  /* NULL when the build succeeded, else e.g. "exit status 2" */
};

/* Copies the tree at src to dst (created; must not exist yet), keeping modes,
 * times and symbolic links. Returns 0, or -1 after printing one error line. */
int measure_copy_tree(const char *src, const char *dst);

/* When COPY_ROOT/SUB (SUB "" for the copy itself, or e.g. "build") holds a
 * CMakeCache.txt written for another directory - it is a copy of a CMake
 * build directory -, rewrites the cache's paths under the old project root
 * (the old build directory less SUB) to COPY_ROOT and regenerates the build
 * system there (`cmake .`), so that building the copy compiles the copy's
 * sources into the copy, never the original's. Nothing happens for other
 * directories. *log (may be NULL) gets cmake's output appended. Returns 0,
 * or -1 after one error line. */
int measure_relocate_cmake(const char *copy_root, const char *sub, char **log);

/* The same, and when append_flags is not NULL it is appended to the cache's
 * CMAKE_C_FLAGS and CMAKE_CXX_FLAGS: the environment's CFLAGS reach CMake
 * only when a cache is first made, so this is how a moved build directory
 * gets extra flags (select's -march=x86-64-v3 reference). */
int measure_relocate_cmake_with_flags(const char *copy_root, const char *sub, const char *append_flags, char **log);
/* The same, and when launcher is not NULL it goes first in the cache's
 * CMAKE_C_COMPILER_LAUNCHER and CMAKE_CXX_COMPILER_LAUNCHER (added when
 * absent; a launcher already there runs after it): a configured cache runs
 * its compiler by absolute path, so this is how a moved build directory
 * compiles through a wrapper (select's reference, capture/wrapper.h). */
int measure_relocate_cmake_ex(const char *copy_root, const char *sub, const char *append_flags, const char *launcher,
                              char **log);

/* Copies spec->source_dir to WORK_DIR/NAME (moving copied CMake build
 * directories there with measure_relocate_cmake) and runs the build there with CC
 * and CFLAGS set (in the environment, and as make variables when asked).
 * Returns 0 when the build succeeded; -1 when the copy could not be made or
 * the build failed (after printing one error line naming the variant and
 * the build's status; out->log keeps the build's output for the caller to
 * show). out is filled either way; free it with variant_build_free. */
int measure_build_variant(const struct variant_spec *spec, struct variant_build *out);
void variant_build_free(struct variant_build *b);

#endif
