/* run.c - see run.h. */
#include "patch/run.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "patch/apply.h"
#include "patch/cpuid.h"
#include "patch/plan.h"
#include "patch/visibility.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/util.h"

static int write_output(FILE *out, const char *path, const char *text)
{
    if (!path) {
        fputs(text, out);
        return fflush(out) == 0 ? 0 : fmv_error("stdout: write failed");
    }
    if (write_output_file(path, text, strlen(text)) != 0) return fmv_error("%s: cannot write the patch", path);
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

static void print_json(FILE *out, json_t *o)
{
    json_dumpf(o, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(o);
}

static void say_nothing_to_do(struct store *st, const struct patch_plan *plan, const struct patch_request *req,
                              FILE *out)
{
    if (req->json) {
        json_t *o = patch_plan_to_json(plan);
        json_object_set_new(o, "nothing_to_do", json_true());
        print_json(out, o);
    }
    if (plan->already)
        fprintf(stderr, "fmvgen: nothing to do: all %zu candidate function%s already carry FMVGEN_CLONES\n",
                plan->already, plan->already == 1 ? "" : "s");
    else
        fprintf(stderr, "fmvgen: nothing to do: no candidate functions in %s\n", store_path(st));
}

/* The targets checked with the real compilers: --compiler, else every
 * compiler that compiled a candidate's TU. */
static int validate(struct store *st, const struct strvec *targets, const char *compiler)
{
    if (!compiler) return patch_validate_targets(st, targets, NULL, NULL, 0);
    const char *kind = NULL;
    int major = 0;
    if (targets_compiler_macros(compiler, &kind, &major) != 0) return -1;
    return patch_validate_targets(st, targets, compiler, kind, major);
}

static void note_hidden(const struct strvec *hidden)
{
    struct strbuf list = STRBUF_INIT;
    for (size_t i = 0; i < hidden->n && i < 3; i++) sb_addf(&list, "%s%s", i ? ", " : "", hidden->v[i]);
    if (hidden->n > 3) sb_addf(&list, " and %zu more", hidden->n - 3);
    fmv_note("%zu patched external function%s compiled with -fvisibility=hidden (%s): GCC and clang < 18 "
             "export a target_clones dispatcher all the same, so a shared library exports %s, and a function "
             "of the same name in the program or another library may be called instead; check with "
             "readelf --dyn-syms", hidden->n, hidden->n == 1 ? " is" : "s are", sb_str(&list),
             hidden->n == 1 ? "it" : "them");
    sb_free(&list);
}

/* After the patch went out: the summary and the notes. */
static int summarize(struct store *st, const struct patch_plan *plan, const struct patch_request *req, FILE *out)
{
    struct strvec hidden = STRVEC_INIT;
    if (patch_hidden_functions(st, plan, &hidden) != 0) {
        sv_free(&hidden);
        return 1;
    }
    int written = req->apply || req->output;
    if (req->json) {
        json_t *o = patch_plan_to_json(plan);
        json_t *h = json_array();
        for (size_t i = 0; i < hidden.n; i++) json_array_append_new(h, json_string(hidden.v[i]));
        json_object_set_new(o, "hidden_visibility", h);
        json_object_set_new(o, "applied", json_boolean(req->apply));
        json_object_set_new(o, "output", req->output ? json_string(req->output) : json_null());
        if (!written) json_object_set_new(o, "patch", json_string(plan->text));
        print_json(out, o);
    } else if (plan->fma && written) {
        /* The header says it; a user who never reads the patch sees it too. */
        fmv_note("some targets enable FMA (the patch header says with which compilers): functions doing "
                 "floating-point arithmetic may give results that differ in the last bits; --exact gives "
                 "bit-identical clones%s", plan->reassoc.n ? " except for functions compiled with -ffast-math" : "");
    }
    if (!req->json && plan->reassoc.n && written)
        fmv_note("%zu patched function%s compiled with -ffast-math (or -Ofast, -fassociative-math), e.g. %s: "
                 "each clone may sum in its own vector width's order, so results may differ in the last bits "
                 "even without FMA (the patch header lists them)",
                 plan->reassoc.n, plan->reassoc.n == 1 ? " was" : "s were", plan->reassoc.v[0]);
    if (!req->json && hidden.n && written) note_hidden(&hidden);
    sv_free(&hidden);
    return 0;
}

static int run(struct store *st, const struct patch_request *req, FILE *out, struct strvec *targets,
               struct patch_plan *plan)
{
    if (patch_resolve_targets(st, req->targets, req->exact, targets) != 0) return 2;
    const char *unknown = req->dispatch == PATCH_DISPATCH_CPUID ? patch_cpuid_unknown_target(targets) : NULL;
    if (unknown) {
        fmv_error("--dispatch cpuid: target '%s' has no copy (known: arch=x86-64-v2, arch=x86-64-v3, "
                  "arch=x86-64-v4, avx2)", unknown);
        return 2;
    }
    if (patch_plan_build_dispatch(st, targets, req->exact, req->min_score, req->dispatch, plan) != 0) return 1;
    if (plan->nfunctions == 0) {
        say_nothing_to_do(st, plan, req, out);
        return 0;
    }
    if (validate(st, targets, req->compiler) != 0) return 2;
    if (req->apply) {
        if (apply_plan(plan) != 0) return 1;
        if (!req->json) {
            fprintf(out, "patched %zu function%s in %zu file%s; targets:", plan->nfunctions,
                    plan->nfunctions == 1 ? "" : "s", plan->nfiles, plan->nfiles == 1 ? "" : "s");
            for (size_t i = 0; i < plan->targets.n; i++) fprintf(out, " %s", plan->targets.v[i]);
            fprintf(out, " default\n");
        }
    } else if (!req->json || req->output) {
        if (write_output(out, req->output, plan->text) != 0) return 1;
    }
    return summarize(st, plan, req, out);
}

int patch_run(struct store *st, const struct patch_request *req)
{
    struct strvec targets = STRVEC_INIT;
    struct patch_plan plan;
    memset(&plan, 0, sizeof plan);
    int rc = run(st, req, req->out ? req->out : stdout, &targets, &plan);
    patch_plan_free(&plan);
    sv_free(&targets);
    return rc;
}
