#!/usr/bin/env python3
"""paired_rounds_sim.py - Welch (select/stats.c, log scale) vs a paired-by-
round t interval on synthetic identical arms (A/A) and on a real gain, with
a noise component shared by every arm of a round.

    bench/paired_rounds_sim.py [RUNS] [DRAWS]

Model per arm and round r: log samples = log(500) + gain + u_r + e, with
u_r ~ N(0, ROUND_SD) shared by the arms of round r and e ~ N(0, RUN_SD) of
that run alone. Printed per (RUN_SD, ROUND_SD): how often each interval
rejects on identical arms (nominal 5%), its mean half-width, and how often
each finds a 5% gain.
"""
import math
import random
import statistics
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from paired_rounds import paired, welch  # noqa: E402


def draw(rng, n, run_sd, round_sd, gain):
    u = [rng.gauss(0, round_sd) for _ in range(n)]
    a = [math.log(500) + u[r] + rng.gauss(0, run_sd) for r in range(n)]
    b = [math.log(500) - gain + u[r] + rng.gauss(0, run_sd) for r in range(n)]
    return a, b


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    draws = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    rng = random.Random(20261205)
    print(f"{n} rounds, {draws} draws per row; half-widths on the log scale")
    print(f"{'run_sd':>6} {'round_sd':>8} | A/A reject: welch  paired | half-width: welch  paired  ratio |"
          f" 5% gain found: welch  paired")
    for run_sd in (0.02, 0.05):
        for round_sd in (0.0, 0.5 * run_sd, run_sd, 2 * run_sd):
            rw = rp = fw = fp = 0
            hw, hp = [], []
            for _ in range(draws):
                a, b = draw(rng, n, run_sd, round_sd, 0.0)
                d, h = welch(a, b)
                rw += abs(d) > h
                hw.append(h)
                d, h = paired(a, b)
                rp += abs(d) > h
                hp.append(h)
                a, b = draw(rng, n, run_sd, round_sd, math.log(1.05))
                d, h = welch(a, b)
                fw += d - h > 0
                d, h = paired(a, b)
                fp += d - h > 0
            mw, mp = statistics.fmean(hw), statistics.fmean(hp)
            print(f"{run_sd:6.2f} {round_sd:8.3f} | {100 * rw / draws:17.1f}% {100 * rp / draws:6.1f}% |"
                  f" {mw:17.4f} {mp:7.4f} {mp / mw:6.2f} | {100 * fw / draws:19.1f}% {100 * fp / draws:6.1f}%")


if __name__ == "__main__":
    main()
