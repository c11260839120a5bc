/* present.c - verify.h's presentation of a report, shared by the table and
 * --json: each run's result text, and the report as JSON. */
#include "verify/verify.h"
#include "util/demangle.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- presentation shared by the table and --json ---- */

static const char *signal_name(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    static char buf[32];
    if (!abbrev) {
        snprintf(buf, sizeof buf, "signal %d", sig);
        return buf;
    }
    snprintf(buf, sizeof buf, "SIG%s", abbrev);
    return buf;
}

static char *result_text(enum verify_outcome outcome, int exit_status, int signal)
{
    switch (outcome) {
    case VERIFY_EXITED: return exit_status ? xasprintf("exit %d", exit_status) : xstrdup("ok");
    case VERIFY_SIGNALED: return xstrdup(signal_name(signal));
    case VERIFY_TIMED_OUT: return xstrdup("timeout");
    case VERIFY_NOT_STARTED: return xstrdup("not started");
    case VERIFY_EMULATOR_ERROR: return xstrdup("qemu error");
    }
    return xstrdup("?");
}

char *verify_run_result(const struct verify_run *run)
{
    return result_text(run->outcome, run->exit_status, run->signal);
}

char *verify_against_result(const struct verify_against *a)
{
    return result_text(a->outcome, a->exit_status, a->signal);
}

static json_t *diff_json(const struct output_diff *d)
{
    json_t *j = json_pack("{s:s}", "match", output_match_name(d->match));
    if (d->match == OUTPUT_FLOATS_DIFFER || d->match == OUTPUT_WITHIN_TOLERANCE)
        json_object_set_new(j, "max_relative_difference", json_real(d->max_diff));
    if (d->binary) json_object_set_new(j, "binary", json_true());
    if (d->binary && d->match == OUTPUT_DIFFERENT) json_object_set_new(j, "byte", json_integer((json_int_t)d->byte));
    json_object_set_new(j, "ignored_lines", json_integer(d->ignored));
    if (d->line) {
        json_object_set_new(j, "line", json_integer(d->line));
        json_object_set_new(j, "expected", json_string(d->expected ? d->expected : ""));
        json_object_set_new(j, "actual", json_string(d->actual ? d->actual : ""));
    }
    return j;
}

static const char *outcome_name(enum verify_outcome o)
{
    switch (o) {
    case VERIFY_EXITED: return "exited";
    case VERIFY_SIGNALED: return "signaled";
    case VERIFY_TIMED_OUT: return "timeout";
    case VERIFY_NOT_STARTED: return "not-started";
    case VERIFY_EMULATOR_ERROR: return "emulator-error";
    }
    return "?";
}

static json_t *against_json(const struct verify_report *r, const struct verify_against *a)
{
    char *result = verify_against_result(a);
    json_t *j = json_pack("{s:s, s:s, s:b, s:b, s:b}", "result", result, "outcome", outcome_name(a->outcome),
                          "status_match", a->status_match, "silent", a->silent, "ok", a->ok);
    free(result);
    json_object_set_new(j, "exit_status", a->outcome == VERIFY_EXITED ? json_integer(a->exit_status) : json_null());
    json_object_set_new(j, "signal", a->outcome == VERIFY_SIGNALED ? json_string(signal_name(a->signal)) : json_null());
    json_object_set_new(j, "message", a->message ? json_string(a->message) : json_null());
    json_object_set_new(j, "stdout", a->compared ? diff_json(&a->out) : json_null());
    json_t *files = json_array();
    for (size_t k = 0; k < r->n_compare; k++) {
        json_t *f = a->compared ? diff_json(&a->files[k]) : json_pack("{s:n}", "match");
        json_object_set_new(f, "file", json_string(r->compare[k]));
        json_array_append_new(files, f);
    }
    json_object_set_new(j, "files", files);
    return j;
}

json_t *verify_report_to_json(const struct verify_report *r)
{
    json_t *root = json_object();
    json_object_set_new(root, "program", json_string(r->program));
    json_object_set_new(root, "against", r->against ? json_string(r->against) : json_null());
    json_t *argv = json_array();
    for (size_t i = 0; r->argv[i]; i++) json_array_append_new(argv, json_string(r->argv[i]));
    json_object_set_new(root, "argv", argv);
    json_object_set_new(root, "qemu", r->qemu ? json_string(r->qemu) : json_null());
    json_object_set_new(root, "float_tolerance", r->float_tolerance >= 0 ? json_real(r->float_tolerance) : json_null());
    json_t *ignore = json_array();
    for (size_t i = 0; i < r->ignore.n; i++) json_array_append_new(ignore, json_string(r->ignore.patterns[i]));
    json_object_set_new(root, "ignore_lines", ignore);
    json_object_set_new(root, "ok", json_boolean(r->ok));

    json_t *cpus = json_array();
    for (size_t i = 0; i < r->n_runs; i++) {
        const struct verify_run *run = &r->runs[i];
        char *result = verify_run_result(run);
        json_t *c = json_pack("{s:s, s:b, s:s, s:s, s:b}", "cpu", run->cpu, "emulated", run->emulated, "result",
                              result, "outcome", outcome_name(run->outcome), "ok", run->ok);
        free(result);
        json_object_set_new(c, "level", run->level ? json_string(run->level) : json_null());
        json_object_set_new(c, "features", run->features ? json_string(run->features) : json_null());
        json_object_set_new(c, "exit_status", run->outcome == VERIFY_EXITED ? json_integer(run->exit_status) : json_null());
        json_object_set_new(c, "signal", run->outcome == VERIFY_SIGNALED ? json_string(signal_name(run->signal)) : json_null());
        /* Emulated times say nothing about the program: not reported. */
        json_object_set_new(c, "seconds", run->emulated ? json_null() : json_real(run->seconds));
        json_object_set_new(c, "message", run->message ? json_string(run->message) : json_null());
        if (i == 0) {
            json_object_set_new(c, "stdout", run->compared ? json_pack("{s:s, s:i}", "match", "reference", "ignored_lines",
                                                                 run->out.ignored)
                                                     : json_null());
        } else if (run->compared) {
            json_object_set_new(c, "stdout", diff_json(&run->out));
        } else {
            json_object_set_new(c, "stdout", json_null());
        }
        json_t *files = json_array();
        for (size_t k = 0; k < r->n_compare; k++) {
            json_t *f;
            if (i == 0)
                f = json_pack("{s:s, s:i}", "match", run->files[k].match == OUTPUT_MISSING ? "missing" : "reference",
                              "ignored_lines", run->files[k].ignored);
            else if (run->compared) f = diff_json(&run->files[k]);
            else f = json_pack("{s:n}", "match");
            if (i == 0 && run->files[k].binary) json_object_set_new(f, "binary", json_true());
            json_object_set_new(f, "file", json_string(r->compare[k]));
            json_array_append_new(files, f);
        }
        json_object_set_new(c, "files", files);
        json_object_set_new(c, "dispatch_error", run->dispatch.error ? json_string(run->dispatch.error) : json_null());
        json_t *wrong = json_array();
        for (size_t k = 0; k < run->dispatch_errors.n; k++) json_array_append_new(wrong, json_string(run->dispatch_errors.v[k]));
        json_object_set_new(c, "dispatch_errors", wrong);
        json_object_set_new(c, "against", run->against ? against_json(r, run->against) : json_null());
        json_array_append_new(cpus, c);
    }
    json_object_set_new(root, "cpus", cpus);

    json_t *map = json_array();
    for (size_t e = 0; e < r->plan.n_entries; e++) {
        const struct dispatch_entry *en = &r->plan.entries[e];
        const struct dispatch_object *obj = &r->plan.objects[en->object];
        json_t *clones = json_array();
        for (size_t c = 0; c < en->fn->n_clones; c++) json_array_append_new(clones, json_string(en->fn->clones[c].symbol));
        json_t *picks = json_object(), *targets = json_object();
        for (size_t i = 0; i < r->n_runs; i++) {
            const struct dispatch_result *d = &r->runs[i].dispatch;
            json_t *v;
            if (d->picks && d->picks[e]) v = json_string(d->picks[e]->symbol);
            else if (d->other && d->other[e]) v = json_string(d->other[e]);
            else v = json_null();
            json_object_set_new(picks, r->runs[i].cpu, v);
            json_object_set_new(targets, r->runs[i].cpu,
                                d->picks && d->picks[e] ? json_string(d->picks[e]->target) : json_null());
        }
        char *readable = symbol_demangle(en->fn->name);
        json_array_append_new(map, json_pack("{s:s, s:b, s:s, s:s, s:s, s:s, s:s?, s:s?, s:o, s:o, s:o}", "object",
                                             obj->path, "main", obj->is_main, "function", en->fn->name, "display",
                                             readable ? readable : en->fn->name, "origin",
                                             elf_mv_origin_name(en->fn->origin), "dispatch",
                                             elf_mv_dispatch_name(en->fn->dispatch), "reach",
                                             elf_mv_reach_name(en->fn), "resolver",
                                             en->fn->resolver, "clones", clones, "picks",
                                             picks, "targets", targets));
        free(readable);
    }
    json_object_set_new(root, "dispatch", map);
    json_object_set_new(root, "dispatch_unavailable",
                        r->plan.unavailable ? json_string(r->plan.unavailable) : json_null());
    json_t *notes = json_array();
    for (size_t i = 0; i < r->notes.n; i++) json_array_append_new(notes, json_string(r->notes.v[i]));
    json_object_set_new(root, "notes", notes);
    return root;
}
