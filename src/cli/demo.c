/* demo.c - `fmvgen demo`: parse the options, run the demo engine
 * (lib/demo/demo.h: the whole pipeline on the bundled examples, through
 * this very fmvgen binary, its human report on stdout as it goes), print
 * the JSON with --json, keep or remove the work directory, and exit 1 when
 * a step failed. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "demo/demo.h"
#include "util/util.h"
#include "verify/cpus.h"

static const char USAGE[] =
    "usage: fmvgen demo [--runs N] [--quick] [--keep] [--json]\n"
    "\n"
    "Runs the whole pipeline on the bundled examples (the FMV article's\n"
    "array_addition.c, and a small multi-file project of kernels) in a temp\n"
    "directory: scan their build, list the candidates, apply the patch, build\n"
    "them at -O3, -O3 -mavx2 and -O3 with the FMV patch, time each build, check\n"
    "that all builds print the same checksums, and show which clone of each\n"
    "multiversioned function runs on this machine (measured with perf).\n"
    "For array_addition it reproduces the article's table: also built with no\n"
    "flags (-O0) and -O3 -mavx, each build timed natively and run on emulated\n"
    "CPUs (qemu-x86_64 -cpu " VERIFY_DEFAULT_CPUS ", from the Debian\n"
    "package " VERIFY_QEMU_PACKAGE "), where it is OK or dies (SIGILL).\n"
    "\n"
    "  --runs N   time each build N times and report the median (default 5)\n"
    "  --quick    shrink the examples' work (for tests; times become noise)\n"
    "  --keep     keep the temp directory and say where it is\n"
    "  --json     machine-readable results\n";

int cmd_demo(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"runs", required_argument, NULL, 'r'},
        {"quick", no_argument, NULL, 'q'},
        {"keep", no_argument, NULL, 'k'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct demo_options o = {.runs = DEMO_DEFAULT_RUNS};
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > 1000) {
                fmv_error("demo: --runs wants a number from 1 to 1000, not '%s'", optarg);
                return 2;
            }
            o.runs = (int)n;
            break;
        }
        case 'q': o.quick = 1; break;
        case 'k': o.keep = 1; break;
        case 'j': o.json = 1; break;
        case 'h': return cli_usage(USAGE, 0);
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("demo: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    char *self = self_exe_path();
    if (!self) return fmv_error("demo: cannot find the fmvgen binary itself (/proc/self/exe)"), 1;
    o.self = self;
    const char *cc_env = getenv("CC");
    o.cc = cc_env && *cc_env ? cc_env : "cc";

    struct demo d;
    if (demo_run(&o, &d) != 0) {
        demo_free(&d);
        free(self);
        return 1;
    }
    if (o.json) {
        json_t *j = demo_to_json(&d, &o);
        json_dumpf(j, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(j);
    }
    if (o.keep) {
        if (!o.json) printf("\nkept the work directory: %s\n", d.workdir);
    } else if (remove_tree(d.workdir) != 0) {
        fmv_warn("%s: could not remove the work directory", d.workdir);
    } else if (!o.json) {
        printf("\nremoved the work directory %s (--keep keeps it)\n", d.workdir);
    }
    int failed = d.failed;
    if (failed && !o.json) printf("demo: some steps failed (see above)\n");
    demo_free(&d);
    free(self);
    return failed ? 1 : 0;
}
