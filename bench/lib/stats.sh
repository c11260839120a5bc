# bench/lib/stats.sh - sourced by the bench scripts that time builds
# against each other: ratio() and median() on space-separated times.

# ratio A/B of geometric means with a Welch 95% interval on log times:
# prints "ratio lo hi logdiff variance-of-logdiff welch-df-denominator"
ratio() {   # "TIMES-A" "TIMES-B"
  awk -v A="$1" -v B="$2" '
    function tq(df) {   # two-sided 95% t quantile
      split("12.71 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ")
      if (df < 1) df = 1
      return df <= 20 ? t[int(df)] : (df <= 30 ? 2.05 : 1.98)
    }
    function stats(s, out,   a, i, k, m, v) {
      k = split(s, a, " "); m = 0; for (i = 1; i <= k; i++) { a[i] = log(a[i] > 0 ? a[i] : 1e-4); m += a[i] }
      m /= k; v = 0; for (i = 1; i <= k; i++) v += (a[i] - m) ^ 2
      out["n"] = k; out["m"] = m; out["v"] = k > 1 ? v / (k - 1) : 0
    }
    BEGIN {
      stats(A, a); stats(B, b)
      d = a["m"] - b["m"]; qa = a["v"] / a["n"]; qb = b["v"] / b["n"]; se = sqrt(qa + qb)
      df = (qa + qb) > 0 ? (qa + qb) ^ 2 / ((a["n"] > 1 ? qa ^ 2 / (a["n"] - 1) : 0) + (b["n"] > 1 ? qb ^ 2 / (b["n"] - 1) : 0) + 1e-300) : 1
      h = tq(df) * se
      den = (a["n"] > 1 ? qa ^ 2 / (a["n"] - 1) : 0) + (b["n"] > 1 ? qb ^ 2 / (b["n"] - 1) : 0)
      printf "%.4f %.4f %.4f %.6f %.8g %.8g\n", exp(d), exp(d - h), exp(d + h), d, qa + qb, den
    }'
}
# ratio A/B by ranks: the Hodges-Lehmann estimate (the median of every
# pairwise difference of log times) with its distribution-free 95% interval
# from the Mann-Whitney statistic (normal approximation, no tie correction),
# as select's stats_compare_log does from 8 runs a side: a burst that slows a
# few runs of one side moves it little. Prints "ratio lo hi" (exp of the
# estimate and bounds: above 1, B is faster).
ratio_rank() {   # "TIMES-A" "TIMES-B"
  awk -v A="$1" -v B="$2" 'BEGIN {
    n = split(A, a, " "); m = split(B, b, " ")
    for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
      printf "%.10f\n", log(a[i] > 0 ? a[i] : 1e-4) - log(b[j] > 0 ? b[j] : 1e-4)
  }' | sort -g | awk -v n="$(wc -w <<<"$1")" -v m="$(wc -w <<<"$2")" '
    { d[NR] = $1 }
    END {
      N = NR; est = (N % 2) ? d[(N + 1) / 2] : (d[N / 2] + d[N / 2 + 1]) / 2
      c = int(n * m / 2 - 1.959964 * sqrt(n * m * (n + m + 1) / 12))
      if (c < 0) c = 0
      lo = d[c + 1]; hi = d[N - c]
      printf "%.4f %.4f %.4f\n", exp(est), exp(lo), exp(hi)
    }'
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# The share of the v3 -mno-fma rebuild's gain a build reaches,
# (sel-1)/(nofma-1), as "89%", or "n/a (...)" where that gain is not there
# to share: the rebuild is not faster (nofma <= 1), or its 95% interval
# still holds 1.00 (nofma_lo <= 1: a ratio of two noises, e.g. "89%" of a
# 1.021x [0.969, 1.076] gain by a selected build that is the baseline).
gain_share() {   # SEL NOFMA NOFMA_LO
  awk -v s="$1" -v f="$2" -v l="$3" 'BEGIN {
    if (f <= 1.0) print "n/a (v3-nofma gains nothing)"
    else if (l <= 1.0) printf "n/a (v3-nofma gain %.3fx not significant: its interval holds 1.00)\n", f
    else printf "%.0f%%\n", 100 * (s - 1) / (f - 1) }'
}

# The same over all workloads (geometric means GSEL, GNOFMA): "n/a" unless
# the rebuild gains significantly on at least one workload (SIGNIFICANT:
# how many of its per-workload intervals lie above 1.00).
gain_share_geomean() {   # GSEL GNOFMA SIGNIFICANT
  awk -v s="$1" -v f="$2" -v k="$3" 'BEGIN {
    if (f <= 1.0) print "n/a (v3-nofma gains nothing)"
    else if (k < 1) printf "n/a (v3-nofma %.3fx: no workload where its gain is significant)\n", f
    else printf "%.0f%%\n", 100 * (s - 1) / (f - 1) }'
}
