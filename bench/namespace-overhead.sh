#!/usr/bin/env bash
# namespace-overhead.sh - what running a command through fmvgen-ns (select's
# private mount namespace with a copy bind-mounted at the project's path,
# lib/run/namespace.h) adds to it: N runs of a short program directly and
# through the helper, interleaved, and the median of each and their
# difference per run. Printed and written to bench/results/.
#
#   bench/namespace-overhead.sh [RUNS] [BUILD_DIR]    (defaults: 200, build/)
#
# Needs permission for mount namespaces (root, or unprivileged user
# namespaces). The machine is shared: medians, and run it when idle.
set -euo pipefail

runs=${1:-200}
build=${2:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
helper="$root/$build/src/fmvgen-ns"
[ -x "$helper" ] || { echo "namespace-overhead: $helper not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/orig" "$tmp/copy"

# microseconds from bash's own clock (EPOCHREALTIME): no process started to read it
direct=() isolated=()
for _ in $(seq "$runs"); do
  t0=${EPOCHREALTIME/./}; /bin/true; t1=${EPOCHREALTIME/./}
  "$helper" --bind "$tmp/copy" "$tmp/orig" -- /bin/true; t2=${EPOCHREALTIME/./}
  direct+=($(( t1 - t0 ))) isolated+=($(( t2 - t1 )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
d=$(median "${direct[@]}") i=$(median "${isolated[@]}")

mkdir -p "$root/bench/results"
out="$root/bench/results/namespace-overhead-$(hostname -s)-$(date -u +%Y%m%dT%H%M%SZ).txt"
{
  echo "# fmvgen-ns overhead, median of $runs interleaved runs, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) cores), uid $(id -u)"
  echo "/bin/true directly:           ${d} us"
  echo "/bin/true through fmvgen-ns:  ${i} us"
  echo "added per command:            $(( i - d )) us (ratio $(awk -v a="$i" -v b="$d" 'BEGIN {printf "%.2f", a / b}'))"
} | tee "$out"
echo "wrote $out"
