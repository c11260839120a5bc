/* confirm_near_sim.c - select's confirmation stage (select/decision_confirm.h)
 * on synthetic samples: false selections on pure noise and the power on
 * one real gain, with and without the near-significant retest.
 *
 * Build against a configured tree (libfmvgen_select and libfmvgen_util):
 *   gcc -O2 -std=c11 -Ilib bench/confirm_near_sim.c build/libfmvgen_select.a \
 *       build/libfmvgen_util.a -lm -o /tmp/confirm_near_sim
 *   /tmp/confirm_near_sim [SELECTIONS]
 *
 * Model (as tests/unit/test_select_decision_confirm.c): 20 hot functions x
 * 2 target sets, one workload, 5 runs per arm plus the A/A arm; per run a
 * machine factor exp(N(0, RUNSD)) shared by every function of that run, and
 * per function exp(N(0, 0.02)); 500 samples per function (5% of the
 * workload each). Stage 1 = decide(); then, in "held only", the retest of
 * what Holm alone held back; in "with near", decision_confirm_near() first,
 * so near-significant functions join the retest. 5 fresh rounds with new
 * noise whenever something is retested. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "select/decision.h"
#include "select/decision_confirm.h"

#define NR 5
#define HF 20
#define NV 3

/* two streams: the first runs' and the fresh runs', so that both modes
 * see the same first runs */
static uint64_t streams[2], *rng = &streams[0];
static double uniform(void)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return ((double)(*rng >> 11) + 0.5) / 9007199254740992.0;
}
static void seed(uint64_t s)
{
    streams[0] = s;
    streams[1] = s ^ 0x5bd1e9955bd1e995ull;
}
static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static double samples[NV * HF * NR], totals[NV * NR], aa[HF * NR], aa_totals[NR];

/* f0 is `gain` faster with set 2 (0: pure noise) */
static void draw(double runsd, double gain)
{
    for (size_t v = 0; v <= NV; v++)
        for (size_t r = 0; r < NR; r++) {
            double run = exp(runsd * gauss()), total = 0;
            for (size_t f = 0; f < HF; f++) {
                double s = 500 * run * exp(0.02 * gauss());
                if (f == 0 && v == 2) s /= 1 + gain;
                total += s;
                if (v == NV) aa[f * NR + r] = s;
                else samples[(v * HF + f) * NR + r] = s;
            }
            if (v == NV) aa_totals[r] = total;
            else totals[v * NR + r] = total;
        }
}

struct counts {
    size_t stage1, retest, either, with_stage, near_retested, f0;
};

static void one(double runsd, double gain, int near, struct counts *c)
{
    static const char *names[HF];
    static const int elig[NV] = {0, 1, 1};
    for (size_t f = 0; f < HF; f++) names[f] = "f";
    rng = &streams[0];
    draw(runsd, gain);
    struct decision_input in = {.n_functions = HF, .n_workloads = 1, .n_variants = NV, .n_runs = NR,
                                .functions = names, .samples = samples, .totals = totals,
                                .variant_eligible = elig, .min_share = 0.02, .min_samples = 20,
                                .aa_samples = aa, .aa_totals = aa_totals};
    struct decision d;
    decide(&in, &d);
    size_t s1 = 0, s2 = 0, f0 = 0;
    for (size_t f = gain > 0; f < HF; f++)
        s1 += d.functions[f].reason == DECISION_SELECTED || d.functions[f].reason == DECISION_SELECTED_TOGETHER;
    if (near) c->near_retested += decision_confirm_near(&in, &d);
    if (decision_confirm_pairs(&d)) {
        c->with_stage++;
        rng = &streams[1];
        draw(runsd, gain);   /* fresh runs */
        decision_confirm(&in, &d);
        for (size_t f = gain > 0; f < HF; f++) s2 += d.functions[f].reason == DECISION_CONFIRMED;
    }
    f0 = d.functions[0].reason == DECISION_SELECTED || d.functions[0].reason == DECISION_SELECTED_TOGETHER ||
         d.functions[0].reason == DECISION_CONFIRMED;
    c->stage1 += s1 > 0;
    c->retest += s2 > 0;
    c->either += s1 + s2 > 0;
    c->f0 += f0;
    decision_free(&d);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 20000;
    static const double runsds[] = {0, 0.03, 0.10};
    printf("Pure noise (every arm the same code), %zu selections per row: selections with a false selection\n", n);
    printf("  RUNSD  mode        with a retest  near retested (functions)  stage 1  retest  either  per 1000: "
           "retest (either)\n");
    for (size_t i = 0; i < 3; i++)
        for (int near = 0; near < 2; near++) {
            struct counts c = {0};
            seed(0x9e3779b97f4a7c15ull + i);
            for (size_t k = 0; k < n; k++) one(runsds[i], 0, near, &c);
            printf("  %-5.2f  %-10s  %13zu  %25zu  %7zu  %6zu  %6zu  %.1f (%.1f)\n", runsds[i],
                   near ? "with near" : "held only", c.with_stage, c.near_retested, c.stage1, c.retest, c.either,
                   1000.0 * (double)c.retest / (double)n, 1000.0 * (double)c.either / (double)n);
        }
    static const double gains[] = {0.03, 0.05, 0.08};
    printf("\nA real gain in f0 only (set 2), RUNSD 0.03, %zu selections per row: f0 selected (false selections "
           "of the others)\n", n / 4);
    printf("  gain  held only            with near\n");
    for (size_t i = 0; i < 3; i++) {
        struct counts a = {0}, b = {0};
        seed(0x2545f4914f6cdd1dull + i);
        for (size_t k = 0; k < n / 4; k++) one(0.03, gains[i], 0, &a);
        seed(0x2545f4914f6cdd1dull + i);
        for (size_t k = 0; k < n / 4; k++) one(0.03, gains[i], 1, &b);
        printf("  %.0f%%    %5zu (%4.1f%%) [%zu]   %5zu (%4.1f%%) [%zu]\n", 100 * gains[i], a.f0,
               100.0 * (double)a.f0 / (double)(n / 4), a.either, b.f0, 100.0 * (double)b.f0 / (double)(n / 4),
               b.either);
    }
    return 0;
}
