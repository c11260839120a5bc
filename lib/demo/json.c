/* json.c - demo_to_json (demo.h): every example's steps, builds, emulated
 * CPUs, clones and profile, as `fmvgen demo --json` prints them. */
#include <jansson.h>

#include "demo/demo_internal.h"

/* {"qemu64": {"result": "OK", "ok": true, "picks": {"foo": "foo.default"}}, ...}:
 * a build on each emulated CPU, as in the table (no times), and which clone
 * each resolver picked there (FMV build only); null when it could not be run. */
static json_t *build_cpus_json(const struct demo_build_result *r, const struct strvec *models)
{
    if (!r->verified) return json_null();
    json_t *j = json_object();
    for (size_t i = 0; i < models->n; i++) {
        const struct verify_run *run = demo_emulated_run(r, i);
        char *cell = demo_cpu_cell(run);
        json_t *c = json_pack("{s:s, s:b}", "result", cell, "ok", run && run->ok);
        free(cell);
        if (run && r->cpus.plan.n_entries) {
            json_t *picks = json_object();
            for (size_t e = 0; e < r->cpus.plan.n_entries; e++) {
                const struct elf_clone *pick = run->dispatch.picks ? run->dispatch.picks[e] : NULL;
                json_object_set_new(picks, r->cpus.plan.entries[e].fn->name,
                                    pick ? json_string(pick->symbol) : json_null());
            }
            json_object_set_new(c, "picks", picks);
        }
        json_object_set_new(j, models->v[i], c);
    }
    return j;
}

static json_t *example_to_json(const struct demo_example *ex, const struct demo_options *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(ex->def->name));
    json_object_set_new(j, "runs", json_integer(o->runs));
    json_object_set_new(j, "pipeline_failure", ex->step_failure ? json_string(ex->step_failure) : json_null());
    json_object_set_new(j, "list", ex->list_json ? json_incref(ex->list_json) : json_null());
    json_object_set_new(j, "patch", ex->patch_text ? json_string(ex->patch_text) : json_null());
    json_t *builds = json_array();
    double ref = demo_reference_seconds(ex);
    for (size_t b = 0; b < DEMO_N_BUILDS; b++) {
        const struct demo_build_result *r = &ex->builds[b];
        if (!demo_build_applies(&demo_builds[b], ex)) continue;
        json_t *jb = json_object();
        json_object_set_new(jb, "key", json_string(demo_builds[b].key));
        json_object_set_new(jb, "label", json_string(demo_builds[b].label));
        json_object_set_new(jb, "cflags", json_string(demo_builds[b].cflags));
        json_object_set_new(jb, "patched", json_boolean(demo_builds[b].patched));
        json_object_set_new(jb, "built", json_boolean(r->built));
        json_object_set_new(jb, "build_failure", r->build.failure ? json_string(r->build.failure) : json_null());
        if (r->timed) {
            json_t *secs = json_array();
            for (int i = 0; i < r->timing.runs; i++) json_array_append_new(secs, json_real(r->timing.seconds[i]));
            json_object_set_new(jb, "seconds", secs);
            json_object_set_new(jb, "run_failure", r->timing.failure ? json_string(r->timing.failure) : json_null());
            if (!r->timing.failure) {
                json_object_set_new(jb, "median_s", json_real(r->timing.median));
                json_object_set_new(jb, "speedup_vs_baseline", json_real(measure_speedup(ref, r->timing.median)));
            }
            json_object_set_new(jb, "output", json_string(r->timing.output));
            json_object_set_new(jb, "output_varies", json_boolean(r->timing.output_varies));
        }
        json_object_set_new(jb, "portable", json_boolean(demo_builds[b].portable));
        if (ex->cpu_models.n && r->built) json_object_set_new(jb, "cpus", build_cpus_json(r, &ex->cpu_models));
        json_array_append_new(builds, jb);
    }
    json_object_set_new(j, "builds", builds);
    json_t *cpus = json_array();
    for (size_t i = 0; i < ex->cpu_models.n; i++) json_array_append_new(cpus, json_string(ex->cpu_models.v[i]));
    json_object_set_new(j, "emulated_cpus", cpus);
    json_object_set_new(j, "emulated_arg", ex->def->emulated_arg ? json_string(ex->def->emulated_arg) : json_null());
    json_object_set_new(j, "emulation_missing",
                        ex->emulation_missing ? json_string(ex->emulation_missing) : json_null());
    json_object_set_new(j, "outputs_compared", json_integer(ex->outputs_compared));
    json_object_set_new(j, "outputs_equal", json_boolean(ex->outputs_compared >= 2 && ex->outputs_equal));
    json_t *clones = json_array();
    for (size_t i = 0; ex->have_clones && i < ex->clones.n_functions; i++) {
        const struct elf_mv_function *f = &ex->clones.functions[i];
        json_t *jf = json_object(), *jc = json_array();
        json_object_set_new(jf, "function", json_string(f->name));
        for (size_t c = 0; c < f->n_clones; c++) {
            json_t *one = json_object();
            json_object_set_new(one, "symbol", json_string(f->clones[c].symbol));
            json_object_set_new(one, "target", json_string(f->clones[c].target));
            if (ex->samples) json_object_set_new(one, "samples", json_integer(ex->samples[i].samples[c]));
            json_array_append_new(jc, one);
        }
        json_object_set_new(jf, "clones", jc);
        const struct elf_clone *hot = ex->samples ? ex->samples[i].hottest : NULL;
        json_object_set_new(jf, "runs_here", hot ? json_string(hot->symbol) : json_null());
        json_array_append_new(clones, jf);
    }
    json_object_set_new(j, "clones", clones);
    json_object_set_new(j, "profile_samples", json_integer(ex->profile.total_samples));
    json_object_set_new(j, "profile_failure", ex->profile_failure ? json_string(ex->profile_failure) : json_null());
    return j;
}

json_t *demo_to_json(const struct demo *d, const struct demo_options *o)
{
    json_t *j = json_object(), *arr = json_array();
    for (size_t e = 0; e < DEMO_N_EXAMPLES; e++) json_array_append_new(arr, example_to_json(&d->examples[e], o));
    json_object_set_new(j, "examples", arr);
    json_object_set_new(j, "workdir", json_string(d->workdir));
    json_object_set_new(j, "kept", json_boolean(o->keep));
    json_object_set_new(j, "ok", json_boolean(!d->failed));
    return j;
}
