/* patch.c - `fmvgen patch`: writes the target_clones patch of the stored
 * candidates (stdout or -o FILE), or applies it in place (--apply, all
 * files or none). Targets are checked (names, then a test compile with the
 * project's compilers) before anything is written. The work is in
 * lib/patch (plan.h: assembly, apply.h: atomic apply) and lib/targets. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidates/isa.h"
#include "cli/cli.h"
#include "patch/apply.h"
#include "patch/plan.h"
#include "patch/visibility.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

#define MIN_SCORE_TEXT_(n) #n
#define MIN_SCORE_TEXT(n) MIN_SCORE_TEXT_(n)

static const char USAGE[] =
    "usage: fmvgen patch [-o FILE] [--apply] [--targets LIST] [--exact] [--min-score N] [--compiler CC]\n"
    "                    [--dispatch auto|ifunc|pointer] [--json]\n"
    "\n"
    "Writes a unified diff (paths relative to the project root; apply with\n"
    "'patch -p1', 'git apply' or quilt) that puts FMVGEN_CLONES, a guarded\n"
    "__attribute__((target_clones(...))), before each candidate function.\n"
    "\n"
    "Options:\n"
    "  -o FILE          write the patch to FILE (default: standard output)\n"
    "  --apply          patch the sources in place: all files or none; refused if a\n"
    "                   source changed since the scan\n"
    "  --targets LIST   comma-separated targets besides default (default: the scan's,\n"
    "                   else " TARGETS_DEFAULT ")\n"
    "  --exact          FMA-free targets (" TARGETS_EXACT "): clones compute bit-identical\n"
    "                   floating-point results (x86-64-v3/v4 may fuse a*b+c into FMA)\n"
    "  --min-score N    leave out candidates of kind isa (no vectorized loop) whose\n"
    "                   score is below N (default " MIN_SCORE_TEXT(ISA_MIN_SCORE_DEFAULT) ": a library call removed, or\n"
    "                   as much in replaced instructions); the header says which;\n"
    "                   0 takes them all, as 'fmvgen select' does\n"
    "  --compiler CC    check the targets with CC instead of the scanned compilers\n"
    "  --dispatch HOW   how calls reach the clones: auto or ifunc (target_clones' IFUNC,\n"
    "                   which glibc resolves; elsewhere the functions stay plain), or\n"
    "                   pointer (a pointer set from the CPU on the first call: the\n"
    "                   clones run with musl and static builds too)\n"
    "  --json           print a machine-readable summary (with the patch text when\n"
    "                   neither -o nor --apply is given)\n"
    "  --help           this text\n";

static int write_output(const char *path, const char *text)
{
    if (!path) {
        fputs(text, stdout);
        return fflush(stdout) == 0 ? 0 : fmv_error("stdout: write failed");
    }
    if (write_file_atomic(path, text, strlen(text)) != 0) return fmv_error("%s: cannot write the patch", path);
    return 0;
}

static int apply_plan(const struct patch_plan *p)
{
    struct file_update *u = xcalloc(p->nfiles ? p->nfiles : 1, sizeof *u);
    for (size_t i = 0; i < p->nfiles; i++) {
        u[i].path = p->files[i].path;
        u[i].expected_hash = p->files[i].hash;   /* checked against the scan when the plan was built */
        u[i].data = p->files[i].new_data;
        u[i].len = p->files[i].new_len;
    }
    int rc = apply_updates(u, p->nfiles);
    free(u);
    return rc;
}

int cmd_patch(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"apply", no_argument, NULL, 'a'},
        {"targets", required_argument, NULL, 't'}, {"exact", no_argument, NULL, 'e'},
        {"compiler", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'},
        {"min-score", required_argument, NULL, 'm'}, {"dispatch", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    const char *output = NULL, *spec = NULL, *compiler = NULL;
    int apply = 0, exact = 0, json = 0, c, min_score = ISA_MIN_SCORE_DEFAULT;
    enum patch_dispatch dispatch = PATCH_DISPATCH_IFUNC;
    while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'a': apply = 1; break;
        case 't': spec = optarg; break;
        case 'e': exact = 1; break;
        case 'c': compiler = optarg; break;
        case 'j': json = 1; break;
        case 'm': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 0 || v > 1000000) {
                fmv_error("--min-score %s: expected a score >= 0", optarg);
                return 2;
            }
            min_score = (int)v;
            break;
        }
        case 'd':
            if (patch_dispatch_parse(optarg, &dispatch) != 0) {
                fmv_error("--dispatch %s: expected auto, ifunc or pointer", optarg);
                return 2;
            }
            break;
        case 'h': return cli_usage(USAGE, 0);
        default: return cli_usage(USAGE, 1);
        }
    }
    if (optind < argc) {
        fmv_error("patch: unexpected argument '%s'", argv[optind]);
        return cli_usage(USAGE, 1);
    }
    if (apply && output) {
        fmv_error("patch: --apply and -o exclude each other");
        return 2;
    }

    struct store *st = cli_open_store();
    if (!st) return 1;
    int rc = 0;
    struct strvec targets = STRVEC_INIT;
    struct patch_plan plan;
    memset(&plan, 0, sizeof plan);
    if (patch_resolve_targets(st, spec, exact, &targets) != 0) {
        rc = 2;
        goto out;
    }
    if (patch_plan_build_dispatch(st, &targets, exact, min_score, dispatch, &plan) != 0) {
        rc = 1;
        goto out;
    }
    if (plan.nfunctions == 0) {
        if (json) {
            json_t *o = patch_plan_to_json(&plan);
            json_object_set_new(o, "nothing_to_do", json_true());
            json_dumpf(o, stdout, JSON_INDENT(2));
            fputc('\n', stdout);
            json_decref(o);
        }
        if (plan.already)
            fprintf(stderr, "fmvgen: nothing to do: all %zu candidate function%s already carry FMVGEN_CLONES\n",
                    plan.already, plan.already == 1 ? "" : "s");
        else
            fprintf(stderr, "fmvgen: nothing to do: no candidate functions in %s\n", store_path(st));
        goto out;
    }
    /* Targets are checked with the real compilers before anything is written. */
    if (compiler) {
        const char *kind = NULL;
        int major = 0;
        if (targets_compiler_macros(compiler, &kind, &major) != 0 ||
            patch_validate_targets(st, &targets, compiler, kind, major) != 0) {
            rc = 2;
            goto out;
        }
    } else if (patch_validate_targets(st, &targets, NULL, NULL, 0) != 0) {
        rc = 2;
        goto out;
    }
    if (apply) {
        if (apply_plan(&plan) != 0) {
            rc = 1;
            goto out;
        }
        if (!json) {
            printf("patched %zu function%s in %zu file%s; targets:", plan.nfunctions, plan.nfunctions == 1 ? "" : "s",
                   plan.nfiles, plan.nfiles == 1 ? "" : "s");
            for (size_t i = 0; i < plan.targets.n; i++) printf(" %s", plan.targets.v[i]);
            printf(" default\n");
        }
    } else if (!json || output) {
        if (write_output(output, plan.text) != 0) {
            rc = 1;
            goto out;
        }
    }
    struct strvec hidden = STRVEC_INIT;
    if (patch_hidden_functions(st, &plan, &hidden) != 0) {
        sv_free(&hidden);
        rc = 1;
        goto out;
    }
    if (json) {
        json_t *o = patch_plan_to_json(&plan);
        json_t *h = json_array();
        for (size_t i = 0; i < hidden.n; i++) json_array_append_new(h, json_string(hidden.v[i]));
        json_object_set_new(o, "hidden_visibility", h);
        json_object_set_new(o, "applied", json_boolean(apply));
        json_object_set_new(o, "output", output ? json_string(output) : json_null());
        if (!apply && !output) json_object_set_new(o, "patch", json_string(plan.text));
        json_dumpf(o, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(o);
    } else if (plan.fma && (apply || output)) {
        /* The header says it; a user who never reads the patch sees it too. */
        fmv_note("some targets enable FMA (the patch header says with which compilers): functions doing "
                 "floating-point arithmetic may give results that differ in the last bits; --exact gives "
                 "bit-identical clones");
    }
    if (!json && hidden.n && (apply || output)) {
        struct strbuf list = STRBUF_INIT;
        for (size_t i = 0; i < hidden.n && i < 3; i++) sb_addf(&list, "%s%s", i ? ", " : "", hidden.v[i]);
        if (hidden.n > 3) sb_addf(&list, " and %zu more", hidden.n - 3);
        fmv_note("%zu patched external function%s compiled with -fvisibility=hidden (%s): GCC and clang < 18 "
                 "export a target_clones dispatcher all the same, so a shared library exports %s, and a function "
                 "of the same name in the program or another library may be called instead; check with "
                 "readelf --dyn-syms", hidden.n, hidden.n == 1 ? " is" : "s are", sb_str(&list),
                 hidden.n == 1 ? "it" : "them");
        sb_free(&list);
    }
    sv_free(&hidden);
out:
    patch_plan_free(&plan);
    sv_free(&targets);
    store_close(st);
    return rc;
}
