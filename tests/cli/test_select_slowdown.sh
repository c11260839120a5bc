#!/bin/bash
# test_select_slowdown.sh - a selected build slower than the baseline on a
# workload, confirmed on fresh runs, is withdrawn (select/slowdown.h).
# Fixture select-hot-cold: dot gains; the second workload runs the program
# 12 more times when its tree holds exactly one cloned function - the
# selected build's (the all-candidates builds clone two) - so the selection
# is about 3x slower there in CPU time, a difference no load can hide.
# Asserts on the verdict, the notes and selected.patch, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
P=$(copy_fixture select-hot-cold)
cat >"$P/w.sh" <<'SH'
./prog 30000
n=$(grep -c '^FMVGEN_CLONES' kernels.c)
[ "$n" = 1 ] && for i in 1 2 3 4 5 6 7 8 9 10 11 12; do ./prog 30000; done >/dev/null
exit 0
SH
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || { fail "scan failed"; finish; }
out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "make CC=gcc" --run './prog 30000' \
        --run 'sh w.sh' --runs 3 --seed 1 2>&1); rc=$?
expect_eq "exit" "$rc" 0
expect_match "first read as provisional, not a verdict" "$out" \
  "'sh w\\.sh': the selected build read (significantly slower|as taking significantly more CPU time) than the baseline \\([a-z ]*[0-9.]+x \\[[0-9.]+, [0-9.]+\\]\\); timed again on fresh runs below"
expect_no_match "no verdict before the retest" "$out" "the selected build is significantly slower than the baseline on"
expect_match "retimed on fresh runs" "$out" "the selected build read slower on 1 workload: timing baseline and selected again, 3 fresh runs each"
expect_match "withdrawn, naming the workload and both readings" "$out" \
  "note: the selected build fails a check \(significantly slower than the baseline on 'sh w\.sh': CPU time 0\.[0-9]+x \[[0-9.]+, [0-9.]+\], again on 3 fresh runs: CPU time 0\.[0-9]+x"
expect_match "dot's verdict" "$out" "  no  dot .* withdrawn: the selected build fails a check \(significantly slower"
expect_eq "selected.patch is empty" "$(wc -c <"$P/.fmvgen/selected.patch")" 0
expect_eq "report.json: nothing selected" "$(jq -r '[.functions[] | select(.selected)] | length' "$P/.fmvgen/report.json")" 0
expect_no_match "the other workload is not retimed" "$out" "slower on 2 workloads"
finish
