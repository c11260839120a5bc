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
# And fill, a candidate, gets 50x the work when the tree holds two cloned
# functions (the all-candidates builds): hot and never selected, it is
# pinned (patch/pin.c) - the pin line above it in selected.patch, and fill
# at the same offset mod 64 in the baseline and the selected build (--keep).
# spin, hot and no candidate (no functions row: select locates it with
# libclang, candidates/pinsite.h), is pinned too: its line above it, the
# header says it is no candidate, and it keeps its baseline offset mod 64
# in the selected build. With --no-placement-pins (gcc) nothing is pinned:
# the note and report.json say so, selected.patch has no pin line.
# dot's copies (--dispatch cpuid) are pinned at the offsets mod 64 they had
# in the all-candidates build that measured them.
# Built by gcc, clang (14) and clang-19. Asserts on the report, never on times.
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
u=1 f=1000
[ "$n" = 1 ] && u=3
[ "$n" = 2 ] && f=50000
exec ./prog 30000 $u $f
SH
  (cd "$P" && "$FMVGEN" scan -- make CC=$cc >/dev/null 2>&1) || { fail "$cc: scan failed"; return; }
  expect_no_match "$cc: spin is no candidate" "$(cd "$P" && "$FMVGEN" list 2>&1)" "spin"
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "make CC=$cc" --run 'sh w.sh' \
          --runs 3 --seed 1 --keep 2>&1); rc=$?
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
  # fill: a hot candidate not selected (50x the work with every candidate
  # cloned): pinned at its baseline offset mod 64
  expect_eq "$cc: fill is not selected" "$(jq -r '.functions[] | select(.name == "fill") | .selected' "$J")" false
  expect_eq "$cc: report.json: fill and spin pinned" "$(jq -r '[.placement.pinned[].function] | join(",")' "$J")" fill,spin
  expect_eq "$cc: report.json: pins on" "$(jq -r '.placement.pins' "$J")" true
  expect_eq "$cc: report.json: spin is not among the unpinned" \
    "$(jq -r '[.placement.unpinned[] | select(.function == "spin")] | length' "$J")" 0
  local k
  k=$(jq -r '.placement.pinned[0].offset_mod_64' "$J")
  local line="__attribute__((__aligned__(64), __patchable_function_entry__($k, $k)))"
  [ "$k" = 0 ] && line="__attribute__((__aligned__(64)))"
  expect_eq "$cc: selected.patch: the pin line above fill" \
    "$(grep -A1 -x -F "+$line" "$P/.fmvgen/selected.patch" | tail -1)" " void fill(int32_t *a, int32_t *b, int n)"
  local ks
  ks=$(jq -r '.placement.pinned[] | select(.function == "spin") | .offset_mod_64' "$J")
  local sline="__attribute__((__aligned__(64), __patchable_function_entry__($ks, $ks)))"
  [ "$ks" = 0 ] && sline="__attribute__((__aligned__(64)))"
  expect_eq "$cc: selected.patch: the pin line above spin (no candidate)" \
    "$(grep -B1 -F ' uint64_t spin(long units)' "$P/.fmvgen/selected.patch" | head -1)" "+$sline"
  expect_match "$cc: selected.patch header" "$(cat "$P/.fmvgen/selected.patch")" "Kept in place \(2\):.*
  kernels.c:[0-9]+ fill: at $k mod 64
  spin.c:[0-9]+ spin: at $ks mod 64 \(not a candidate\)"
  expect_match "$cc: the note" "$out" "note: 2 hot functions the selection does not clone are kept at the offset .*: fill \($k mod 64\), spin \($ks mod 64\)"
  # where the builds put fill (select --keep): the same offset mod 64
  local work b s
  work=$(grep -o "$TMPDIR/fmvgen-[A-Za-z0-9._-]*" <<<"$out" | head -1)
  b=$(nm "$work/baseline/prog" | awk '$3 == "fill" {print $1}')
  s=$(nm "$work/selected/prog" | awk '$3 == "fill" {print $1}')
  expect_eq "$cc: fill's offset mod 64 in the baseline build is the pin's" "$(( 16#${b:-0} % 64 ))" "$k"
  expect_eq "$cc: and in the selected build" "$(( 16#${s:-0} % 64 ))" "$k"
  [ -n "$b" ] && [ -n "$s" ] && [ "$b" != "$s" ] && pass || fail "$cc: fill did not move (baseline $b, selected $s)"
  b=$(nm "$work/baseline/prog" | awk '$3 == "spin" {print $1}')
  s=$(nm "$work/selected/prog" | awk '$3 == "spin" {print $1}')
  expect_eq "$cc: spin's offset mod 64 in the baseline build is the pin's" "$(( 16#${b:-0} % 64 ))" "$ks"
  expect_eq "$cc: and in the selected build" "$(( 16#${s:-0} % 64 ))" "$ks"
  # dot's copies (--dispatch cpuid): in the selected build at the offsets mod
  # 64 they had in the all-candidates build of its set, where it was measured
  expect_match "$cc: the copies' note" "$out" \
    "note: the copies of 1 selected function are kept at the offsets .*: dot \(([a-z0-9_]+ [0-9]+(, )?)+\)"
  local v sym top n=0
  top=$(nm "$work/selected/prog" | awk '$3 ~ /^fmvgen_cp_dot_/ && $3 != "fmvgen_cp_dot_default" {print $3; exit}')
  for v in "$work"/*/; do
    case $v in */baseline/|*/selected/) continue ;; esac
    nm "${v}prog" 2>/dev/null | awk -v s="$top" '$3 == s {f = 1} END {exit !f}' || continue
    for sym in $(nm "$work/selected/prog" | awk '$3 ~ /^fmvgen_cp_dot_/ {print $3}'); do
      b=$(nm "${v}prog" | awk -v s="$sym" '$3 == s {print $1}')
      s=$(nm "$work/selected/prog" | awk -v s="$sym" '$3 == s {print $1}')
      expect_eq "$cc: $sym at its measured offset mod 64 ($(basename "$v"))" "$(( 16#${s:-0} % 64 ))" "$(( 16#${b:-1} % 64 ))"
      n=$((n + 1))
    done
    break
  done
  [ "$n" -ge 2 ] && pass || fail "$cc: dot's copies not found in the selected and its set's build ($n)"
  rm -rf "$work"
  [ "$cc" = gcc ] || return
  # --no-placement-pins: nothing pinned, and said so
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "make CC=$cc" --run 'sh w.sh' \
          --runs 3 --seed 1 --no-placement-pins 2>&1); rc=$?
  expect_eq "$cc --no-placement-pins: exit" "$rc" 0
  expect_match "$cc --no-placement-pins: the note" "$out" "note: placement pins are off \(--no-placement-pins\)"
  expect_no_match "$cc --no-placement-pins: no pin note" "$out" "kept at the offset from a 64-byte boundary"
  expect_eq "$cc --no-placement-pins: report.json" "$(jq -r '[.placement.pins, (.placement.pinned | length)] | join(" ")' "$J")" "false 0"
  expect_no_match "$cc --no-placement-pins: no pin line in selected.patch" "$(cat "$P/.fmvgen/selected.patch")" \
    "__aligned__\(64\)|__patchable_function_entry__|Kept in place"
  expect_eq "$cc --no-placement-pins: dot still selected" \
    "$(jq -r '[.functions[] | select(.selected) | .name] | join(",")' "$J")" "dot"
}

placement_on gcc
placement_on clang
placement_on clang-19
finish
