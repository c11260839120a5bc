#!/bin/bash
# test_select_libcalls.sh - `fmvgen select` on tests/fixtures/select-libcalls,
# whose hot functions call a library function their clones replace with an
# instruction: popsum calls libgcc's __popcountdi2 with gcc, quant libm's
# floorf with clang. perf credits that time to the callee; select counts it
# as the caller's (lib/select/libcalls.h) and says so. Also the code-growth
# budget (lib/select/budget.h) on a program whose whole code is about 1 KB:
# its limit is 10% of the baseline's code (no v3 reference here), its fixed
# part the CPU detection libgcc links into the program, and what is left
# selected fits it; --max-growth none applies none. The gcc run asks for
# --dispatch ifunc: its budget is target_clones' (libgcc's CPU detection,
# KBs, per linked file); the default cpuid dispatch's is test_select_cpuid's.
# Behaviour only:
# whether a function gains significantly is not asserted.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

# run_one CC FUNCTION CALLEE [select args...]
run_one() {
  local cc=$1 fn=$2 callee=$3
  shift 3
  local P
  P=$(copy_fixture select-libcalls)
  mv "$P" "$TMP/libcalls-$cc"   # a copy of its own per compiler
  P="$TMP/libcalls-$cc"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || fail "$cc: scan failed"
  expect_match "$cc: $fn drops $callee" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r ".functions[] | select(.name==\"$fn\") | .evidence")" "replaces $callee"
  expect_eq "$cc: $fn drops $callee (data)" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r ".functions[] | select(.name==\"$fn\") | .dropped_calls | join(\" \")")" \
    "$callee"
  # select credits from that data, never from the evidence text: reworded
  # here, the calls are still credited (the notes below)
  sqlite3 "$P/.fmvgen/store.sqlite" "UPDATE functions SET evidence = 'reworded' WHERE name = '$fn'" ||
    fail "$cc: cannot reword the evidence"
  out=$(cd "$P" && "$FMVGEN" select --build "make CC=$cc" --run './prog 2000' --runs 2 --reference none --json "$@" \
        2>"$TMP/err"); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  [ "$rc" = 0 ] || cat "$TMP/err" >&2
}

run_one gcc popsum __popcountdi2 --dispatch ifunc
expect_eq "gcc: dispatch ifunc" "$(jq -r '.dispatch.mode' <<<"$out")" ifunc
# the callee's baseline samples are credited to popsum, and said
note=$(jq -r '.notes[] | select(startswith("popsum: "))' <<<"$out")
expect_match "gcc: said" "$note" \
  "^popsum: [0-9.]+ samples per run of the baseline in __popcountdi2 - calls its clones replace with instructions"
expect_no_match "gcc: credited, not nothing" "$note" "^popsum: 0.0 samples"
expect_no_match "gcc: one dropper, no split" "$note" "split with"
expect_eq "gcc: popsum sampled" "$(jq -r '.functions[] | select(.name=="popsum") | .share > 0' <<<"$out")" true
# the budget: 10% of the baseline's code; the selection left fits it
base=$(jq -r '.code_size.baseline.code_bytes' <<<"$out")
expect_eq "budget: 10% of the baseline" "$(jq -r '.code_size.budget.limit_bytes' <<<"$out")" $((base / 10))
expect_match "budget: what a second whole build is" "$(jq -r '.code_size.budget.second_whole_build' <<<"$out")" \
  "^the baseline"
expect_eq "budget: the selection fits" "$(jq -r '.code_size.budget | .predicted_bytes <= .limit_bytes' <<<"$out")" true
expect_eq "budget: dropped ones say why" \
  "$(jq -r '[.functions[] | select(.reason=="code-budget") | select(.why | test("code-growth budget") | not)] | length' <<<"$out")" 0
# its fixed part is the CPU detection libgcc links into prog, the one linked
# file with clones (elf/cpudetect.h), when anything was chosen; none else.
# Which branch runs depends on timing: tests/unit/test_select_growth.c
# asserts the same report.json fields on fixed selections of real builds
# (one file and two files with clones), whatever the timing.
chosen=$(jq -r '[.functions[] | select(.selected or .reason=="code-budget")] | length' <<<"$out")
if [ "$chosen" -gt 0 ]; then
  expect_eq "budget: one file's CPU detection" "$(jq -r '.code_size.budget.fixed_files' <<<"$out")" 1
  expect_eq "budget: told, not the residue" "$(jq -r '.code_size.budget.fixed_from_residue' <<<"$out")" false
  expect_eq "budget: libgcc's cpuinfo.o is KBs" "$(jq -r '.code_size.budget.fixed_bytes > 1000' <<<"$out")" true
else
  expect_eq "budget: nothing chosen, no fixed part" "$(jq -r '.code_size.budget.fixed_bytes' <<<"$out")" 0
fi

run_one clang-14 quant floorf --max-growth none
expect_eq "clang: dispatch cpuid by default" "$(jq -r '.dispatch.mode' <<<"$out")" cpuid
# quant writes each floorf result out (no sum carried across the calls):
# floorf then holds about a sixth of the baseline's samples (100 or more per
# ./prog 2000 run here), so the note cannot be missed by chance; with a
# carried sum it held one sample in 1,000 and the note came and went
note=$(jq -r '.notes[] | select(startswith("quant: "))' <<<"$out")
expect_match "clang: said" "$note" "^quant: [0-9.]+ samples per run of the baseline in floorf - calls its clones replace"
expect_no_match "clang: credited, not nothing" "$note" "^quant: 0.0 samples"
per_run=$(sed -n 's/^quant: \([0-9]*\).*/\1/p' <<<"$note")
expect_eq "clang: floorf's time, not a stray sample (10 or more per run)" "$([ "${per_run:-0}" -ge 10 ] && echo yes)" yes
expect_eq "clang: no budget" "$(jq -r '.code_size.budget' <<<"$out")" null
expect_eq "clang: nothing dropped for code" "$(jq -r '[.functions[] | select(.reason=="code-budget")] | length' <<<"$out")" 0
# clang 19 too: the evidence select reads (no select run: the crediting is
# the same code for every compiler)
if have_clang19; then
  P=$(copy_fixture select-libcalls)
  mv "$P" "$TMP/libcalls-clang-19"
  P="$TMP/libcalls-clang-19"
  (cd "$P" && "$FMVGEN" scan -- make CC=clang-19 >/dev/null 2>&1) || fail "clang-19: scan failed"
  expect_match "clang-19: quant drops floorf" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r '.functions[] | select(.name=="quant") | .evidence')" "replaces floorf"
fi
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
