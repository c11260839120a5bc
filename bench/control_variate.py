#!/usr/bin/env python3
"""control_variate.py - would dividing a function's samples by the rest of
its run (the run's samples outside the hot candidates) take a busy machine's
slow bursts out of select's comparisons? Reads a select report.json
(run_records, profiled stage) and prints, per hot function (>= 200 samples a
run) and arm against the baseline: the speedup, the spread of log samples
and a Mann-Whitney p (normal approximation) raw and adjusted (log f minus b
times log rest, b pooled within arms), and the rest's own ratio and p: where
the rest differs between builds, the adjustment credits its change to the
function.

usage: bench/control_variate.py report.json
"""
import json, statistics as st, math, sys
def mw_p(a, b):
    # two-sided Mann-Whitney normal approx (no tie corr), fine for a look
    n, m = len(a), len(b)
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    mu = n * m / 2; sd = math.sqrt(n * m * (n + m + 1) / 12)
    z = (abs(u - mu) - 0.5) / sd
    return math.erfc(max(z, 0) / math.sqrt(2))
r = json.load(open(sys.argv[1]))
rr = r['run_records']; names = rr['function_names']
recs = [x for x in rr['records'] if x['stage'] == 'profiled']
byw = {}
for x in recs: byw.setdefault(x['workload'], []).append(x)
L = lambda v: math.log(max(v, 1))
for w, xs in sorted(byw.items()):
    base = [x for x in xs if x['arm'] == 'baseline'][0]
    nf = len(names)
    for f in range(nf):
        if st.mean(base['samples'][f]) < 200: continue
        arms = {}
        for x in xs:
            n = len(x['total'])
            lf = [L(x['samples'][f][i]) for i in range(n)]
            lr = [L(x['total'][i] - sum(x['samples'][g][i] for g in range(nf))) for i in range(n)]
            arms[x['arm'] + ('*' if x['aa'] else '')] = (lf, lr)
        # pooled within-arm slope
        sxy = sxx = 0
        for lf, lr in arms.values():
            mf, mr = st.mean(lf), st.mean(lr)
            sxy += sum((a - mf) * (b - mr) for a, b in zip(lf, lr)); sxx += sum((b - mr) ** 2 for b in lr)
        b = sxy / sxx if sxx else 0
        allr = st.mean([v for _, lr in arms.values() for v in lr])
        adj = {k: [a - b * (c - allr) for a, c in zip(lf, lr)] for k, (lf, lr) in arms.items()}
        bl = arms['baseline'][0]; bla = adj['baseline']
        print("W%d %-22s b=%.2f" % (w, names[f], b))
        for k in arms:
            if k == 'baseline': continue
            lf, lr = arms[k]
            d_raw = st.mean(bl) - st.mean(lf); d_adj = st.mean(bla) - st.mean(adj[k])
            d_rest = st.mean(arms['baseline'][1]) - st.mean(lr)
            print("   %-20s raw %.3f sd %.3f p %.4f | adj %.3f sd %.3f p %.4f | rest diff %.3f p %.3f" % (
                k, math.exp(d_raw), st.stdev(lf), mw_p(bl, lf), math.exp(d_adj), st.stdev(adj[k]), mw_p(bla, adj[k]),
                math.exp(d_rest), mw_p(arms['baseline'][1], lr)))
