/* spawn.h - running other programs: always an argument vector through
 * posix_spawnp, never a shell string, so file names with spaces, quotes or
 * non-ASCII bytes reach the child unchanged.
 *
 * run_argv runs one command and waits; run_pool runs many with at most N at
 * a time (the -j of scan --compdb and of the probes). */
#ifndef FMVGEN_SPAWN_H
#define FMVGEN_SPAWN_H

#include <signal.h>
#include <stddef.h>

struct run_opts {
    const char *cwd;            /* NULL: inherit */
    char *const *env;           /* NULL: inherit environ */
    int capture_stdout;         /* 1: collect into result.out */
    int capture_stderr;         /* 1: collect into result.err */
    int null_stdout;            /* 1: discard stdout (ignored if captured) */
    int null_stderr;            /* 1: discard stderr (ignored if captured) */
    const char *stdin_path;     /* NULL: inherit; else opened read-only */
    double timeout_s;           /* 0: none; else SIGTERM then SIGKILL the group */
    /* NULL: none; else once *cancel is non-zero (a signal handler's flag),
     * SIGTERM then SIGKILL the group, as at the deadline (not timed_out):
     * the child runs in a group of its own, so a terminal's Ctrl-C never
     * reaches it */
    const volatile sig_atomic_t *cancel;
};

struct run_result {
    int spawned;      /* 0: could not start (errno_spawn says why) */
    int errno_spawn;
    int exited;       /* normal exit: status holds the exit code */
    int status;
    int signal;       /* killed by this signal (0 if exited) */
    int timed_out;
    double seconds;   /* wall time */
    double cpu_seconds;   /* run_argv only: user + system CPU time of the child and of
                           * the descendants it waited for (wait4's rusage): unlike
                           * the wall time, not inflated by waiting for a busy CPU */
    char *out, *err;  /* captured text, NUL-terminated, or NULL */
    size_t out_len, err_len;
};

/* Runs argv[0] (searched in PATH when it has no '/'). Returns 0 when the
 * command ran and exited with status 0, -1 otherwise; *res (optional) gets
 * the details either way. */
int run_argv(char *const argv[], const struct run_opts *opts, struct run_result *res);
void run_result_free(struct run_result *res);

/* A shell-style exit code for a result: status, or 128+signal. */
int run_exit_code(const struct run_result *res);
/* "exit status 2", "killed by SIGILL", "timed out after 5 s", "not found". */
char *run_describe(const struct run_result *res);

/* Runs n jobs, at most `parallel` at once (<=0: number of CPUs). Each job's
 * result lands in results[i] (caller frees each). Returns the number of jobs
 * that did not exit with 0. */
struct run_job {
    char *const *argv;
    struct run_opts opts;
};
int run_pool(const struct run_job *jobs, size_t n, int parallel, struct run_result *results);

/* A child left running while the caller does other work (a debugger server
 * that waits for its client). run_start returns NULL when it could not start
 * (res gets why); run_finish waits at most grace_s more seconds (and never
 * past opts.timeout_s), then kills the child's process group, and fills res. */
struct run_child;
struct run_child *run_start(char *const argv[], const struct run_opts *opts, struct run_result *res);
void run_finish(struct run_child *child, double grace_s, struct run_result *res);

int cpu_count(void);

#endif
