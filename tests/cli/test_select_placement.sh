#!/bin/bash
# test_select_placement.sh - a hot function the selection does not clone,
# slower in the selected build although its code is the same, is reported
# (select/placement.h): a note naming it, its addresses and their offsets
# mod 64, and report.json's placement. Fixture select-placement: dot gains
# with clones; the workload gives spin (spin.c, no candidate) 3 units of
# work instead of 1 when its tree holds exactly one cloned function - the
# selected build's (the all-candidates builds clone two) - so spin takes 3x
# the samples there with the same code, as a function slowed by where the
# clones moved it would; the workload as a whole still gains (dot is
# several times faster), so the end-to-end check keeps the selection.
# Built by gcc and clang-19. Asserts on the report, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

placement_on() {   # CC
  local cc=$1 P out rc J
  P=$(copy_fixture select-placement)
  mv "$P" "$TMP/p-$cc"
  P="$TMP/p-$cc"
  cat >"$P/w.sh" <<'SH'
n=$(grep -c '^FMVGEN_CLONES' kernels.c)
u=1
[ "$n" = 1 ] && u=3
exec ./prog 30000 $u
SH
  (cd "$P" && "$FMVGEN" scan -- make CC=$cc >/dev/null 2>&1) || { fail "$cc: scan failed"; return; }
  expect_no_match "$cc: spin is no candidate" "$(cd "$P" && "$FMVGEN" list 2>&1)" "spin"
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "make CC=$cc" --run 'sh w.sh' \
          --runs 3 --seed 1 2>&1); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  J="$P/.fmvgen/report.json"
  expect_eq "$cc: dot is selected" "$(jq -r '[.functions[] | select(.selected) | .name] | join(",")' "$J")" "dot"
  expect_match "$cc: the selected build is profiled" "$out" "profiling the selected build"
  expect_match "$cc: the note" "$out" \
    "note: spin: [0-9.]+x the samples in the selected build \[[0-9.]+, [0-9.]+\] \([0-9]+ per run, baseline [0-9]+\), code the same in both builds, address moved from 0x[0-9a-f]+ \(offset [0-9]+ mod 64\) to 0x[0-9a-f]+ \([0-9]+ mod 64\): placement"
  expect_match "$cc: report.md has it" "$(cat "$P/.fmvgen/report.md")" "spin: [0-9.]+x the samples in the selected build"
  expect_eq "$cc: report.json: checked" "$(jq -r '.placement.checked' "$J")" true
  expect_eq "$cc: report.json: the selected build's profiled runs" "$(jq -r '.placement.selected_profiled_runs' "$J")" 3
  expect_eq "$cc: report.json: spin, same code, placement" \
    "$(jq -r '.placement.slower[] | select(.symbol == "spin") | [.file, .code_same, .placement] | join(" ")' "$J")" \
    "B/prog true true"
  expect_eq "$cc: report.json: offsets mod 64 are the addresses'" \
    "$(jq -r '.placement.slower[] | select(.symbol == "spin") | [.baseline_address % 64 == .baseline_offset_mod_64, .selected_address % 64 == .selected_offset_mod_64, .baseline_address != .selected_address] | join(" ")' "$J")" \
    "true true true"
  expect_eq "$cc: report.json: dot (cloned) is not tested as a victim" \
    "$(jq -r '[.placement.slower[] | select(.symbol | startswith("dot"))] | length' "$J")" 0
}

placement_on gcc
placement_on clang-19
finish
