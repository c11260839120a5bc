/* verify.h - `fmvgen verify`: does a program run, pick the right clone and
 * give the same answer on every x86-64 level?
 *
 * The program runs natively (the reference, and the only run whose time
 * means anything) and under qemu-x86_64 for each CPU model (cpus.h). For
 * each CPU the report holds how the run ended (exit status, a named signal -
 * SIGILL is the one FMV mistakes cause -, a timeout), whether stdout and the
 * --compare files match the native run (compare/compare.h), and which clone each
 * resolver picks there (dispatch.h). When outputs differ only in floats and
 * a clone that contains FMA instructions is picked differently, the report
 * says FMA contraction is the likely cause; when a resolver returns the
 * default clone on every CPU, the newest included, it says its other clones
 * never ran. A function of fmvgen's --dispatch cpuid whose resolver returns
 * something other than the copy for the CPU's level fails that CPU's run
 * (copycheck.h).
 *
 * Runs are sequential, in the current directory (the program finds its
 * inputs as usual): before each run the --compare files are removed, after
 * it they are read; the native run goes last so the files left behind are
 * the native ones. Every run reads the same stdin: a copy of ours when it
 * is redirected from a file, else /dev/null. Core dumps are switched off for the runs (qemu would
 * write guest cores into the current directory).
 *
 * With an against program (the unpatched build of the same program), that
 * runs too, with the same arguments, just before the program on each CPU
 * (natively as well). On each CPU the program must then also end as it does
 * (the same exit status, or the same signal) and write the same stdout and
 * --compare files (the same --float-tolerance and --ignore-lines): a patched
 * build that prints nothing and exits 0 where the unpatched one prints is a
 * failure (silent), though it agrees with its own native run.
 *
 * A libtool wrapper script given as the program or the against program
 * (ltwrapper.h) is replaced by the program it runs, and that program runs
 * (natively, under qemu, and for the dispatch map) with the LD_LIBRARY_PATH
 * the script would set, each with its own; a note says so. */
#ifndef FMVGEN_VERIFY_VERIFY_H
#define FMVGEN_VERIFY_VERIFY_H

#include <jansson.h>
#include <stddef.h>

#include "util/util.h"
#include "compare/compare.h"
#include "verify/dispatch.h"

struct verify_options {
    char *const *argv;           /* PROG ARGS..., NULL-terminated */
    const struct strvec *cpus;   /* qemu models (may be empty: native only); NULL: VERIFY_DEFAULT_CPUS */
    double timeout_s;            /* per run; <= 0: none */
    char *const *compare;        /* files the program writes; NULL-terminated, may be NULL */
    double float_tolerance;      /* < 0: outputs must be identical */
    char *const *ignore_lines;   /* --ignore-lines regexes (compare/compare.h); NULL-terminated, may be NULL */
    const char *against;         /* --against: the reference program (path or PATH name); NULL: none */
};

enum verify_outcome {
    VERIFY_EXITED,          /* exit_status holds the code */
    VERIFY_SIGNALED,        /* signal holds the number */
    VERIFY_TIMED_OUT,
    VERIFY_NOT_STARTED,     /* message says why */
    VERIFY_EMULATOR_ERROR,  /* qemu itself failed; message has its line */
};

/* One CPU's run of the against program, and how the program's run there
 * compares with it. */
struct verify_against {
    enum verify_outcome outcome;
    int exit_status, signal;
    char *message;              /* as in verify_run */
    int status_match;           /* both exited with the same status, or died of the same signal, or both timed out */
    int compared;               /* both exited: outputs compared */
    struct output_diff out;     /* the program's stdout vs the against program's */
    struct output_diff *files;  /* per --compare file */
    int silent;                 /* the program exited 0 printing nothing, the against program printed */
    size_t reference_bytes;     /* what the against program printed on stdout */
    int ok;                     /* status_match and every compared output matches */
};

struct verify_run {
    char *cpu;                  /* "native" or the qemu model */
    int emulated;
    char *level, *features;     /* from CPUID as the program sees it (dispatch helper); may be NULL */
    enum verify_outcome outcome;
    int exit_status, signal;
    double seconds;             /* native only; < 0 for emulated runs (not comparable) */
    char *message;              /* last line of the program's stderr, or why it did not run */
    int compared;               /* outputs compared (the native run exited) */
    struct output_diff out;     /* stdout vs native */
    struct output_diff *files;  /* per --compare file */
    struct dispatch_result dispatch;
    struct strvec dispatch_errors;   /* fmvgen's cpuid dispatch gone wrong on this
                                 * CPU (copycheck.h), one sentence each: each
                                 * fails the run and is printed as an error line */
    struct verify_against *against;   /* NULL without an against program */
    int ok;                     /* exited with 0, outputs match the native run's (and against->ok),
                                 * no dispatch_errors */
    int ok_but_dispatch;        /* the same, dispatch_errors aside */
};

struct verify_report {
    char *program;              /* PROG resolved (PATH); for a libtool wrapper script, its program */
    char *against;              /* the against program resolved (likewise), or NULL */
    char *wrapper, *against_wrapper;   /* the libtool wrapper script given (ltwrapper.h), or NULL */
    char *library_path, *against_library_path;  /* the LD_LIBRARY_PATH such a script's program
                                 * runs with (its build's libraries first); NULL: ours */
    char **argv;                /* as given */
    char *qemu;                 /* NULL when no CPU is emulated */
    char *helper;
    char **compare;             /* as given */
    size_t n_compare;
    double float_tolerance;
    struct line_ignore ignore;  /* compiled ignore_lines */
    struct verify_run *runs;    /* [0] is the native run */
    size_t n_runs;
    struct dispatch_plan plan;
    struct strvec notes;        /* FMA hints, untested levels, libraries left out */
    int ok;
};

/* Runs everything. Returns 0 when the report was made (r->ok says whether
 * every CPU passed), -1 after one error line when it could not be (not an
 * x86-64 ELF program, qemu missing, no helper, bad model, a regex that
 * does not compile, an against program that is missing or not executable). */
int verify_program(const struct verify_options *o, struct verify_report *r);
void verify_report_free(struct verify_report *r);

/* The report for --json. */
json_t *verify_report_to_json(const struct verify_report *r);

/* "ok", "SIGILL", "exit 3", "timeout", "not started", "qemu error". */
char *verify_run_result(const struct verify_run *run);
/* The same for the against program's run. */
char *verify_against_result(const struct verify_against *a);

#endif
