#!/usr/bin/env bash
# test_demo.sh - `fmvgen demo` end to end on the bundled examples, in --quick
# mode with one run per build (times are not asserted, only structure): exit
# status, the rows of the time table, equal checksums across the builds, the
# clones found in the FMV binaries and which one ran, and the temp dir gone.
# Also the option errors.
source "$TESTLIB"

# The demo's temp dir goes under our own TMPDIR, so we can see it removed.
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

out=$("$FMVGEN" demo --runs 1 --quick 2>"$TMP/err")
rc=$?
err=$(cat "$TMP/err")
expect_eq "demo exit status (stderr: $err)" "$rc" 0

for ex in array_addition kernels; do
  expect_match "$ex section" "$out" "==== $ex ===="
  expect_match "$ex time table" "$out" "$ex: time of the whole program, median of 1 run"
  for row in '-O3' '-O3 -mavx2' '-O3 \+ fmvgen patch'; do
    expect_match "$ex row $row" "$out" "^  $row +[0-9]+\.[0-9]+ s +[0-9]+\.[0-9]+x"
  done
  expect_match "$ex checksums equal" "$out" "$ex: outputs: identical checksums across the 3 builds"
  expect_match "$ex clone table" "$out" "$ex: which clone runs here"
done
# The pipeline ran through fmvgen itself.
expect_match "scan step" "$out" '\$ fmvgen scan -- make'
expect_match "list step" "$out" '\$ fmvgen list'
expect_match "patch step" "$out" '\$ fmvgen patch --apply'
expect_match "array_addition checksum shown" "$out" 'array_addition checksum [0-9]+'

# The clone table: the FMV binaries hold clones of the patched functions,
# and never of main or of the intrinsics kernel.
clones=$(printf '%s\n' "$out" | sed -n '/which clone runs here/,/^$/p')
expect_match "foo cloned" "$clones" '^  foo +'
for fn in saxpy dot_i32 accumulate_rows mat4_mul fill_inputs; do
  expect_match "$fn cloned" "$clones" "^  $fn +"
done
expect_no_match "sum_sse2 (intrinsics) not cloned" "$clones" '^  sum_sse2 '
expect_no_match "main not cloned" "$clones" '^  main '
if printf '%s' "$clones" | grep -q 'cannot measure'; then
  # perf unavailable here: the reason is given, and the clones still listed
  expect_match "why no profile" "$clones" 'cannot measure: .*perf'
else
  # measured: the hot functions ran one of their own clones
  expect_match "foo ran a clone" "$clones" '^  foo +runs foo\.[A-Za-z0-9_]+ +\([0-9]+ of its [0-9]+ samples\)'
  expect_match "accumulate_rows ran a clone" "$clones" '^  accumulate_rows +runs accumulate_rows\.[A-Za-z0-9_]+ '
fi

# The temp dir is gone, and nothing else was left under TMPDIR.
workdir=$(printf '%s\n' "$out" | sed -n 's/^work directory: //p')
expect_match "work directory named" "$workdir" "^$TMPDIR/fmvgen-demo\."
if [ -n "$workdir" ] && [ -e "$workdir" ]; then fail "work directory $workdir left behind"; else pass; fi
expect_eq "TMPDIR empty" "$(ls -A "$TMPDIR")" ""

# Option errors: one line, exit 2.
"$FMVGEN" demo --runs 0 >/dev/null 2>"$TMP/err"
expect_eq "--runs 0 status" "$?" 2
expect_match "--runs 0 message" "$(cat "$TMP/err")" '^fmvgen: demo: --runs wants a number'
"$FMVGEN" demo stray >/dev/null 2>"$TMP/err"
expect_eq "stray argument status" "$?" 2
"$FMVGEN" demo --help >"$TMP/help"
expect_match "help" "$(cat "$TMP/help")" 'usage: fmvgen demo'

finish
