/* wrapper.h - fmvgen as the compiler of `fmvgen scan -- BUILD...`, in the
 * manner of ccache and bear: the build runs with a private directory of
 * links named like compilers (cc, gcc, clang++-19, ...) first in PATH and
 * CC/CXX pointing into it. Each link runs the wrapper, which finds the real
 * compiler further down PATH, adds the compiler's record flags to compiles
 * of C/C++ sources (records go to <builddir>/.fmvgen/records/wrap/, never
 * into the source tree or the build's own directories), runs it with the
 * build's stdio, and records the compile in the store. Everything else
 * (links, -E, -M, --version, assembler files) passes through untouched.
 *
 * Build caches: ccache would answer a cached compile without calling the
 * compiler, so the scan's build runs with CCACHE_DISABLE=1 (ccache then
 * calls the compiler every time, without reading or writing its cache),
 * and ccache's masquerade links (/usr/lib/ccache first in PATH, or CC
 * pointing at one) are passed over when the wrapper looks for the real
 * compiler. Other caches (sccache) are not handled: their hits give no
 * records.
 *
 * Promises:
 *   - the build's outputs are byte-identical to a plain build: the record
 *     flags ride along on the build's own compile (GCC 12+ writes its
 *     vectorizer dumps, which no object records, also with -g), and only
 *     when they would show in an output or miss records
 *     (compiler_records_change_outputs: -flto; the build's own GCC dumps;
 *     Clang -grecord-command-line; GCC < 12's JSON flag with -g) or when
 *     one command compiles several sources, the user's compile runs
 *     unchanged and a second, records-only compile (output to a temp dir)
 *     runs next to it;
 *   - a compile is never lost under make -j (each is one store
 *     transaction; the store waits for its writers);
 *   - configure-style probes (conftest.c, CMake's try_compile dirs, meson's
 *     sanity checks) run but are not recorded;
 *   - without FMVGEN_STORE in the environment (a later plain `make` in a
 *     build dir that cached the wrapper's path) the real compiler runs
 *     exactly as called.
 *
 * The links point at `fmvgen-cc`, installed next to fmvgen: the same wrapper
 * code without libclang, whose loading alone costs ~45 ms per process
 * (measured), which would be paid by every compile of the build. */
#ifndef FMVGEN_WRAPPER_H
#define FMVGEN_WRAPPER_H

/* Environment variable naming the build directory whose store the wrapper
 * records into. */
#define WRAPPER_STORE_ENV "FMVGEN_STORE"
/* Name of the small wrapper executable, next to fmvgen. */
#define WRAPPER_EXE_NAME "fmvgen-cc"
/* tu_notes kind of a wrapped compile that succeeded but gave no
 * optimization records (its functions cannot be found): the scan warns. */
#define WRAPPER_NOTE_NO_RECORDS "no-records"

/* Entry point when the running program was called through a compiler-named
 * link (argv[0]'s basename is a compiler driver name): returns the exit code
 * to exit with. Returns -1 when argv[0] does not name a compiler. */
int wrapper_main(int argc, char **argv);

/* Runs build_argv (its stdio inherited) with the wrapper in place for the
 * store of builddir (which must exist): (re)creates the link directory
 * <builddir>/.fmvgen/wrap/, puts it first in PATH, points CC/CXX at it
 * (unset: wrap/cc and wrap/c++; set: the link of the same basename, other
 * words such as a launcher kept) and sets FMVGEN_STORE and CCACHE_DISABLE; the caller's
 * environment is restored afterwards. Returns the build's exit code
 * (127: could not start). */
int wrapper_run_build(const char *builddir, char *const *build_argv);

/* Compilers the wrapper could not identify as GCC or Clang during the last
 * wrapper_run_build of this store (their compiles ran, unrecorded):
 * appended to out, one path each. Cleared by wrapper_run_build. */
struct store;
struct strvec;
void wrapper_unsupported_compilers(struct store *st, struct strvec *out);

/* 1 when a path (a compile's source, output or working directory,
 * absolute) belongs to a build system's configuration probe: autoconf's
 * conftest.*, CMake's CMakeFiles/CMakeTmp, CMakeScratch and compiler
 * identification (CMakeFiles/<version>/CompilerIdC), meson-private/. The
 * wrapper runs such compiles but does not record them. */
int wrapper_is_configure_probe(const char *path_abs);

#endif
