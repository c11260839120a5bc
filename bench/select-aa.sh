#!/usr/bin/env bash
# select-aa.sh - how often `fmvgen select` finds a "gain" in identical code:
# tests/fixtures/select-aa with `--set same=popcnt` (the clone compiles to
# the default's code), K selections with seeds 1..K. For each: the verdict,
# add's interval with the set (after the A/A widening, with its p), and the
# A/A interval (baseline against itself). Expected: no selection, and the
# rate of intervals excluding 1.0 near or below 5%.
#
#   bench/select-aa.sh [K] [RUNS] [CC] [BUILD_DIR]   (defaults: 8 selections, 5 runs, gcc, build/)
#
# Writes bench/results/select-aa-<host>-<date>.txt.
set -euo pipefail

k=${1:-8}
runs=${2:-5}
cc=${3:-gcc}
build=${4:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
fmvgen="$root/$build/src/fmvgen"
[ -x "$fmvgen" ] || { echo "select-aa: $fmvgen not built" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a "$root/tests/fixtures/select-aa/." "$work/"
(cd "$work" && "$fmvgen" scan -- make CC="$cc" >/dev/null 2>&1)

mkdir -p "$root/bench/results"
out="$root/bench/results/select-aa-$(hostname -s)-$(date -u +%Y%m%dT%H%M%SZ).txt"
{
  echo "# fmvgen select on identical code (select-aa, --set same=popcnt), $k selections x $runs runs, $cc"
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) ($(nproc) cores), load $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-5s %-9s %-16s %-26s %-8s %-26s %s\n' seed selected reason "add with same [lo, hi]" p "A/A [lo, hi]" "A/A totals [lo, hi]"
  excl=0 aaexcl=0 sel=0
  for seed in $(seq 1 "$k"); do
    (cd "$work" && "$fmvgen" select --build "make CC=$cc" --run './prog 100000' --runs "$runs" --set same=popcnt \
       --reference none --seed "$seed" >/dev/null 2>&1)
    j="$work/.fmvgen/report.json"
    line=$(jq -r '[.selected,
      (.functions[0].reason),
      (.functions[0].variants.same | "\(.speedup*1000|round/1000)x [\(.speedup_low*1000|round/1000), \(.speedup_high*1000|round/1000)]"),
      (.functions[0].variants.same.p*1000|round/1000),
      (.statistics.calibration.functions[0].baseline_vs_aa | "\(.speedup*1000|round/1000)x [\(.speedup_low*1000|round/1000), \(.speedup_high*1000|round/1000)]"),
      (.statistics.calibration.workloads[0].total_samples_baseline_vs_aa | "\(.speedup*1000|round/1000)x [\(.speedup_low*1000|round/1000), \(.speedup_high*1000|round/1000)]")] | @tsv' "$j")
    IFS=$'\t' read -r s reason iv p aa tot <<<"$line"
    printf '%-5s %-9s %-16s %-26s %-8s %-26s %s\n' "$seed" "$s" "$reason" "$iv" "$p" "$aa" "$tot"
    sel=$((sel + s))
    excl=$((excl + $(jq -r '.functions[0].variants.same | if .speedup_low > 1 or .speedup_high < 1 then 1 else 0 end' "$j")))
    aaexcl=$((aaexcl + $(jq -r '.statistics.calibration.functions[0].excludes_no_change | if . then 1 else 0 end' "$j")))
  done
  echo "# selections with a function selected: $sel of $k"
  echo "# add's interval (same vs baseline) excluding 1.0: $excl of $k; the A/A interval excluding 1.0: $aaexcl of $k"
} | tee "$out"
echo "wrote $out"
