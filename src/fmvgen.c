/* fmvgen.c - the command table and global options, in the manner of git.c:
 * `fmvgen [-C DIR] COMMAND [ARGS]`. Everything else is in cli/ (one file per
 * subcommand) and in the library under lib/.
 *
 * The compiler wrapper of `fmvgen scan` and select's references is the
 * separate fmvgen-cc (fmvgen-cc.c); fmvgen itself is never a compiler. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/compiler.h"
#include "capture/wrapper.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/util.h"

struct cli_globals cli_globals;

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
};

/* In pipeline order: records -> candidates -> patch -> measure -> verify. */
static const struct command commands[] = {
    {"scan", cmd_scan, "run the build (or read a compile database) and collect the compiler's vectorization records"},
    {"list", cmd_list, "show candidate functions, exclusions with their reasons, and what defeats vectorization"},
    {"patch", cmd_patch, "write (or apply) a patch adding target_clones to the candidates"},
    {"select", cmd_select, "measure the candidates on your workloads and keep only the clones that pay"},
    {"inspect", cmd_inspect, "show the clones of a binary: ISA each needs, sizes, useless clones"},
    {"verify", cmd_verify, "run a program on emulated CPU levels: SIGILL, output, which clone runs"},
    {"demo", cmd_demo, "run the whole pipeline on the bundled examples and time the builds"},
};

static const char USAGE[] =
    "usage: fmvgen [-C DIR] COMMAND [ARGS...]\n"
    "       fmvgen --help | --version\n"
    "\n"
    "Finds the functions a C/C++ build vectorizes, and patches them with\n"
    "target_clones so one binary runs everywhere and is fast where the CPU allows.\n"
    "\n"
    "Options:\n"
    "  -C DIR      the build directory holding .fmvgen/ (default: found upwards from here)\n"
    "  --help      this text; 'fmvgen COMMAND --help' for a command\n"
    "  --version   print the version\n"
    "\n"
    "Commands:\n";

static void print_usage(FILE *f)
{
    fputs(USAGE, f);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
}

int cli_usage(const char *text, int is_error)
{
    fputs(text, is_error ? stderr : stdout);
    return is_error ? 2 : 0;
}

struct store *cli_open_store(void)
{
    char *dir = cli_globals.builddir ? xstrdup(cli_globals.builddir) : store_find_builddir(".");
    if (!dir) {
        fmv_error("no .fmvgen store in this directory or above; run 'fmvgen scan' first or pass -C BUILDDIR");
        return NULL;
    }
    struct store *st = NULL;
    store_open(dir, 0, &st);
    free(dir);
    return st;
}

int main(int argc, char **argv)
{
    /* A link named like a compiler reaches fmvgen-cc, never fmvgen: a stale
     * or hand-made one must not read "unknown option '-O2'". */
    if (argc > 0 && compiler_name_is_driver(path_basename(argv[0]))) {
        fmv_error("%s: this link runs fmvgen, which is not a compiler; the compiler wrapper is %s (rerun "
                  "'fmvgen scan' to remake its links)",
                  argv[0], WRAPPER_EXE_NAME);
        return 2;
    }

    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version")) {
            printf("fmvgen %s\n", FMVGEN_VERSION);
            return 0;
        } else if (!strcmp(argv[i], "-C") && i + 1 < argc) {
            cli_globals.builddir = argv[++i];
        } else {
            fmv_error("unknown option '%s'; see 'fmvgen --help'", argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        print_usage(stderr);
        return 2;
    }
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        if (!strcmp(argv[i], commands[c].name)) {
            optind = 1;  /* each command parses its own argv from scratch */
            return commands[c].fn(argc - i, argv + i);
        }
    }
    fmv_error("'%s' is not a command; see 'fmvgen --help'", argv[i]);
    return 2;
}
