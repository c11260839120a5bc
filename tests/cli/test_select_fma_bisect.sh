#!/bin/bash
# test_select_fma_bisect.sh - `fmvgen select`'s per-function FMA verdict
# (select/fmabisect.h) on tests/fixtures/select-fma-bisect, with gcc, clang
# 14 and clang 19: both kernels' FMA-level clones hold FMA instructions, the
# fma-levels build changes the output, and bisection builds tell axpy (its
# FMA changes the floats) from madd_exact (exact products: cleared).
# --fma-bisect-all searches both whatever the timings say; verdicts, reasons
# and build counts are asserted, never which set timing picks.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

fn() { jq -r --arg n "$2" ".functions[] | select(.name==\$n) | .$3" <<<"$1"; }
# 1 when something was selected (then a selected build was made)
sel() { jq -r 'if ([.functions[] | select(.selected)] | length) > 0 then 1 else 0 end' <<<"$1"; }

for cc in gcc clang clang-19; do
  command -v "$cc" >/dev/null || { echo "skip $cc: not installed"; continue; }
  P=$(copy_fixture select-fma-bisect)
  mv "$P" "$TMP/p-$cc" && P="$TMP/p-$cc"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || fail "$cc: scan failed"
  cands=$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(",")')
  expect_eq "$cc: candidates" "$cands" "axpy,madd_exact"
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --fma-bisect-all \
        --build "make CC=$cc" --run './prog 30000' --runs 2 --json 2>"$TMP/err"); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  [ "$rc" = 0 ] || cat "$TMP/err" >&2
  expect_eq "$cc: fma-levels not eligible, fma-free eligible" \
    "$(jq -r '[.variants[1:][] | "\(.name)=\(.eligible)"] | join(",")' <<<"$out")" "fma-levels=false,fma-free=true"
  expect_eq "$cc: both hold FMA at fma-levels" "$(fn "$out" axpy fma_free_code),$(fn "$out" madd_exact fma_free_code)" \
    "false,false"
  expect_eq "$cc: axpy's FMA changes the output" "$(fn "$out" axpy fma_verdict)" "fma-changes-output"
  expect_eq "$cc: madd_exact cleared" "$(fn "$out" madd_exact fma_verdict)" "cleared"
  # the search: both at FMA (fails), then the first alone; the second is
  # tested only when the first was not cleared (else it is known to fail)
  first=$(jq -r '[.functions[] | select(.fma_verdict != null) | .name][0]' <<<"$out")
  want=3; [ "$first" = madd_exact ] && want=2
  expect_eq "$cc: bisection builds" "$(jq -r '.fma_bisect.builds' <<<"$out")" "$want"
  expect_eq "$cc: one line per build" "$(jq -r '.fma_bisect.tests | length' <<<"$out")" "$want"
  expect_eq "$cc: builds counted" "$(jq -r '.builds' <<<"$out")" "$((3 + $(sel "$out") + want))"
  expect_eq "$cc: counts" "$(jq -r '.fma_bisect | "\(.cleared) \(.changes_output) \(.unresolved) \(.limit)"' <<<"$out")" \
    "1 1 0 8"
  expect_match "$cc: the failing output is named" "$(jq -r '.fma_bisect.tests[0]' <<<"$out")" \
    "axpy.* at fma-levels, the other candidates at fma-free: output of './prog 30000' differs"
  expect_no_match "$cc: axpy never gets the FMA set" "$(fn "$out" axpy target_set)" "fma-levels"
  if [ "$(fn "$out" axpy selected)" = false ] && [ "$(fn "$out" axpy reason)" != cold ]; then
    case "$(fn "$out" axpy reason)" in
      fma-changes-output) expect_match "$cc: axpy's why names the workload" "$(fn "$out" axpy why)" \
                            "^fma-changes-output: .*output of './prog 30000' differs" ;;
    esac
  fi
  if [ "$(fn "$out" madd_exact target_set)" = fma-levels ]; then
    expect_match "$cc: madd_exact with fma-levels: said why" "$(fn "$out" madd_exact why)" "FMA bisection"
  fi
  expect_no_match "$cc: selected build passes its check" "$(jq -r '.notes[]' <<<"$out")" "fails a check"
  expect_match "$cc: report.md says it" "$(cat "$P/.fmvgen/report.md")" "FMA bisection \\(fma-levels\\): $want extra builds \\(limit 8\\): 1 function cleared, 1 changes an output"
  [ "$cc" = gcc ] || continue
  # the limit: 0 builds nothing (the behaviour without the search), 1 leaves both open
  for limit in 0 1; do
    out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --fma-bisect-all --fma-bisect $limit \
          --build "make CC=$cc" --run './prog 30000' --runs 2 --json 2>"$TMP/err"); rc=$?
    expect_eq "limit $limit: exit" "$rc" 0
    expect_eq "limit $limit: builds" "$(jq -r '"\(.fma_bisect.builds) \(.builds)"' <<<"$out")" "$limit $((3 + $(sel "$out") + limit))"
    expect_eq "limit $limit: both open" "$(fn "$out" axpy fma_verdict),$(fn "$out" madd_exact fma_verdict)" \
      "fma-unresolved,fma-unresolved"
    expect_no_match "limit $limit: nobody gets the FMA set" "$(jq -r '.functions[].target_set' <<<"$out")" "fma-levels"
  done
  expect_match "limit 1: noted" "$(jq -r '.notes[]' <<<"$out")" "FMA bisection left 2 functions undecided \\(the build limit was reached\\)"
done
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
