#!/bin/bash
# test_select_sampling.sh - the sampling period of select's profiled runs
# (lib/select/sampling.h) reaches perf and the report (FMVGEN_KEEP_PERF_DATA
# keeps every profile, read back with `perf evlist -F`):
#   - by the rule (gcc, tests/fixtures/select-aa with `--set same=popcnt`:
#     the clone is the default's code, so every arm runs as long and
#     nothing is selected): a short workload (./prog 2000, a few ms) is
#     sampled every 50 us as before; a longer one (./prog 500000, ~0.4 s of
#     CPU) every cpu_seconds / 2500 samples (report.json's
#     workloads[].sampling, its period consistent with the CPU seconds it
#     states), its samples counted in 50-us units in report.json's
#     run_records (each run's total a count x period / 50 us); every
#     profile of a workload, whatever the arm (baseline,
#     A/A, variant), has its workload's period: the perf data hold exactly
#     the two periods, 6 profiles each;
#   - --sample-period 200 (clang, tests/fixtures/select-hot-cold, its hot
#     `dot` faster with x86-64-v3): every profile at 200 us - also the
#     selected build's placement runs when something is selected -, source
#     "option", said in report.md;
#   - --sample-period out of range: exit 2, one line.
# Asserts on periods and counts, never on times.
source "$TESTLIB"
installed perf || skip_test "perf is not installed"
installed jq || skip_test "jq is not installed"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

periods_of() {   # DIR -> "PERIOD COUNT" lines, sorted
  local f
  for f in "$1"/*.data; do perf evlist -F -i "$f" 2>/dev/null | sed -n 's/^cpu-clock: sample_period=//p'; done |
    sort -n | uniq -c | awk '{print $2, $1}'
}

setup() {   # CC NAME FIXTURE -> project dir
  local P
  P=$(copy_fixture "$3")
  mv "$P" "$TMP/$2"
  (cd "$TMP/$2" && "$FMVGEN" scan -- make CC="$1" >/dev/null 2>&1) || fail "$1: scan failed"
  printf '%s' "$TMP/$2"
}

# 1. the rule, two workloads
P=$(setup gcc rule select-aa)
mkdir -p "$TMP/perf-rule"
FMVGEN_KEEP_PERF_DATA="$TMP/perf-rule" "$FMVGEN" -C "$P" select --max-growth none --build "make CC=gcc" \
  --run './prog 2000' --run './prog 500000' --runs 2 --reference none --set same=popcnt \
  >/dev/null 2>"$TMP/err-rule"; rc=$?
expect_eq "rule: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err-rule" >&2
j="$P/.fmvgen/report.json"
expect_eq "rule: sample unit" "$(jq -r .sample_unit_us "$j")" 50
expect_eq "rule: short workload: 50 us by the rule" \
  "$(jq -r '.workloads[0].sampling | [.period_us, .source, .counts_as] | join(",")' "$j")" "50,rule,1"
long_us=$(jq -r '.workloads[1].sampling.period_us' "$j")
cpu=$(jq -r '.workloads[1].sampling.cpu_seconds' "$j")
expect_eq "rule: long workload: by the rule" "$(jq -r '.workloads[1].sampling.source' "$j")" rule
expect_eq "rule: long workload: target" "$(jq -r '.workloads[1].sampling.target_samples' "$j")" 2500
# the period the rule gives for the CPU seconds stated (whole us, clamped)
want=$(awk -v c="$cpu" 'BEGIN { p = int(c * 1e6 / 2500); if (p < 50) p = 50; if (p > 1000) p = 1000; print p }')
expect_eq "rule: long workload: cpu_seconds / 2500 samples" "$long_us" "$want"
expect_eq "rule: long workload: above 50 us (~0.4 s of CPU)" "$(awk -v p="$long_us" 'BEGIN { print (p > 50) }')" 1
expect_match "rule: said on the terminal" "$(cat "$TMP/err-rule")" \
  "'./prog 500000' is sampled every $long_us us \(the rule: .* s of CPU per run / 2500 samples"
expect_match "rule: said in report.md" "$(cat "$P/.fmvgen/report.md")" \
  "\`./prog 500000\` every $long_us us \(the rule: .*every arm of a workload alike\. Samples are counted in units of 50 us"
# the decision's inputs count the long workload's samples in 50-us units:
# each run's total is its real count x counts_as (period / 50 us)
scale=$(jq -r '.workloads[1].sampling.counts_as' "$j")
expect_eq "rule: counts_as = period / 50 us" "$(awk -v s="$scale" -v p="$long_us" 'BEGIN { print (s == p / 50) }')" 1
if [ "$(awk -v s="$scale" 'BEGIN { print (s == int(s)) }')" = 0 ]; then   # else any count would do
  expect_eq "rule: run_records totals are counts x counts_as" "$(jq -r --argjson s "$scale" '
      [.run_records.records[] | select(.workload == 1) | .total[] | (. / $s) | (. - round) | fabs < 1e-6] | all' "$j")" true
  expect_eq "rule: the short workload's totals are counts" "$(jq -r '
      [.run_records.records[] | select(.workload == 0) | .total[] | (. == floor)] | all' "$j")" true
fi
# every profile has its workload's period: two periods, as many profiles each
periods=$(periods_of "$TMP/perf-rule")
n=$(ls "$TMP/perf-rule"/*.data | wc -l)
half=$((n / 2))
expect_eq "rule: nothing selected (same code)" "$(jq -r .selected "$j")" 0
expect_eq "rule: kept profiles (3 arms x 2 runs x 2 workloads)" "$n" 12
expect_eq "rule: every arm of each workload at its period" "$periods" "50000 $half
$((long_us * 1000)) $half"

# 2. --sample-period
cc=clang-19
installed clang-19 || cc=clang-14
if installed "$cc"; then
  P=$(setup "$cc" option select-hot-cold)
  mkdir -p "$TMP/perf-option"
  FMVGEN_KEEP_PERF_DATA="$TMP/perf-option" "$FMVGEN" -C "$P" select --max-growth none --build "make CC=$cc" \
    --run './prog 2000' --runs 2 --confirm-runs 0 --reference none --set v3=arch=x86-64-v3 --sample-period 200 \
    >/dev/null 2>"$TMP/err-option"; rc=$?
  expect_eq "$cc: option: exit" "$rc" 0
  [ "$rc" = 0 ] || cat "$TMP/err-option" >&2
  j="$P/.fmvgen/report.json"
  expect_eq "$cc: option: report.json" \
    "$(jq -r '.workloads[0].sampling | [.period_us, .source, .counts_as, .why] | join(",")' "$j")" \
    "200,option,4,every 200 us (--sample-period)"
  expect_match "$cc: option: report.md" "$(cat "$P/.fmvgen/report.md")" \
    "perf sampled the CPU time of \`./prog 2000\` every 200 us \(--sample-period\)"
  # 3 arms x 2 runs, and the selected build's 2 placement runs if any
  n=$(ls "$TMP/perf-option"/*.data | wc -l)
  expect_eq "$cc: option: profiles" "$n" $((6 + $(jq -r '.placement.selected_profiled_runs // 0' "$j")))
  expect_eq "$cc: option: every profile at 200 us" "$(periods_of "$TMP/perf-option")" "200000 $n"
fi

# 3. out of range
for bad in 5 100001 x ''; do
  out=$("$FMVGEN" -C "$TMP/rule" select --build make --run ./prog --sample-period "$bad" 2>&1); rc=$?
  expect_eq "--sample-period '$bad': exit" "$rc" 2
  expect_eq "--sample-period '$bad': one line" "$out" \
    "fmvgen: --sample-period: '$bad' is not a period in microseconds (10..100000)"
done
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
