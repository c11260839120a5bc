/* scan.c - `fmvgen scan`: parse the options, run the scan (lib/scan/scan.h:
 * build, compile database or log -> records -> probes -> notes ->
 * candidates) and print its summary, as text or JSON.
 *
 *   scan [opts] -- BUILD...   run the build through the compiler wrapper
 *   scan --compdb FILE        re-run a compile_commands.json's compiles for records
 *   scan --log FILE           read an -fopt-info-vec / -Rpass build log */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "scan/scan.h"
#include "store/store.h"
#include "targets/targets.h"
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
    "  --root DIR        project root for patch paths (default: the git toplevel; else the\n"
    "                    source top the build dir's CMake, autotools or Meson recorded; else here)\n"
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

struct scan_opts {
    int no_probe, o3, json, jobs;
    const char *targets, *root, *compdb, *log;
    char **build;
};

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

static void print_summary(const struct scan_result *res, int json)
{
    const struct scan_summary *s = &res->sum;
    const char *store_dir = res->store_path, *widest = res->widest;
    if (json) {
        json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "store", store_dir,
                              "compiles", s->compiles, "failed_compiles", s->failed_compiles, "record_files",
                              s->record_files, "corrupt_record_files", s->corrupt_files, "loops", s->build_loops,
                              "probe_only_loops", s->probe_only_loops, "candidates", s->candidates, "exclusions",
                              s->exclusions, "tu_notes", s->tu_notes, "nothing_to_do", s->candidates == 0);
        json_t *corrupt = json_array();
        for (size_t i = 0; s->corrupt && i < s->corrupt->n; i++) json_array_append_new(corrupt, json_string(s->corrupt->v[i]));
        json_object_set_new(j, "corrupt_files", corrupt);
        json_object_set_new(j, "build_status", json_integer(res->build_status));
        json_object_set_new(j, "no_record_compiles", json_integer(s->no_records));
        json_object_set_new(j, "probe_skipped_compiles", json_integer(s->probe_skipped));
        json_object_set_new(j, "probe_target", widest && res->probed ? json_string(widest) : json_null());
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
    if (s->probe_skipped && widest)
        printf("not probed:   %d compile%s at %s: no function in the build's code and no macro that differs there "
               "(tu note 'probe-skipped')\n",
               s->probe_skipped, s->probe_skipped == 1 ? "" : "s", widest);
    if (s->tu_notes) printf("notes:        %d on what defeats vectorization (see 'fmvgen list')\n", s->tu_notes);
    /* The next commands find a store upwards from the current directory:
     * when that is not this one (--compdb puts it beside the database, or
     * an older store is nearer), they need -C. */
    char *cwd = get_cwd(), *found = store_find_builddir(cwd), *mine = path_dirname(store_dir);
    char *c = NULL;
    if (!found || strcmp(found, mine) != 0) {
        char *rel = path_relative_to(mine, cwd);
        c = xasprintf("-C %s ", rel ? rel : mine);
        free(rel);
    }
    if (s->candidates == 0)
        printf("nothing to do: no function to clone was found%s%s%s\n",
               s->exclusions ? " ('fmvgen " : "", s->exclusions ? (c ? c : "") : "",
               s->exclusions ? "list' says why each vectorized function is excluded)" : "");
    else
        printf("next: 'fmvgen %slist' to review, 'fmvgen %spatch -o fmv.patch' to write the patch\n", c ? c : "",
               c ? c : "");
    free(c);
    free(cwd);
    free(found);
    free(mine);
}

int cmd_scan(int argc, char **argv)
{
    struct scan_opts o = {0};
    int prc = parse_options(argc, argv, &o);
    if (prc != 0) return prc < 0 ? 0 : prc;

    struct strvec targets = STRVEC_INIT;
    if (targets_parse(o.targets ? o.targets : TARGETS_DEFAULT, &targets) != 0) return 2;
    struct scan_request req = {.build = o.build, .compdb = o.compdb, .log = o.log, .builddir = cli_globals.builddir,
                               .root = o.root, .targets = &targets, .no_probe = o.no_probe, .o3 = o.o3,
                               .jobs = o.jobs, .quiet = o.json};
    struct scan_result res;
    int rc = scan_run(&req, &res);
    if (rc == 0) {
        print_summary(&res, o.json);
        scan_warn_no_records(&res);
    }
    /* The build's own messages may be none (a script that exits 1): the
     * summary's "nothing to do" would read as a verdict on the code. */
    if (rc == 0 && res.build_status != 0 && o.build) {
        struct strbuf cmd = STRBUF_INIT;
        for (char **a = o.build; *a; a++) sb_addf(&cmd, "%s%s", a == o.build ? "" : " ", *a);
        fmv_error("the build '%s' failed (exit %d): only what compiled before it stopped is scanned; fix the "
                  "build and scan again", sb_str(&cmd), res.build_status);
        sb_free(&cmd);
    }
    int status = scan_exit_status(rc, &res);
    scan_result_free(&res);
    sv_free(&targets);
    return status;
}
