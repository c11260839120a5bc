#!/bin/bash
# test_select_fma_mixed.sh - `fmvgen select` when the FMA variant's output
# differs because of ONE function's FMA (tests/fixtures/select-fma-mixed,
# gcc): the float kernel axpy stays out of the FMA set, while the integer
# kernel dot16, whose FMA-level clones hold no FMA instruction (inspect),
# remains eligible for that set - its clones compute what the baseline
# computes. What inspect finds is asserted; which set dot16 ends up with
# depends on timings and is not.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
P=$(copy_fixture select-fma-mixed)
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "scan failed"
cands=$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(",")')
expect_eq "candidates" "$cands" "axpy,dot16"

out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=gcc" --run './prog 30000' --runs 3 --json 2>"$TMP/err"); rc=$?
expect_eq "exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "fma-levels not eligible, fma-free eligible" \
  "$(jq -r '[.variants[1:][] | "\(.name)=\(.eligible)"] | join(",")' <<<"$out")" "fma-levels=false,fma-free=true"
expect_match "fma-levels: its output differs" "$(jq -r '.variants[1].failure' <<<"$out")" "^output of .* differs"
expect_eq "dot16: FMA-free code in the FMA variant" \
  "$(jq -r '.functions[] | select(.name=="dot16") | .fma_free_code' <<<"$out")" true
expect_eq "axpy: FMA code in the FMA variant" \
  "$(jq -r '.functions[] | select(.name=="axpy") | .fma_free_code' <<<"$out")" false
expect_eq "dot16 selected" "$(jq -r '.functions[] | select(.name=="dot16") | .selected' <<<"$out")" true
set=$(jq -r '.functions[] | select(.name=="dot16") | .target_set' <<<"$out")
if [ "$set" = "fma-levels" ]; then
  expect_match "dot16 with fma-levels: said why" "$(jq -r '.functions[] | select(.name=="dot16") | .why' <<<"$out")" \
    "hold no FMA instruction"
  expect_match "dot16 with fma-levels: noted" "$(jq -r '.notes[]' <<<"$out")" \
    "^dot16 got fma-levels clones although that variant's outputs differ"
fi
expect_no_match "axpy never gets the FMA set" \
  "$(jq -r '.functions[] | select(.name=="axpy") | .target_set' <<<"$out")" "fma-levels"
# the selected build computes what the baseline computes (checked by select
# itself: a failing check would have withdrawn the selection)
expect_no_match "selected build passes its check" "$(jq -r '.notes[]' <<<"$out")" "fails a check"
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
