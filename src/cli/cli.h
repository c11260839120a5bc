/* cli.h - the subcommands of the fmvgen tool. Each lives in cli/<name>.c as
 * cmd_<name>(argc, argv): it parses its options (getopt_long; argv[0] is the
 * subcommand's name), calls the library, prints, and returns the exit code.
 * Options common to all commands are parsed once in fmvgen.c. */
#ifndef FMVGEN_CLI_H
#define FMVGEN_CLI_H

#include <stdio.h>

struct cli_globals {
    const char *builddir;    /* -C DIR: where .fmvgen/ is (default: found upwards from cwd) */
};
extern struct cli_globals cli_globals;

int cmd_scan(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_patch(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_select(int argc, char **argv);

/* Prints a usage text to stdout (for --help) and returns 0, or to stderr
 * (for a usage error) and returns 2. */
int cli_usage(const char *text, int is_error);

/* Opens the store for reading commands: -C DIR, else found upwards from the
 * current directory. Prints the error and returns NULL when there is none. */
struct store;
struct store *cli_open_store(void);

#endif
