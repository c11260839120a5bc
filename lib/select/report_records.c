/* report_records.c - report.json's "run_records" (report_write.h): the
 * per-run numbers every interval of the report was computed from, so that
 * anyone can recompute the statistics (or try another test) offline. */
#include "select/report_write.h"

#include <math.h>

/* The functions the records keep: those the rule judged hot (a share of
 * some workload's baseline samples of at least min_share), in the report's
 * order. */
static int hot(const struct select_report *r, size_t f)
{
    return f < r->decision.n_functions && r->decision.functions[f].share >= r->min_share;
}

static json_t *num(double x)
{
    if (!isfinite(x)) return json_null();
    if (x == floor(x) && fabs(x) < 9e15) return json_integer((json_int_t)x);
    return json_real(x);
}

/* One arm of one workload in one stage: null when it ran no round. */
static json_t *record_json(const struct select_report *r, const struct select_run_stage *st, size_t w, size_t arm)
{
    size_t nf = r->n_functions, nv = r->n_variants, nr = st->n_rounds;
    int aa = arm == nv;
    size_t v = aa ? 0 : arm;
    json_t *round = json_array(), *position = json_array(), *total = json_array(), *samples = json_array();
    for (size_t k = 0; k < nr; k++) {
        int place = st->position[arm * nr + k];
        if (place < 0) continue;
        json_array_append_new(round, json_integer((json_int_t)(st->first_round + k)));
        json_array_append_new(position, json_integer(place));
        json_array_append_new(total, num(aa ? st->aa_totals[w * nr + k] : st->totals[(w * nv + v) * nr + k]));
    }
    for (size_t f = 0; f < nf; f++) {
        if (!hot(r, f)) continue;
        json_t *runs = json_array();
        for (size_t k = 0; k < nr; k++) {
            if (st->position[arm * nr + k] < 0) continue;
            double x = aa ? st->aa_samples[(w * nf + f) * nr + k] : st->samples[((w * nv + v) * nf + f) * nr + k];
            json_array_append_new(runs, num(x));
        }
        json_array_append_new(samples, runs);
    }
    if (!json_array_size(round)) {
        json_decref(round), json_decref(position), json_decref(total), json_decref(samples);
        return NULL;
    }
    json_t *o = json_object();
    json_object_set_new(o, "workload", json_integer((json_int_t)w));
    json_object_set_new(o, "arm", json_string(aa ? "aa" : r->variants[v].name));
    json_object_set_new(o, "variant", json_string(r->variants[v].name));
    json_object_set_new(o, "aa", json_boolean(aa));
    json_object_set_new(o, "stage", json_string(st->confirmation ? "confirmation" : "profiled"));
    json_object_set_new(o, "round", round);
    json_object_set_new(o, "position", position);
    json_object_set_new(o, "total", total);
    json_object_set_new(o, "samples", samples);
    return o;
}

json_t *report_run_records_json(const struct select_report *r)
{
    if (r->static_mode || !r->decision.functions || !r->n_run_stages) return json_null();
    json_t *o = json_object(), *fi = json_array(), *fn = json_array(), *recs = json_array();
    for (size_t f = 0; f < r->n_functions; f++) {
        if (!hot(r, f)) continue;
        json_array_append_new(fi, json_integer((json_int_t)f));
        json_array_append_new(fn, json_string(r->functions[f].display_name));
    }
    for (size_t i = 0; i < r->n_run_stages; i++)
        for (size_t w = 0; w < r->n_workloads; w++)
            for (size_t arm = 0; arm <= r->n_variants; arm++) {
                json_t *rec = record_json(r, &r->run_stages[i], w, arm);
                if (rec) json_array_append_new(recs, rec);
            }
    json_object_set_new(o, "functions", fi);
    json_object_set_new(o, "function_names", fn);
    json_object_set_new(o, "records", recs);
    return o;
}
