#!/usr/bin/env python3
"""paired_rounds.py - Welch vs paired-by-round intervals on the run records of
`fmvgen select` (report.json "run_records", docs/DESIGN.md).

    bench/paired_rounds.py REPORT.json [REPORT.json ...]

For each report and stage (the profiled rounds, the confirmation's): per hot function (its samples summed over
the workloads per run, as the decision sums them) and per workload's total
samples, every variant and the A/A arm against the baseline:
  - Welch on the logs (select/stats.c stats_welch_log, as the decision does
    where every run sampled the function; no A/A widening), and
  - paired by round: d_r = log(base_r) - log(arm_r), a one-sample t interval
    on the d_r (df = runs - 1).
Printed: both 95% half-widths (log scale, ~ relative), their ratio, the
correlation of the two logs across rounds (pairing helps by 1 - rho, roughly),
and whether each excludes no change. Then a summary over every report given:
the median width ratio, and for the A/A arm (identical code) how often each
rejects. Only the standard library is needed.
"""
import json
import math
import statistics
import sys

T975 = [math.inf, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    """select/stats.c stats_t975: the table, linear in 1/df between entries."""
    if not df > 0:
        return math.inf
    if df < 1:
        return T975[1] / df
    if df >= 30:
        return 1.960 + (2.042 - 1.960) * 30.0 / df
    k = int(df)
    frac = df - k
    if frac == 0:
        return T975[k]
    x, x0, x1 = 1 / df, 1.0 / k, 1.0 / (k + 1)
    return T975[k + 1] + (T975[k] - T975[k + 1]) * (x - x1) / (x0 - x1)


def welch(la, lb):
    """(diff, half-width) of mean(la) - mean(lb), Welch."""
    n, m = len(la), len(lb)
    va, vb = statistics.variance(la) / n, statistics.variance(lb) / m
    se = math.sqrt(va + vb)
    diff = statistics.fmean(la) - statistics.fmean(lb)
    if se == 0:
        return diff, 0.0
    df = (va + vb) ** 2 / (va * va / (n - 1) + vb * vb / (m - 1))
    return diff, t975(df) * se


def paired(la, lb):
    d = [a - b for a, b in zip(la, lb)]
    se = statistics.stdev(d) / math.sqrt(len(d))
    return statistics.fmean(d), t975(len(d) - 1) * se


def corr(x, y):
    try:
        return statistics.correlation(x, y)
    except (statistics.StatisticsError, AttributeError):
        return float("nan")


def per_round(recs, arm, key, stage="profiled"):
    """{round: value} of an arm: summed over the workloads (key(rec) -> list per run)."""
    out = {}
    for rec in recs:
        if rec["stage"] != stage or rec["arm"] != arm:
            continue
        for k, r in enumerate(rec["round"]):
            out[r] = out.get(r, 0) + key(rec)[k]
    return out


def compare(base, other):
    """base, other: {round: value}. None when a value is <= 0 or < 3 shared rounds."""
    rounds = sorted(set(base) & set(other))
    if len(rounds) < 3 or any(base[r] <= 0 or other[r] <= 0 for r in rounds):
        return None
    la = [math.log(base[r]) for r in rounds]
    lb = [math.log(other[r]) for r in rounds]
    wd, wh = welch(la, lb)
    pd, ph = paired(la, lb)
    return {"n": len(rounds), "diff": wd, "welch": wh, "paired": ph, "rho": corr(la, lb),
            "welch_rejects": abs(wd) > wh, "paired_rejects": abs(pd) > ph}


def zscores(vals):
    m, sd = statistics.fmean(vals), statistics.stdev(vals)
    return [(v - m) / sd if sd > 0 else 0.0 for v in vals]


def by_distance(recs, n_hot):
    """{distance: [z_a * z_b]}: per workload and series (its total, each hot
    function), every two arms' standardized log values in the same round,
    by how far apart the two ran in that round (positions). Shared noise
    between arms run close together shows as a positive mean at distance 1."""
    out = {}
    prof = [rec for rec in recs if rec["stage"] == "profiled"]
    for w in sorted({rec["workload"] for rec in prof}):
        arms = [rec for rec in prof if rec["workload"] == w]
        for series in [-1] + list(range(n_hot)):
            z = []
            for rec in arms:
                vals = rec["total"] if series < 0 else rec["samples"][series]
                if len(vals) < 3 or any(v <= 0 for v in vals):
                    break
                z.append((rec, zscores([math.log(v) for v in vals])))
            else:
                for a in range(len(z)):
                    for b in range(a + 1, len(z)):
                        ra, za = z[a]
                        rb, zb = z[b]
                        for k, r in enumerate(ra["round"]):
                            if r not in rb["round"]:
                                continue
                            kb = rb["round"].index(r)
                            d = abs(ra["position"][k] - rb["position"][kb])
                            out.setdefault(d, []).append(za[k] * zb[kb])
    return out


def rows_of(path):
    j = json.load(open(path))
    rr = j.get("run_records")
    if not rr:
        sys.exit(f"{path}: no run_records (an fmvgen select before report.json had them, or --static)")
    recs = rr["records"]
    rows = []
    for stage in ("profiled", "confirmation"):
        arms = []
        for rec in recs:
            if rec["stage"] == stage and rec["arm"] != "baseline" and rec["arm"] not in arms:
                arms.append(rec["arm"])
        tag = "" if stage == "profiled" else " (confirmation)"
        for i, name in enumerate(rr["function_names"]):
            base = per_round(recs, "baseline", lambda rec, i=i: rec["samples"][i], stage)
            for arm in arms:
                c = compare(base, per_round(recs, arm, lambda rec, i=i: rec["samples"][i], stage))
                if c:
                    rows.append(dict(c, what=name + tag, arm=arm, kind="function", stage=stage))
        for w, wl in enumerate(j["workloads"]):
            one = [rec for rec in recs if rec["workload"] == w]
            base = per_round(one, "baseline", lambda rec: rec["total"], stage)
            for arm in arms:
                c = compare(base, per_round(one, arm, lambda rec: rec["total"], stage))
                if c:
                    rows.append(dict(c, what="total: " + wl["command"][:30] + tag, arm=arm, kind="total",
                                     stage=stage))
    return j, rows, by_distance(recs, len(rr["function_names"]))


def main(paths):
    every, dist = [], {}
    for path in paths:
        j, rows, dd = rows_of(path)
        for d, v in dd.items():
            dist.setdefault(d, []).extend(v)
        print(f"== {path}: seed {j['statistics'].get('seed')}, {j['runs']} runs")
        print(f"{'what':44} {'arm':11} {'speedup':>8} {'welch+-':>8} {'paired+-':>8} {'ratio':>6} {'rho':>6}  rejects W/P")
        for r in rows:
            print(f"{r['what'][:44]:44} {r['arm'][:11]:11} {math.exp(r['diff']):8.3f} {r['welch']:8.4f} "
                  f"{r['paired']:8.4f} {r['paired'] / r['welch'] if r['welch'] else float('nan'):6.2f} "
                  f"{r['rho']:6.2f}  {'Y' if r['welch_rejects'] else '-'}/{'Y' if r['paired_rejects'] else '-'}")
        every += rows
    print("== summary over", len(paths), "report(s)")
    groups = [(st, k, aa) for st in ("profiled", "confirmation") for k in ("function", "total") for aa in (False, True)]
    for stage, kind, aa in groups:
        sel = [r for r in every if r["stage"] == stage and r["kind"] == kind and (r["arm"] == "aa") == aa
               and r["welch"] > 0]
        if not sel:
            continue
        ratios = sorted(r["paired"] / r["welch"] for r in sel)
        rhos = [r["rho"] for r in sel if not math.isnan(r["rho"])]
        narrower = sum(x < 1 for x in ratios)
        print(f"{stage[:7]:7} {kind:8} {'A/A' if aa else 'variants':8} n={len(sel):3}  paired/welch width: median "
              f"{statistics.median(ratios):.2f} (quartiles {ratios[len(ratios) // 4]:.2f}.."
              f"{ratios[(3 * len(ratios)) // 4]:.2f}), narrower in {narrower}; median rho "
              f"{statistics.median(rhos) if rhos else float('nan'):.2f}; reject: welch "
              f"{sum(r['welch_rejects'] for r in sel)}, paired {sum(r['paired_rejects'] for r in sel)}")
    print("correlation of two arms' standardized log values in one round, by their distance in it "
          "(every workload total and hot function, every pair of arms):")
    for d in sorted(dist):
        v = dist[d]
        print(f"  distance {d}: mean z*z {statistics.fmean(v):+.3f} over {len(v)} pairs "
              f"(+-{1.96 * statistics.stdev(v) / math.sqrt(len(v)):.3f})")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
