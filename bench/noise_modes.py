#!/usr/bin/env python3
"""noise_modes.py - is a workload's slow mode (some runs 1.3-1.6x slower in
CPU time) caused by where the process runs? Runs COMMAND in rounds, each
round every arm once in a random order: free (no affinity), pinned to each
CPU, and with ASLR off (setarch -R). Prints per arm the CPU times (user +
sys of the child, from wait4), their median and how many runs took at least
SLOW x the arm's fastest; with --rounds-table, every round's row with its
time, to see whether slow runs cluster in time.

usage: bench/noise_modes.py [-n ROUNDS] [--slow 1.25] [--rounds-table] [--cwd DIR] -- COMMAND...
"""
import argparse, os, random, statistics, sys, time


def run(argv, cpus, cwd):
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            if cpus is not None:
                os.sched_setaffinity(0, cpus)
            fd = os.open("/dev/null", os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("noise_modes: %s exited with status %d" % (argv[0], status))
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=30)
    ap.add_argument("--slow", type=float, default=1.25)
    ap.add_argument("--rounds-table", action="store_true")
    ap.add_argument("--cwd", default=".")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args()
    arms = {"free": (a.command, None), "noaslr": (["setarch", os.uname().machine, "-R"] + a.command, None)}
    for c in sorted(os.sched_getaffinity(0)):
        arms["cpu%d" % c] = (a.command, {c})
    res = {k: [] for k in arms}
    for r in range(a.n):
        order = list(arms)
        random.shuffle(order)
        row = {}
        for k in order:
            row[k] = run(arms[k][0], arms[k][1], a.cwd)
            res[k].append(row[k])
        if a.rounds_table:
            print("round %3d %.1f  %s" % (r, time.time(), " ".join("%s=%.3f" % (k, row[k]) for k in arms)), flush=True)
    print("arm       median   fastest  slowest  runs >= %.2fx fastest" % a.slow)
    for k, v in res.items():
        f = min(v)
        print("%-8s %8.3f %8.3f %8.3f  %d/%d" % (k, statistics.median(v), f, max(v), sum(x >= a.slow * f for x in v), len(v)))


if __name__ == "__main__":
    main()
