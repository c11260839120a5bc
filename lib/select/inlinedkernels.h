/* inlinedkernels.h - select's profiled runs (profiling.c) and the kernels
 * the baseline inlined into their hosts: each candidate with an
 * "inlined-into" note is credited, in every run of every arm, with its
 * hosts' samples that hostlines.h finds to be its code (inline frames, or a
 * line of its definition - shifted by the lines each variant's patch
 * inserted above it). A kernel whose hosts' baseline samples have no line
 * information (no -g) is not judged: its samples are zeroed in every arm
 * (too few samples), and a note says why. Not for use outside lib/select. */
#ifndef FMVGEN_SELECT_INLINEDKERNELS_H
#define FMVGEN_SELECT_INLINEDKERNELS_H

#include <stddef.h>

#include "measure/profile.h"
#include "select/attribution.h"
#include "select/hostlines.h"
#include "select/session.h"

/* Kernels the baseline inlined into their hosts (hostlines.h): each one's
 * hosts, and the tallies that tell whether its time could be told apart. */
struct inlined_kernels {
    struct hostlines *lines;
    struct hostlines_function *fns;     /* [f]; hosts NULL: not such a kernel */
    struct strvec *hosts;               /* [f]: its hosts' symbols */
    struct strvec *host_names;          /* [f]: their names to show, as hosts */
    long *add, *unresolved, *host;      /* [f]: one run's */
    long *base_unresolved, *base_host;  /* [f]: over the baseline's runs */
    double *base_credited;              /* [f]: over the baseline's runs */
    int *line_shift;                    /* [v * nf + f]: lines the patch inserted above f's
                                         * definition in variant v's source copy */
    size_t n, nf;                       /* n: how many have hosts */
};

/* fns[f]: the candidates as attribution_plan made them (name, sources). */
void inlined_kernels_init(struct inlined_kernels *k, const struct select_session *s,
                          const struct attribution_function *fns);
/* Adds run p's credited samples (variant v; baseline: the baseline arm,
 * not the A/A one) to samples[f * stride] and name_samples[f * stride], as
 * counted (the caller scales the run's counts: select/sampling.h); the
 * note's samples per run count each as scale. */
void inlined_kernels_count(struct inlined_kernels *k, const struct profile *p, size_t v, int baseline,
                           double *samples, double *name_samples, size_t stride, double scale);
/* After all runs: zeroes the unjudged kernels (samples and aa_samples,
 * decision_input's layouts) and adds the notes to s->rep. */
void inlined_kernels_finish(struct inlined_kernels *k, struct select_session *s, double *samples,
                            double *aa_samples);
void inlined_kernels_free(struct inlined_kernels *k);

#endif
