#!/usr/bin/env bash
# select-kernels.sh - `fmvgen select` on examples/kernels, then an
# independent check of its verdict: the baseline (-O3), the selected patch,
# the all-candidates patch (`fmvgen patch`) and a whole-program
# -march=x86-64-v3 build are built here and timed against each other
# (runs interleaved, medians), and their .text sizes compared.
#
#   bench/select-kernels.sh [RUNS] [BUILD_DIR] [PASSES]   (defaults: 7, build, 20000)
#
# Prints select's summary, then one line per build: median seconds, speedup
# vs baseline, .text bytes. The machine is shared: run it when idle.
set -euo pipefail

runs=${1:-7}
build=${2:-build}
passes=${3:-20000}
root=$(cd "$(dirname "$0")/.." && pwd)
fmvgen="$root/$build/src/fmvgen"
[ -x "$fmvgen" ] || { echo "select-kernels: $fmvgen not built" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/select-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

cp -a "$root/examples/kernels" "$work/proj"
cd "$work/proj"
make -s clean >/dev/null
"$fmvgen" scan -- make -s CFLAGS=-O3 >/dev/null 2>&1
echo "== fmvgen select --runs $runs"
"$fmvgen" select --build 'make -s CFLAGS=-O3' --run "./kernels_demo $passes" --runs "$runs" 2>/dev/null
"$fmvgen" patch -o "$work/all.patch" >/dev/null 2>&1

variant() {   # NAME PATCH CFLAGS
  cp -a "$root/examples/kernels" "$work/$1"
  (cd "$work/$1" && { [ -z "$2" ] || patch -s -p1 <"$2"; } && make -s clean >/dev/null && make -s CFLAGS="$3" >/dev/null 2>&1)
}
variant baseline "" -O3
variant selected "$work/proj/.fmvgen/selected.patch" -O3
variant all "$work/all.patch" -O3
variant v3 "" "-O3 -march=x86-64-v3"

names=(baseline selected all v3)
declare -A times
for ((r = 0; r < runs; r++)); do
  for n in "${names[@]}"; do
    t0=$(date +%s%N)
    "$work/$n/kernels_demo" "$passes" >"$work/$n.out" 2>/dev/null
    t1=$(date +%s%N)
    times[$n]+="$(( (t1 - t0) / 1000 )) "
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
base=$(median <<<"${times[baseline]}")
echo "== independent timing, median of $runs interleaved runs (./kernels_demo $passes)"
printf '%-10s %10s %9s %10s %s\n' build seconds speedup text-bytes output
for n in "${names[@]}"; do
  m=$(median <<<"${times[$n]}")
  text=$(size -A "$work/$n/kernels_demo" | awk '$1==".text"{print $2}')
  same=$(cmp -s "$work/$n.out" "$work/baseline.out" && echo same || echo DIFFERENT)
  awk -v n="$n" -v m="$m" -v b="$base" -v t="$text" -v s="$same" \
    'BEGIN {printf "%-10s %10.4f %8.2fx %10d %s\n", n, m/1e6, b/m, t, s}'
done
