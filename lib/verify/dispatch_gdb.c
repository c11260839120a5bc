/* dispatch_gdb.c - see dispatch_gdb.h. One gdb session per CPU: a batch of
 * -ex commands that stops the program, calls every resolver of the plan and
 * prints each answer on a line tagged "@fmvgen@", which this file reads
 * back (the program's own output may share gdb's stdout, so untagged lines
 * are ignored). */
#include "verify/dispatch_gdb.h"
#include "elf/elffile.h"
#include "run/spawn.h"
#include "verify/cpus.h"

#include <arpa/inet.h>
#include <gelf.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TAG "@fmvgen@"

/* A TCP port nobody listens on right now, for qemu's gdb server; 0 when the
 * system gives none. qemu binds it a moment later: a race with another
 * process taking it in between is possible, and then gdb fails to connect
 * and the map says so. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = 0;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* The program's entry point and main (0 when no symbol names it), as file
 * addresses: the entry gives the load bias of a static PIE ($pc at the first
 * instruction minus the entry), main is where glibc's startup is done. */
static int program_addresses(const char *path, uint64_t *entry, uint64_t *main_addr)
{
    struct elf_file ef;
    if (elf_file_open(path, &ef) != 0) return -1;
    GElf_Ehdr eh;
    int rc = gelf_getehdr((Elf *)ef.elf, &eh) ? 0 : -1;
    *entry = rc == 0 ? eh.e_entry : 0;
    const struct elf_sym *m = elf_file_sym_named(&ef, "main");
    *main_addr = m && m->type == STT_FUNC ? m->value : 0;
    elf_file_close(&ef);
    return rc;
}

/* The -ex commands of the session. */
static void gdb_commands(struct strvec *cmd, const struct dispatch_plan *plan, const char *target, uint64_t entry,
                         uint64_t main_addr)
{
    static const char *const setup[] = {
        "set confirm off", "set pagination off", "set width 0", "set startup-with-shell off",
        /* A resolver that faults: gdb restores the stopped state and goes on
         * with the next call instead of staying inside the broken one. */
        "set unwindonsignal on",
    };
    for (size_t i = 0; i < sizeof setup / sizeof *setup; i++) {
        sv_push(cmd, "-ex");
        sv_push(cmd, setup[i]);
    }
    sv_push(cmd, "-ex");
    sv_push(cmd, target);
    sv_push(cmd, "-ex");
    sv_pushf(cmd, "set $fmvgen_bias = $pc - 0x%" PRIx64, entry);
    if (main_addr) {
        sv_push(cmd, "-ex");
        sv_pushf(cmd, "tbreak *($fmvgen_bias + 0x%" PRIx64 ")", main_addr);
        sv_push(cmd, "-ex");
        sv_push(cmd, "continue");
    }
    sv_push(cmd, "-ex");
    sv_push(cmd, "printf \"" TAG " bias %lx\\n\", $fmvgen_bias");
    for (size_t i = 0; i < plan->n_entries; i++) {
        sv_push(cmd, "-ex");
        sv_pushf(cmd, "printf \"" TAG " %zu %%lx\\n\", (unsigned long)((void *(*)(void))($fmvgen_bias + 0x%" PRIx64 "))()",
                 i, plan->entries[i].resolver);
    }
    sv_push(cmd, "-ex");
    sv_push(cmd, "printf \"" TAG " done\\n\"");
    sv_push(cmd, "-ex");
    sv_push(cmd, "kill");
}

/* Reads the tagged lines. Returns 1 when the "done" line is there. */
static int parse_gdb_output(const struct dispatch_plan *plan, char *text, struct dispatch_result *res)
{
    int done = 0, have_bias = 0;
    uint64_t bias = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, TAG " ", strlen(TAG) + 1) != 0) continue;
        char *rest = line + strlen(TAG) + 1;
        if (!strcmp(rest, "done")) {
            done = 1;
        } else if (!strncmp(rest, "bias ", 5)) {
            bias = strtoull(rest + 5, NULL, 16);
            have_bias = 1;
        } else if (have_bias) {
            char *end;
            unsigned long idx = strtoul(rest, &end, 10);
            if (end == rest || *end != ' ' || idx >= plan->n_entries) continue;
            uint64_t addr = strtoull(end + 1, NULL, 16);
            res->answered[idx] = 1;
            free(res->other[idx]);
            res->other[idx] = NULL;
            if (!addr) res->other[idx] = xstrdup("NULL");
            else dispatch_record_answer(plan, res, idx, addr - bias);
        }
    }
    return done;
}

int dispatch_gdb_run(const struct dispatch_plan *plan, char *const *argv, const char *qemu, const char *model,
                     double timeout_s, struct dispatch_result *res)
{
    if (!plan->n_entries) return 0;
    uint64_t entry, main_addr;
    if (program_addresses(plan->objects[0].path, &entry, &main_addr) != 0) {
        res->error = xstrdup("cannot read the program's entry point");
        return -1;
    }
    /* Each gdb or qemu step is bounded even when the run itself is not. */
    double limit = timeout_s > 0 ? timeout_s : 60;
    struct strvec cmd = STRVEC_INIT, server = STRVEC_INIT;
    struct run_child *qemu_child = NULL;
    struct run_result qr = {0};
    sv_push(&cmd, plan->gdb);
    sv_push(&cmd, "-batch");
    sv_push(&cmd, "-nx");
    if (qemu) {
        int port = free_port();
        if (!port) {
            res->error = xstrdup("no free TCP port for qemu's gdb server");
            sv_free(&cmd);
            return -1;
        }
        cpus_qemu_argv(&server, qemu, model, NULL);
        sv_push(&server, "-g");
        sv_pushf(&server, "%d", port);
        sv_push_all(&server, argv);
        /* Its stdout is the program's; stderr says why it did not start. */
        struct run_opts so = {.null_stdout = 1, .capture_stderr = 1, .stdin_path = "/dev/null",
                              .timeout_s = limit + 5};
        qemu_child = run_start(sv_argv(&server), &so, &qr);
        if (!qemu_child) {
            char *how = run_describe(&qr);
            res->error = xasprintf("qemu did not start for gdb (%s)", how);
            free(how);
            run_result_free(&qr);
            sv_free(&cmd);
            sv_free(&server);
            return -1;
        }
        /* gdb retries the connection until qemu listens (tcp auto-retry). */
        char *target = xasprintf("target remote 127.0.0.1:%d", port);
        gdb_commands(&cmd, plan, target, entry, main_addr);
        free(target);
        sv_push(&cmd, plan->objects[0].path);
    } else {
        gdb_commands(&cmd, plan, "starti", entry, main_addr);
        /* The program as resolved (gdb would not search PATH), then its arguments. */
        sv_push(&cmd, "--args");
        sv_push(&cmd, plan->objects[0].path);
        sv_push_all(&cmd, argv + 1);
    }
    struct run_opts go = {.capture_stdout = 1, .capture_stderr = 1, .stdin_path = "/dev/null", .timeout_s = limit};
    struct run_result gr;
    run_argv(sv_argv(&cmd), &go, &gr);
    /* gdb's "kill" ends qemu; when gdb failed before that, qemu would wait
     * for a debugger until its timeout: stop it now. */
    if (qemu_child) run_finish(qemu_child, 2.0, &qr);
    int done = gr.out ? parse_gdb_output(plan, gr.out, res) : 0;
    size_t answered = 0;
    for (size_t i = 0; i < plan->n_entries; i++) answered += res->answered[i];
    if (!done || !answered) {
        char *how = run_describe(&gr);
        char *tail = cpus_stderr_tail(gr.err);
        char *qtail = qemu ? cpus_stderr_tail(qr.err) : NULL;
        res->error = xasprintf("gdb could not call the resolvers (%s)%s%s%s%s", how, tail ? ": " : "",
                               tail ? tail : "", qtail ? "; qemu: " : "", qtail ? qtail : "");
        free(how);
        free(tail);
        free(qtail);
    }
    run_result_free(&gr);
    run_result_free(&qr);
    sv_free(&cmd);
    sv_free(&server);
    return res->error ? -1 : 0;
}
