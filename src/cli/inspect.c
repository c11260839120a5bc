/* inspect.c - `fmvgen inspect FILE... [--json]`: what got multiversioned in
 * a binary, what each clone's code needs from the CPU, which clones buy
 * nothing, and what the clones cost in code size (measured, and predicted
 * by the article's formula). The facts come from lib/elf/inspect.h; this
 * file only prints them. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "elf/codeisa.h"
#include "elf/inspect.h"
#include "util/util.h"
#include "verify/ltwrapper.h"

static const char USAGE[] =
    "usage: fmvgen inspect FILE... [--isa] [--json]\n"
    "\n"
    "Lists the multiversioned functions of x86-64 executables and shared\n"
    "libraries (GCC and Clang target_clones, target() versions, and any other\n"
    "ifunc, and fmvgen's own copies): how calls reach its versions (dispatch\n"
    "ifunc: an IFUNC symbol or IRELATIVE relocation the loader resolves;\n"
    "pointer: fmvgen patch --dispatch pointer's pointer, set by the first call;\n"
    "cpuid: fmvgen's own resolver fmvgen_resolve_NAME picks one of the copies\n"
    "fmvgen_cp_NAME_TARGET (--dispatch cpuid), reached as \"cpuid (ifunc)\" through\n"
    "an IFUNC symbol NAME or as \"cpuid (pointer)\" through the pointer; none: clones\n"
    "nothing picks among),\n"
    "for each version its size, the widest vector registers it uses,\n"
    "the ISA extensions its instructions need, and whether it needs anything\n"
    "beyond the default version (if not, it is a useless clone: bytes that buy\n"
    "nothing). Then the code size with and without the extra clones, and the\n"
    "growth the formula (1-R)*C + R*C*N predicts from the same binary.\n"
    "\n"
    "  --isa    also what the whole file's code needs: the ISA extensions of all\n"
    "           its functions and the widest vectors (e.g. to check that a whole\n"
    "           -march=x86-64-v3 build holds x86-64-v3 code)\n"
    "  --json   machine-readable output: {\"files\": [...]}\n";

/* Column widths of one function's table, from its longest entries. */
struct widths {
    int symbol, target, isa;
};

static void print_clone(const struct inspect_clone *ic, const struct widths *w)
{
    const struct elf_clone *c = ic->clone;
    char *isa = ic->analyzed ? isa_set_format(ic->isa.needs, " ") : xstrdup("?");
    const char *regs = ic->analyzed ? isa_register_class(ic->isa.vector_bits) : "?";
    char *size = xasprintf("%s%" PRIu64, ic->size_estimated ? "~" : "", ic->size);
    printf("  %s %-*s  %-*s  %7s  %-4s  %-*s  ", c->is_default ? "*" : ic->inferred_default ? "?" : " ", w->symbol, c->symbol, w->target,
           *c->target ? c->target : "-", ic->analyzed ? size : "?", regs, w->isa, *isa ? isa : "-");
    free(size);
    free(isa);
    if (c->is_default) {
        printf("default\n");
    } else if (ic->inferred_default) {
        printf("default (inferred: the only version within baseline x86-64)\n");
    } else if (ic->verdict == VERDICT_USELESS) {
        printf("USELESS: needs nothing beyond the default clone%s\n",
               ic->same_as_default ? " (it is the default's code)" : "");
    } else if (ic->verdict == VERDICT_USEFUL) {
        char *extra = isa_set_format(ic->beyond_default, " ");
        /* Same width: the clone re-encodes or adds scalar extensions
         * (VEX, BMI, FMA); worth saying, since the gain is usually small. */
        printf("ok:%s%s%s\n", *extra ? " +" : "", extra,
               ic->wider_than_default ? ", wider vectors" : ", same vector width as the default");
        free(extra);
    } else if (!ic->analyzed) {
        printf("not analyzed (its code is not in the file)\n");
    } else {
        printf("-\n");
    }
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void print_function(const struct inspect_function *f, int list_unresolved)
{
    const struct elf_mv_function *fn = f->fn;
    printf("\n%s  [%s, %zu version%s]  dispatch %s", fn->name, elf_mv_origin_name(fn->origin), fn->n_clones,
           fn->n_clones == 1 ? "" : "s", elf_mv_dispatch_name(fn->dispatch));
    if (fn->dispatch == ELF_MV_DISPATCH_CPUID) printf(" (%s)", elf_mv_reach_name(fn));
    if (fn->resolver || fn->resolver_addr)
        printf("  resolver %s @0x%" PRIx64, fn->resolver ? fn->resolver : "(unnamed)", fn->resolver_addr);
    if (fn->ifunc) printf(", ifunc %s", fn->ifunc);
    if (fn->trampoline_size) printf(", trampoline %" PRIu64 " bytes", fn->trampoline_size);
    printf("\n");
    if (fn->dispatch == ELF_MV_DISPATCH_NONE && !list_unresolved)
        printf("    (no IFUNC symbol and no IRELATIVE relocation: nothing picks among these versions at load "
               "time; calls reach the one the code names)\n");
    if (!fn->n_clones) {
        printf("    (no version found: %s)\n", fn->dispatch == ELF_MV_DISPATCH_CPUID
                                                ? "no copy fmvgen_cp_IDENT_TARGET of its resolver's IDENT is in the file"
                                                : "the resolver loads no function address this tool can see");
        return;
    }
    struct widths w = {5, 6, 10};
    for (size_t i = 0; i < fn->n_clones; i++) {
        const struct inspect_clone *ic = &f->clones[i];
        w.symbol = max_int(w.symbol, (int)strlen(ic->clone->symbol));
        w.target = max_int(w.target, (int)strlen(ic->clone->target));
        char *isa = isa_set_format(ic->isa.needs, " ");
        w.isa = max_int(w.isa, (int)strlen(isa));
        free(isa);
    }
    printf("    %-*s  %-*s  %7s  %-4s  %-*s  %s\n", w.symbol, "clone", w.target, "target", "bytes", "regs", w.isa,
           "ISA needed", "verdict");
    for (size_t i = 0; i < fn->n_clones; i++) print_clone(&f->clones[i], &w);
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The file's CPU detection, by kind: the runtime's (IFUNC resolvers link
 * it in), fmvgen's own (--dispatch cpuid), both, or none. */
static void print_cpu_detection(const struct inspect_size *s)
{
    if (s->cpu_detect_bytes < 0) return;
    int own = s->own_cpu_detect_bytes || s->own_cpu_detect_inlined;
    printf("    of it, CPU detection                %10" PRId64 "%s\n", s->cpu_detect_bytes,
           s->runtime_cpu_detect_bytes || own ? "" : "  (neither the runtime's nor fmvgen_cpu_levels)");
    if (s->runtime_cpu_detect_bytes)
        printf("      %-34s%10" PRIu64 "  (the runtime's: linked in with a file's first IFUNC resolver)\n",
               s->runtime_cpu_detect, s->runtime_cpu_detect_bytes);
    if (!own) return;
    size_t linked = s->own_cpu_detect_linked, per_unit = s->own_cpu_detect_copies - linked;
    printf("      %-34s%10" PRIu64 "  (fmvgen's own, --dispatch cpuid: %zu function%s", "fmvgen_cpu_levels",
           s->own_cpu_detect_bytes, s->own_cpu_detect_copies, s->own_cpu_detect_copies == 1 ? "" : "s");
    if (!per_unit) printf(", one per linked file");
    else if (!linked) printf(", one per source file (an older fmvgen's)");
    else printf(": %zu one per linked file, %zu one per source file (an older fmvgen's)", linked, per_unit);
    if (s->own_cpu_detect_inlined)
        printf("; %zu resolver%s hold%s it inlined, counted with the resolvers", s->own_cpu_detect_inlined,
               s->own_cpu_detect_inlined == 1 ? "" : "s", s->own_cpu_detect_inlined == 1 ? "s" : "");
    printf(")\n");
}

static void print_size(const struct inspect_size *s)
{
    printf("\nCode size (bytes of the executable sections; clone and resolver sizes from their symbols):\n");
    if (!s->n_counted) {
        printf("  text %" PRIu64 " bytes; no compiler-made clones with a default version to account for\n", s->text);
        return;
    }
    uint64_t growth = s->clone_bytes + s->resolver_bytes + s->trampoline_bytes;
    printf("  (counted: the %zu function%s made by target_clones/target or fmvgen's cpuid copies with a known "
           "default; other ifuncs have no default to compare with)\n", s->n_counted, s->n_counted == 1 ? "" : "s");
    printf("  text as built                         %10" PRIu64 "\n", s->text);
    printf("  extra clones (non-default versions)   %10" PRIu64 "\n", s->clone_bytes);
    printf("  resolvers                             %10" PRIu64 "\n", s->resolver_bytes);
    if (s->trampoline_bytes)
        printf("  trampolines (pointer/cpuid dispatch)  %10" PRIu64 "\n", s->trampoline_bytes);
    printf("  C = text without the extra clones     %10" PRIu64 "\n", s->text_without);
    print_cpu_detection(s);
    printf("  measured growth                       %10" PRIu64 "  (%.2f%% of C)\n", growth, percent(growth, s->text_without));
    printf("  formula (1-R)*C + R*C*N, from this binary:\n");
    printf("    R = default clones / C = %" PRIu64 " / %" PRIu64 " = %.4f\n", s->default_bytes, s->text_without, s->r);
    if (s->n_versions)
        printf("    N = %d versions per function (default included)\n", s->n_versions);
    else
        printf("    N differs between functions (size-weighted mean %.2f): growth summed per function as "
               "default size * (N-1)\n", s->n_mean);
    printf("    predicted text %" PRIu64 ", predicted growth R*C*(N-1) = %" PRIu64 "  (%.2f%% of C)\n",
           s->text_without + s->predicted_growth, s->predicted_growth, percent(s->predicted_growth, s->text_without));
    if (s->predicted_growth)
        printf("  measured / predicted growth = %.2f (the formula assumes every clone is as big as the default"
               " and ignores resolvers)\n", (double)growth / (double)s->predicted_growth);
}

static void print_report(const struct inspect_report *r)
{
    size_t n = r->list.n_functions, handwritten = 0, copies = 0;
    for (size_t i = 0; i < n; i++) {
        handwritten += r->list.functions[i].origin == ELF_MV_IFUNC;
        copies += r->list.functions[i].origin == ELF_MV_FMVGEN;
    }
    printf("%s: %s, %zu multiversioned function%s (%zu by target_clones/target, ", r->path, inspect_kind(r), n,
           n == 1 ? "" : "s", n - handwritten - copies);
    if (copies) printf("%zu by fmvgen's cpuid copies, ", copies);
    printf("%zu other ifunc%s), %zu IRELATIVE relocation%s\n", handwritten, handwritten == 1 ? "" : "s",
           r->list.n_irelative, r->list.n_irelative == 1 ? "" : "s");
    if (r->list.ifunc_unresolved)
        printf("  note: nothing resolves these ifuncs at run time - %s; every function's dispatch is none\n",
               r->list.ifunc_unresolved);
    char *note = inspect_stripped_note(r);
    if (note) printf("  note: %s\n", note);
    else if (r->list.n_irelative_unlisted)
        printf("  note: %zu IRELATIVE resolver%s no symbol names return%s no function of this file: not listed\n",
               r->list.n_irelative_unlisted, r->list.n_irelative_unlisted == 1 ? "" : "s",
               r->list.n_irelative_unlisted == 1 ? "s" : "");
    free(note);
    for (size_t i = 0; i < n; i++) print_function(&r->functions[i], r->list.ifunc_unresolved != NULL);
    for (size_t i = 0; i < n; i++) {
        int estimated = 0;
        for (size_t c = 0; c < r->list.functions[i].n_clones; c++) estimated |= r->functions[i].clones[c].size_estimated;
        if (estimated) {
            printf("\n  ~size: the symbol is gone; bytes spanned by the code reachable from the version's entry\n");
            break;
        }
    }
    print_size(&r->size);
}

/* --isa: what the whole file's functions need. */
static void print_code_isa(const struct code_isa *ci)
{
    char *needs = isa_set_format(ci->all.needs, ", ");
    printf("\nCode ISA (every function of the file): %s; widest vectors %s; %zu of %zu functions use AVX2, FMA, "
           "BMI or ymm registers (x86-64-v3 code)\n", *needs ? needs : "nothing beyond x86-64",
           isa_register_class(ci->all.vector_bits), ci->n_v3_functions, ci->n_functions);
    free(needs);
}

static json_t *code_isa_json(const struct code_isa *ci)
{
    json_t *o = json_object(), *names = json_array();
    struct strvec v = STRVEC_INIT;
    isa_set_names(ci->all.needs, &v);
    for (size_t i = 0; i < v.n; i++) json_array_append_new(names, json_string(v.v[i]));
    sv_free(&v);
    json_object_set_new(o, "needs", names);
    json_object_set_new(o, "widest_vectors", json_string(isa_register_class(ci->all.vector_bits)));
    json_object_set_new(o, "functions", json_integer((json_int_t)ci->n_functions));
    json_object_set_new(o, "v3_functions", json_integer((json_int_t)ci->n_v3_functions));
    return o;
}

int cmd_inspect(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"isa", no_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, isa = 0, c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'j') json = 1;
        else if (c == 'i') isa = 1;
        else if (c == 'h') return cli_usage(USAGE, 0);
        else return cli_usage(USAGE, 1);
    }
    if (optind >= argc) return cli_usage(USAGE, 1);

    int failed = 0;
    json_t *files = json_array();
    for (int i = optind; i < argc; i++) {
        /* A libtool wrapper script stands for the program it runs. */
        struct ltwrapper w;
        int wrapped = ltwrapper_read(argv[i], &w);
        if (wrapped < 0) {
            failed = 1;
            continue;
        }
        const char *path = wrapped ? w.program : argv[i];
        struct inspect_report r;
        if (inspect_file(path, &r) != 0) {
            failed = 1;
            if (wrapped) ltwrapper_free(&w);
            continue;
        }
        struct code_isa ci;
        int have_isa = isa && elf_code_isa(path, &ci) == 0;
        failed |= isa && !have_isa;
        if (json) {
            json_t *j = inspect_to_json(&r);
            if (wrapped) json_object_set_new(j, "libtool_wrapper", json_string(argv[i]));
            if (have_isa) json_object_set_new(j, "code_isa", code_isa_json(&ci));
            json_array_append_new(files, j);
        } else {
            if (i > optind) printf("\n");
            if (wrapped) printf("%s: a libtool wrapper script; its program:\n", argv[i]);
            print_report(&r);
            if (have_isa) print_code_isa(&ci);
        }
        inspect_free(&r);
        if (wrapped) ltwrapper_free(&w);
    }
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "files", files);
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
        json_decref(root);
    } else {
        json_decref(files);
    }
    fflush(stdout);
    return failed ? 1 : 0;
}
