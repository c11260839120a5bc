#!/bin/bash
# test_select_records.sh - report.json's run_records (tests/fixtures/
# select-hot-cold, two workloads): per stage, workload and arm (baseline,
# each target set, the A/A arm), the rounds it ran in, its place in each
# round's order, the workload's total samples and each hot function's
# samples per run; records_check.jq recomputes from them the means of every
# interval the report gives (the functions', the A/A calibration's, the
# workloads' totals, a confirmation's) and they must agree. Asserts on the
# records' shape and consistency, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
CHECK="$(dirname "${BASH_SOURCE[0]}")/records_check.jq"

records_run() {   # CC SEED RUNS
  local cc=$1 seed=$2 runs=$3
  local P
  P=$(copy_fixture select-hot-cold)
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || { fail "$cc: scan failed"; return; }
  local j
  j=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "make CC=$cc" --run './prog 30000' \
        --run './prog 15000' --runs "$runs" --seed "$seed" --json 2>"$TMP/err"); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err" >&2; return; }
  expect_eq "$cc: report.json has them too" "$(jq -c .run_records "$P/.fmvgen/report.json")" "$(jq -c .run_records <<<"$j")"
  # the hot functions: dot (fill is cold), by index and name
  expect_eq "$cc: hot functions" "$(jq -r '.run_records.function_names | join(",")' <<<"$j")" "dot"
  expect_eq "$cc: their index in functions[]" \
    "$(jq -r '[.run_records.functions[] as $i | .functions[$i].name] | join(",")' <<<"$j")" "dot"
  # baseline, both sets and the A/A arm, for each of the two workloads
  expect_eq "$cc: profiled records" \
    "$(jq -r '[.run_records.records[] | select(.stage == "profiled") | "\(.workload):\(.arm):\(.variant):\(.aa)"] | join(" ")' <<<"$j")" \
    "0:baseline:baseline:false 0:fma-levels:fma-levels:false 0:fma-free:fma-free:false 0:aa:baseline:true 1:baseline:baseline:false 1:fma-levels:fma-levels:false 1:fma-free:fma-free:false 1:aa:baseline:true"
  expect_eq "$cc: every run sampled dot (integers)" \
    "$(jq -r '[.run_records.records[] | .samples[0][] | (. > 0 and . == floor)] | all' <<<"$j")" true
  local nc
  nc=$(jq -r .statistics.confirmation.rounds <<<"$j")
  expect_eq "$cc: confirmation records iff a confirmation ran" \
    "$(jq -r '[.run_records.records[] | select(.stage == "confirmation")] | length > 0' <<<"$j")" \
    "$([ "$nc" -gt 0 ] && echo true || echo false)"
  local out
  out=$(jq -r -f "$CHECK" <<<"$j")
  expect_eq "$cc: the records agree with the report" "$(grep -v '^checked ' <<<"$out")" ""
  # baseline, two sets, A/A per function; baseline, two sets, A/A per workload's totals
  expect_eq "$cc: comparisons checked" "$([ "$(sed -n 's/^checked //p' <<<"$out")" -ge 15 ] && echo yes)" yes
  # the check fails on records that disagree
  expect_match "$cc: a changed sample is caught" \
    "$(jq '.run_records.records[1].samples[0][0] += 7' <<<"$j" | jq -r -f "$CHECK")" "^dot fma-levels: records give"
  expect_match "$cc: a changed position is caught" \
    "$(jq '.run_records.records[0].position[0] = 9' <<<"$j" | jq -r -f "$CHECK")" "^positions of round 0"
}

records_run gcc 5 3

expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
