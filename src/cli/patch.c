/* patch.c - `fmvgen patch`: writes the target_clones patch of the stored
 * candidates (stdout or -o FILE), or applies it in place (--apply, all
 * files or none). Options here; the sequence is lib/patch/run.h's
 * patch_run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/isa.h"
#include "cli/cli.h"
#include "patch/run.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

#define MIN_SCORE_TEXT_(n) #n
#define MIN_SCORE_TEXT(n) MIN_SCORE_TEXT_(n)

static const char USAGE[] =
    "usage: fmvgen patch [-o FILE] [--apply] [--targets LIST] [--exact] [--min-score N] [--compiler CC]\n"
    "                    [--dispatch auto|ifunc|pointer|cpuid] [--json]\n"
    "\n"
    "Writes a unified diff (paths relative to the project root; apply with\n"
    "'patch -p1', 'git apply' or quilt) that puts FMVGEN_CLONES, a guarded\n"
    "__attribute__((target_clones(...))), before each candidate function.\n"
    "\n"
    "Options:\n"
    "  -o FILE          write the patch to FILE (default: standard output)\n"
    "  --apply          patch the sources in place: all files or none; refused if a\n"
    "                   source changed since the scan\n"
    "  --targets LIST   comma-separated targets besides default (default: the scan's,\n"
    "                   else " TARGETS_DEFAULT ")\n"
    "  --exact          FMA-free targets (" TARGETS_EXACT "): clones compute bit-identical\n"
    "                   floating-point results (x86-64-v3/v4 may fuse a*b+c into FMA)\n"
    "  --min-score N    leave out candidates of kind isa (no vectorized loop) whose\n"
    "                   score is below N (default " MIN_SCORE_TEXT(ISA_MIN_SCORE_DEFAULT) ": a library call removed, or\n"
    "                   as much in replaced instructions); the header says which;\n"
    "                   0 takes them all, as 'fmvgen select' does\n"
    "  --compiler CC    check the targets with CC instead of the scanned compilers\n"
    "  --dispatch HOW   how calls reach the clones: auto or ifunc (target_clones' IFUNC,\n"
    "                   which glibc resolves; elsewhere the functions stay plain), or\n"
    "                   pointer (a pointer set from the CPU on the first call: the\n"
    "                   clones run with musl and static builds too), or cpuid\n"
    "                   (C functions: own copies per target and own CPUID\n"
    "                   resolver through that pointer, no libgcc CPU detection\n"
    "                   linked; targets arch=x86-64-v2/v3/v4 and avx2)\n"
    "  --json           print a machine-readable summary (with the patch text when\n"
    "                   neither -o nor --apply is given)\n"
    "  --help           this text\n";

int cmd_patch(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"apply", no_argument, NULL, 'a'},
        {"targets", required_argument, NULL, 't'}, {"exact", no_argument, NULL, 'e'},
        {"compiler", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'},
        {"min-score", required_argument, NULL, 'm'}, {"dispatch", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    const char *output = NULL, *spec = NULL, *compiler = NULL;
    int apply = 0, exact = 0, json = 0, c, min_score = ISA_MIN_SCORE_DEFAULT;
    enum patch_dispatch dispatch = PATCH_DISPATCH_IFUNC;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'a': apply = 1; break;
        case 't': spec = optarg; break;
        case 'e': exact = 1; break;
        case 'c': compiler = optarg; break;
        case 'j': json = 1; break;
        case 'm': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 0 || v > 1000000) {
                fmv_error("--min-score %s: expected a score >= 0", optarg);
                return 2;
            }
            min_score = (int)v;
            break;
        }
        case 'd':
            if (patch_dispatch_parse(optarg, &dispatch) != 0) {
                fmv_error("--dispatch %s: expected auto, ifunc, pointer or cpuid", optarg);
                return 2;
            }
            break;
        case 'h': return cli_usage(USAGE, 0);
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("patch: unexpected argument '%s'", argv[optind]);
        return cli_usage(USAGE, 1);
    }
    if (apply && output) {
        fmv_error("patch: --apply and -o exclude each other");
        return 2;
    }

    struct store *st = cli_open_store();
    if (!st) return 1;
    struct patch_request req = {.targets = spec, .exact = exact, .min_score = min_score, .dispatch = dispatch,
                                .compiler = compiler, .output = output, .apply = apply, .json = json};
    int rc = patch_run(st, &req);
    store_close(st);
    return rc;
}
