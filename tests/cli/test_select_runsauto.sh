#!/bin/bash
# test_select_runsauto.sh - select without --runs (--runs auto, select/
# runsauto.h) on tests/fixtures/select-aa: the baseline's workloads run 6
# times first, and a workload with a slow run (one run in three does its
# work 3 times over: what a busy machine's burst looks like, made
# deterministic) gets 8 runs a side, compared by rank, with the reason in
# report.json, report.md and on the terminal; a plain workload gets 5 or 8
# as its probe runs say (whatever this machine's load is, the choice follows
# the recorded probe); --runs N keeps N and writes no probe
# (test_select_aa.sh). Asserts on choices, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

P="$TMP/p"
mkdir -p "$P" && cp -a "$FIXTURES/select-aa/." "$P/"
# a workload whose every third run (counted in its build dir) works 3x
cat >"$P/bursty.sh" <<'SH'
n=$(cat count 2>/dev/null || echo 0)
echo $((n + 1)) >count
if [ $((n % 3)) = 2 ]; then ./prog 100000 >/dev/null; ./prog 100000 >/dev/null; fi
exec ./prog 100000
SH
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "scan failed"

select_run() {   # RUN-COMMAND [MORE OPTIONS...]
  local cmd=$1
  shift
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=gcc" --run "$cmd" --set same=popcnt \
          --reference none --seed 7 "$@" 2>"$TMP/err"); rc=$?
  expect_eq "'$cmd' $*: exit" "$rc" 0
  [ "$rc" = 0 ] || cat "$TMP/err" >&2
}
j="$P/.fmvgen/report.json"

select_run 'sh ./bursty.sh'
expect_eq "bursty: 8 runs" "$(jq -r .runs "$j")" 8
expect_eq "bursty: the probe in report.json" \
  "$(jq -r '.runs_auto | [.probe_runs, .bursty_workloads, (.slow_runs >= 2), (.worst_ratio >= 1.25), .worst_workload, .failure, .runs] | map(tostring) | join(",")' "$j")" \
  "6,1,true,true,sh ./bursty.sh,null,8"
expect_eq "bursty: 8 profiled runs a side (baseline, same, A/A)" "$(jq -r .profiled_runs "$j")" 24
expect_eq "bursty: add's interval by rank" \
  "$(jq -r '.functions[] | select(.name=="add") | .variants.same.test' "$j")" mann-whitney
expect_match "bursty: report.md says why" "$(cat "$P/.fmvgen/report.md")" \
  "8 runs \(--runs auto\): the baseline's workloads ran 6 times each first; [0-9]+ of those runs took at least 1.25x"
expect_match "bursty: the terminal says why" "$(cat "$TMP/err")" \
  "8 runs per variant and workload \(--runs auto\): [0-9]+ of 6 probe runs took >= 1.25x"
expect_eq "nothing selected (identical code)" "$(jq -r .selected "$j")" 0

select_run './prog 100000' --runs auto
expect_eq "plain: probed" "$(jq -r '.runs_auto.probe_runs' "$j")" 6
expect_eq "plain: the runs follow the probe" \
  "$(jq -r '(if .runs_auto.bursty_workloads > 0 then 8 else 5 end) == .runs and .runs_auto.runs == .runs' "$j")" true

out=$(cd "$P" && "$FMVGEN" select --build make --run ./prog --runs x 2>&1); rc=$?
expect_eq "--runs x: exit" "$rc" 2
expect_eq "--runs x: one line" "$out" "fmvgen: --runs: 'x' is not a number of runs (1..1000) nor 'auto'"
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
