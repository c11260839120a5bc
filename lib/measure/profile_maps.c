/* profile_maps.c - the mmap records of a profile (profile.h's
 * profile_parse_maps), read from `perf script --show-mmap-events
 * --show-task-events -F comm,pid`, whose lines look like (perf 6.1):
 *
 *   sh 23287 PERF_RECORD_COMM exec: sh:23287/23287
 *   sh 23287 PERF_RECORD_MMAP2 23287/23287: [0x5640(0x13000) @ 0x4000 fe:00 247230 0]: r-xp /usr/bin/dash
 *   swapper 0 PERF_RECORD_MMAP -1/0: [0xffff(0x1258780) @ 0xffff]: x [kernel.kallsyms]_text
 *   prog 23290
 *
 * (the last one is a sample). The pid is read from the record's own
 * "PID/TID:" field; the comm is what precedes the sample pid at the start
 * of the line (it may hold spaces). */
#include "measure/profile.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

struct exec_pending {
    int *pids;
    size_t n;
};

static int take_pending(struct exec_pending *ep, int pid)
{
    for (size_t i = 0; i < ep->n; i++)
        if (ep->pids[i] == pid) {
            ep->pids[i] = ep->pids[--ep->n];
            return 1;
        }
    return 0;
}

static void add_pending(struct exec_pending *ep, int pid)
{
    take_pending(ep, pid);
    ep->pids = xrealloc(ep->pids, (ep->n + 1) * sizeof *ep->pids);
    ep->pids[ep->n++] = pid;
}

/* The comm at the start of line, before " PID " and the record at rec. */
static char *comm_of(const char *line, const char *rec)
{
    const char *s = line, *e = rec;
    while (*s == ' ') s++;
    while (e > s && e[-1] == ' ') e--;
    while (e > s && e[-1] >= '0' && e[-1] <= '9') e--;   /* the sample pid */
    while (e > s && e[-1] == ' ') e--;
    return xstrndup(s, (size_t)(e - s));
}

static void parse_line(const char *line, struct profile *p, struct exec_pending *ep, size_t *added)
{
    const char *rec = strstr(line, "PERF_RECORD_");
    if (!rec) return;
    char *end;
    if (str_starts_with(rec, "PERF_RECORD_COMM exec:")) {
        /* "... exec: NAME:PID/TID": NAME may hold ':' - the pid follows the last one */
        const char *colon = strrchr(rec, ':');
        int pid = colon ? (int)strtol(colon + 1, &end, 10) : 0;
        if (colon && end != colon + 1 && *end == '/') add_pending(ep, pid);
        return;
    }
    if (!str_starts_with(rec, "PERF_RECORD_MMAP")) return;
    const char *f = rec + strcspn(rec, " ");
    int pid = (int)strtol(f, &end, 10);
    if (end == f || *end != '/') return;
    const char *close = strstr(end, "]: ");
    if (!close) return;
    const char *prot = close + 3;
    const char *space = strchr(prot, ' ');
    if (!space || !space[1]) return;
    const char *path = space + 1;
    size_t len = strcspn(path, "\r\n");
    p->maps = xrealloc(p->maps, (p->n_maps + 1) * sizeof *p->maps);
    p->maps[p->n_maps++] = (struct profile_map){
        .pid = pid,
        .comm = comm_of(line, rec),
        .path = xstrndup(path, len),
        .first = pid > 0 && take_pending(ep, pid),
    };
    (*added)++;
}

size_t profile_parse_maps(const char *text, struct profile *p)
{
    struct exec_pending ep = {0};
    size_t added = 0;
    const char *s = text ? text : "";
    while (*s) {
        size_t n = strcspn(s, "\n");
        char *line = xstrndup(s, n);
        parse_line(line, p, &ep, &added);
        free(line);
        s += n;
        if (*s) s++;
    }
    free(ep.pids);
    return added;
}
