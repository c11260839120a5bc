/* verify.c - `fmvgen verify [OPTIONS] -- PROG ARGS...`: runs a program
 * natively and on emulated older CPUs and says, per CPU, whether it ran,
 * gave the native answer, and which clone each resolver picked. Parses and
 * prints; the work is lib/verify/verify.h. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/demangle.h"
#include "util/util.h"
#include "verify/cpus.h"
#include "verify/verify.h"

static const char USAGE[] =
    "usage: fmvgen verify [--cpu LIST] [--timeout S] [--compare FILE...] [--float-tolerance X]\n"
    "                     [--ignore-lines REGEX]... [--against PROG0] [--json] -- PROG [ARGS...]\n"
    "\n"
    "Runs PROG natively (the reference) and under qemu-x86_64 for one CPU model\n"
    "per x86-64 level, and reports for each CPU: exit status or the signal that\n"
    "killed it (SIGILL: an instruction the CPU lacks), whether stdout and the\n"
    "--compare files match the native run, and which clone each multiversioned\n"
    "function's resolver picks there (in PROG and in its libraries found through\n"
    "LD_LIBRARY_PATH or its rpath). A function of fmvgen patch --dispatch cpuid\n"
    "must get the copy fmvgen_cp_NAME_TARGET for the CPU's x86-64 level: any\n"
    "other answer of its resolver fails that CPU. Only the native time is shown:\n"
    "emulated times say nothing about the program. Exits 1 when the program\n"
    "fails on any CPU (a signal, a timeout, a non-zero exit status, a wrong cpuid\n"
    "copy) or its outputs differ, 2 when it cannot verify (not an x86-64 ELF\n"
    "program, qemu missing, bad options).\n"
    "\n"
    "Options:\n"
    "  --cpu LIST            qemu CPU models, comma-separated (default: " VERIFY_DEFAULT_CPUS ":\n"
    "                        baseline, x86-64-v2, v2+AVX, x86-64-v3; x86-64-v4 is the\n"
    "                        native run where this CPU has AVX-512)\n"
    "  --timeout S           stop a run after S seconds (default 60)\n"
    "  --compare FILE...     files PROG writes (relative to the current directory),\n"
    "                        compared with the native run's; each is removed before\n"
    "                        every run, and the native run goes last\n"
    "  --float-tolerance X   numbers in text match when |a-b| <= X*max(1,|a|,|b|)\n"
    "                        (default: outputs must be identical)\n"
    "  --ignore-lines REGEX  leave out of the comparison the lines of stdout and of the\n"
    "                        --compare files that match REGEX (POSIX extended, anywhere\n"
    "                        in the line) on both sides, e.g. a test program's own\n"
    "                        timings: --ignore-lines 'took [0-9]+ ms'; repeatable.\n"
    "                        Each output cell says how many lines were left out\n"
    "\n"
    "Output containing a NUL byte is binary: it must be identical, and a difference\n"
    "is reported as the first differing byte (0-based offset), not as a line.\n"
    "  --against PROG0       also run PROG0 (the unpatched build) with the same ARGS,\n"
    "                        natively and on each CPU, just before PROG: on each CPU\n"
    "                        PROG must end as PROG0 does (exit status or signal) and\n"
    "                        write the same stdout and --compare files; a PROG that\n"
    "                        prints nothing and exits 0 where PROG0 prints fails\n"
    "  --json                machine-readable report\n"
    "\n"
    "Environment: FMVGEN_QEMU (the qemu-x86_64 to use), FMVGEN_DISPATCH_LIB (the\n"
    "preloaded helper, libfmvgen-dispatch.so).\n";

/* ---- the human table ---- */

struct table {
    size_t ncols, nrows;
    char **cells;   /* row-major, owned */
};

static void table_init(struct table *t, size_t ncols)
{
    t->ncols = ncols;
    t->nrows = 0;
    t->cells = NULL;
}

static void table_row(struct table *t, char **cells)
{
    t->cells = xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof *t->cells);
    for (size_t c = 0; c < t->ncols; c++) t->cells[t->nrows * t->ncols + c] = cells[c];
    t->nrows++;
}

static void table_print(struct table *t, FILE *f)
{
    size_t *w = xcalloc(t->ncols, sizeof *w);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            size_t len = strlen(t->cells[r * t->ncols + c]);
            if (len > w[c]) w[c] = len;
        }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            if (c + 1 == t->ncols) fprintf(f, "%s\n", cell);
            else fprintf(f, "%-*s  ", (int)w[c], cell);
        }
    }
    for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    free(w);
}

static char *match_text(const struct verify_run *run, const struct output_diff *d, int is_native, int missing_native)
{
    if (is_native) return xstrdup(!run->compared ? "-" : missing_native ? "not written" : "reference");
    if (!run->compared) return xstrdup("-");
    if (d->binary && d->match == OUTPUT_DIFFERENT) return xasprintf("DIFFERS (byte %zu)", d->byte);
    switch (d->match) {
    case OUTPUT_IDENTICAL: return xstrdup("identical");
    case OUTPUT_WITHIN_TOLERANCE: return xasprintf("within tolerance (%.2g)", d->max_diff);
    case OUTPUT_FLOATS_DIFFER: return xasprintf("floats differ (%.2g)", d->max_diff);
    /* line 0: written here but not by the native run (that has its note). */
    case OUTPUT_DIFFERENT: return d->line ? xasprintf("DIFFERS (line %d)", d->line) : xstrdup("DIFFERS");
    case OUTPUT_MISSING: return xstrdup("not written");
    }
    return xstrdup("?");
}

static int output_ok_for(const struct verify_report *r, const struct output_diff *d)
{
    return d->match == OUTPUT_IDENTICAL || (r->float_tolerance >= 0 && d->match == OUTPUT_WITHIN_TOLERANCE);
}

/* "stdout DIFFERS (line 3)" and the like, for the --against column. */
static char *match_text_diff(const char *name, const struct output_diff *d)
{
    if (d->match == OUTPUT_MISSING) return xasprintf("%s not written", name);
    if (d->binary && d->match == OUTPUT_DIFFERENT) return xasprintf("%s DIFFERS (byte %zu)", name, d->byte);
    if (d->match == OUTPUT_FLOATS_DIFFER) return xasprintf("%s floats differ (%.2g)", name, d->max_diff);
    return d->line ? xasprintf("%s DIFFERS (line %d)", name, d->line) : xasprintf("%s DIFFERS", name);
}

/* The cell, with the number of --ignore-lines lines left out, so that a
 * pattern that hides too much (or nothing) shows. */
static char *match_cell(const struct verify_report *r, const struct verify_run *run, const struct output_diff *d,
                        int is_native, int missing_native)
{
    char *text = match_text(run, d, is_native, missing_native);
    /* Binary data is never filtered: no count to show. */
    if (!r->ignore.n || !run->compared || d->match == OUTPUT_MISSING || d->binary) return text;
    char *cell = xasprintf("%s (%d ignored)", text, d->ignored);
    free(text);
    return cell;
}

/* "x86-64-v2+AVX" for SandyBridge-like CPUs: the level alone hides the AVX
 * that an avx clone would use. */
static char *level_cell(const struct verify_run *run)
{
    if (!run->level) return xstrdup("?");
    int below_v3 = !strcmp(run->level, "x86-64") || !strcmp(run->level, "x86-64-v2");
    int has_avx = run->features && (strstr(run->features, "avx ") || !strcmp(run->features + (strlen(run->features) >= 3 ? strlen(run->features) - 3 : 0), "avx"));
    return below_v3 && has_avx ? xasprintf("%s+AVX", run->level) : xstrdup(run->level);
}

/* How a run ended, for a sentence: "exit 0" rather than "ok". */
static char *ending(char *result)
{
    if (strcmp(result, "ok") != 0) return result;
    free(result);
    return xstrdup("exit 0");
}

/* The --against column: how this CPU's run compares with PROG0's there. */
static char *against_cell(const struct verify_report *r, const struct verify_against *a)
{
    if (a->ok) return xstrdup("same");
    if (a->silent) return xstrdup("SILENT (prints nothing)");
    if (!a->status_match) {
        char *res = ending(verify_against_result(a));
        char *cell = xasprintf("DIFFERS (it: %s)", res);
        free(res);
        return cell;
    }
    if (!output_ok_for(r, &a->out)) return match_text_diff("stdout", &a->out);
    for (size_t k = 0; k < r->n_compare; k++)
        if (!output_ok_for(r, &a->files[k])) return match_text_diff(path_basename(r->compare[k]), &a->files[k]);
    return xstrdup("DIFFERS");
}

/* Why one CPU's run differs from PROG0's there, one line each. */
static void print_against_failure(const struct verify_report *r, const struct verify_run *run)
{
    const struct verify_against *a = run->against;
    if (a->ok) return;
    const char *them = path_basename(r->against);
    if (a->silent) {
        printf("  %s: prints nothing and exits 0, while %s prints %zu bytes: the program did not do its work\n",
               run->cpu, them, a->reference_bytes);
        return;
    }
    if (!a->status_match) {
        char *mine = ending(verify_run_result(run)), *theirs = ending(verify_against_result(a));
        printf("  %s: ends with %s, %s with %s%s%s\n", run->cpu, mine, them, theirs, a->message ? ": " : "",
               a->message ? a->message : "");
        free(mine);
        free(theirs);
    }
    if (!a->compared) return;
    for (size_t k = 0; k <= r->n_compare; k++) {
        const struct output_diff *d = k ? &a->files[k - 1] : &a->out;
        const char *name = k ? r->compare[k - 1] : "stdout";
        if (output_ok_for(r, d)) continue;
        if (d->match == OUTPUT_MISSING)
            printf("  %s: %s was not written (%s wrote it)\n", run->cpu, name, them);
        else if (d->binary && d->match == OUTPUT_DIFFERENT)
            printf("  %s: %s: binary content differs from %s's at byte %zu\n", run->cpu, name, them, d->byte);
        else if (d->line)
            printf("  %s: %s line %d: %s \"%s\", here \"%s\"\n", run->cpu, name, d->line, them,
                   d->expected ? d->expected : "", d->actual ? d->actual : "");
        else
            printf("  %s: %s differs from %s's\n", run->cpu, name, them);
    }
}

static void print_table(const struct verify_report *r)
{
    struct strbuf cmd = STRBUF_INIT;
    for (size_t i = 0; r->argv[i]; i++) {
        char *q = shell_quote(r->argv[i]);
        sb_addf(&cmd, "%s%s", i ? " " : "", q);
        free(q);
    }
    printf("fmvgen verify: %s\n\n", sb_str(&cmd));
    sb_free(&cmd);

    size_t ncols = 5 + r->n_compare + (r->against ? 1 : 0);
    struct table t;
    table_init(&t, ncols);
    char **cells = xcalloc(ncols, sizeof *cells);
    cells[0] = xstrdup("CPU");
    cells[1] = xstrdup("level");
    cells[2] = xstrdup("result");
    cells[3] = xstrdup("time");
    cells[4] = xstrdup("stdout");
    for (size_t k = 0; k < r->n_compare; k++) cells[5 + k] = xstrdup(path_basename(r->compare[k]));
    if (r->against) cells[5 + r->n_compare] = xasprintf("vs %s", path_basename(r->against));
    table_row(&t, cells);
    for (size_t i = 0; i < r->n_runs; i++) {
        const struct verify_run *run = &r->runs[i];
        cells[0] = xstrdup(run->cpu);
        cells[1] = level_cell(run);
        cells[2] = verify_run_result(run);
        /* Emulated times are not shown as numbers: they are qemu's. */
        cells[3] = run->emulated ? xstrdup("(emulated)") : xasprintf("%.3f s", run->seconds);
        cells[4] = match_cell(r, run, &run->out, i == 0, 0);
        for (size_t k = 0; k < r->n_compare; k++)
            cells[5 + k] = match_cell(r, run, &run->files[k], i == 0, run->files[k].match == OUTPUT_MISSING);
        if (r->against) cells[5 + r->n_compare] = against_cell(r, run->against);
        table_row(&t, cells);
    }
    table_print(&t, stdout);
    free(cells);

    /* Why each failing CPU failed, and the first differing line. */
    for (size_t i = 0; i < r->n_runs; i++) {
        const struct verify_run *run = &r->runs[i];
        if (run->outcome == VERIFY_SIGNALED && run->signal == 4)
            printf("  %s: killed by SIGILL: the program executed an instruction this CPU does not have\n", run->cpu);
        else if (run->outcome != VERIFY_EXITED && run->message)
            printf("  %s: %s\n", run->cpu, run->message);
        else if (run->outcome == VERIFY_EXITED && run->exit_status != 0)
            printf("  %s: exit status %d%s%s\n", run->cpu, run->exit_status, run->message ? ": " : "",
                   run->message ? run->message : "");
        if (run->against) print_against_failure(r, run);
        if (!run->compared || i == 0) continue;
        const struct output_diff *diffs[64];
        const char *names[64];
        size_t nd = 0;
        diffs[nd] = &run->out;
        names[nd++] = "stdout";
        for (size_t k = 0; k < r->n_compare && nd < 64; k++) {
            diffs[nd] = &run->files[k];
            names[nd++] = r->compare[k];
        }
        for (size_t k = 0; k < nd; k++) {
            const struct output_diff *d = diffs[k];
            if (d->match == OUTPUT_MISSING)
                printf("  %s: %s was not written\n", run->cpu, names[k]);
            else if (d->binary && d->match == OUTPUT_DIFFERENT)
                printf("  %s: %s: binary content differs at byte %zu\n", run->cpu, names[k], d->byte);
            else if (d->match != OUTPUT_IDENTICAL && d->line && d->match != OUTPUT_WITHIN_TOLERANCE)
                printf("  %s: %s line %d: native \"%s\", here \"%s\"\n", run->cpu, names[k], d->line,
                       d->expected ? d->expected : "", d->actual ? d->actual : "");
        }
    }

    /* The dispatch map. */
    printf("\nDispatch map (the clone each resolver returns on each CPU):\n");
    if (r->plan.unavailable) {
        printf("  not available: %s\n", r->plan.unavailable);
    } else if (!r->plan.n_entries) {
        printf("  no multiversioned functions in %s%s\n", r->program,
               r->plan.n_objects > 1 ? " or its build libraries" : "");
    } else {
        ncols = 2 + r->n_runs;
        table_init(&t, ncols);
        cells = xcalloc(ncols, sizeof *cells);
        cells[0] = xstrdup("function");
        cells[1] = xstrdup("object");
        for (size_t i = 0; i < r->n_runs; i++) cells[2 + i] = xstrdup(r->runs[i].cpu);
        table_row(&t, cells);
        for (size_t e = 0; e < r->plan.n_entries; e++) {
            const struct dispatch_entry *en = &r->plan.entries[e];
            char *readable = symbol_demangle(en->fn->name);
            cells[0] = readable ? readable : xstrdup(en->fn->name);
            cells[1] = xstrdup(path_basename(r->plan.objects[en->object].path));
            for (size_t i = 0; i < r->n_runs; i++) {
                const struct dispatch_result *d = &r->runs[i].dispatch;
                const struct elf_clone *c = d->picks ? d->picks[e] : NULL;
                if (c) cells[2 + i] = xstrdup(c->target && *c->target ? c->target : c->symbol);
                else if (d->other && d->other[e]) cells[2 + i] = xstrdup(d->other[e]);
                else cells[2 + i] = xstrdup("-");
            }
            table_row(&t, cells);
        }
        table_print(&t, stdout);
        free(cells);
        for (size_t i = 0; i < r->n_runs; i++)
            if (r->runs[i].dispatch.error)
                printf("  %s: %s\n", r->runs[i].cpu, r->runs[i].dispatch.error);
        for (size_t i = 0; i < r->n_runs; i++)
            for (size_t k = 0; k < r->runs[i].dispatch_errors.n; k++)
                printf("  %s: WRONG: %s\n", r->runs[i].cpu, r->runs[i].dispatch_errors.v[k]);
    }
    if (r->notes.n) {
        printf("\nNotes:\n");
        for (size_t i = 0; i < r->notes.n; i++) printf("  - %s\n", r->notes.v[i]);
    }

    struct strbuf failed = STRBUF_INIT;
    for (size_t i = 0; i < r->n_runs; i++) {
        if (r->runs[i].ok) continue;
        char *res = verify_run_result(&r->runs[i]);
        int output_only = r->runs[i].outcome == VERIFY_EXITED && !strcmp(res, "ok");
        const struct verify_against *a = r->runs[i].against;
        const char *why = output_only ? "output differs" : res;
        if (a && !a->ok && a->silent) why = "silent: prints nothing, exits 0";
        else if (a && !a->ok && output_only && !a->status_match) why = "ends unlike the unpatched build";
        else if (a && !a->ok && output_only) why = "output differs from the unpatched build";
        if (r->runs[i].dispatch_errors.n && r->runs[i].ok_but_dispatch)
            why = "wrong dispatch";
        sb_addf(&failed, "%s%s (%s%s)", failed.len ? ", " : "", r->runs[i].cpu, why,
                r->runs[i].dispatch_errors.n && !r->runs[i].ok_but_dispatch ? ", wrong dispatch" : "");
        free(res);
    }
    if (r->ok && r->against)
        printf("\nResult: OK on all %zu CPUs, each run as %s's there\n", r->n_runs, path_basename(r->against));
    else if (r->ok) printf("\nResult: OK on all %zu CPUs\n", r->n_runs);
    else printf("\nResult: FAILED: %s\n", sb_str(&failed));
    sb_free(&failed);
}

/* ---- options ---- */

static int parse_seconds(const char *opt, const char *arg, double *out, int allow_zero)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v) || v < 0 || (!allow_zero && v == 0))
        return fmv_error("%s: '%s' is not a %snumber", opt, arg, allow_zero ? "non-negative " : "positive ");
    *out = v;
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cpu", required_argument, NULL, 'c'},
        {"timeout", required_argument, NULL, 't'},
        {"compare", required_argument, NULL, 'f'},
        {"float-tolerance", required_argument, NULL, 'x'},
        {"ignore-lines", required_argument, NULL, 'i'},
        {"against", required_argument, NULL, 'a'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct strvec cpus = STRVEC_INIT, compare = STRVEC_INIT, ignore = STRVEC_INIT;
    struct verify_options o = {.timeout_s = 60, .float_tolerance = -1};
    int json = 0, rc = 2, cpus_given = 0;
    int c;
    /* '+': stop at PROG, so its own options are never taken for ours. */
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (cpus_parse(optarg, &cpus) != 0) goto done;
            cpus_given = 1;
            break;
        case 't':
            if (parse_seconds("--timeout", optarg, &o.timeout_s, 0) != 0) goto done;
            break;
        case 'f':
            /* --compare a.txt b.txt: every following word up to the next
             * option or "--" is a file. */
            sv_push(&compare, optarg);
            while (optind < argc && argv[optind][0] != '-') sv_push(&compare, argv[optind++]);
            break;
        case 'x':
            if (parse_seconds("--float-tolerance", optarg, &o.float_tolerance, 1) != 0) goto done;
            break;
        case 'i':
            sv_push(&ignore, optarg);
            break;
        case 'a':
            o.against = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            rc = cli_usage(USAGE, 0);
            goto done;
        default:
            rc = cli_usage(USAGE, 1);
            goto done;
        }
    }
    if (optind >= argc) {
        fmv_error("verify: no program given (fmvgen verify [OPTIONS] -- PROG ARGS...)");
        goto done;
    }
    o.argv = argv + optind;
    o.cpus = cpus_given ? &cpus : NULL;
    o.compare = compare.n ? sv_argv(&compare) : NULL;
    o.ignore_lines = ignore.n ? sv_argv(&ignore) : NULL;

    struct verify_report r;
    if (verify_program(&o, &r) != 0) {
        rc = 2;
        verify_report_free(&r);
        goto done;
    }
    if (json) {
        json_t *j = verify_report_to_json(&r);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(j);
    } else {
        print_table(&r);
    }
    rc = r.ok ? 0 : 1;
    verify_report_free(&r);
done:
    sv_free(&cpus);
    sv_free(&compare);
    sv_free(&ignore);
    return rc;
}
