#!/usr/bin/env bash
# demo-figures.sh - the figures of `fmvgen demo` with more runs, recorded
# with the machine they were measured on, for notes and the README.
#
#   bench/demo-figures.sh [RUNS] [BUILD_DIR]     (defaults: 11 runs, build/)
#
# Writes bench/results/demo-<host>-<date>.txt (the demo's human report after
# a header: CPU model, flags that matter for FMV, compiler version) and
# bench/results/demo-<host>-<date>.json (the same results for machines).
# The figures are medians; the machine is shared, so run it when idle.
set -euo pipefail

runs=${1:-11}
build=${2:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
fmvgen="$root/$build/src/fmvgen"
[ -x "$fmvgen" ] || { echo "demo-figures: $fmvgen not built; run 'make build' first" >&2; exit 1; }

mkdir -p "$root/bench/results"
stem="$root/bench/results/demo-$(hostname -s)-$(date -u +%Y%m%dT%H%M%SZ)"
{
  echo "# fmvgen demo, median of $runs runs, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) cores)"
  echo "# isa: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'sse4_1|sse4_2|avx|avx2|fma|avx512f|avx512vl|avx512bw' | tr '\n' ' ')"
  echo "# cc:  $(${CC:-cc} --version | head -1)"
  echo "# fmvgen: $("$fmvgen" --version)"
  "$fmvgen" demo --runs "$runs"
} >"$stem.txt"
"$fmvgen" demo --runs "$runs" --json >"$stem.json"
echo "wrote $stem.txt and $stem.json"
