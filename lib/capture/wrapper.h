/* wrapper.h - fmvgen as the compiler of `fmvgen scan -- BUILD...`, in the
 * manner of ccache and bear: the build runs with a private directory of
 * links named like compilers (cc, gcc, clang++-19, ...) first in PATH and
 * CC/CXX pointing into it. Each link runs the wrapper, which finds the real
 * compiler further down PATH, adds the compiler's record flags to compiles
 * of C/C++ sources (records go to <builddir>/.fmvgen/records/wrap/, never
 * into the source tree or the build's own directories), runs it with the
 * build's stdio, and records the compile in the store. Everything else
 * (links, -E, -M, --version, assembler files) passes through untouched:
 * the wrapper execs the real compiler (no second process), as it does for
 * every call without a store.
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
 *     one command compiles several sources or compiles and links, the
 *     user's compile runs unchanged and a second, records-only compile
 *     (output to a temp dir) runs next to it - for a compile-and-link
 *     command (no -flto) it writes an object, kept as below, since the
 *     build leaves none;
 *   - a compile is never lost under make -j (each is one store
 *     transaction; the store waits for its writers);
 *   - configure-style probes (conftest.c, CMake's try_compile dirs, meson's
 *     sanity checks) run but are not recorded;
 *   - without FMVGEN_STORE in the environment (a later plain `make` in a
 *     build dir that cached the wrapper's path) the real compiler runs
 *     exactly as called.
 *
 * The links point at `fmvgen-cc`, installed next to fmvgen: the same wrapper
 * code without libclang, whose loading every compile of the build would
 * otherwise pay (docs/DESIGN.md, `src/fmvgen-cc.c`); it links its other
 * libraries SQLite, jansson and yaml statically when their archives are
 * installed, for the same reason (src/CMakeLists.txt). */
#ifndef FMVGEN_WRAPPER_H
#define FMVGEN_WRAPPER_H

/* The wrapper keeps each compiled object it recorded: a hard link (a copy
 * across file systems) at WRAPPER_KEPT_OBJECT under the compile's records
 * directory, so that the ISA comparison (candidates/isa.h) still reads the
 * build's code when the build deletes its objects (make's intermediate
 * files, `make clean` before the scan ends); for a compile-and-link
 * command, the records-only compile's object. A rebuild of the same (source,
 * output) replaces it. wrapper_kept_object returns the kept copy's path for
 * a compile of the store at store_dir (<builddir>/.fmvgen), or NULL when
 * none exists. */
#define WRAPPER_KEPT_OBJECT "object.o"
char *wrapper_kept_object(const char *store_dir, const char *source, const char *output);
/* Where that copy goes, whether or not it exists (caller frees). */
char *wrapper_kept_object_path(const char *store_dir, const char *source, const char *output);

/* Environment variable naming the build directory whose store the wrapper
 * records into. */
#define WRAPPER_STORE_ENV "FMVGEN_STORE"
/* Name of the small wrapper executable, next to fmvgen. */
#define WRAPPER_EXE_NAME "fmvgen-cc"
/* Append mode, for whole-program comparison builds (select's
 * -march=x86-64-v3 reference): with WRAPPER_APPEND_ENV set to flags
 * ("-march=x86-64-v3 -mno-fma"), the wrapper appends them, as separate
 * words, to every command that compiles C/C++ sources (compile_args:
 * -c, or compile-and-link; not -E/-S/-M or a link alone) - after the
 * build's own flags, so they win over its -march, whatever the build does
 * with CFLAGS. With WRAPPER_APPEND_LOG_ENV naming a file, it appends one
 * line per source compiled so (its absolute path), so the caller can tell
 * which compiles the flags reached. The compiler a wrapper in append mode
 * runs sees FMVGEN_CC_APPENDED: a wrapper link reached again (a compiler
 * script, a launcher calling a link) adds nothing twice. Works with or
 * without a store. */
#define WRAPPER_APPEND_ENV "FMVGEN_CC_APPEND"
#define WRAPPER_APPEND_LOG_ENV "FMVGEN_CC_APPEND_LOG"

/* Entry point of fmvgen-cc called through a compiler-named link (argv[0]'s
 * basename is a compiler driver name): returns the exit code to exit with.
 * Returns -1 when argv[0] does not name a compiler. */
int wrapper_main(int argc, char **argv);

/* Launcher mode (CMake's CMAKE_<LANG>_COMPILER_LAUNCHER, where a configured
 * tree runs its compiler by absolute path and PATH cannot reach the
 * wrapper): `fmvgen-cc COMPILER ARGS...` runs argv[0..argc-1] with the
 * append mode's flags added to a compile, its stdio inherited. Returns its
 * exit code, -1 when argc < 1. */
int wrapper_launch(int argc, char **argv);

/* fmvgen-cc next to the running fmvgen (absolute; caller frees), or NULL
 * when it is not there. */
char *wrapper_executable(void);
/* 0 when fmvgen-cc is there (wrapper_executable), else -1 after the one
 * line "fmvgen: DIR/fmvgen-cc: the compiler wrapper is missing (build or
 * install it with fmvgen)", followed by "; " and why when why is given
 * (what needed it). */
int wrapper_require(const char *why);

/* The environment of a wrapped build, set in this process (children
 * inherit it) until wrapper_env_restore: links named like compilers (every
 * driver name in PATH) made afresh in wrapdir and put first in PATH, CC and
 * CXX pointed there (unset: wrapdir/cc and wrapdir/c++; set: the link of
 * the same basename, a launcher word kept; an absolute one gets a link dir
 * of its own remembering the real path), CCACHE_DISABLE=1; FMVGEN_STORE =
 * store_builddir (NULL: unset: nothing is recorded), WRAPPER_APPEND_ENV =
 * append and WRAPPER_APPEND_LOG_ENV = append_log (NULL: unset). The links
 * point at fmvgen-cc next to the running fmvgen (wrapper_executable); it
 * missing is an error. 0, or -1 after an error line (saved then needs no
 * restore). */
#define WRAPPER_ENV_VARS 9
struct wrapper_saved_var {
    const char *name;
    char *value;   /* NULL: was unset */
};
struct wrapper_env {
    struct wrapper_saved_var vars[WRAPPER_ENV_VARS];
};
int wrapper_env_apply(const char *wrapdir, const char *store_builddir, const char *append, const char *append_log,
                      struct wrapper_env *saved);
void wrapper_env_restore(struct wrapper_env *saved);

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
