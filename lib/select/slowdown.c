/* slowdown.c - see slowdown.h. */
#include "select/slowdown.h"

#include <string.h>

#include "util/util.h"

static int reads_slower(const struct stats_interval *wall, const struct stats_interval *cpu, int cpu_decides)
{
    return (!cpu_decides && stats_slower(wall)) || (cpu->valid && stats_slower(cpu));
}

int slowdown_flagged(const struct select_workload_result *wr)
{
    return wr->timed && !wr->failure && reads_slower(&wr->e2e, &wr->e2e_cpu, wr->cpu_decides);
}

int slowdown_confirm(const struct timing_result *base, const struct timing_result *sel, double margin,
                     int cpu_decides, struct stats_interval *wall, struct stats_interval *cpu)
{
    memset(wall, 0, sizeof *wall);
    memset(cpu, 0, sizeof *cpu);
    if (base->failure || sel->failure || base->runs < 2 || sel->runs < 2) return -1;
    stats_compare_log(base->seconds, (size_t)base->runs, sel->seconds, (size_t)sel->runs, wall);
    if (base->cpu_seconds && sel->cpu_seconds)
        stats_compare_log(base->cpu_seconds, (size_t)base->runs, sel->cpu_seconds, (size_t)sel->runs, cpu);
    if (margin > 0) {
        stats_widen(wall, margin);
        stats_widen(cpu, margin);
    }
    return reads_slower(wall, cpu, cpu_decides);
}

static const struct stats_interval *deciding(const struct stats_interval *wall, const struct stats_interval *cpu,
                                             const char **what)
{
    int by_cpu = cpu->valid && stats_slower(cpu);
    *what = by_cpu ? "CPU time" : "wall time";
    return by_cpu ? cpu : wall;
}

char *slowdown_reason(const struct select_workload_result *wr, const struct stats_interval *wall,
                      const struct stats_interval *cpu, int fresh_runs)
{
    const char *what1, *what2;
    const struct stats_interval *first = deciding(&wr->e2e, &wr->e2e_cpu, &what1), *again = deciding(wall, cpu, &what2);
    return xasprintf("significantly slower than the baseline on '%s': %s %.2fx [%.2f, %.2f], again on %d fresh "
                     "runs: %s %.2fx [%.2f, %.2f]",
                     wr->command, what1, first->speedup, first->speedup_lo, first->speedup_hi, fresh_runs, what2,
                     again->speedup, again->speedup_lo, again->speedup_hi);
}
