/* spawn.c - see spawn.h. Output is captured through unlinked temp files
 * rather than pipes: a child that writes megabytes to both streams can never
 * deadlock against us, and run_pool needs no poll loop over many pipes. */
#include "run/spawn.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int temp_fd(void)
{
    const char *base = getenv("TMPDIR");
    char *tmpl = xasprintf("%s/fmvgen-out.XXXXXX", base && *base ? base : "/tmp");
    int fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd >= 0) unlink(tmpl);
    free(tmpl);
    return fd;
}

static char *slurp_fd(int fd, size_t *len)
{
    struct strbuf sb = STRBUF_INIT;
    char chunk[65536];
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        sb_add(&sb, chunk, (size_t)n);
    }
    *len = sb.len;
    return sb_detach(&sb);
}

/* A started child and the files its output goes to. */
struct child {
    pid_t pid;
    int out_fd, err_fd;
    double start, deadline;
    const volatile sig_atomic_t *cancel;
    int term_sent;
    double kill_at;
};

static int start_child(char *const argv[], const struct run_opts *o, struct child *c, struct run_result *res)
{
    static const struct run_opts defaults;
    if (!o) o = &defaults;
    memset(res, 0, sizeof *res);
    memset(c, 0, sizeof *c);
    c->out_fd = c->err_fd = -1;

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    if (o->timeout_s > 0) {
        /* Own process group, so a timeout kills the whole tree. */
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&attr, 0);
    }
    posix_spawnattr_setflags(&attr, flags);

    if (o->cwd) posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
    if (o->stdin_path) posix_spawn_file_actions_addopen(&fa, 0, o->stdin_path, O_RDONLY, 0);
    if (o->capture_stdout) {
        c->out_fd = temp_fd();
        if (c->out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, c->out_fd, 1);
    } else if (o->null_stdout) {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    }
    if (o->capture_stderr) {
        c->err_fd = temp_fd();
        if (c->err_fd >= 0) posix_spawn_file_actions_adddup2(&fa, c->err_fd, 2);
    } else if (o->null_stderr) {
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }

    c->start = now_s();
    c->deadline = o->timeout_s > 0 ? c->start + o->timeout_s : 0;
    c->cancel = o->cancel;
    int rc = posix_spawnp(&c->pid, argv[0], &fa, &attr, argv, o->env ? o->env : environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        res->errno_spawn = rc;
        if (c->out_fd >= 0) close(c->out_fd);
        if (c->err_fd >= 0) close(c->err_fd);
        c->pid = 0;
        return -1;
    }
    res->spawned = 1;
    return 0;
}

static void finish_child(struct child *c, int wstatus, struct run_result *res)
{
    res->seconds = now_s() - c->start;
    if (WIFEXITED(wstatus)) {
        res->exited = 1;
        res->status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        res->signal = WTERMSIG(wstatus);
    }
    if (c->out_fd >= 0) {
        res->out = slurp_fd(c->out_fd, &res->out_len);
        close(c->out_fd);
    }
    if (c->err_fd >= 0) {
        res->err = slurp_fd(c->err_fd, &res->err_len);
        close(c->err_fd);
    }
    c->pid = 0;
}

/* Enforces the deadline and the cancel flag: SIGTERM to the group, SIGKILL
 * two seconds later. */
static void check_deadline(struct child *c, struct run_result *res)
{
    int cancelled = c->cancel && *c->cancel;
    if (!c->deadline && !cancelled && !c->term_sent) return;
    double t = now_s();
    if (!c->term_sent && (cancelled || t >= c->deadline)) {
        if (!cancelled) res->timed_out = 1;
        kill(-c->pid, SIGTERM);
        c->term_sent = 1;
        c->kill_at = t + 2.0;
    } else if (c->term_sent && t >= c->kill_at) {
        kill(-c->pid, SIGKILL);
        c->kill_at = t + 3600;
    }
}

static void nap(void)
{
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int run_argv(char *const argv[], const struct run_opts *opts, struct run_result *res)
{
    struct run_result local;
    if (!res) res = &local;
    struct child c;
    if (start_child(argv, opts, &c, res) != 0) {
        if (res == &local) run_result_free(res);
        return -1;
    }
    int wstatus = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t p = wait4(c.pid, &wstatus, c.deadline || c.cancel ? WNOHANG : 0, &ru);
        if (p == c.pid) break;
        if (p < 0 && errno != EINTR) break;
        if (p == 0) {
            check_deadline(&c, res);
            nap();
        }
    }
    finish_child(&c, wstatus, res);
    res->cpu_seconds = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                       ru.ru_stime.tv_usec / 1e6;
    int ok = res->exited && res->status == 0 && !res->timed_out;
    if (res == &local) run_result_free(res);
    return ok ? 0 : -1;
}

int run_pool(const struct run_job *jobs, size_t n, int parallel, struct run_result *results)
{
    if (parallel <= 0) parallel = cpu_count();
    struct child *running = xcalloc((size_t)parallel, sizeof *running);
    size_t *slot_job = xcalloc((size_t)parallel, sizeof *slot_job);
    size_t next = 0, done = 0;
    int failures = 0;
    while (done < n) {
        /* Fill free slots. */
        for (int s = 0; s < parallel && next < n; s++) {
            if (running[s].pid) continue;
            size_t j = next++;
            if (start_child(jobs[j].argv, &jobs[j].opts, &running[s], &results[j]) != 0) {
                failures++;
                done++;
                continue;
            }
            slot_job[s] = j;
        }
        /* Reap whatever finished. */
        int reaped = 0;
        for (int s = 0; s < parallel; s++) {
            if (!running[s].pid) continue;
            int wstatus;
            pid_t p = waitpid(running[s].pid, &wstatus, WNOHANG);
            struct run_result *r = &results[slot_job[s]];
            if (p == running[s].pid) {
                finish_child(&running[s], wstatus, r);
                if (!(r->exited && r->status == 0 && !r->timed_out)) failures++;
                done++;
                reaped = 1;
            } else {
                check_deadline(&running[s], r);
            }
        }
        if (!reaped && done < n) nap();
    }
    free(running);
    free(slot_job);
    return failures;
}

struct run_child {
    struct child c;
};

struct run_child *run_start(char *const argv[], const struct run_opts *opts, struct run_result *res)
{
    /* Always its own process group, so run_finish can kill what it started. */
    struct run_opts o = opts ? *opts : (struct run_opts){0};
    if (o.timeout_s <= 0) o.timeout_s = 1e9;
    struct run_child *rc = xcalloc(1, sizeof *rc);
    if (start_child(argv, &o, &rc->c, res) != 0) {
        free(rc);
        return NULL;
    }
    return rc;
}

void run_finish(struct run_child *rc, double grace_s, struct run_result *res)
{
    if (!rc) return;
    double give_up = now_s() + (grace_s > 0 ? grace_s : 0);
    int wstatus = 0, killed = 0;
    for (;;) {
        pid_t p = waitpid(rc->c.pid, &wstatus, WNOHANG);
        if (p == rc->c.pid) break;
        if (p < 0 && errno != EINTR) break;
        check_deadline(&rc->c, res);
        if (!killed && now_s() >= give_up) {
            kill(-rc->c.pid, SIGKILL);
            killed = 1;
        }
        nap();
    }
    finish_child(&rc->c, wstatus, res);
    free(rc);
}

void run_result_free(struct run_result *res)
{
    if (!res) return;
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}

int run_exit_code(const struct run_result *res)
{
    if (!res->spawned) return 127;
    if (res->signal) return 128 + res->signal;
    return res->status;
}

char *run_describe(const struct run_result *res)
{
    if (!res->spawned) return xasprintf("could not start: %s", strerror(res->errno_spawn));
    if (res->timed_out) return xasprintf("timed out after %.1f s", res->seconds);
    if (res->signal) return xasprintf("killed by SIG%s", sigabbrev_np(res->signal) ? sigabbrev_np(res->signal) : "?");
    return xasprintf("exit status %d", res->status);
}

int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
