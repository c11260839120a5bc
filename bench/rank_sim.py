#!/usr/bin/env python3
"""rank_sim.py - Welch on log samples (select/stats.c below 8 runs) vs the
rank test select uses from 8 runs a side (Mann-Whitney, stats_rank.c), on
synthetic runs shaped like a shared machine's noise.

    bench/rank_sim.py [DRAWS] [SEED]

Model per arm and run: log samples = log(1000) - gain + e, e ~ N(0, JITTER),
plus, with probability PSLOW, a slow burst of log(SLOW) x U(0.6, 1.4): the
one-sided slowdowns measured on this project's 2-core VM (session 19, nbench:
82 of 320 runs > 1.25x their workload's fastest; a 1.6x slow mode seen on
identical runs). Printed per (PSLOW, runs, gain): how often each test rejects
"no change" at 5% (identical arms: the false-positive rate, nominal 5%) and
at 0.5% (about what Holm asks of the first of 10 comparisons).
"""
import math
import random
import statistics
import sys


def t_pvalue(t, df):
    """Two-sided p of Student's t (Hill's normal approximation: enough here)."""
    z = t * (1 - 1 / (4 * df)) / math.sqrt(1 + t * t / (2 * df))
    return math.erfc(abs(z) / math.sqrt(2))


def welch(a, b):
    va, vb = statistics.variance(a), statistics.variance(b)
    se2 = va / len(a) + vb / len(b)
    if se2 == 0:
        return 1.0
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    return t_pvalue((statistics.mean(a) - statistics.mean(b)) / math.sqrt(se2), df)


_null = {}


def null_distribution(m, n):
    """P(U = u) without ties, N(i,j,u) = N(i-1,j,u-j) + N(i,j-1,u)."""
    if (m, n) not in _null:
        width = m * n + 1
        prev = [[1 if u == 0 else 0 for u in range(width)] for _ in range(n + 1)]
        for _ in range(1, m + 1):
            cur = [[0] * width for _ in range(n + 1)]
            for j in range(n + 1):
                for u in range(width):
                    x = prev[j][u - j] if u >= j else 0
                    if j:
                        x += cur[j - 1][u]
                    cur[j][u] = x
            prev = cur
        total = sum(prev[n])
        _null[(m, n)] = [c / total for c in prev[n]]
    return _null[(m, n)]


def mann_whitney(a, b):
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    dist = null_distribution(len(a), len(b))
    below = sum(p for k, p in enumerate(dist) if k <= u)
    above = sum(p for k, p in enumerate(dist) if k >= u)
    return min(1.0, 2 * min(below, above))


def draw(rng, n, gain, pslow, slow, jitter):
    def run(g):
        x = math.log(1000) - g + rng.gauss(0, jitter)
        if rng.random() < pslow:
            x += math.log(slow) * (0.6 + 0.8 * rng.random())
        return x
    return [run(0) for _ in range(n)], [run(gain) for _ in range(n)]


def main():
    draws = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    tests = {"welch": welch, "mann-whitney": mann_whitney}
    print(f"# {draws} draws per row; rejection rate at alpha 0.05 / at 0.005")
    print(f"{'pslow':>5} {'slow':>4} {'runs':>4} {'gain':>5}  " + "  ".join(f"{k:>18}" for k in tests))
    for pslow, slow, jitter in [(0.0, 1.0, 0.03), (0.25, 1.5, 0.03), (0.4, 1.5, 0.03)]:
        for n in (8, 12):
            for gain in (1.0, 1.10, 1.15):
                hits = {k: [0, 0] for k in tests}
                for _ in range(draws):
                    a, b = draw(rng, n, math.log(gain), pslow, slow, jitter)
                    for k, f in tests.items():
                        p = f(a, b)
                        hits[k][0] += p < 0.05
                        hits[k][1] += p < 0.005
                cells = "  ".join(f"{hits[k][0] / draws:8.3f} / {hits[k][1] / draws:5.3f}" for k in tests)
                print(f"{pslow:5.2f} {slow:4.1f} {n:4d} {gain:5.2f}  {cells}", flush=True)


if __name__ == "__main__":
    main()
