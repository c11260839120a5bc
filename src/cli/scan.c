/* scan.c - `fmvgen scan`: fill the store with the compiles of a build and
 * the compiler's vectorization records, then the candidates.
 *
 *   scan [opts] -- BUILD...   run the build through the compiler wrapper
 *   scan --compdb FILE        re-run a compile_commands.json's compiles for records
 *   scan --log FILE           read an -fopt-info-vec / -Rpass build log
 * then: ingest the records -> probe compiles at the widest target (unless
 * --no-probe; with --o3 also at -O3) -> per-TU notes -> candidates ->
 * summary.
 * The work is in lib/capture (wrapper, compdb, probe, scaninfo),
 * lib/records and lib/candidates; this file parses, sequences and prints.
 *
 * Also the entry point of fmvgen called as a compiler (wrapper_main). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "candidates/analyze.h"
#include "capture/compdb.h"
#include "capture/codeprofile.h"
#include "capture/probe.h"
#include "capture/scaninfo.h"
#include "capture/wrapper.h"
#include "cli/cli.h"
#include "records/ingest.h"
#include "run/spawn.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/cmake_cache.h"
#include "util/util.h"

static const char USAGE[] =
    "usage: fmvgen scan [OPTIONS] -- BUILD-COMMAND...\n"
    "       fmvgen scan [OPTIONS] --compdb compile_commands.json\n"
    "       fmvgen scan [OPTIONS] --log BUILD-LOG\n"
    "\n"
    "Runs the build with the compilers wrapped (each compile also writes the\n"
    "compiler's optimization records, out of the source tree and without\n"
    "changing the objects), or re-runs the compiles of a compilation database,\n"
    "or reads a build log with -fopt-info-vec / -Rpass remarks. Then compiles\n"
    "each TU once more for the widest target (once for compiles that differ only\n"
    "in libtool's -fPIC -DPIC and their outputs), and finds the functions worth\n"
    "cloning. The store goes to .fmvgen/ in the current directory (or -C DIR);\n"
    "with --compdb, in the database's directory.\n"
    "\n"
    "Options:\n"
    "  --no-probe        no extra compiles for the target ISA (nor -O3)\n"
    "  --o3              also compile each TU built at -O2 at -O3, to count the loops\n"
    "                    only -O3 vectorizes ('fmvgen list'; one more compile per TU)\n"
    "  --targets LIST    target_clones targets, comma-separated (default: " TARGETS_DEFAULT ")\n"
    "  -j, --jobs N      parallel probe/compdb compiles (default: one per CPU)\n"
    "  --root DIR        project root for patch paths (default: git toplevel, else here)\n"
    "  --compdb FILE     take the compiles from a compile_commands.json\n"
    "  --log FILE        read a build log instead (no probes: a log has no commands)\n"
    "  --json            print the summary as JSON\n"
    "  --help            this text\n"
    "\n"
    "Exit status: the build's status when it failed (what compiled is still\n"
    "scanned); 1 when a record file was corrupt, a compiler is neither GCC\n"
    "nor Clang, or the build succeeded without one compile through the wrapper\n"
    "(e.g. a CMake tree configured before the scan); 0 otherwise, also when\n"
    "there is nothing to do.\n";

int wrapper_main_if_wrapped(int argc, char **argv)
{
    return wrapper_main(argc, argv);
}

struct scan_opts {
    int no_probe, o3, json, jobs;
    const char *targets, *root, *compdb, *log;
    char **build;
};

/* The git toplevel of the current directory, else the directory itself. */
static char *default_root(void)
{
    char *argv[] = {"git", "rev-parse", "--show-toplevel", NULL};
    struct run_opts o = {.capture_stdout = 1, .null_stderr = 1};
    struct run_result r;
    char *root = NULL;
    if (run_argv(argv, &o, &r) == 0 && r.out && r.out[0] == '/') root = xstrndup(r.out, strcspn(r.out, "\n"));
    run_result_free(&r);
    return root ? root : get_cwd();
}

static int parse_options(int argc, char **argv, struct scan_opts *o)
{
    static const struct option longopts[] = {
        {"no-probe", no_argument, NULL, 'P'}, {"o3", no_argument, NULL, '3'},
        {"targets", required_argument, NULL, 't'},
        {"jobs", required_argument, NULL, 'j'}, {"root", required_argument, NULL, 'r'},
        {"compdb", required_argument, NULL, 'c'}, {"log", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'J'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    /* '+': stop at the first non-option, the build command's own name. */
    while ((c = getopt_long(argc, argv, "+j:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'P': o->no_probe = 1; break;
        case '3': o->o3 = 1; break;
        case 't': o->targets = optarg; break;
        case 'j': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 1 || n > 1024) {
                fmv_error("-j %s: expected a number of parallel jobs", optarg);
                return 2;
            }
            o->jobs = (int)n;
            break;
        }
        case 'r': o->root = optarg; break;
        case 'c': o->compdb = optarg; break;
        case 'l': o->log = optarg; break;
        case 'J': o->json = 1; break;
        case 'h': return cli_usage(USAGE, 0) - 1;   /* -1: done, exit 0 */
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) o->build = argv + optind;
    int sources = (o->build != NULL) + (o->compdb != NULL) + (o->log != NULL);
    if (sources != 1) {
        fmv_error(sources ? "scan: give one of a build command, --compdb or --log"
                          : "scan: no build command; use 'fmvgen scan -- make', --compdb FILE or --log FILE");
        return cli_usage(USAGE, 1);
    }
    return 0;
}

/* With FMVGEN_SCAN_PHASES set in the environment (bench/scan_overhead.sh),
 * one stderr line per phase end: the CPU seconds (user+sys) used so far by
 * fmvgen itself and by its waited-for children (the build, the probes), so
 * that the scan's cost can be told apart by phase. */
static void phase_end(const char *phase)
{
    if (!getenv("FMVGEN_SCAN_PHASES")) return;
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
#define CPU_S(ru) ((double)(ru).ru_utime.tv_sec + (double)(ru).ru_stime.tv_sec + \
                   ((double)(ru).ru_utime.tv_usec + (double)(ru).ru_stime.tv_usec) / 1e6)
    fprintf(stderr, "fmvgen: scan phase %s: cpu self %.3f children %.3f\n", phase, CPU_S(self), CPU_S(children));
#undef CPU_S
}

/* The records-only compiles at the widest target and (o3) at -O3. Twin
 * compiles (libtool's PIC and non-PIC copy of a source) are probed once. */
static void run_probes(struct store *st, const struct strvec *targets, int jobs, int o3)
{
    /* Sources a build deleted again are skipped (probe.h). */
    int skip_vanished = 2;   /* the first probe says so, the next is silent */
    scaninfo_clear_tu_notes(st, "probe-failed");
    const char *widest = targets_widest(targets);
    if (widest) {
        struct strvec flags = STRVEC_INIT;
        target_compile_flags(widest, &flags);
        char *variant = xasprintf("probe:%s", widest);
        /* Its code too: candidates/isa.h compares it with the build's. */
        struct probe_request req = {.variant = variant, .extra_flags = sv_argv(&flags), .skip_vanished = skip_vanished,
                                    .on_object = codeprofile_store, .share_twins = 1};
        skip_vanished = 1;
        probe_run(st, &req, jobs);
        free(variant);
        sv_free(&flags);
    }
    /* Not by default: it costs as much as the target probe, for a note on
     * what -O3 would vectorize that no clone can use (they keep -O2). */
    if (!o3) return;
    char *o3_flags[] = {"-O3", NULL};
    struct probe_request req = {.variant = "probe:O3", .extra_flags = o3_flags, .only_O2 = 1,
                                .skip_vanished = skip_vanished, .share_twins = 1};
    probe_run(st, &req, jobs);
}

/* The CMake build tree the build command works in: `cmake --build DIR`'s
 * or `make|ninja -C DIR`'s DIR, else the scan's directory, when it holds a
 * CMakeCache.txt. */
static char *cmake_cache_of(const char *builddir, char **build)
{
    const char *dir = builddir;
    for (size_t i = 0; build[i]; i++) {
        const char *tool = path_basename(build[i]);
        if (!strcmp(tool, "cmake") && build[i + 1] && !strcmp(build[i + 1], "--build") && build[i + 2])
            dir = build[i + 2];
        if ((!strcmp(tool, "make") || !strcmp(tool, "gmake") || !strcmp(tool, "ninja")) && build[i + 1] &&
            !strcmp(build[i + 1], "-C") && build[i + 2])
            dir = build[i + 2];
    }
    char *abs = path_absolute(dir, NULL);   /* the build runs in the current directory */
    char *cache = path_join(abs, "CMakeCache.txt");
    free(abs);
    if (file_exists(cache)) return cache;
    free(cache);
    return NULL;
}

/* Why a successful build may have run no compile through the wrapper, and
 * what to do: CMake (and configure) cache the compiler's absolute path when
 * the tree is configured, and an absolute path bypasses PATH and the
 * CC/CXX the scan sets. */
static void explain_no_compiles(const char *builddir, char **build)
{
    char *cache = cmake_cache_of(builddir, build);
    char *text = cache ? read_file(cache, NULL) : NULL;
    char *cc = text ? cmake_cache_value(text, "CMAKE_C_COMPILER") : NULL;
    char *cxx = text && !(cc && *cc) ? cmake_cache_value(text, "CMAKE_CXX_COMPILER") : NULL;
    free(text);
    const char *compiler = cc && *cc ? cc : cxx && *cxx ? cxx : "its compiler";
    /* A tree configured under an earlier scan caches the wrapper itself:
     * then nothing needed compiling, which the generic line says. */
    int bypassed = cache && !strstr(compiler, "/" STORE_DIRNAME "/wrap/");
    if (bypassed)
        fmv_error("%s: the build succeeded, but no compile went through fmvgen's wrapper: this CMake tree was "
                  "configured before the scan and runs %s directly; run 'cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON . "
                  "&& fmvgen scan --compdb compile_commands.json' here, or configure a fresh build dir under the "
                  "scan: 'fmvgen scan -- sh -c \"cmake -S SRCDIR -B . && cmake --build .\"'",
                  cache, compiler);
    free(cc);
    free(cxx);
    free(cache);
    if (bypassed) return;
    fmv_error("%s: the build succeeded, but no C/C++ compile went through fmvgen's wrapper, so nothing was scanned: "
              "either nothing needed compiling ('make -B' rebuilds everything), or the build runs its compiler by "
              "an absolute path (a configured CMake or autotools tree, CC=/usr/bin/cc in a Makefile), which "
              "bypasses the wrapper; reconfigure under the scan ('fmvgen scan -- sh -c \"./configure && make\"'), "
              "pass 'CC=cc' on the make command line, or scan a compile_commands.json with --compdb",
              build[0]);
}

/* A tree configured during the scan caches fmvgen's wrapper as its
 * compiler: every later build of it goes through the wrapper (and fails once
 * .fmvgen/ is gone). The user's build directory must not change behind
 * their back unsaid. */
static void warn_cached_wrapper(const char *builddir, char **build)
{
    char *cache = cmake_cache_of(builddir, build);
    char *text = cache ? read_file(cache, NULL) : NULL;
    const char *vars[] = {"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER"};
    for (size_t i = 0; text && i < sizeof vars / sizeof *vars; i++) {
        char *value = cmake_cache_value(text, vars[i]);
        int wrapped = value && strstr(value, "/" STORE_DIRNAME "/wrap/");
        if (wrapped)
            fmv_warn("%s: CMake cached fmvgen's wrapper %s as %s, because the tree was configured during the scan: "
                     "later builds of this tree go through the wrapper, and fail once %s/ is removed; for builds "
                     "without fmvgen configure a fresh directory, or scan a compile_commands.json with --compdb",
                     cache, value, vars[i], STORE_DIRNAME);
        free(value);
        if (wrapped) break;
    }
    free(text);
    free(cache);
}

static void print_summary(const struct scan_summary *s, const struct scan_opts *o, const char *store_dir,
                          const char *widest, int build_status)
{
    if (o->json) {
        json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "store", store_dir,
                              "compiles", s->compiles, "failed_compiles", s->failed_compiles, "record_files",
                              s->record_files, "corrupt_record_files", s->corrupt_files, "loops", s->build_loops,
                              "probe_only_loops", s->probe_only_loops, "candidates", s->candidates, "exclusions",
                              s->exclusions, "tu_notes", s->tu_notes, "nothing_to_do", s->candidates == 0);
        json_t *corrupt = json_array();
        for (size_t i = 0; s->corrupt && i < s->corrupt->n; i++) json_array_append_new(corrupt, json_string(s->corrupt->v[i]));
        json_object_set_new(j, "corrupt_files", corrupt);
        json_object_set_new(j, "build_status", json_integer(build_status));
        json_object_set_new(j, "no_record_compiles", json_integer(s->no_records));
        json_object_set_new(j, "probe_target", widest && !o->no_probe && !o->log ? json_string(widest) : json_null());
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(text);
        free(text);
        json_decref(j);
        return;
    }
    printf("store:        %s\n", store_dir);
    printf("compiles:     %d", s->compiles);
    if (s->failed_compiles) printf(" (%d failed)", s->failed_compiles);
    printf("\nrecord files: %d read", s->record_files);
    if (s->corrupt_files) printf(", %d corrupt", s->corrupt_files);
    printf("\nloops:        %d vectorized in the build", s->build_loops);
    if (s->probe_only_loops && widest) printf(", %d more only at %s", s->probe_only_loops, widest);
    printf("\ncandidates:   %d\nexclusions:   %d\n", s->candidates, s->exclusions);
    if (s->tu_notes) printf("notes:        %d on what defeats vectorization (see 'fmvgen list')\n", s->tu_notes);
    if (s->candidates == 0)
        printf("nothing to do: no function to clone was found%s\n",
               s->exclusions ? " ('fmvgen list' says why each vectorized function is excluded)" : "");
    else
        printf("next: 'fmvgen list' to review, 'fmvgen patch -o fmv.patch' to write the patch\n");
}

int cmd_scan(int argc, char **argv)
{
    struct scan_opts o = {0};
    int prc = parse_options(argc, argv, &o);
    if (prc != 0) return prc < 0 ? 0 : prc;

    struct strvec targets = STRVEC_INIT;
    if (targets_parse(o.targets ? o.targets : TARGETS_DEFAULT, &targets) != 0) return 2;
    if (o.compdb && !file_exists(o.compdb)) {
        sv_free(&targets);
        return fmv_error("%s: no such file", o.compdb), 1;
    }
    if (o.log && !file_exists(o.log)) {
        sv_free(&targets);
        return fmv_error("%s: no such file", o.log), 1;
    }

    char *builddir;
    if (o.compdb) {
        char *abs = path_absolute(o.compdb, NULL);
        builddir = path_dirname(abs);
        free(abs);
    } else {
        builddir = cli_globals.builddir ? path_absolute(cli_globals.builddir, NULL) : get_cwd();
    }
    struct store *st = NULL;
    if (store_open(builddir, 1, &st) != 0) {
        free(builddir);
        sv_free(&targets);
        return 1;
    }
    if (o.compdb && !o.json) fprintf(stderr, "fmvgen: the store of this compile database goes to %s\n", store_path(st));

    char *root = o.root ? path_absolute(o.root, NULL) : default_root();
    struct strbuf tlist = STRBUF_INIT;
    for (size_t i = 0; i < targets.n; i++) sb_addf(&tlist, "%s%s", i ? "," : "", targets.v[i]);
    int rc = 0, build_status = 0;
    if (store_meta_set(st, "root", root) != 0 || store_meta_set(st, "targets", sb_str(&tlist)) != 0 ||
        store_meta_set(st, "tool_version", FMVGEN_VERSION) != 0) {
        rc = 1;
        goto out;
    }

    struct ingest_stats istats = {0};
    size_t n_unsupported = 0;
    /* Written again by this scan's probes and analysis (candidates/isa.h). */
    if (scaninfo_clear_tu_notes(st, "isa-unmatched") != 0) {
        rc = 1;
        goto out;
    }
    if (o.build) {
        build_status = wrapper_run_build(builddir, o.build);
        struct strvec unsupported = STRVEC_INIT;
        wrapper_unsupported_compilers(st, &unsupported);
        for (size_t i = 0; i < unsupported.n; i++) {
            fmv_error("%s: not GCC or Clang; its compiles ran but were not scanned", unsupported.v[i]);
            rc = 1;
        }
        n_unsupported = unsupported.n;
        sv_free(&unsupported);
    } else if (o.compdb) {
        if (compdb_import(st, o.compdb) < 0) {
            rc = 1;
            goto out;
        }
        /* Its object, as a wrapped build's: the functions it emitted and
         * their ISA profiles (codeprofile.h). */
        struct probe_request req = {.variant = "build", .on_object = codeprofile_store};
        probe_run(st, &req, o.jobs);
    } else {
        if (records_import_log(st, o.log, root, &istats) != 0) {
            rc = 1;
            goto out;
        }
    }

    phase_end("build");
    int ing = records_ingest_pending(st, &istats);
    phase_end("ingest");
    if (ing < 0) {
        rc = 1;
        goto out;
    }
    if (ing > 0) rc = 1;
    /* A log holds no commands to re-run. */
    if (!o.no_probe && !o.log) {
        run_probes(st, &targets, o.jobs, o.o3);
        phase_end("probes");
        ing = records_ingest_pending(st, &istats);
        phase_end("probe-ingest");
        if (ing < 0) {
            rc = 1;
            goto out;
        }
        if (ing > 0) rc = 1;
    }
    if (scaninfo_write_tu_notes(st) != 0) {
        rc = 1;
        goto out;
    }
    struct analyze_stats astats = {0};
    if (candidates_analyze(st, &astats) != 0) {
        rc = 1;
        goto out;
    }
    phase_end("analyze");

    struct strvec corrupt = STRVEC_INIT, no_records = STRVEC_INIT;
    struct scan_summary sum = {.corrupt = &corrupt, .no_records_sources = &no_records};
    if (scaninfo_summarize(st, &sum) != 0) {
        sv_free(&corrupt);
        sv_free(&no_records);
        rc = 1;
        goto out;
    }
    /* A build that succeeded without one compile through the wrapper found
     * nothing it could have found: an error, not "nothing to do". */
    int nothing_captured = sum.compiles == 0 && o.build && !n_unsupported && build_status == 0;
    if (nothing_captured) explain_no_compiles(builddir, o.build);
    else if (o.build && sum.compiles > 0) warn_cached_wrapper(builddir, o.build);
    print_summary(&sum, &o, store_path(st), targets_widest(&targets), build_status);
    if (nothing_captured) rc = 1;
    /* Never a silent loss: these compiles' functions are not in the scan. */
    if (no_records.n)
        fmv_warn("%zu compile%s gave no optimization records, so %s functions are not scanned: %s%s", no_records.n,
                 no_records.n == 1 ? "" : "s", no_records.n == 1 ? "its" : "their", no_records.v[0],
                 no_records.n > 1 ? ", ..." : "");
    sv_free(&no_records);
    sv_free(&corrupt);

out:
    if (build_status != 0) rc = build_status;
    sb_free(&tlist);
    free(root);
    store_close(st);
    free(builddir);
    sv_free(&targets);
    return rc;
}
