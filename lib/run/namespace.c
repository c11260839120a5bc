/* namespace.c - see namespace.h. unshare(2) and mount(2) directly: the
 * helper needs nothing of util-linux, and its errors name the call that
 * failed. */
#include "run/namespace.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "run/spawn.h"

static int write_proc(const char *path, const char *text, char **why)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
    int err = errno;
    if (fd >= 0) close(fd);
    if (n == (ssize_t)strlen(text)) return 0;
    *why = xasprintf("%s: %s", path, strerror(err));
    return -1;
}

/* A user namespace in which the caller keeps its uid and gid, and gets the
 * capabilities to make mounts of its own. */
static int enter_user_namespace(char **why)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        *why = xasprintf("unshare(user and mount namespace): %s", strerror(errno));
        return -1;
    }
    char map[64];
    if (write_proc("/proc/self/setgroups", "deny", why) != 0) return -1;
    snprintf(map, sizeof map, "%lu %lu 1", (unsigned long)uid, (unsigned long)uid);
    if (write_proc("/proc/self/uid_map", map, why) != 0) return -1;
    snprintf(map, sizeof map, "%lu %lu 1", (unsigned long)gid, (unsigned long)gid);
    return write_proc("/proc/self/gid_map", map, why);
}

int ns_enter(const struct ns_bind *binds, size_t n, char **why)
{
    *why = NULL;
    if (unshare(CLONE_NEWNS) != 0) {
        int err = errno;
        if (err != EPERM) {
            *why = xasprintf("unshare(mount namespace): %s", strerror(err));
            return -1;
        }
        char *user_why = NULL;
        if (enter_user_namespace(&user_why) != 0) {
            *why = xasprintf("unshare(mount namespace): %s; %s", strerror(err), user_why);
            free(user_why);
            return -1;
        }
    }
    /* nothing mounted here may propagate to the mounts the user sees */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        *why = xasprintf("making the mounts private: %s", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (mount(binds[i].src, binds[i].dst, NULL, MS_BIND | MS_REC, NULL) != 0) {
            *why = xasprintf("mount --bind %s %s: %s", binds[i].src, binds[i].dst, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The rest of path after dir when path is dir or lies under it, else NULL. */
static const char *under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (strncmp(path, dir, n) != 0) return NULL;
    if (path[n] == 0 || path[n] == '/') return path + n;
    return n == 1 && dir[0] == '/' ? path : NULL;
}

char *ns_outside_path(const char *path, const struct ns_bind *binds, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        const char *rest = under(path, binds[i].dst);
        if (!rest) continue;
        size_t len = strlen(binds[i].src);
        while (len > 1 && binds[i].src[len - 1] == '/') len--;
        return xasprintf("%.*s%s", (int)len, binds[i].src, rest);
    }
    return xstrdup(path);
}

void ns_command_prefix(const char *helper, const struct ns_bind *binds, size_t n, struct strvec *argv)
{
    sv_push(argv, helper);
    for (size_t i = 0; i < n; i++) {
        sv_push(argv, "--bind");
        sv_push(argv, binds[i].src);
        sv_push(argv, binds[i].dst);
    }
    sv_push(argv, "--");
}

char *ns_helper_path(char **why)
{
    *why = NULL;
    char *self = self_exe_path();
    if (!self) {
        *why = xstrdup("/proc/self/exe: cannot find the fmvgen executable");
        return NULL;
    }
    char *dir = path_dirname(self);
    char *helper = path_join(dir, NS_HELPER_NAME);
    free(dir);
    free(self);
    if (access(helper, X_OK) == 0) return helper;
    *why = xasprintf("%s: not found (built and installed with fmvgen)", helper);
    free(helper);
    return NULL;
}

int ns_probe(const char *helper, const struct ns_bind *binds, size_t n, char **why)
{
    *why = NULL;
    struct strvec argv = STRVEC_INIT;
    ns_command_prefix(helper, binds, n, &argv);
    sv_push(&argv, "true");
    struct run_opts opts = {.capture_stdout = 1, .capture_stderr = 1, .timeout_s = 30};
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    if (rc != 0) {
        const char *err = res.err ? res.err : "";
        if (str_starts_with(err, NS_HELPER_NAME ": ")) err += strlen(NS_HELPER_NAME ": ");
        if (*err) *why = xstrndup(err, strcspn(err, "\n"));
        else *why = run_describe(&res);
    }
    run_result_free(&res);
    sv_free(&argv);
    return rc;
}

int ns_helper_main(int argc, char **argv)
{
    struct ns_bind *binds = xcalloc((size_t)argc + 1, sizeof *binds);
    size_t n = 0;
    int i = 1;
    while (i < argc && strcmp(argv[i], "--") != 0) {
        if (strcmp(argv[i], "--bind") != 0 || i + 2 >= argc) {
            fprintf(stderr, NS_HELPER_NAME ": usage: " NS_HELPER_NAME " [--bind SRC DST]... -- PROGRAM ARGS...\n");
            free(binds);
            return 125;
        }
        binds[n++] = (struct ns_bind){argv[i + 1], argv[i + 2]};
        i += 3;
    }
    if (i + 1 >= argc) {
        fprintf(stderr, NS_HELPER_NAME ": no program to run after --\n");
        free(binds);
        return 125;
    }
    char *why = NULL;
    if (ns_enter(binds, n, &why) != 0) {
        fprintf(stderr, NS_HELPER_NAME ": %s\n", why);
        free(why);
        free(binds);
        return 125;
    }
    free(binds);
    execvp(argv[i + 1], argv + i + 1);
    fprintf(stderr, NS_HELPER_NAME ": %s: %s\n", argv[i + 1], strerror(errno));
    return 127;
}
