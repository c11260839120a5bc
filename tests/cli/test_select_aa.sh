#!/bin/bash
# test_select_aa.sh - select on identical code (tests/fixtures/select-aa with
# `--set same=popcnt`: the one hot candidate's clone compiles to the code of
# its default, which `fmvgen inspect` confirms): across repeated runs, with
# different seeds and compilers (and with 8 runs, where the samples are
# compared by rank), no function is selected: its clone is
# found to be the default's code (reason same-code, no test of the family,
# a note), and the A/A calibration (the baseline against itself), the
# seed and the rule against false selections are in report.json, report.md
# and on the terminal. Asserts on verdicts, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

aa_run() {   # CC SEED [--keep|""] [RUNS]
  local cc=$1 seed=$2 keep=${3:-} runs=${4:-4}
  local P="$TMP/aa-$cc-$seed"
  mkdir -p "$P" && cp -a "$FIXTURES/select-aa/." "$P/"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || { fail "$cc: scan failed"; return; }
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=$cc" --run './prog 100000' --runs "$runs" --set same=popcnt \
          --reference none --seed "$seed" $keep 2>"$TMP/err"); rc=$?
  expect_eq "$cc/$seed: exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err" >&2; return; }
  local j="$P/.fmvgen/report.json"
  expect_eq "$cc/$seed: nothing selected" "$(jq -r .selected "$j")" 0
  expect_eq "$cc/$seed: selected.patch empty" "$(wc -c <"$P/.fmvgen/selected.patch")" 0
  # the clone is the default's code: no verdict from timing, whatever the runs show
  expect_eq "$cc/$seed: add: same code, no verdict" "$(jq -r '.functions[] | select(.name=="add") | .reason' "$j")" \
    "same-code"
  expect_eq "$cc/$seed: add: same code in report.json" \
    "$(jq -r '.functions[] | select(.name=="add") | .variants.same.same_code' "$j")" true
  expect_match "$cc/$seed: the note says so" "$(jq -r '.notes | join("\n")' "$j")" \
    "1 candidate \(add\) got clones that are the default's code with every target set"
  expect_eq "$cc/$seed: no test in the family" "$(jq -r .statistics.tests "$j")" 0
  expect_match "$cc/$seed: its clone ran" "$(jq -r '.functions[] | select(.name=="add") | .variants.same.clone_ran' "$j")" \
    "^add\."
  expect_eq "$cc/$seed: builds (baseline + one set, no reference)" "$(jq -r .builds "$j")" 2
  expect_eq "$cc/$seed: profiled runs (baseline, same, A/A x $runs)" "$(jq -r .profiled_runs "$j")" $((3 * runs))
  # from 8 runs a side, a function's samples are compared by rank
  local test=welch
  [ "$runs" -ge 8 ] && test=mann-whitney
  expect_eq "$cc/$seed: add's interval: $test" "$(jq -r '.functions[] | select(.name=="add") | .variants.same.test' "$j")" "$test"
  expect_eq "$cc/$seed: A/A interval: $test" "$(jq -r '.statistics.calibration.functions[0].baseline_vs_aa.test' "$j")" "$test"
  # and so are the workload's total samples end to end (the all-candidates build against the baseline)
  expect_eq "$cc/$seed: all-candidates total: $test" "$(jq -r '.workloads[0].all_candidates.same.test' "$j")" "$test"
  expect_match "$cc/$seed: report.md names the test" "$(cat "$P/.fmvgen/report.md")" \
    "$([ "$test" = welch ] && echo "Welch; a function's samples on the log scale" || echo "the Hodges-Lehmann interval of the Mann-Whitney test")"
  expect_eq "$cc/$seed: the seed given" "$(jq -r .statistics.seed "$j")" "$seed"
  expect_eq "$cc/$seed: --runs $runs kept, no noise probe" "$(jq -r '[.runs, .runs_auto] | map(tostring) | join(",")' "$j")" "$runs,null"
  expect_eq "$cc/$seed: A/A calibration in report.json" \
    "$(jq -r '.statistics.calibration | .functions_checked == 1 and (.functions[0].name == "add") and (.workloads | length) == 1' "$j")" true
  expect_match "$cc/$seed: its interval" "$(jq -r '.statistics.calibration.functions[0].baseline_vs_aa.valid' "$j")" true
  expect_match "$cc/$seed: report.md has the A/A calibration" "$(cat "$P/.fmvgen/report.md")" \
    "\*\*A/A calibration\.\*\* The baseline also ran as an arm of its own"
  expect_match "$cc/$seed: report.md has the rule" "$(cat "$P/.fmvgen/report.md")" "Holm-Bonferroni rejects"
  expect_match "$cc/$seed: terminal" "$out" "calibration \(A/A, the baseline against itself\): './prog 100000' "
  if [ -n "$keep" ]; then
    local kept
    kept=$(sed -n 's/^select: kept the temp directory //p' "$TMP/err")
    # the fixture is A/A indeed: the clone needs nothing beyond the default
    expect_eq "$cc/$seed: inspect: the clone is the default's code" \
      "$("$FMVGEN" inspect --json "$kept/same/prog" | jq -r '.files[0].functions[0].clones | map(select(.default | not) | .verdict) | join(",")')" \
      "useless"
    expect_eq "$cc/$seed: inspect: its code is the default's" \
      "$("$FMVGEN" inspect --json "$kept/same/prog" | jq -r '.files[0].functions[0].clones | map(select(.default | not) | .same_code_as_default) | join(",")')" \
      "true"
    rm -rf "$kept"
  fi
}

aa_run gcc 1 --keep
aa_run gcc 2 "" 8
aa_run clang 3
if have_clang19; then aa_run clang-19 4; fi
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

# --seed and --set errors: exit 2, one line
P="$TMP/aa-gcc-1"
for bad in "--seed -1" "--seed x" "--set =avx2" "--set a=nosuch" "--set baseline=avx2"; do
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run ./prog $bad 2>&1); rc=$?
  expect_eq "$bad: exit" "$rc" 2
  expect_eq "$bad: one line" "$(printf '%s\n' "$out" | wc -l)" 1
done

finish
