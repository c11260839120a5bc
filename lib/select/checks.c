/* checks.c - correctness before speed (session_phases.h): each variant
 * runs every workload once, its stdout compared with the baseline's
 * (workload_output.h: lines that differ between two runs of the baseline
 * are not compared; --tolerance for floats), and passes --test; a variant
 * that fails is reported and never selected. Without --tolerance and
 * --test, a variant whose clones may use FMA is not eligible when some
 * workload's output is not compared at all: its changes would go unseen. */
#include "select/session_phases.h"

#include <stdlib.h>
#include <string.h>

#include "select/workload_output.h"
#include "compare/compare.h"

/* The CPU time of an unprofiled run of workload w on variant v, the least
 * kept (sampling.h). */
static void note_cpu(struct select_session *s, size_t v, size_t w, const struct run_result *res)
{
    double *at = &s->check_cpu[v * s->rep.n_workloads + w];
    if (res->cpu_seconds > 0 && (*at <= 0 || res->cpu_seconds < *at)) *at = res->cpu_seconds;
}

/* The baseline's first output of workload w is out: runs it once more and
 * learns which lines are compared (workload_output.h); a benchmark printing
 * its own timings is said, with the remedy. -1 when the second run fails. */
static int learn_output(struct select_session *s, size_t w, const char *out)
{
    const char *cmd = s->o->runs_cmd->v[w];
    struct run_result res;
    if (session_run_shell(s, 0, cmd, &res) != 0) {
        char *why = run_describe(&res);
        fmv_error("%s: workload '%s' fails on the baseline's second run (%s); nothing selected", s->root, cmd, why);
        session_show_output(res.out);
        session_show_output(res.err);
        free(why);
        run_result_free(&res);
        return -1;
    }
    note_cpu(s, 0, w, &res);
    struct workload_output *wo = &s->base_outputs[w];
    workload_output_learn(wo, out, res.out ? res.out : "");
    run_result_free(&res);
    if (wo->mode == WORKLOAD_OUTPUT_MASKED && wo->n_masked == wo->n_lines) {
        /* every line varied: nothing is left to compare, and a checksum
         * varying is no timing - the output itself is not reproducible */
        sv_pushf(&s->rep.notes, "'%s': its output differs between two runs of the baseline on every line it "
                                "prints (%zu): nothing of it is compared, its correctness is not checked; make "
                                "the output reproducible (a time stamp, a random seed or a PID in it?), or use "
                                "--test",
                 cmd, wo->n_lines);
    } else if (wo->mode == WORKLOAD_OUTPUT_MASKED) {
        sv_pushf(&s->rep.notes, "'%s': its output differs between two runs of the baseline (timings?) on %zu "
                                "line%s (the first: line %d): %s not compared, the other lines must match; to "
                                "compare everything, pipe a checksum of the real output, or use --test",
                 cmd, wo->n_masked, wo->n_masked == 1 ? "" : "s", wo->first_masked,
                 wo->n_masked == 1 ? "it is" : "they are");
    } else if (wo->mode == WORKLOAD_OUTPUT_NOT_COMPARED) {
        sv_pushf(&s->rep.notes, "'%s': its output differs between two runs of the baseline (timings?), even in its "
                                "number of lines: its output is not compared; pipe a checksum of the real output, "
                                "or use --test", cmd);
    }
    if (wo->mode != WORKLOAD_OUTPUT_ALL) session_say("%s", s->rep.notes.v[s->rep.notes.n - 1]);
    return 0;
}

/* Runs every workload once on variant v, compares its stdout with the
 * baseline's, and runs --test. Sets the variant's eligibility. On the
 * baseline a failure stops everything (returns -1). */
int session_check_variant(struct select_session *s, size_t v, struct select_variant *var)
{
    const struct select_options *o = s->o;
    enum output_match worst = OUTPUT_IDENTICAL;
    for (size_t w = 0; w < o->runs_cmd->n && !var->failure; w++) {
        struct run_result res;
        int rc = session_run_shell(s, v, o->runs_cmd->v[w], &res);
        if (rc != 0) {
            char *why = run_describe(&res);
            if (v == 0) {
                fmv_error("%s: workload '%s' fails on the baseline (%s); nothing selected", s->root,
                          o->runs_cmd->v[w], why);
                session_show_output(res.out);
                session_show_output(res.err);
            } else {
                var->failure = xasprintf("workload '%s' failed (%s)", o->runs_cmd->v[w], why);
            }
            free(why);
            run_result_free(&res);
            if (v == 0) return -1;
            break;
        }
        if (v < s->rep.n_variants && var == &s->rep.variants[v]) note_cpu(s, v, w, &res);   /* not a scratch check */
        if (v == 0) {
            rc = learn_output(s, w, res.out ? res.out : "");
            run_result_free(&res);
            if (rc != 0) return -1;
            continue;
        }
        struct output_diff d;
        workload_output_compare(&s->base_outputs[w], res.out ? res.out : "", res.out_len, o->tolerance, &d);
        if (d.match > worst) worst = d.match;
        if (d.match != OUTPUT_IDENTICAL && d.match != OUTPUT_WITHIN_TOLERANCE)
            var->failure = xasprintf("output of '%s' differs from the baseline's at line %d (%s)%s",
                                     o->runs_cmd->v[w], d.line, output_match_name(d.match),
                                     d.match == OUTPUT_FLOATS_DIFFER ? "; --tolerance accepts that" : "");
        output_diff_free(&d);
        run_result_free(&res);
    }
    var->output_match = xstrdup(var->failure && worst == OUTPUT_IDENTICAL ? "" : output_match_name(worst));
    /* Bit-exact mode: FMA clones change results in the last bits, which
     * only a compared output (or --test) can catch. A workload none of
     * whose output is compared would let them through unseen. */
    for (size_t w = 0; v > 0 && var->fma && !var->failure && o->tolerance < 0 && !o->test && w < o->runs_cmd->n;
         w++) {
        const struct workload_output *wo = &s->base_outputs[w];
        int none_compared = wo->mode == WORKLOAD_OUTPUT_NOT_COMPARED ||
                            (wo->mode == WORKLOAD_OUTPUT_MASKED && wo->n_masked == wo->n_lines);
        if (none_compared)
            var->failure = xasprintf("its clones may fuse a*b+c (FMA), and no line of the output of '%s' is compared "
                                     "(it varies between two runs of the baseline): a changed result would go "
                                     "unseen; make that output reproducible, or give --test", o->runs_cmd->v[w]);
    }
    if (!var->failure && o->test) {
        struct run_result res;
        if (session_run_shell(s, v, o->test, &res) != 0) {
            char *why = run_describe(&res);
            if (v == 0) {
                fmv_error("%s: --test '%s' fails on the baseline (%s); nothing selected", s->root, o->test, why);
                session_show_output(res.out);
                session_show_output(res.err);
            } else {
                var->failure = xasprintf("--test failed (%s)", why);
            }
            free(why);
            run_result_free(&res);
            if (v == 0) return -1;
        } else {
            run_result_free(&res);
        }
    }
    var->eligible = v == 0 ? 0 : !var->failure;
    return 0;
}

int session_check_one(struct select_session *s, size_t v)
{
    struct select_report *r = &s->rep;
    if (session_interrupted()) return -1;
    session_step(v + 1, r->n_variants, "checking outputs%s of %s", s->o->test ? " and tests" : "", r->variants[v].name);
    if (session_check_variant(s, v, &r->variants[v]) != 0) return -1;
    if (r->variants[v].failure) session_say("%s is not eligible: %s", r->variants[v].name, r->variants[v].failure);
    return 0;
}

/* The variants; the baseline was checked right after its build. */
int session_check_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    for (size_t v = 1; v < r->n_variants; v++)
        if (r->variants[v].built && session_check_one(s, v) != 0) return -1;
    return 0;
}
