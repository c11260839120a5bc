/* dispatch.c - libfmvgen-dispatch.so, the helper `fmvgen verify` preloads
 * into the program under test, natively and under each qemu CPU model, to
 * learn which clone each multiversioning resolver really picks on that CPU
 * (the dispatch map comes from the resolvers themselves, not from a table
 * of what a CPU "should" pick).
 *
 * It is a separate shared object, not part of fmvgen_lib: it is loaded into
 * someone else's process, so it depends on libc only, is built without
 * sanitizers, and for the baseline x86-64 (it must run on qemu64).
 *
 * Protocol, written and read by lib/verify/dispatch.c:
 *   FMVGEN_DISPATCH_REQUEST  a file of lines "OBJECT\tRESOLVER_HEX\n", where
 *                            OBJECT is empty for the main executable, else a
 *                            shared library's path, and RESOLVER_HEX the
 *                            resolver's address as written in that file
 *                            (st_value);
 *   FMVGEN_DISPATCH_OUT      the file this helper writes, one line at a time
 *                            so that a resolver that crashes leaves the lines
 *                            before it:
 *                              "cpu LEVEL FEATURE...\n"   what CPUID says
 *                              "N ok OFFSET_HEX\n"        request N returned
 *                                                         load base + OFFSET
 *                              "N elsewhere OFFSET_HEX NAME\n"
 *                                                         it returned an address
 *                                                         in another object (the
 *                                                         vDSO, another library):
 *                                                         NAME's base + OFFSET
 *                              "N null\n"                 it returned 0
 *                              "N no-object\n"            object not loaded
 *                              "done\n"
 * The constructor then _exit(0)s: the program's own main never runs, so its
 * side effects (files, output) do not happen in a dispatch run.
 * Without FMVGEN_DISPATCH_REQUEST in the environment it does nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cpuid.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

struct request {
    char *object;          /* "" = the main executable */
    uintptr_t resolver;    /* st_value in that object */
    int loaded;            /* object found among the loaded ones */
    uintptr_t base;        /* its load bias (dlpi_addr) */
};

static struct request *requests;
static size_t n_requests;
static int out_fd = -1;

static void out_line(const char *line)
{
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t n = write(out_fd, line + off, len - off);
        if (n <= 0) return;
        off += (size_t)n;
    }
}

/* ---- what the CPU says it has (for the report's level column) ---- */

struct feature {
    const char *name;
    int present;
};

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* The x86-64 psABI levels, decided from CPUID the way GCC's and glibc's
 * checks do (AVX state must also be enabled by the OS in XCR0). */
static void report_cpu(void)
{
    unsigned a = 0, b = 0, c1 = 0, d = 0, b7 = 0, c7 = 0, cx = 0;
    __get_cpuid(1, &a, &b, &c1, &d);
    __get_cpuid_count(7, 0, &a, &b7, &c7, &d);
    __get_cpuid(0x80000001, &a, &b, &cx, &d);
    int osxsave = (c1 >> 27) & 1;
    uint64_t xcr0 = osxsave ? read_xcr0() : 0;
    int avx_os = (xcr0 & 6) == 6;
    int avx512_os = avx_os && (xcr0 & 0xe0) == 0xe0;
    struct feature f[] = {
        {"sse3", c1 & 1},
        {"ssse3", (c1 >> 9) & 1},
        {"sse4.1", (c1 >> 19) & 1},
        {"sse4.2", (c1 >> 20) & 1},
        {"popcnt", (c1 >> 23) & 1},
        {"cx16", (c1 >> 13) & 1},
        {"lahf", cx & 1},
        {"avx", ((c1 >> 28) & 1) && avx_os},
        {"avx2", ((b7 >> 5) & 1) && avx_os},
        {"fma", ((c1 >> 12) & 1) && avx_os},
        {"f16c", (c1 >> 29) & 1},
        {"bmi1", (b7 >> 3) & 1},
        {"bmi2", (b7 >> 8) & 1},
        {"lzcnt", (cx >> 5) & 1},
        {"movbe", (c1 >> 22) & 1},
        {"avx512f", ((b7 >> 16) & 1) && avx512_os},
        {"avx512dq", ((b7 >> 17) & 1) && avx512_os},
        {"avx512cd", ((b7 >> 28) & 1) && avx512_os},
        {"avx512bw", ((b7 >> 30) & 1) && avx512_os},
        {"avx512vl", ((b7 >> 31) & 1) && avx512_os},
    };
    size_t n = sizeof f / sizeof *f;
    int v2 = 1, v3, v4;
    for (size_t i = 0; i < 7; i++) v2 &= f[i].present != 0;
    v3 = v2;
    for (size_t i = 7; i < 15; i++) v3 &= f[i].present != 0;
    v4 = v3;
    for (size_t i = 15; i < n; i++) v4 &= f[i].present != 0;
    const char *level = v4 ? "x86-64-v4" : v3 ? "x86-64-v3" : v2 ? "x86-64-v2" : "x86-64";

    char line[512];
    size_t len = (size_t)snprintf(line, sizeof line, "cpu %s", level);
    for (size_t i = 0; i < n && len < sizeof line - 16; i++)
        if (f[i].present) len += (size_t)snprintf(line + len, sizeof line - len, " %s", f[i].name);
    snprintf(line + len, sizeof line - len, "\n");
    out_line(line);
}

/* ---- the request file ---- */

static char *slurp(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        if (len + 1 >= cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n <= 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (buf) buf[len] = 0;
    return buf;
}

static int parse_requests(char *text)
{
    size_t lines = 0;
    for (char *p = text; *p; p++) lines += *p == '\n';
    requests = calloc(lines + 1, sizeof *requests);
    if (!requests) return -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tab = strrchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        requests[n_requests].object = line;
        requests[n_requests].resolver = (uintptr_t)strtoull(tab + 1, NULL, 16);
        n_requests++;
    }
    return 0;
}

/* ---- finding the objects' load biases ---- */

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The first object dl_iterate_phdr reports is the main executable (its name
 * is empty); libraries are matched by device and inode, because the path the
 * loader used (through LD_LIBRARY_PATH, a symlink, "./lib") rarely equals
 * the one fmvgen resolved. */
static int note_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    int *index = data;
    int is_main = (*index)++ == 0;
    for (size_t i = 0; i < n_requests; i++) {
        struct request *r = &requests[i];
        if (r->loaded) continue;
        int match = r->object[0] == 0 ? is_main
                                      : !is_main && info->dlpi_name && info->dlpi_name[0] &&
                                            same_file(r->object, info->dlpi_name);
        if (match) {
            r->loaded = 1;
            r->base = (uintptr_t)info->dlpi_addr;
        }
    }
    return 0;
}

/* Which loaded object's segments hold an address: a resolver may return a
 * function of another object (glibc's gettimeofday returns the vDSO's). */
struct owner {
    uintptr_t addr;
    int found;
    uintptr_t base;
    char name[256];
};

static int find_owner(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct owner *o = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + ph->p_vaddr;
        if (o->addr >= start && o->addr < start + ph->p_memsz) {
            o->found = 1;
            o->base = (uintptr_t)info->dlpi_addr;
            snprintf(o->name, sizeof o->name, "%s", info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "main");
            return 1;
        }
    }
    return 0;
}

/* Is addr inside the object loaded at base? */
static int owned_by(uintptr_t addr, uintptr_t base, struct owner *o)
{
    memset(o, 0, sizeof *o);
    o->addr = addr;
    dl_iterate_phdr(find_owner, o);
    return !o->found || o->base == base;
}

/* ---- running the resolvers ---- */

/* GCC's and Clang's target_clones resolvers take no arguments; glibc on
 * x86-64 calls ifunc resolvers with none either. Passing AT_HWCAP as the
 * first argument (what glibc passes on other architectures) is harmless for
 * those and gives a hand-written resolver that reads it a sensible value. */
typedef uintptr_t (*resolver_fn)(unsigned long hwcap);

__attribute__((constructor)) static void fmvgen_dispatch_report(void)
{
    const char *req_path = getenv("FMVGEN_DISPATCH_REQUEST");
    const char *out_path = getenv("FMVGEN_DISPATCH_OUT");
    if (!req_path || !out_path) return;
    out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) _exit(3);
    report_cpu();

    char *text = slurp(req_path);
    if (!text || parse_requests(text) != 0) _exit(4);
    int index = 0;
    dl_iterate_phdr(note_object, &index);

    unsigned long hwcap = getauxval(AT_HWCAP);
    char line[512];
    for (size_t i = 0; i < n_requests; i++) {
        struct request *r = &requests[i];
        if (!r->loaded) {
            snprintf(line, sizeof line, "%zu no-object\n", i);
        } else {
            resolver_fn fn = (resolver_fn)(r->base + r->resolver);
            uintptr_t got = fn(hwcap);
            struct owner o;
            if (!got) snprintf(line, sizeof line, "%zu null\n", i);
            else if (owned_by(got, r->base, &o))
                snprintf(line, sizeof line, "%zu ok %lx\n", i, (unsigned long)(got - r->base));
            else
                snprintf(line, sizeof line, "%zu elsewhere %lx %s\n", i, (unsigned long)(got - o.base), o.name);
        }
        out_line(line);
    }
    out_line("done\n");
    close(out_fd);
    _exit(0);
}
