/* list.c - `fmvgen list`: the candidates, the exclusions with their reasons,
 * and what defeats vectorization, from the store that scan filled. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "store/notes.h"
#include "store/store.h"
#include "util/util.h"

static const char USAGE[] =
    "usage: fmvgen list [--json] [--candidates | --excluded]\n"
    "\n"
    "Shows what the last scan found: each function the compiler vectorized, in\n"
    "the build or only at the target ISA (probe), or whose code at the target\n"
    "ISA does in fewer instructions what the build's does (kind isa: calls\n"
    "removed, popcnt/round/BMI, FMA, wider vectors; the evidence and its score\n"
    "shown), either as a candidate for\n"
    "target_clones or excluded with its reason; per loop the vector width of\n"
    "the build vs the target probe; and per translation unit the flags that\n"
    "defeat vectorization.\n"
    "\n"
    "  --json        machine-readable output\n"
    "  --candidates  only candidates\n"
    "  --excluded    only exclusions\n";

/* GCC says how many bytes a vector has, Clang how many elements. */
static void print_width(int bytes, int lanes)
{
    if (bytes < 0) printf("  %8s", "-");
    else if (bytes > 0) printf("  %6d B", bytes);
    else if (lanes > 0) printf("  %3d lanes", lanes);
    else printf("  %8s", "yes");
}

static void print_notes(json_t *notes, const char *indent)
{
    size_t i;
    json_t *n;
    json_array_foreach(notes, i, n) {
        if (note_kind_of(n) == NOTE_PARAMS) continue;   /* the patch's business, on every candidate */
        printf("%snote: %s: %s\n", indent, json_string_value(json_object_get(n, "kind")),
               json_string_value(json_object_get(n, "detail")));
    }
}

/* A source built more than once (static and shared objects): one entry,
 * one attribute in the patch, every compile named. */
static void print_compiles(const struct report_function *f)
{
    if (f->ncompiles < 2) return;
    printf("      compiled %zu times, into:", f->ncompiles);
    for (size_t i = 0; i < f->ncompiles; i++) printf("%s %s", i ? "," : "", f->outputs[i]);
    putchar('\n');
}

static void print_candidates(const struct report *r)
{
    const char *probe = r->probe_variant ? r->probe_variant + strlen("probe:") : "no probe";
    printf("Candidates (%zu)%*s%8s  %8s\n", r->ncandidates, 44, "", "build", "target");
    printf("%*s(target = %s)\n", 60, "", probe);
    for (size_t i = 0; i < r->nfunctions; i++) {
        const struct report_function *f = &r->functions[i];
        if (strcmp(f->status, "candidate")) continue;
        printf("  %s:%d  %s%s", f->file, f->line, f->display_name,
               f->only_at_target ? "  [vectorizes only at the target ISA]" : "");
        /* the score is the ISA comparison's: an isa candidate's always; a
         * vectorized one's when its own code gains beyond its loops (a
         * kernel compiled only inlined into main has no code to score) */
        if (candidate_kind_name(f->kind) && (f->kind == KIND_ISA || f->score > 0))
            printf("  (%s, score %d)", candidate_kind_name(f->kind), f->score);
        else if (candidate_kind_name(f->kind))
            printf("  (%s)", candidate_kind_name(f->kind));
        putchar('\n');
        print_compiles(f);
        if (f->evidence) printf("      isa: %s\n", f->evidence);
        for (size_t j = 0; j < f->nloops; j++) {
            const struct report_loop *l = &f->loops[j];
            char *where = l->line ? xasprintf("%s %s:%d:%d", l->kind, l->file, l->line, l->column)
                                  : xasprintf("%s %s", l->kind, l->file);
            printf("      %-52.52s", where);
            free(where);
            print_width(l->build_bytes, l->build_lanes);
            print_width(l->target_bytes, l->target_lanes);
            putchar('\n');
        }
        print_notes(f->notes, "      ");
    }
}

static void print_exclusions(const struct report *r)
{
    printf("Excluded (%zu)\n", r->nexcluded);
    for (size_t i = 0; i < r->nfunctions; i++) {
        const struct report_function *f = &r->functions[i];
        if (!strcmp(f->status, "candidate")) continue;
        printf("  %s:%d  %s\n      reason: %s%s%s\n", f->file, f->line, f->display_name, f->reason ? f->reason : "?",
               f->detail ? ": " : "", f->detail ? f->detail : "");
        print_compiles(f);
        if (f->evidence) printf("      isa: %s\n", f->evidence);
        print_notes(f->notes, "      ");
    }
}

/* A TU's note goes under one of two headings: what defeats vectorization,
 * or (isa_unmatched: tu_notes 'isa-unmatched') code the ISA comparison
 * could not read, which says nothing about vectorization. */
static int note_in_section(const char *kind, int isa_section)
{
    return (tu_note_kind_parse(kind) == TU_NOTE_ISA_UNMATCHED) == !!isa_section;
}

static void print_tus(const struct report *r, int isa_section)
{
    int header = 0;
    for (size_t i = 0; i < r->ntus; i++) {
        const struct report_tu *t = &r->tus[i];
        int o3 = !isa_section && t->o3_extra_loops > 0;
        size_t j, shown = 0;
        json_t *n;
        json_array_foreach(t->notes, j, n) {
            const char *kind = json_string_value(json_object_get(n, "kind"));
            if (!note_in_section(kind, isa_section)) continue;
            if (tu_note_kind_parse(kind) == TU_NOTE_O2_CHEAP_MODEL && t->o3_extra_loops >= 0) continue;  /* counted below */
            shown++;
        }
        if (!shown && !o3) continue;
        if (!header++) printf("%s\n", isa_section ? "Code not compared at the target ISA" : "What defeats vectorization");
        printf("  %s\n", t->source);
        if (o3)
            printf("      built at -O2: %d more loop%s at -O3 (%s)\n", t->o3_extra_loops,
                   t->o3_extra_loops == 1 ? " vectorizes" : "s vectorize", report_o3_reason(t));
        json_array_foreach(t->notes, j, n) {
            const char *kind = json_string_value(json_object_get(n, "kind"));
            if (!note_in_section(kind, isa_section)) continue;
            if (tu_note_kind_parse(kind) == TU_NOTE_O2_CHEAP_MODEL && t->o3_extra_loops >= 0) continue;  /* counted above */
            printf("      %s: %s\n", kind, json_string_value(json_object_get(n, "detail")));
        }
    }
}

int cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"candidates", no_argument, NULL, 'c'},
        {"excluded", no_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, only_candidates = 0, only_excluded = 0, c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'c': only_candidates = 1; break;
        case 'e': only_excluded = 1; break;
        case 'h': return cli_usage(USAGE, 0);
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("list: unexpected argument '%s'", argv[optind]);
        return 2;
    }
    struct store *st = cli_open_store();
    if (!st) return 1;
    struct report r;
    int rc = report_load(st, &r);
    store_close(st);
    if (rc != 0) return 1;

    if (json) {
        json_t *j = report_to_json(&r);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
        json_decref(j);
    } else if (r.nfunctions == 0) {
        printf("nothing to do: the compiler vectorized no function in the %d compile%s scanned\n", r.compiles,
               r.compiles == 1 ? "" : "s");
        print_tus(&r, 0);
        print_tus(&r, 1);
    } else {
        if (!only_excluded) print_candidates(&r);
        if (!only_candidates) print_exclusions(&r);
        if (!only_candidates && !only_excluded) {
            print_tus(&r, 0);
            print_tus(&r, 1);
        }
        printf("%zu candidate%s, %zu excluded; %d compile%s", r.ncandidates, r.ncandidates == 1 ? "" : "s",
               r.nexcluded, r.compiles, r.compiles == 1 ? "" : "s");
        if (r.failed_compiles) printf(" (%d failed)", r.failed_compiles);
        if (r.corrupt_record_files) printf(", %d corrupt record file%s ignored", r.corrupt_record_files,
                                           r.corrupt_record_files == 1 ? "" : "s");
        putchar('\n');
    }
    report_free(&r);
    return 0;
}
