#!/bin/bash
# test_select_cpuid.sh - `fmvgen select` with its default dispatch, cpuid
# (fmvgen's own CPUID check, no libgcc CPU detection), on
# tests/fixtures/select-cpuid: prog (kern.c: popsum, quant) linked with
# libmore.so (more.c: popmix, and poprec, which names itself in its body so
# the patch dispatches it by IFUNC instead). Every variant select measures
# is built with that dispatch: prog holds fmvgen_cpu_levels and no
# __cpu_indicator_init; libmore.so holds both (poprec's IFUNC resolver links
# libgcc's). The report says the dispatch and names the fallback; the code
# growth's CPU detection is split into fmvgen's part and libgcc's; the
# budget's fixed parts are per linked file, for cpuid functions (fmvgen's
# small CPU check) and for the IFUNC one (libgcc's KBs).
# Behaviour only: which functions gain is not asserted, and the fixed parts
# are checked for the functions that timing chose.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

P=$(copy_fixture select-cpuid)
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "scan failed"
expect_eq "four candidates" "$(cd "$P" && "$FMVGEN" list --json | jq -r '.candidates')" 4
out=$(cd "$P" && "$FMVGEN" select --build "make CC=gcc" --run './prog 2000' --runs 2 --reference none --keep --json \
      2>"$TMP/err"); rc=$?
expect_eq "exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
kept=$(sed -n 's/^select: kept the temp directory //p' "$TMP/err")

# the dispatch, the fallback and each function's
expect_eq "dispatch: cpuid by default" "$(jq -r '.dispatch.mode' <<<"$out")" cpuid
expect_match "poprec falls back to IFUNC, with why" "$(jq -r '.dispatch.ifunc_fallback | join("\n")' <<<"$out")" \
  "^more.c:[0-9]+ poprec: its body names it"
expect_eq "one fallback" "$(jq -r '.dispatch.ifunc_fallback | length' <<<"$out")" 1
expect_eq "functions' dispatch" \
  "$(jq -r '[.functions[] | "\(.name)=\(.dispatch)"] | sort | join(" ")' <<<"$out")" \
  "popmix=cpuid poprec=ifunc popsum=cpuid quant=cpuid"
expect_match "report.md says it" "$(cat "$P/.fmvgen/report.md")" "Dispatch: cpuid .*poprec"

# what the variants hold (the kept copies): fmvgen's CPU check, libgcc's only
# where the IFUNC fallback lives
for set in fma-levels:6 fma-free:4; do   # v3, v4 and default copies; avx2 and default
  copies=${set#*:}
  set=${set%:*}
  expect_eq "$set: prog has fmvgen_cpu_levels" "$(readelf -sW "$kept/$set/prog" | grep -c ' fmvgen_cpu_levels\.v1$')" 1
  expect_eq "$set: prog has no __cpu_indicator_init" "$(readelf -sW "$kept/$set/prog" | grep -c '__cpu_indicator_init')" 0
  expect_eq "$set: prog has cpuid copies" \
    "$(readelf -sW "$kept/$set/prog" | grep -cE ' fmvgen_cp_(popsum|quant)_(default|x86_64_v3|x86_64_v4|avx2)$')" "$copies"
  expect_eq "$set: libmore.so has fmvgen_cpu_levels" \
    "$(readelf -sW "$kept/$set/libmore.so" | grep -c ' fmvgen_cpu_levels\.v1$')" 1
  expect_match "$set: libmore.so has libgcc's (poprec's IFUNC)" \
    "$(readelf -sW "$kept/$set/libmore.so" | grep -c '__cpu_indicator_init')" '^[1-9]'
  # the code's CPU detection: fmvgen's two checks (about a hundred bytes
  # each) and libgcc's KBs, apart
  expect_eq "$set: CPU detection split" \
    "$(jq -r --arg s "$set" '.code_size.all_candidates[$s] | .cpu_detection_fmvgen_bytes > 0 and .cpu_detection_fmvgen_bytes < 1000 and .cpu_detection_bytes - .cpu_detection_fmvgen_bytes > 1000' <<<"$out")" true
done
expect_eq "every function adds bytes" "$(jq -r '[.functions[] | .bytes_added_all_candidates > 0] | all' <<<"$out")" true
expect_eq "baseline: no CPU detection" "$(jq -r '.code_size.baseline | .cpu_detection_bytes' <<<"$out")" 0

# the budget's fixed parts, for what timing chose (selected, or dropped for
# the budget): one small part per linked file of a chosen cpuid function
# (prog, libmore.so: its one fmvgen_cpu_levels), libgcc's KBs only with
# poprec
chosen() { jq -r --arg f "$1" '.functions[] | select(.name == $f) | (.selected or .reason == "code-budget")' <<<"$out"; }
units=0
for f in popsum quant; do [ "$(chosen "$f")" = true ] && units=1; done
[ "$(chosen popmix)" = true ] && units=$((units + 1))
files=0
[ "$(chosen poprec)" = true ] && files=1
expect_eq "budget: fmvgen's checks, one per linked file" "$(jq -r '.code_size.budget.fixed_levels_files' <<<"$out")" "$units"
# (an object file's own part is only the padding before its copies where
# they end .text)
expect_eq "budget: object files' own parts, at most one each" \
  "$(jq -r --argjson u "$units" '.code_size.budget.fixed_units <= $u' <<<"$out")" true
expect_eq "budget: libgcc's only with the IFUNC fallback" "$(jq -r '.code_size.budget.fixed_files' <<<"$out")" "$files"
if [ "$files" = 0 ]; then
  expect_eq "budget: the fixed part is small" "$(jq -r '.code_size.budget.fixed_bytes < 1000' <<<"$out")" true
else
  expect_eq "budget: libgcc's is KBs" "$(jq -r '.code_size.budget.fixed_bytes > 1000' <<<"$out")" true
fi

# --dispatch cpuid with a target it has no copy for: a usage error; without
# --dispatch the selection falls back to IFUNC and says so (no build here:
# checked before any)
err=$(cd "$P" && "$FMVGEN" select --build false --run ./prog --set one=popcnt --dispatch cpuid 2>&1); rc=$?
expect_eq "cpuid + popcnt: usage error" "$rc" 2
expect_match "cpuid + popcnt: said" "$err" "--dispatch cpuid: the set one's target 'popcnt' has no cpuid copy"
rm -rf "$kept"
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
