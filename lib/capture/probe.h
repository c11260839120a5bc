/* probe.h - extra records-only compiles of the stored compiles, run in
 * parallel (-j): the user's own argv with the output (assembly, or an
 * object with on_object) sent to a temp file,
 * dependency-file flags removed (the user's build tree is never touched),
 * the compiler's record flags added, and optionally extra flags. Used for:
 *   - re-running a compile database's compiles  (variant "build")
 *   - the target-ISA probe, e.g. -march=x86-64-v4 (variant "probe:<target>")
 *   - the -O3 comparison of TUs built at -O2      (variant "probe:O3")
 * Each compile's record file is registered in record_files (format
 * "gcc-json" or "clang-yaml") for records_ingest_pending(); record files
 * live under store_records_dir()/<variant, made file-name safe>/<compile id>/
 * (a run first removes the dirs of compiles no longer in the store).
 * One request costs exactly one compile per selected TU. */
#ifndef FMVGEN_PROBE_H
#define FMVGEN_PROBE_H

struct store;
struct strvec;
struct compile_row;

struct probe_request {
    const char *variant;          /* "build", "probe:arch=x86-64-v4", "probe:O3" */
    char *const *extra_flags;     /* appended after the user's flags; may be NULL */
    int only_O2;                  /* 1: only TUs whose last -O level is -O2 */
    int skip_vanished;            /* compiles whose source no longer exists (a build may
                                   * delete a source it generated): 0 run (and fail, noted
                                   * as below), 1 skipped silently, 2 skipped with one
                                   * "fmvgen: note:" line counting them */
    /* Optional: the compile writes an object (-c) instead of assembly, and
     * on_object reads it, inside the store transaction, before the temp
     * dir goes (capture/codeprofile.h keeps the ISA profiles of its
     * functions). Returns 0, or -1 for a store error. For variant "build"
     * it then also stores what object_functions holds. */
    int (*on_object)(struct store *st, const struct compile_row *row, const char *variant, const char *object,
                     void *ctx);
    void *on_object_ctx;
    int skip_codeless;            /* 1: compiles whose code cannot differ with extra_flags
                                   * (capture/probeskip.h: no function in the build's
                                   * object as the wrapper kept it - none kept, no skip -
                                   * and no differing macro in the TU's files) do not
                                   * run: each gets tu_notes 'probe-skipped' instead of a
                                   * record file (twins only when all of them qualify) */
    int share_twins;              /* 1: compiles that differ only in PIC flags, outputs,
                                   * -c and the command's other sources
                                   * (probe_dedupe_key) run once, and the record file (or
                                   * the failure) counts for each of them */
};

/* Runs the request for every stored successful compile, at most jobs at a
 * time (<= 0: one per CPU). Failures are stored as tu_notes 'probe-failed'
 * ("<variant>: <first error line>") and warned about, not fatal. Returns the
 * number of compiles that failed, or -1 on a store error.
 * With share_twins, the compiles with one probe_dedupe_key are twins: the
 * first in store order runs, and each twin gets a record_files row of its
 * own (same variant, format and path; the records dir is the first one's)
 * or the same 'probe-failed' note - so every reader of record_files, loops
 * and tu_notes sees each compile as probed. One warning per failed group. */
int probe_run(struct store *st, const struct probe_request *req, int jobs);

/* 1 when the compile asks for debug information (its last -g option is
 * not -g0): its target probe then keeps line tables (-g1) for the code
 * profiles' inline frames (codeprofile.h). */
int probe_compile_has_debug(const struct compile_row *c);

/* The records-only argv of one stored compile, appended to out: the real
 * compiler, the build's arguments minus its output, dependency-file and
 * other side-file flags (-o, -MD, -MMD, -MF, -MT, -MQ, -MP, -MJ, -Wp,-MD,..,
 * -save-temps, -dumpdir, record-file options) and minus the other sources of
 * a multi-source command, and -c; then -S (same records, no assembler), -Wno-error (a wider -march can raise ABI
 * warnings), -g0 -fno-lto (cheaper, same vectorization records; an -flto
 * compile would not vectorize at all), extra_flags, record_flags, and
 * -o output. Also used by the wrapper for its records-only compiles. */
void probe_build_argv(const struct compile_row *c, char *const *extra_flags, char *const *record_flags,
                      const char *output, struct strvec *out);
/* Turns such an argv (probe_build_argv's) into one that writes an object
 * instead of assembly: -c for -S, -g1 for -g0 when line_tables (the code
 * profile's inline frames, codeprofile.h; the target probe always asks,
 * the wrapper's copy of a build's object when the build has -g), and
 * *output (its -o value, a ".s" name becoming ".o"). The code is the
 * compile's own: -g1 and -c change no instruction. */
void probe_object_argv(int line_tables, struct strvec *argv, char **output);

/* The key under which two compiles probe alike: the same source (path
 * and hash), working directory, compiler and arguments, once the options
 * that only say where outputs go (-o, --output, dependency files: -MD,
 * -MMD, -MP, -MF, -MT, -MQ, -MJ, -Wp,-MD,...), the PIC options libtool
 * adds for the shared library's copy (-fPIC, -fpic, -DPIC, -D PIC), and
 * what probe_build_argv drops anyway (-c, -S, the other sources of a
 * multi-source command: `cc -o p a.c b.c` and `cc -o q a.c c.c` probe a.c
 * alike) are left out. Any other difference (-O, -D, -I, -march, -std, order) keeps
 * them apart. -fPIC changes the code a little (GOT/PLT access, global
 * functions it may no longer inline as interposable) but not which loops
 * vectorize, or at what width; -DPIC could select other source under
 * #ifdef PIC (in practice assembly, not loops). Caller frees. */
char *probe_dedupe_key(const struct compile_row *c);

/* "probe:arch=x86-64-v4" -> "probe_arch=x86-64-v4": the variant as one file
 * name component. Caller frees. */
char *probe_variant_dirname(const char *variant);

#endif
