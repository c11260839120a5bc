#!/bin/bash
# test_select_outlined.sh - `fmvgen select` when cloning a function stops
# GCC from inlining its big static helper (tests/fixtures/select-outlined):
# in the baseline mix() is inlined into process(), in the clones' build it
# runs out of line. Its samples are counted as process's (outlined.h), so
# the time that moved is not read as a speedup (without that, process read
# as many times faster and was selected, as kissfft's kf_work was), and the
# report says so.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
P=$(copy_fixture select-outlined)
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "scan failed"
expect_eq "candidates" "$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.status=="candidate") | .name] | join(",")')" \
  "process"
# the premise, from the compiler: mix is a symbol of its own only with clones
expect_no_match "baseline: mix inlined" "$(nm "$P/prog")" " mix$"

out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=gcc" --run './prog 3000' --runs 3 --json 2>"$TMP/err"); rc=$?
expect_eq "exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "mix counted as process's" "$(jq -r '.functions[0].outlined_helpers' <<<"$out")" "mix"
expect_match "said" "$(jq -r '.notes[]' <<<"$out")" \
  "^process: with its clones, mix ran out of line \(inlined into it in the baseline\)"
# mix is most of the run and no faster: no several-fold "speedup" is read
# (without outlined.h: 98% "saved", dozens of times faster). Whether the
# small real gain of process's own loop is significant depends on the run's
# noise, so its selection is not asserted.
expect_eq "no moved-time speedup" \
  "$(jq -r '[.functions[0].variants[] | .speedup | select(. != null and . < 2)] | length' <<<"$out")" 2
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
