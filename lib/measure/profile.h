/* profile.h - where a program spends its time, by symbol, measured with
 * `perf record -e cpu-clock` (a software event: it works in VMs and
 * containers without hardware counters) and `perf report --sort dso,sym`.
 * Each entry also says which file the symbol is in and an address inside
 * it, so that symbols of one name (static functions of different files,
 * or one name in two programs) stay apart: lib/elf/symsource.h tells which
 * source file such an entry came from.
 *
 * `fmvgen demo` uses it to show which clone of each multiversioned function
 * actually ran on this machine: the clone symbols (foo.arch_x86_64_v4, ...)
 * that collected the samples - measured, not inferred from the CPU flags. */
#ifndef FMVGEN_MEASURE_PROFILE_H
#define FMVGEN_MEASURE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct profile_entry {
    char *symbol;      /* as the ELF spells it (C++ names mangled, not demangled):
                        * "foo.arch_x86_64_v4", "_ZN2ns3dotEPKfS1_i.avx2", "main";
                        * a kernel address as perf prints one it has no symbol
                        * for ("0xffffffff8133cac0"): kernel symbols are not
                        * loaded (they cost each perf pass ~0.1 s of CPU) */
    int kernel;        /* kernel code ([k]): one entry per sampled address,
                        * counted in total_samples like any other */
    long samples;
    char *dso;         /* the file holding it, as perf names it: an absolute
                        * path, or "[kernel.kallsyms]", "[vdso]", "[unknown]" */
    uint64_t addr;     /* an address inside the symbol (a sample's), as a
                        * FILE OFFSET in dso (perf's map_ip; not st_value in
                        * a non-PIE executable); 0 when perf gave none */
};

/* One executable mapping of a file by a process, from perf's mmap records
 * (`perf script --show-mmap-events`): which programs and shared objects a
 * run loaded, and which process loaded them. */
struct profile_map {
    int pid;
    char *comm;        /* the process's name when it mapped the file */
    char *path;        /* as the process saw it: absolute, or "[vdso]" ... */
    int first;         /* the first file this pid mapped since it started
                        * or last exec'd: its executable (for a script,
                        * its interpreter) */
};

/* The samples at one address of a symbol asked for by profile_opts.sites:
 * for telling which inlined code inside a function ran (select/hostlines.h
 * resolves the address to its inline frames). */
struct profile_site {
    char *symbol;      /* as the ELF spells it: "main", "main.cold" */
    char *dso;         /* as in profile_entry */
    uint64_t offset;   /* from the symbol's start */
    long samples;
};

struct profile {
    struct profile_entry *entries;
    size_t n;
    long total_samples;
    char *output;      /* the profiled program's stdout */
    struct profile_map *maps;   /* with profile_opts.maps, in record order */
    size_t n_maps;
    struct profile_site *sites;   /* with profile_opts.sites, sorted by dso, symbol, offset */
    size_t n_sites;
};

/* How profile_run_with runs perf. */
struct profile_opts {
    /* put before every perf command (record, report, script), e.g. a
     * namespace helper (run/namespace.h): perf then records and reads the
     * files as the profiled program saw them; NULL: none */
    char *const *prefix;
    /* 1: also read the mmap records into out->maps; a profile without any
     * is an error (a perf that records no mmap data cannot say what ran) */
    int maps;
    /* NULL-terminated function names (as the ELF spells them), or NULL:
     * the samples of their symbols (the name, or the name and a '.'
     * suffix: "main.cold") by address into out->sites (read in the same
     * `perf script` pass as maps) */
    char *const *sites;
    /* cpu-clock's sampling period in nanoseconds; 0: PROFILE_DEFAULT_PERIOD_NS */
    long period_ns;
};

/* The period of profile_run: 20 kHz, so that even the short runs of the
 * demo's --quick mode collect some samples in each hot function. */
#define PROFILE_DEFAULT_PERIOD_NS 50000L

/* Runs argv (in cwd, NULL: inherit) under perf (`perf record
 * --no-bpf-event`: without it perf 6.1 waits up to a second after the
 * program ended for its side-band thread, which only BPF programs' symbols
 * need; a perf that does not know the option is run without it), then
 * `perf report` and, with opts' maps or sites, one `perf script` (three
 * perf processes at most), writing perf's data into
 * scratch_dir (removed once read; with the environment variable
 * FMVGEN_KEEP_PERF_DATA set to a directory, moved there instead as
 * perf-PID-N.data, N counting this process's profiles: for debugging; it
 * holds no build-ids - perf record -B -, so perf reads the files at their
 * paths). Returns 0 with out filled, or -1 with *why set to one line
 * saying what is missing or failed (perf not installed - with the Debian
 * package to install -, not permitted, the program failed); nothing is
 * printed. Free out with profile_free and *why with free. */
int profile_run(char *const *argv, const char *cwd, const char *scratch_dir,
                struct profile *out, char **why);

/* profile_run, with opts (NULL: none). */
int profile_run_with(char *const *argv, const char *cwd, const char *scratch_dir, const struct profile_opts *opts,
                     struct profile *out, char **why);

/* Adds the mmap records of `perf script --show-mmap-events
 * --show-task-events -F comm,pid` output to p->maps: PERF_RECORD_MMAP and
 * MMAP2 lines (their file), PERF_RECORD_COMM exec lines (the next file the
 * pid maps is its new executable); sample lines are skipped. Returns the
 * number of maps added. */
size_t profile_parse_maps(const char *text, struct profile *p);

/* Adds the entries of perf report's output text (the layout profile_run
 * asks for: "percent|samples|dso|0xADDR O [.] symbol", '#' lines skipped;
 * without -v's address, addr stays 0) to p and its total. */
void profile_parse_report(const char *text, struct profile *p);

/* Adds the samples of `perf script -F comm,pid,ip,sym,symoff,dso` output
 * text ("  prog 4242  55d0c8a4f1a3 main+0x1a3 (/tmp/p/prog)"; without
 * comm and pid too; PERF_RECORD_ lines skipped) whose symbol belongs to
 * one of names (NULL-terminated; see profile_opts.sites) to p->sites,
 * merged and sorted. Returns the number of samples added. */
long profile_parse_sites(const char *text, char *const *names, struct profile *p);

/* Samples of one symbol (0 when it never showed up), in every dso. */
long profile_samples(const struct profile *p, const char *symbol);

void profile_free(struct profile *p);

#endif
