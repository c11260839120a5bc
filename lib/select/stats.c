/* stats.c - see stats.h. The t quantiles come from a table (df 1..30) and
 * the normal limit beyond, linearly interpolated in 1/df: exact to the
 * digits that matter for a keep-or-drop decision, and no libm special
 * functions needed. */
#include "select/stats.h"

#include <math.h>
#include <stdlib.h>

double stats_mean(const double *v, size_t n)
{
    if (!n) return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    return s / (double)n;
}

double stats_sd(const double *v, size_t n)
{
    if (n < 2) return 0;
    double m = stats_mean(v, n), s = 0;
    for (size_t i = 0; i < n; i++) s += (v[i] - m) * (v[i] - m);
    return sqrt(s / (double)(n - 1));
}

static const double T975[31] = {
    INFINITY, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double stats_t975(double df)
{
    if (!(df > 0)) return INFINITY;
    if (df < 1) return T975[1] / df;   /* conservative below one degree of freedom */
    if (df >= 30) {
        /* between df = 30 (2.042) and the normal limit (1.960), linear in 1/df */
        return 1.960 + (2.042 - 1.960) * 30.0 / df;
    }
    int k = (int)df;
    double frac = df - k;
    if (frac == 0) return T975[k];
    /* interpolate in 1/df between k and k+1 */
    double x = 1 / df, x0 = 1.0 / k, x1 = 1.0 / (k + 1);
    return T975[k + 1] + (T975[k] - T975[k + 1]) * (x - x1) / (x0 - x1);
}

/* a / b as a speedup of B over A: +inf when B takes no time and A some (a
 * function that the variant never sampled), 1 when neither takes any (no
 * change measured), never the 0 that means "infinitely slower". */
static double ratio(double a, double b)
{
    if (b > 0) return a / b;
    return a > 0 ? INFINITY : 1;
}

static double speedup_at(double mean_a, double diff)
{
    return ratio(mean_a, mean_a - diff);
}

void stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out)
{
    *out = (struct stats_interval){.p = 1};
    out->mean_a = stats_mean(a, na);
    out->mean_b = stats_mean(b, nb);
    out->diff = out->mean_a - out->mean_b;
    out->speedup = ratio(out->mean_a, out->mean_b);
    if (na < 2 || nb < 2) return;
    double va = stats_sd(a, na), vb = stats_sd(b, nb);
    va = va * va / (double)na;
    vb = vb * vb / (double)nb;
    double se = sqrt(va + vb);
    double half;
    if (se == 0) {
        half = 0;   /* identical values on each side: the difference is exact */
        out->df = (double)(na + nb - 2);
        out->p = out->diff != 0 ? 0 : 1;
    } else {
        double df = (va + vb) * (va + vb) /
                    (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
        half = stats_t975(df) * se;
        out->df = df;
        out->p = stats_t_pvalue(out->diff / se, df);
    }
    out->se = se;
    out->valid = 1;
    out->lo = out->diff - half;
    out->hi = out->diff + half;
    out->speedup_lo = speedup_at(out->mean_a, out->lo);
    out->speedup_hi = speedup_at(out->mean_a, out->hi);
}

/* The regularized incomplete beta function I_x(a, b) by its continued
 * fraction (modified Lentz), the form that converges for x < (a+1)/(a+b+2);
 * the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) covers the rest. */
static double beta_cf(double x, double a, double b)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + num * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + num / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + num * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + num / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1) < 1e-12) break;
    }
    return h;
}

static double incomplete_beta(double x, double a, double b)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_cf(x, a, b) / a;
    return 1 - front * beta_cf(1 - x, b, a) / b;
}

double stats_t_pvalue(double t, double df)
{
    if (!(df > 0) || isnan(t)) return 1;
    if (isinf(t)) return 0;
    if (isinf(df)) return erfc(fabs(t) / sqrt(2.0));   /* the normal limit */
    return incomplete_beta(df / (df + t * t), df / 2, 0.5);
}

void stats_widen(struct stats_interval *iv, double margin)
{
    if (!iv->valid || !(margin > 0)) return;
    iv->widened += margin;
    iv->lo -= margin;
    iv->hi += margin;
    if (iv->log_scale) {
        iv->speedup_lo = exp(iv->lo);
        iv->speedup_hi = exp(iv->hi);
    } else {
        iv->speedup_lo = speedup_at(iv->mean_a, iv->lo);
        iv->speedup_hi = speedup_at(iv->mean_a, iv->hi);
    }
    double beyond = fabs(iv->diff) - iv->widened;
    if (beyond <= 0) iv->p = 1;
    else if (iv->se > 0) iv->p = stats_t_pvalue(beyond / iv->se, iv->df);
    else iv->p = 0;
}

/* For stats_holm: indices sorted by p. */
static const double *holm_p;
static int by_p(const void *x, const void *y)
{
    double a = holm_p[*(const size_t *)x], b = holm_p[*(const size_t *)y];
    if (isnan(a)) a = 1;
    if (isnan(b)) b = 1;
    if (a != b) return a < b ? -1 : 1;
    return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

void stats_holm(const double *p, size_t m, double alpha, int *reject)
{
    size_t *idx = malloc((m ? m : 1) * sizeof *idx);
    if (!idx) abort();
    for (size_t i = 0; i < m; i++) idx[i] = i, reject[i] = 0;
    holm_p = p;
    qsort(idx, m, sizeof *idx, by_p);
    holm_p = NULL;
    for (size_t k = 0; k < m; k++) {
        double pk = isnan(p[idx[k]]) ? 1 : p[idx[k]];
        if (pk > alpha / (double)(m - k)) break;
        reject[idx[k]] = 1;
    }
    free(idx);
}

int stats_faster(const struct stats_interval *iv)
{
    return iv->valid && iv->lo > 0;
}

int stats_slower(const struct stats_interval *iv)
{
    return iv->valid && iv->hi < 0;
}

void stats_welch_log(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out)
{
    *out = (struct stats_interval){0};
    double *la = calloc(na ? na : 1, sizeof *la), *lb = calloc(nb ? nb : 1, sizeof *lb);
    int positive = la && lb;
    for (size_t i = 0; positive && i < na; i++) positive = a[i] > 0 && (la[i] = log(a[i]), 1);
    for (size_t i = 0; positive && i < nb; i++) positive = b[i] > 0 && (lb[i] = log(b[i]), 1);
    if (positive) {
        stats_welch(la, na, lb, nb, out);
        out->log_scale = 1;
        out->speedup = exp(out->diff);
        out->speedup_lo = exp(out->lo);
        out->speedup_hi = exp(out->hi);
    }
    out->mean_a = stats_mean(a, na);
    out->mean_b = stats_mean(b, nb);
    if (!positive) out->valid = 0, out->p = 1;
    free(la);
    free(lb);
}

static int all_positive(const double *a, size_t na, const double *b, size_t nb)
{
    for (size_t i = 0; i < na; i++)
        if (!(a[i] > 0)) return 0;
    for (size_t i = 0; i < nb; i++)
        if (!(b[i] > 0)) return 0;
    return 1;
}

void stats_compare_log(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out)
{
    if (all_positive(a, na, b, nb) && na >= STATS_RANK_MIN_RUNS && nb >= STATS_RANK_MIN_RUNS)
        stats_rank_log(a, na, b, nb, out);
    else
        stats_welch_log(a, na, b, nb, out);
}

void stats_compare_samples(const double *a, size_t na, const double *b, size_t nb, struct stats_interval *out)
{
    if (all_positive(a, na, b, nb) && na >= 2 && nb >= 2) stats_compare_log(a, na, b, nb, out);
    else stats_welch(a, na, b, nb, out);
}
