#!/bin/bash
# test_select_inlined_kernels_cxx.sh - `fmvgen select` on a C++ kernel suite
# (tests/fixtures/select-inlined-kernels-cxx, -O2 -g) whose static kernels
# the build inlines into C++ hosts: kernel_mul into the variadic run_all
# (display name "run_all(int, ...)", symbol _Z7run_alliz), kernel_max into
# main ("main(int, char **)"). The scan's inlined-into notes name each
# host's symbol, and select finds the hosts' samples by it: each kernel is
# credited with its time inside its host in the baseline and judged (a
# host's display name matches no symbol: the kernels looked cold). The
# hot functions that are no candidate - the hosts, and divide_chain, which
# the scan has no record of - are listed with why.
# Verdicts only, never times. For g++, clang++-14 and clang++-19.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

for cxx in g++ clang++-14 clang++-19; do
  if ! command -v "$cxx" >/dev/null; then
    [ "$cxx" = clang++-19 ] && { echo "clang++-19 not installed: skipped"; continue; }
    fail "$cxx missing"; continue
  fi
  P=$(copy_fixture select-inlined-kernels-cxx)
  mv "$P" "$TMP/$cxx" && P="$TMP/$cxx"
  (cd "$P" && "$FMVGEN" scan -- make -s CXX="$cxx" >/dev/null 2>&1) || { fail "$cxx: scan"; continue; }
  json=$(cd "$P" && "$FMVGEN" list --json)
  host() {   # KERNEL -> its inlined-into hosts as "name=symbol"
    jq -r --arg k "$1" '[.functions[] | select(.name | test($k)) | .notes[]? | select(.kind == "inlined-into") |
      .hosts[] | "\(.name)=\(.symbol)"] | join(",")' <<<"$json"
  }
  expect_eq "$cxx: kernel_mul's host by its symbol" "$(host kernel_mul)" "run_all(int, ...)=_Z7run_alliz"
  expect_eq "$cxx: kernel_max's host by its symbol" "$(host kernel_max)" "main(int, char **)=main"
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make -s CXX=$cxx" --run './prog 8000' --runs 3 \
          --reference none --json 2>"$TMP/err-$cxx"); rc=$?
  expect_eq "$cxx: select exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err-$cxx" >&2; continue; }
  for k in kernel_mul kernel_max; do
    expect_eq "$cxx: $k credited with its time inside its host in the baseline" \
      "$(jq -r --arg k "$k" '.functions[] | select(.name | test($k)) | .baseline_sampled' <<<"$out")" true
    expect_match "$cxx: $k judged, not cold" \
      "$(jq -r --arg k "$k" '.functions[] | select(.name | test($k)) | .reason' <<<"$out")" \
      '^(selected|selected-together|held-back|no-gain|slower|multiple-tests|calibration)$'
  done
  expect_match "$cxx: the report names the hosts" "$(jq -r '.notes[]' <<<"$out")" \
    '^inlined into their hosts in the baseline, .*kernel_mul\(.*\) \([0-9]+ samples per run, in run_all\(int, \.\.\.\)\)'
  # the hot functions that are no candidate, and why (hotrest.h)
  hot() { jq -r --arg s "$1" '[.hot_non_candidates[] | select(.symbol == $s) | "\(.display_name): \(.why)"] | join(";")' <<<"$out"; }
  expect_eq "$cxx: hot, no candidate: run_all" "$(hot _Z7run_alliz)" \
    "run_all(int, ...): excluded: variadic; the kernels inlined into it are candidates"
  expect_match "$cxx: hot, no candidate: divide_chain, no record" "$(hot _Z12divide_chainli)" \
    '^divide_chain\(long, int\): no record: '
  expect_eq "$cxx: no candidate among them" \
    "$(jq -r '[.hot_non_candidates[] | select(.symbol | test("kernel_"))] | length' <<<"$out")" 0
  expect_match "$cxx: the note names them" "$(jq -r '.notes[]' <<<"$out")" \
    '^[0-9]+ hot functions of the baseline are no candidate, so select could not clone them .*divide_chain\(long, int\) \([0-9]+%; no record: '
done
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
