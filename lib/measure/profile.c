/* profile.c - see profile.h. perf report is asked for a fixed, separated
 * layout (-F overhead,sample,dso,sym -t '|') so that the parse does not
 * depend on column widths, and for verbose symbols (-v), which put an
 * address inside the symbol and the symbol table's origin before it:
 *   " 26.14% | 40         |/tmp/pv/p      |0x11d0             B [.] work"
 * (not -q: it sets the verbosity back to -1; the '#' header lines it would
 * drop are skipped here). One line per distinct symbol: two static `work`
 * of one program are two lines with the same name.
 *
 * A profile is at most three perf processes: record, report, and one
 * script for the mmap records and the sites together. Their fixed cost
 * (not the samples') is what a short workload pays most, so: record -B
 * (no build-id pass), and report and script --kallsyms=/dev/null - each
 * reading of /proc/kallsyms (5 MB formatted by the kernel) cost a pass
 * about 0.1 s of CPU, for kernel symbol names nothing here uses.
 * perf script could give the symbols too, but not perf report's file
 * offset of an address (it prints the virtual one): the report stays. */
#include "measure/profile.h"
#include "run/spawn.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *first_line(const char *text)
{
    const char *s = text ? text : "";
    while (*s == '\n' || *s == ' ') s++;
    return xstrndup(s, strcspn(s, "\n"));
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

/* The verbose symbol column "0x11d0             B [.] work": the address
 * into *addr (0 without one), and the "[.] work" part returned. perf
 * prints the address with "%#llx": an address of 0 is a bare "0". */
static char *parse_verbose_symbol(char *sym, uint64_t *addr)
{
    *addr = 0;
    if (*sym == '[') return sym;   /* not verbose */
    char *end;
    *addr = strtoull(sym, &end, 16);
    if (end == sym) return sym;
    sym = trim(end);
    if (*sym && *sym != '[') sym = trim(sym + 1);   /* the origin letter: B, D, k, ! ... */
    return sym;
}

/* One "percent|samples|dso|0xADDR O [.] symbol" line; returns 0 when it is
 * one. */
static int parse_report_line(char *line, struct profile *p)
{
    if (line[0] == '#') return -1;
    char *f1 = strchr(line, '|');
    if (!f1) return -1;
    char *f2 = strchr(f1 + 1, '|');
    if (!f2) return -1;
    char *f3 = strchr(f2 + 1, '|');
    if (!f3) return -1;
    *f2 = *f3 = 0;
    uint64_t addr;
    char *samples_text = trim(f1 + 1), *dso = trim(f2 + 1), *sym = parse_verbose_symbol(trim(f3 + 1), &addr), *end;
    long samples = strtol(samples_text, &end, 10);
    if (end == samples_text || sym[0] != '[' || strlen(sym) < 4 || sym[2] != ']') return -1;
    p->entries = xrealloc(p->entries, (p->n + 1) * sizeof *p->entries);
    p->entries[p->n++] = (struct profile_entry){
        .symbol = xstrdup(trim(sym + 3)),
        .kernel = sym[1] == 'k',
        .samples = samples,
        .dso = xstrdup(dso),
        .addr = addr,
    };
    p->total_samples += samples;
    return 0;
}

void profile_parse_report(const char *text, struct profile *p)
{
    char *copy = xstrdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        parse_report_line(line, p);
    free(copy);
}

/* Runs prefix + cmd, output captured; on failure *why says "WHAT failed (...)". */
static int run_perf(char *const *prefix, char *const *cmd, const char *what, struct run_result *res, char **why)
{
    struct strvec argv = STRVEC_INIT;
    if (prefix) sv_push_all(&argv, prefix);
    sv_push_all(&argv, cmd);
    struct run_opts opts = {.capture_stdout = 1, .capture_stderr = 1};
    int rc = run_argv(sv_argv(&argv), &opts, res);
    sv_free(&argv);
    if (rc != 0) {
        char *status = run_describe(res), *detail = first_line(res->err);
        *why = xasprintf("%s failed (%s)%s%s", what, status, *detail ? ": " : "", detail);
        free(status);
        free(detail);
    }
    return rc;
}

/* perf's data file once read: moved into $FMVGEN_KEEP_PERF_DATA (a
 * directory) when that is set, for looking at a run afterwards with perf
 * report/script; removed otherwise (or when it cannot be moved there). */
static void drop_data(const char *data)
{
    static unsigned long kept;
    const char *keep = getenv("FMVGEN_KEEP_PERF_DATA");
    if (keep && *keep) {
        char name[64];
        snprintf(name, sizeof name, "perf-%ld-%lu.data", (long)getpid(), kept++);
        char *to = path_join(keep, name);
        int moved = rename(data, to) == 0;
        free(to);
        if (moved) return;
    }
    remove_tree(data);
}

int profile_run(char *const *argv, const char *cwd, const char *scratch_dir,
                struct profile *out, char **why)
{
    return profile_run_with(argv, cwd, scratch_dir, NULL, out, why);
}

int profile_run_with(char *const *argv, const char *cwd, const char *scratch_dir, const struct profile_opts *o,
                     struct profile *out, char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    char *const *prefix = o ? o->prefix : NULL;
    char *data = path_join(scratch_dir, "perf.data");
    char period[32];
    snprintf(period, sizeof period, "%ld", o && o->period_ns > 0 ? o->period_ns : PROFILE_DEFAULT_PERIOD_NS);
    struct run_opts opts = {.cwd = cwd, .capture_stdout = 1, .capture_stderr = 1};
    struct run_result res;
    int rc = -1;
    for (int bpf_off = 1; bpf_off >= 0; bpf_off--) {
        struct strvec rec = STRVEC_INIT;
        if (prefix) sv_push_all(&rec, prefix);
        /* -B (--no-buildid): no pass over every sample at the end to find
         * the files hit and their build-ids (nor copies of them into
         * ~/.debug): report and script read the files by path right after,
         * under the same prefix, so the build-ids would tell them nothing */
        sv_push_all(&rec,
                    (char *const[]){"perf", "record", "-e", "cpu-clock", "-c", period, "-q", "-B", "-o", data, NULL});
        if (bpf_off) sv_push(&rec, "--no-bpf-event");
        sv_push(&rec, "--");
        sv_push_all(&rec, argv);
        rc = run_argv(sv_argv(&rec), &opts, &res);
        sv_free(&rec);
        /* an older perf: "Error: unknown option `no-bpf-event'" */
        if (!bpf_off || rc == 0 || !res.spawned || !res.err || !strstr(res.err, "option `no-bpf-event'")) break;
        run_result_free(&res);
    }
    if (!res.spawned) {
        *why = prefix ? xasprintf("%s: cannot run it (%s)", prefix[0], strerror(res.errno_spawn))
                      : xstrdup("perf is not installed (Debian package linux-perf)");
    } else if (prefix && res.exited && res.status == 127 && res.err && strstr(res.err, ": perf: ")) {
        *why = xstrdup("perf is not installed (Debian package linux-perf)");
    } else if (rc != 0 || !file_exists(data)) {
        char *status = run_describe(&res), *detail = first_line(res.err);
        *why = xasprintf("perf record failed (%s)%s%s", status, *detail ? ": " : "", detail);
        free(status);
        free(detail);
    } else {
        out->output = xstrdup(res.out ? res.out : "");
    }
    run_result_free(&res);

    if (!*why) {
        /* --no-demangle: symbols as the ELF spells them. Demangled, a C++
         * clone "_ZN2ns3dotEPKfS1_i.avx2" prints as "ns::dot" - neither the
         * mangled name fmvgen knows the function by nor the clone. */
        char *const report[] = {"perf", "report", "-i", data, "--stdio", "--no-demangle", "--sort", "dso,sym",
                                "-F", "overhead,sample,dso,sym", "-t", "|", "-v", "--kallsyms=/dev/null", NULL};
        if (run_perf(prefix, report, "perf report", &res, why) == 0) {
            profile_parse_report(res.out ? res.out : "", out);
            if (out->total_samples == 0) *why = xstrdup("perf recorded no samples");
        }
        run_result_free(&res);
    }
    int sites = o && o->sites && o->sites[0];
    if (!*why && o && (o->maps || sites)) {
        /* one pass for both: mmap and task records, and each sample's
         * address as symbol+offset (names as the ELF spells them, like the
         * report's) */
        struct strvec script = STRVEC_INIT;
        sv_push_all(&script, (char *const[]){"perf", "script", "-i", data, "--kallsyms=/dev/null", NULL});
        if (o->maps) sv_push_all(&script, (char *const[]){"--show-mmap-events", "--show-task-events", NULL});
        sv_push_all(&script, (char *const[]){"-F", sites ? "comm,pid,ip,sym,symoff,dso" : "comm,pid", NULL});
        if (sites) sv_push(&script, "--no-demangle");
        if (run_perf(prefix, sv_argv(&script), "perf script", &res, why) == 0) {
            const char *text = res.out ? res.out : "";
            if (o->maps && profile_parse_maps(text, out) == 0)
                *why = xstrdup("perf recorded no mmap events (perf script --show-mmap-events shows none): it cannot "
                               "tell which programs and libraries ran");
            else if (sites)
                profile_parse_sites(text, o->sites, out);
        }
        sv_free(&script);
        run_result_free(&res);
    }
    drop_data(data);
    free(data);
    if (*why) {
        profile_free(out);
        return -1;
    }
    return 0;
}

/* symbol is name, or name and a '.' suffix (a compiler piece: main.cold) */
static int site_wanted(const char *symbol, size_t len, char *const *names)
{
    for (size_t i = 0; names[i]; i++) {
        size_t n = strlen(names[i]);
        if (n <= len && !strncmp(symbol, names[i], n) && (n == len || symbol[n] == '.')) return 1;
    }
    return 0;
}

static int compare_sites(const void *a, const void *b)
{
    const struct profile_site *x = a, *y = b;
    int c = strcmp(x->dso, y->dso);
    if (!c) c = strcmp(x->symbol, y->symbol);
    if (!c) c = (x->offset > y->offset) - (x->offset < y->offset);
    return c;
}

/* The "SYM+0xOFF (DSO)" at the end of a sample line "COMM PID IP
 * SYM+0xOFF (DSO)" (or "IP SYM+0xOFF (DSO)"): the first " (" that follows
 * a "+0x<hex>" and whose rest ends the line with ')' (a dso path may hold
 * " ("); the symbol is the word before the '+' (ELF names of C and C++
 * functions hold no spaces). Returns 0 with the parts set. */
static int split_site(const char *l, size_t len, const char **sym, size_t *sym_len, uint64_t *off, const char **dso,
                      size_t *dso_len)
{
    while (len && (l[len - 1] == ' ' || l[len - 1] == '\r')) len--;
    if (len < 2 || l[len - 1] != ')') return -1;
    for (const char *open = l; (open = memmem(open, (size_t)(l + len - open), " (", 2)); open++) {
        const char *hex = open;
        while (hex > l && ((hex[-1] >= '0' && hex[-1] <= '9') || (hex[-1] >= 'a' && hex[-1] <= 'f'))) hex--;
        if (hex == open || hex - l < 4 || strncmp(hex - 3, "+0x", 3) != 0) continue;
        const char *plus = hex - 3, *s = plus;
        while (s > l && s[-1] != ' ' && s[-1] != '\t') s--;
        if (s == plus || open + 3 > l + len - 1) continue;
        *sym = s;
        *sym_len = (size_t)(plus - s);
        *off = strtoull(hex, NULL, 16);
        *dso = open + 2;
        *dso_len = (size_t)(l + len - 1 - *dso);
        return 0;
    }
    return -1;
}

long profile_parse_sites(const char *text, char *const *names, struct profile *p)
{
    long added = 0;
    size_t first = p->n_sites;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *l = line, *sym, *dso;
        size_t sym_len, dso_len;
        uint64_t off;
        line = end ? end + 1 : NULL;
        if (memmem(l, len, "PERF_RECORD_", 12) || split_site(l, len, &sym, &sym_len, &off, &dso, &dso_len) != 0 ||
            !site_wanted(sym, sym_len, names))
            continue;
        p->sites = xrealloc(p->sites, (p->n_sites + 1) * sizeof *p->sites);
        p->sites[p->n_sites++] = (struct profile_site){
            .symbol = xstrndup(sym, sym_len), .dso = xstrndup(dso, dso_len), .offset = off, .samples = 1};
        added++;
    }
    /* merge equal sites (the new ones with each other and the old ones) */
    if (p->n_sites > first) {
        qsort(p->sites, p->n_sites, sizeof *p->sites, compare_sites);
        size_t k = 0;
        for (size_t i = 0; i < p->n_sites; i++) {
            if (k && !compare_sites(&p->sites[k - 1], &p->sites[i])) {
                p->sites[k - 1].samples += p->sites[i].samples;
                free(p->sites[i].symbol);
                free(p->sites[i].dso);
                continue;
            }
            p->sites[k++] = p->sites[i];
        }
        p->n_sites = k;
    }
    return added;
}

long profile_samples(const struct profile *p, const char *symbol)
{
    long n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->entries[i].symbol, symbol)) n += p->entries[i].samples;
    return n;
}

void profile_free(struct profile *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->entries[i].symbol);
        free(p->entries[i].dso);
    }
    free(p->entries);
    for (size_t i = 0; i < p->n_maps; i++) {
        free(p->maps[i].comm);
        free(p->maps[i].path);
    }
    free(p->maps);
    for (size_t i = 0; i < p->n_sites; i++) {
        free(p->sites[i].symbol);
        free(p->sites[i].dso);
    }
    free(p->sites);
    free(p->output);
    memset(p, 0, sizeof *p);
}
