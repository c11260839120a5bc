/* stats_rank.c - the rank interval of stats.h (stats_rank_log): the
 * Wilcoxon-Mann-Whitney test and the Hodges-Lehmann estimate with its
 * distribution-free interval, on the logs of the two samples.
 *
 * U counts the pairs (i, j) with log a[i] > log b[j] (a tie counts 1/2).
 * Without ties and with both sides at most RANK_EXACT_MAX runs, its null
 * distribution is counted exactly (every arrangement of the pooled ranks is
 * equally likely); otherwise the normal approximation with the tie
 * correction and a continuity correction of 1/2. The interval is the one
 * that inverts the same test: [d(k+1), d(mn-k)] of the m*n pairwise
 * differences log a[i] - log b[j] sorted ascending (1-based), k the largest
 * count with P(U <= k) <= 2.5%: it excludes 0 exactly when the test rejects
 * at 5% (without ties). */
#include "select/stats.h"

#include <math.h>
#include <stdlib.h>

#include "util/util.h"

/* Exact null distribution up to this many runs a side (40 x 40: 1,600
 * counts of U, each a sum of doubles). Beyond it the normal approximation
 * is exact to well under the digits a verdict needs. */
#define RANK_EXACT_MAX 40

/* count[u] / C(m+n, m) = P(U = u) for m and n values without ties, filled
 * for u = 0..m*n. N(i, j, u) = N(i-1, j, u-j) + N(i, j-1, u): the largest
 * of i + j values is either an a (above all j b's) or a b. */
static double *null_distribution(size_t m, size_t n)
{
    size_t width = m * n + 1;
    double *prev = xcalloc((n + 1) * width, sizeof *prev);
    double *cur = xcalloc((n + 1) * width, sizeof *cur);
    for (size_t j = 0; j <= n; j++) prev[j * width] = 1;   /* i = 0: one arrangement, U = 0 */
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 0; j <= n; j++) {
            double *row = cur + j * width;
            for (size_t u = 0; u < width; u++) {
                double x = u >= j ? prev[j * width + u - j] : 0;
                if (j > 0) x += cur[(j - 1) * width + u];
                row[u] = x;
            }
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double *out = xcalloc(width, sizeof *out), total = 0;
    for (size_t u = 0; u < width; u++) total += prev[n * width + u];
    for (size_t u = 0; u < width; u++) out[u] = prev[n * width + u] / total;
    free(prev);
    free(cur);
    return out;
}

/* Standard normal upper tail P(Z >= z). */
static double normal_upper(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

void stats_rank_log(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out)
{
    *out = (struct stats_interval){.p = 1};
    out->mean_a = stats_mean(a, na);
    out->mean_b = stats_mean(b, nb);
    out->speedup = 1;
    if (na < 2 || nb < 2) return;
    for (size_t i = 0; i < na; i++)
        if (!(a[i] > 0)) return;
    for (size_t j = 0; j < nb; j++)
        if (!(b[j] > 0)) return;

    size_t mn = na * nb;
    double *d = xcalloc(mn, sizeof *d), u = 0;
    int ties = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            double x = log(a[i]) - log(b[j]);
            d[i * nb + j] = x;
            u += x > 0 ? 1 : x == 0 ? 0.5 : 0;
            ties |= x == 0;
        }
    qsort(d, mn, sizeof *d, cmp_double);

    /* k: the largest count with P(U <= k) <= 0.025, -1 when none */
    long k = -1;
    double half_mn = (double)mn / 2;
    if (!ties && na <= RANK_EXACT_MAX && nb <= RANK_EXACT_MAX) {
        double *pu = null_distribution(na, nb), below = 0, at_or_below_u = 0, at_or_above_u = 0;
        for (size_t x = 0; x <= mn; x++) {
            below += pu[x];
            if (below <= 0.025 + 1e-12) k = (long)x;
            if ((double)x <= u) at_or_below_u += pu[x];
            if ((double)x >= u) at_or_above_u += pu[x];
        }
        double tail = at_or_below_u < at_or_above_u ? at_or_below_u : at_or_above_u;
        out->p = 2 * tail > 1 ? 1 : 2 * tail;
        free(pu);
    } else {
        /* tie correction: sum over groups of equal pooled values of t^3 - t */
        size_t n = na + nb;
        double *pool = xcalloc(n, sizeof *pool), tsum = 0;
        for (size_t i = 0; i < na; i++) pool[i] = log(a[i]);
        for (size_t j = 0; j < nb; j++) pool[na + j] = log(b[j]);
        qsort(pool, n, sizeof *pool, cmp_double);
        for (size_t i = 0; i < n;) {
            size_t e = i + 1;
            while (e < n && pool[e] == pool[i]) e++;
            double t = (double)(e - i);
            tsum += t * t * t - t;
            i = e;
        }
        free(pool);
        double var = (double)na * (double)nb / 12 * ((double)(n + 1) - tsum / ((double)n * (double)(n - 1)));
        double sd = sqrt(var);
        double z = sd > 0 ? (fabs(u - half_mn) - 0.5) / sd : 0;
        out->p = sd > 0 ? (z > 0 ? 2 * normal_upper(z) : 1) : (u != half_mn ? 0 : 1);
        if (out->p > 1) out->p = 1;
        k = (long)floor(half_mn - 1.959964 * sd - 0.5);
        if (k >= (long)mn / 2) k = -1;
    }

    out->valid = 1;
    out->log_scale = 1;
    out->rank = 1;
    out->diff = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
    if (k < 0) {
        out->lo = -INFINITY;   /* too few runs for any 95% interval */
        out->hi = INFINITY;
    } else {
        out->lo = d[k];
        out->hi = d[mn - 1 - (size_t)k];
    }
    /* the half-width toward 0, as a normal standard error: what stats_widen
     * recomputes p from once the interval is widened */
    double toward0 = out->diff >= 0 ? out->diff - out->lo : out->hi - out->diff;
    out->se = toward0 / 1.959964;
    out->df = INFINITY;
    out->speedup = exp(out->diff);
    out->speedup_lo = exp(out->lo);
    out->speedup_hi = exp(out->hi);
    free(d);
}
