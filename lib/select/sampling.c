/* sampling.c - see sampling.h. */
#include "select/sampling.h"
#include "select/session.h"
#include "util/util.h"

#include <math.h>

/* a function at min_share gets 2.5 x the samples a verdict needs */
_Static_assert((int)(SAMPLING_AT_MIN_SHARE * 2) == 5 * SELECT_MIN_SAMPLES, "SAMPLING_AT_MIN_SHARE");

double sampling_target(double min_share)
{
    double t = SAMPLING_TARGET;
    if (min_share > 0 && SAMPLING_AT_MIN_SHARE / min_share > t) t = SAMPLING_AT_MIN_SHARE / min_share;
    return t;
}

struct sampling_period sampling_rule(const double *cpu_s, size_t n, double min_share, long option_ns)
{
    struct sampling_period p = {.period_ns = SAMPLING_MIN_PERIOD_NS, .source = SAMPLING_UNMEASURED,
                                .target = sampling_target(min_share)};
    for (size_t i = 0; i < n; i++)
        if (isfinite(cpu_s[i]) && cpu_s[i] > 0 && (p.cpu_s <= 0 || cpu_s[i] < p.cpu_s)) p.cpu_s = cpu_s[i];
    if (option_ns > 0) {
        p.period_ns = option_ns;
        p.source = SAMPLING_BY_OPTION;
        return p;
    }
    if (p.cpu_s <= 0) return p;
    p.source = SAMPLING_BY_RULE;
    double ns = p.cpu_s * 1e9 / p.target;
    if (ns > (double)SAMPLING_MAX_PERIOD_NS) ns = (double)SAMPLING_MAX_PERIOD_NS;
    long whole_us = (long)(ns / 1000) * 1000;   /* whole microseconds: a period one can read */
    p.period_ns = whole_us > SAMPLING_MIN_PERIOD_NS ? whole_us : SAMPLING_MIN_PERIOD_NS;
    return p;
}

double sampling_scale(long period_ns)
{
    return period_ns > 0 ? (double)period_ns / (double)SAMPLING_UNIT_NS : 1;
}

const char *sampling_source_name(enum sampling_source s)
{
    switch (s) {
    case SAMPLING_BY_RULE: return "rule";
    case SAMPLING_UNMEASURED: return "unmeasured";
    case SAMPLING_BY_OPTION: return "option";
    }
    return "?";
}

char *sampling_describe(const struct sampling_period *p)
{
    double us = (double)p->period_ns / 1000;
    switch (p->source) {
    case SAMPLING_BY_OPTION: return xasprintf("every %g us (--sample-period)", us);
    case SAMPLING_UNMEASURED:
        return xasprintf("every %g us (no unprofiled run measured its CPU time: the rule's minimum)", us);
    case SAMPLING_BY_RULE: break;
    }
    const char *clamp = p->period_ns <= SAMPLING_MIN_PERIOD_NS ? ", at least 50 us"
                        : p->period_ns >= SAMPLING_MAX_PERIOD_NS ? ", at most 1000 us" : "";
    return xasprintf("every %g us (the rule: %.3g s of CPU per run / %.0f samples%s)", us, p->cpu_s, p->target,
                     clamp);
}
