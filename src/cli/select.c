/* select.c - `fmvgen select`: keep only the clones that pay, measured on the
 * user's own workloads (issue 4). This file parses the options, opens the
 * store, runs the selection (lib/select/session.h, where the pipeline is
 * described), and prints what it found: the terminal summary or
 * report.json, and the files written. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "patch/cpuid.h"
#include "select/report.h"
#include "select/session.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

static const char USAGE[] =
    "usage: fmvgen select [--configure CMD] --build CMD --run CMD [--run CMD...] [--test CMD]\n"
    "                     [--runs N|auto] [--confirm-runs N] [--timeout S] [--tolerance X]\n"
    "                     [--min-share PCT] [--max-growth PCT] [--sample-period US]\n"
    "                     [--set NAME=TARGETS...] [--fma-bisect N] [--fma-bisect-all]\n"
    "                     [--reference LIST] [--dispatch MODE] [--seed N] [--no-namespaces]\n"
    "                     [--no-placement-pins] [--keep] [--json]\n"
    "       fmvgen select --static [--configure CMD] --build CMD\n"
    "\n"
    "Chooses, by measurement, which candidates of the last scan get clones, and\n"
    "which target set each gets. Builds the baseline and one variant per target\n"
    "set (FMA psABI levels " TARGETS_DEFAULT "; FMA-free " TARGETS_EXACT ") with every\n"
    "candidate cloned, in private copies; checks each variant's outputs and tests\n"
    "against the baseline; profiles the workloads, runs interleaved; keeps the\n"
    "functions whose own time drops significantly and that matter (and those\n"
    "that gain a little each when, together, they gain significantly); builds that\n"
    "selection and times it end to end against the baseline. Writes\n"
    ".fmvgen/selected.patch, report.md, report.json and report.html.\n"
    "\n"
    "  --configure CMD   run before --build in each variant's fresh private build\n"
    "                    directory, with FMVGEN_SOURCE_DIR = its private copy of the\n"
    "                    sources, e.g. 'cmake -S \"$FMVGEN_SOURCE_DIR\" -B .'; needed when\n"
    "                    the scanned build directory is outside the project root, and\n"
    "                    for build directories below it that do not work when copied\n"
    "                    (a copied CMake build directory is moved; others are used as\n"
    "                    they are)\n"
    "  --build CMD       the build command, run by /bin/sh in a copy of the project\n"
    "                    (in its copy of the scanned build directory)\n"
    "  --run CMD         a workload (repeatable), run in the copy after the build;\n"
    "                    a workload must do a fixed amount of work (a benchmark that\n"
    "                    runs for a fixed time shows no speedup: the report says so);\n"
    "                    its stdout is compared between builds, except lines that\n"
    "                    differ between two runs of the baseline (timings)\n"
    "  --test CMD        the project's tests; a variant failing them is not eligible\n"
    "  --runs N|auto     profiled runs per variant and workload (at least 2); auto (the\n"
    "                    default): 5, or 8 when the baseline's workloads, run 6 times\n"
    "                    first, show a busy machine's slow bursts (a run >= 1.25x its\n"
    "                    fastest): from 8 runs a side samples are compared by rank\n"
    "                    (from 8 on, functions are compared by rank: give 8 or more\n"
    "                    on a busy machine)\n"
    "  --confirm-runs N  when functions are faster by their own interval but held back\n"
    "                    by the correction for many tests (Holm), N fresh rounds of\n"
    "                    only the arms they need test them again, on those runs alone\n"
    "                    (default: --runs; 0: none)\n"
    "  --timeout S       kill a build, workload or test running longer (default 600)\n"
    "  --tolerance X     accept floating-point outputs within relative error X\n"
    "                    (lets FMA variants be chosen when they differ in last bits)\n"
    "  --min-share PCT   a function must hold PCT%% of the run's samples (default 2)\n"
    "  --max-growth PCT  the code the selection may add, in percent of a second whole\n"
    "                    build (the -march=x86-64-v3 reference's code, else the\n"
    "                    baseline's; default 10); above it, the functions with the\n"
    "                    least gain per byte are dropped; 'none': no limit\n"
    "  --sample-period US  perf samples every workload's CPU time every US\n"
    "                    microseconds (10..100000); default: per workload, its CPU\n"
    "                    time per run (measured by the output checks) / 2500 samples,\n"
    "                    at least 50 and at most 1000 (report.json's\n"
    "                    workloads[].sampling says which and why)\n"
    "  --fma-bisect N    when an FMA set changes an output and an FMA-free set keeps\n"
    "                    them, at most N extra builds (default 8; 0: none) telling\n"
    "                    which functions' FMA clones change it (bisection, outputs\n"
    "                    checked, nothing timed): the others may take that set;\n"
    "                    only functions that would take that set are searched\n"
    "  --fma-bisect-all  search every function whose clones hold FMA instructions\n"
    "  --set NAME=TARGETS  a target set to compare (repeatable; replaces the two\n"
    "                    default sets), e.g. --set v3=arch=x86-64-v3; FMA-free when\n"
    "                    none of its targets lets the compiler contract a*b+c\n"
    "  --reference LIST  whole-program builds to compare with, built through fmvgen's\n"
    "                    compiler wrapper (the flags reach every compile, whatever\n"
    "                    the build does with CFLAGS): v3 (-march=x86-64-v3), v3-nofma\n"
    "                    (the same with -mno-fma: the baseline's floats), or none;\n"
    "                    default: v3, and v3-nofma too when FMA changes the outputs\n"
    "  --dispatch MODE   how the clones are reached, in every build measured and in\n"
    "                    selected.patch (as patch --dispatch): cpuid - fmvgen's own\n"
    "                    CPUID check, no libgcc CPU detection (~4.6 KB per linked\n"
    "                    file) in the growth; pointer; ifunc (target_clones' IFUNC,\n"
    "                    glibc only); auto (the default): cpuid, or ifunc when a\n"
    "                    --set has a target cpuid has no copy for. Functions the\n"
    "                    patch cannot give cpuid or pointer get IFUNC (listed in\n"
    "                    the report)\n"
    "  --seed N          the seed of the runs' random order in each round (report.json\n"
    "                    prints the one used: give it to repeat a run)\n"
    "  --no-namespaces   run variants at their copies' own paths, not in a private mount\n"
    "                    namespace with the copy at the project's path (the default\n"
    "                    where permitted); runs of the original tree's code are refused\n"
    "                    either way\n"
    "  --no-placement-pins  do not keep hot functions that get no clones at the offset\n"
    "                    from a 64-byte boundary they have in the baseline build (by\n"
    "                    default selected.patch gives them an aligned attribute: the\n"
    "                    clones would otherwise move them, which alone can halve a\n"
    "                    loop's speed on some CPUs)\n"
    "  --static          select without timing: from the clones' ISA needs and loop records\n"
    "  --keep            keep the temp directory and say where it is\n"
    "  --json            print report.json on stdout\n";

/* --set NAME=TARGETS: the name a word of letters, digits, '-' and '_'
 * (it names a build and a report column), the targets as patch --targets. */
#define MAX_SETS 4
static int parse_set(const char *arg, struct select_target_set *sets)
{
    size_t n = 0;
    while (n < MAX_SETS && sets[n].name) n++;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : 0;
    if (!eq || !len || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != len)
        return fmv_error("--set: '%s' is not NAME=TARGETS (a name of letters, digits, '-', '_')", arg);
    char *name = xstrndup(arg, len);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (!strcmp(sets[i].name, name)) rc = fmv_error("--set: the name '%s' is given twice", name);
    if (rc == 0 && (!strcmp(name, "baseline") || !strcmp(name, "selected") || !strncmp(name, "reference", 9)))
        rc = fmv_error("--set: '%s' names one of select's own builds", name);
    if (rc == 0 && n == MAX_SETS) rc = fmv_error("--set: at most %d target sets", MAX_SETS);
    struct strvec targets = STRVEC_INIT;
    if (rc == 0) rc = targets_parse(eq + 1, &targets);   /* says why; an empty set is an error there too */
    if (rc == 0) sets[n] = (struct select_target_set){name, xstrdup(eq + 1), !targets_enable_fma(&targets)};
    else free(name);
    sv_free(&targets);
    return rc;
}

static void free_sets(struct select_target_set *sets)
{
    for (size_t i = 0; i < MAX_SETS && sets[i].name; i++) {
        free((char *)sets[i].name);
        free((char *)sets[i].targets);
    }
}

/* --reference LIST: "v3", "v3-nofma", "none", comma-separated. */
static int parse_references(const char *list, struct select_options *o)
{
    o->reference_v3 = o->reference_nofma = o->reference_nofma_auto = 0;
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0, none = 0, n = 0;
    for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save), n++) {
        if (!strcmp(w, "v3")) o->reference_v3 = 1;
        else if (!strcmp(w, "v3-nofma")) o->reference_nofma = 1;
        else if (!strcmp(w, "none")) none = 1;
        else rc = fmv_error("--reference: '%s' is not a reference (v3, v3-nofma or none)", w);
    }
    if (rc == 0 && (n == 0 || (none && n > 1))) rc = fmv_error("--reference: '%s': give v3, v3-nofma, both, or none", list);
    free(copy);
    return rc;
}

static int parse_options(int argc, char **argv, struct select_options *o, struct strvec *runs_cmd, int *json,
                         struct select_target_set *sets, int *dispatch_given)
{
    enum { O_BUILD = 256, O_CONFIGURE, O_RUN, O_TEST, O_RUNS, O_TIMEOUT, O_TOL, O_SHARE, O_STATIC, O_KEEP, O_JSON, O_HELP, O_SEED, O_REFERENCE, O_SET, O_NO_NS, O_GROWTH, O_FMA_BISECT, O_FMA_ALL, O_DISPATCH, O_CONFIRM_RUNS, O_NO_PINS, O_SAMPLE_PERIOD };
    static const struct option longopts[] = {
        {"build", required_argument, NULL, O_BUILD}, {"configure", required_argument, NULL, O_CONFIGURE},
        {"run", required_argument, NULL, O_RUN},
        {"test", required_argument, NULL, O_TEST},   {"runs", required_argument, NULL, O_RUNS},
        {"timeout", required_argument, NULL, O_TIMEOUT}, {"tolerance", required_argument, NULL, O_TOL},
        {"min-share", required_argument, NULL, O_SHARE}, {"max-growth", required_argument, NULL, O_GROWTH}, {"static", no_argument, NULL, O_STATIC},
        {"keep", no_argument, NULL, O_KEEP},         {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, O_HELP},         {"seed", required_argument, NULL, O_SEED},
        {"reference", required_argument, NULL, O_REFERENCE}, {"set", required_argument, NULL, O_SET},
        {"no-namespaces", no_argument, NULL, O_NO_NS}, {"no-placement-pins", no_argument, NULL, O_NO_PINS}, {"fma-bisect", required_argument, NULL, O_FMA_BISECT},
        {"fma-bisect-all", no_argument, NULL, O_FMA_ALL}, {"dispatch", required_argument, NULL, O_DISPATCH},
        {"confirm-runs", required_argument, NULL, O_CONFIRM_RUNS},
        {"sample-period", required_argument, NULL, O_SAMPLE_PERIOD},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_BUILD: o->build = optarg; break;
        case O_CONFIGURE: o->configure = optarg; break;
        case O_RUN: sv_push(runs_cmd, optarg); break;
        case O_TEST: o->test = optarg; break;
        case O_RUNS:
            o->runs_auto = !strcmp(optarg, "auto");
            if (o->runs_auto) {
                o->runs = SELECT_DEFAULT_RUNS;
                break;
            }
            o->runs = (int)strtol(optarg, &end, 10);
            if (*end || o->runs < 1 || o->runs > 1000) {
                fmv_error("--runs: '%s' is not a number of runs (1..1000) nor 'auto'", optarg);
                return 2;
            }
            break;
        case O_CONFIRM_RUNS:
            o->confirm_runs = (int)strtol(optarg, &end, 10);
            if (*end || !*optarg || o->confirm_runs < 0 || o->confirm_runs > 1000 || o->confirm_runs == 1) {
                fmv_error("--confirm-runs: '%s' is not a number of runs (0, or 2..1000)", optarg);
                return 2;
            }
            break;
        case O_SAMPLE_PERIOD: {
            long us = strtol(optarg, &end, 10);
            if (*end || !*optarg || us < SAMPLING_OPTION_MIN_US || us > SAMPLING_OPTION_MAX_US) {
                fmv_error("--sample-period: '%s' is not a period in microseconds (%d..%d)", optarg,
                          SAMPLING_OPTION_MIN_US, SAMPLING_OPTION_MAX_US);
                return 2;
            }
            o->sample_period_ns = us * 1000;
            break;
        }
        case O_TIMEOUT:
            o->timeout_s = strtod(optarg, &end);
            if (*end || !(o->timeout_s > 0)) {
                fmv_error("--timeout: '%s' is not a positive number of seconds", optarg);
                return 2;
            }
            break;
        case O_TOL:
            o->tolerance = strtod(optarg, &end);
            if (*end || !(o->tolerance >= 0) || o->tolerance >= 1) {
                fmv_error("--tolerance: '%s' is not a relative error in [0, 1)", optarg);
                return 2;
            }
            break;
        case O_SHARE:
            o->min_share = strtod(optarg, &end) / 100;
            if (*end || !(o->min_share >= 0) || o->min_share > 1) {
                fmv_error("--min-share: '%s' is not a percentage", optarg);
                return 2;
            }
            break;
        case O_FMA_BISECT:
            o->fma_bisect = (int)strtol(optarg, &end, 10);
            if (*end || !*optarg || o->fma_bisect < 0 || o->fma_bisect > 100) {
                fmv_error("--fma-bisect: '%s' is not a number of builds (0..100)", optarg);
                return 2;
            }
            break;
        case O_FMA_ALL: o->fma_bisect_all = 1; break;
        case O_DISPATCH:
            /* "auto": select's default (below), which patch's auto (IFUNC) is not */
            *dispatch_given = strcmp(optarg, "auto") != 0;
            if (*dispatch_given && patch_dispatch_parse(optarg, &o->dispatch) != 0) {
                fmv_error("--dispatch: '%s' is not a dispatch (cpuid, pointer, ifunc or auto)", optarg);
                return 2;
            }
            break;
        case O_GROWTH:
            if (!strcmp(optarg, "none")) {
                o->max_growth = -1;
                break;
            }
            o->max_growth = strtod(optarg, &end);
            if (*end || !*optarg || !(o->max_growth > 0) || o->max_growth > 1000) {
                fmv_error("--max-growth: '%s' is not a percentage above 0 (or 'none')", optarg);
                return 2;
            }
            break;
        case O_SEED: {
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-' || v >= (1ULL << 53)) {
                fmv_error("--seed: '%s' is not a number below 2^53", optarg);
                return 2;
            }
            o->seed = v;
            o->seed_given = 1;
            break;
        }
        case O_SET:
            if (parse_set(optarg, sets) != 0) return 2;
            break;
        case O_REFERENCE:
            if (parse_references(optarg, o) != 0) return 2;
            break;
        case O_STATIC: o->is_static = 1; break;
        case O_KEEP: o->keep = 1; break;
        case O_NO_NS: o->no_namespaces = 1; break;
        case O_NO_PINS: o->placement_pins = 0; break;
        case O_JSON: *json = 1; break;
        case O_HELP: return -1;
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("select: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (!o->build) {
        fmv_error("select: --build CMD is required (the command that builds the project)");
        return 2;
    }
    if (!o->is_static && !runs_cmd->n) {
        fmv_error("select: give at least one --run CMD (a workload to measure), or --static");
        return 2;
    }
    if (!o->is_static && o->runs < 2) {
        fmv_error("select: --runs %d gives too few samples for an interval; use --runs 3 or more", o->runs);
        return 2;
    }
    return 0;
}


/* The dispatch when --dispatch is not given (or auto): cpuid, unless a
 * target set has a target it has no copy for (--set NAME=popcnt): then
 * IFUNC for every build, said in a note. Given cpuid with such a target:
 * a usage error. 0, or 2 after the error. */
static int settle_dispatch(struct select_options *o, int given)
{
    static char why[512];
    const struct select_target_set *sets = o->sets ? o->sets : select_target_sets;
    size_t n = o->sets ? o->n_sets : select_n_target_sets;
    if (!given) o->dispatch = SELECT_DEFAULT_DISPATCH;
    for (size_t i = 0; i < n && o->dispatch == PATCH_DISPATCH_CPUID; i++) {
        struct strvec targets = STRVEC_INIT;
        const char *unknown = targets_parse(sets[i].targets, &targets) == 0 ? patch_cpuid_unknown_target(&targets) : NULL;
        if (unknown && given) {
            fmv_error("--dispatch cpuid: the set %s's target '%s' has no cpuid copy (only arch=x86-64-v2/-v3/-v4 "
                      "and avx2); give --dispatch ifunc or pointer", sets[i].name, unknown);
            sv_free(&targets);
            return 2;
        }
        if (unknown) {
            snprintf(why, sizeof why, "every build's clones were dispatched by IFUNC, not by fmvgen's own CPUID "
                                      "check (the default): the set %s's target '%s' has no cpuid copy",
                     sets[i].name, unknown);
            o->dispatch = PATCH_DISPATCH_IFUNC;
            o->dispatch_why = why;
        }
        sv_free(&targets);
    }
    return 0;
}

/* The terminal summary (or report.json with --json) and where the files are. */
static void print_outputs(const struct select_session *s, const struct select_outputs *out, int json)
{
    if (json) {
        fputs(out->json_text, stdout);
        fputc('\n', stdout);
        return;
    }
    char *sum = select_report_summary(&s->rep);
    fputs(sum, stdout);
    free(sum);
    printf("wrote %s, %s, %s, %s\n", out->patch, out->markdown, out->json, out->html);
}

int cmd_select(int argc, char **argv)
{
    struct strvec runs_cmd = STRVEC_INIT;
    int json = 0;
    struct select_options o = {.runs_cmd = &runs_cmd, .runs = SELECT_DEFAULT_RUNS, .runs_auto = 1,
                               .confirm_runs = -1,
                               .timeout_s = SELECT_DEFAULT_TIMEOUT_S, .tolerance = -1,
                               .min_share = SELECT_DEFAULT_MIN_SHARE, .reference_v3 = 1, .placement_pins = 1,
                               .reference_nofma_auto = 1, .fma_bisect = SELECT_DEFAULT_FMA_BISECT,
                               .dispatch = SELECT_DEFAULT_DISPATCH};
    struct select_target_set sets[MAX_SETS + 1] = {{0}};
    int dispatch_given = 0;
    int prc = parse_options(argc, argv, &o, &runs_cmd, &json, sets, &dispatch_given);
    while (o.n_sets < MAX_SETS && sets[o.n_sets].name) o.n_sets++;
    if (o.n_sets) o.sets = sets;
    if (prc == 0) prc = settle_dispatch(&o, dispatch_given);
    if (prc != 0) {
        sv_free(&runs_cmd);
        free_sets(sets);
        return prc < 0 ? cli_usage(USAGE, 0) : prc;
    }
    int rc = 1;
    struct store *st = cli_open_store();
    if (st) {
        struct select_session s;
        switch (select_run(&s, &o, st)) {
        case SELECT_DONE: {
            struct select_outputs out;
            rc = select_write_outputs(&s, &out) == 0 ? 0 : 1;
            print_outputs(&s, &out, json);
            select_outputs_free(&out);
            break;
        }
        case SELECT_NO_CANDIDATES:
            printf("nothing to do: the scan found no candidate to clone\n");
            rc = 0;
            break;
        case SELECT_INTERRUPTED: rc = 130; break;
        case SELECT_FAILED: rc = 1; break;
        }
        select_session_free(&s);
        store_close(st);
    }
    sv_free(&runs_cmd);
    free_sets(sets);
    return rc;
}
