/* runsauto.c - see runsauto.h. */
#include "select/runsauto.h"

#include <stdlib.h>
#include <string.h>

#include "select/session.h"
#include "select/variants.h"
#include "util/util.h"

void runs_auto_decide(const struct timing_result *res, size_t nw, struct runs_auto *out)
{
    out->probed = 1;
    out->bursty = out->slow_runs = 0;
    out->worst_ratio = 0;
    out->worst_workload = 0;
    for (size_t w = 0; w < nw; w++) {
        const struct timing_result *t = &res[w];
        if (!t->cpu_seconds || t->runs < 2) continue;
        double fastest = 0, slowest = 0;
        for (int i = 0; i < t->runs; i++) {
            double c = t->cpu_seconds[i];
            if (c > 0 && (fastest <= 0 || c < fastest)) fastest = c;
            if (c > slowest) slowest = c;
        }
        if (fastest <= 0) continue;
        size_t slow = 0;
        for (int i = 0; i < t->runs; i++) slow += t->cpu_seconds[i] >= RUNS_AUTO_SLOW * fastest;
        out->slow_runs += slow;
        out->bursty += slow > 0;
        if (slowest / fastest > out->worst_ratio) {
            out->worst_ratio = slowest / fastest;
            out->worst_workload = w;
        }
    }
    out->runs = out->bursty ? RUNS_AUTO_NOISY_RUNS : SELECT_DEFAULT_RUNS;
}

void runs_auto_free(struct runs_auto *ra)
{
    free(ra->failure);
    ra->failure = NULL;
}

int session_choose_runs(struct select_session *s)
{
    struct select_report *r = &s->rep;
    if (!s->o->runs_auto) return 0;
    size_t nw = r->n_workloads;
    struct timing_spec *specs = xcalloc(nw + 1, sizeof *specs);
    struct timing_result *res = xcalloc(nw + 1, sizeof *res);
    struct strvec *argvs = xcalloc(nw + 1, sizeof *argvs);
    for (size_t w = 0; w < nw; w++) {
        session_variant_command(s, 0, s->o->runs_cmd->v[w], &argvs[w]);
        specs[w] = (struct timing_spec){.argv = sv_argv(&argvs[w]), .cwd = s->builds[0].dir,
                                        .runs = RUNS_AUTO_PROBE_RUNS, .timeout_s = s->o->timeout_s};
    }
    session_step(0, 0, "how noisy is this machine: the baseline's workloads, %d unprofiled runs each",
                 RUNS_AUTO_PROBE_RUNS);
    int failed = measure_time_set_shuffled(specs, nw, r->seed ^ 0x9e3779b9u, res);
    struct runs_auto *ra = &r->runs_auto;
    runs_auto_decide(res, nw, ra);
    ra->probe_runs = RUNS_AUTO_PROBE_RUNS;
    for (size_t w = 0; w < nw && failed; w++)
        if (res[w].failure) {
            ra->failure = xasprintf("'%s' failed a probe run (%s)", s->o->runs_cmd->v[w], res[w].failure);
            break;
        }
    if (ra->failure) ra->runs = SELECT_DEFAULT_RUNS;
    s->opts.runs = ra->runs;
    r->runs = ra->runs;
    if (ra->failure)
        sv_pushf(&r->notes, "--runs auto: %s; %d runs per variant and workload", ra->failure, ra->runs);
    else if (ra->bursty)
        session_say("%d runs per variant and workload (--runs auto): %zu of %zu probe runs took >= %.2fx their "
                    "workload's fastest CPU time (worst: '%s', %.2fx): a busy machine's slow bursts, which the "
                    "rank interval of %d runs a side barely feels",
                    ra->runs, ra->slow_runs, nw * RUNS_AUTO_PROBE_RUNS, RUNS_AUTO_SLOW,
                    s->o->runs_cmd->v[ra->worst_workload], ra->worst_ratio, ra->runs);
    else
        session_say("%d runs per variant and workload (--runs auto): no probe run took %.2fx its workload's "
                    "fastest CPU time (worst %.2fx): a quiet machine",
                    ra->runs, RUNS_AUTO_SLOW, ra->worst_ratio);
    for (size_t w = 0; w < nw; w++) {
        timing_result_free(&res[w]);
        sv_free(&argvs[w]);
    }
    free(specs);
    free(res);
    free(argvs);
    return session_interrupted() ? -1 : 0;
}
