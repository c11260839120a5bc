#!/usr/bin/env bash
# test_demo.sh - `fmvgen demo` end to end on the bundled examples, in --quick
# mode with one run per build (times are not asserted, only structure): exit
# status, the rows of the time table, equal checksums across the builds, the
# clones found in the FMV binaries and which one ran, and the temp dir gone.
# For array_addition the FMV article's table: five builds, each OK or SIGILL
# on the emulated CPUs (when qemu-user is installed; else the table names
# the package, see test_demo_noqemu.sh). Also the option errors.
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
  table=$(printf '%s\n' "$out" | sed -n "/^$ex: time of the whole program/,/^\$/p")
  for row in '-O3' '-O3 -mavx2' '-O3 \+ fmvgen patch'; do
    expect_match "$ex row $row" "$table" "^  $row +[0-9]+\.[0-9]+ s +[0-9]+\.[0-9]+x"
  done
  expect_match "$ex clone table" "$out" "$ex: which clone runs here"
  expect_match "$ex FMV vs -mavx2 said" "$table" \
    '^  natively the FMV build is (faster than|as fast as|SLOWER than) -O3 -mavx2 \([0-9.]+ s vs [0-9.]+ s'
done
expect_match "array_addition checksums equal" "$out" "array_addition: outputs: identical checksums across the 5 builds"
expect_match "kernels checksums equal" "$out" "kernels: outputs: identical checksums across the 3 builds"

# The article's table: its rows for array_addition only.
aa=$(printf '%s\n' "$out" | sed -n '/^array_addition: time of the whole program/,/^$/p')
kt=$(printf '%s\n' "$out" | sed -n '/^kernels: time of the whole program/,/^$/p')
for row in 'None \(-O0\)' '-O3 -mavx'; do
  expect_match "array_addition row $row" "$aa" "^  $row +[0-9]+\.[0-9]+ s +[0-9]+\.[0-9]+x"
  expect_no_match "kernels has no row $row" "$kt" "^  $row +[0-9]"
done
expect_no_match "kernels: no emulated CPUs" "$kt" 'Nehalem'

# The CPU cells of a row (the last four fields: qemu64 Nehalem SandyBridge Haswell).
cells() { printf '%s\n' "$aa" | grep -E "^  $1 +[0-9]+\.[0-9]+ s +[0-9.]+x " | awk '{print $(NF-3), $(NF-2), $(NF-1), $NF}'; }
if command -v qemu-x86_64 >/dev/null 2>&1 || command -v qemu-x86_64-static >/dev/null 2>&1; then
  expect_match "table header" "$aa" '^  build +time +vs -O3 +qemu64 +Nehalem +SandyBridge +Haswell$'
  expect_match "emulated runs explained" "$aa" 'qemu-x86_64 -cpu MODEL, [0-9]+ passes'
  expect_eq "None (-O0) on qemu64 Nehalem SandyBridge Haswell" "$(cells 'None \(-O0\)')" "OK OK OK OK"
  expect_eq "-O3 on qemu64 Nehalem SandyBridge Haswell" "$(cells '-O3')" "OK OK OK OK"
  expect_eq "-O3 -mavx on qemu64 Nehalem SandyBridge Haswell" "$(cells '-O3 -mavx')" "SIGILL SIGILL OK OK"
  expect_eq "-O3 -mavx2 on qemu64 Nehalem SandyBridge Haswell" "$(cells '-O3 -mavx2')" "SIGILL SIGILL SIGILL OK"
  expect_eq "FMV on qemu64 Nehalem SandyBridge Haswell" "$(cells '-O3 \+ fmvgen patch')" "OK OK OK OK"
  expect_match "-mavx2 deaths summed up" "$aa" \
    '^  -O3 -mavx2 fails on qemu64 \(SIGILL\), Nehalem \(SIGILL\), SandyBridge \(SIGILL\)$'
  expect_match "portable builds summed up" "$aa" '^  runs on every CPU: None \(-O0\), -O3, -O3 \+ fmvgen patch$'
  # Why FMV runs everywhere: the baseline CPU gets the default clone (clang
  # numbers its clones: foo.default.2).
  expect_match "FMV dispatch per CPU" "$aa" \
    "^  FMV: foo's resolver picks foo\.[A-Za-z0-9_.-]+ on x86-64-v[1-4] \(native\), foo\.default(\.[0-9]+)? on qemu64, "
  # No emulated time anywhere: only the native column has seconds.
  expect_eq "one time per row" "$(printf '%s\n' "$aa" | grep -E '^  (None|-O3)' | grep -cE '[0-9] s .*[0-9] s')" 0
else
  expect_match "no qemu: the package named" "$aa" 'emulated CPUs: none, .*install the Debian package qemu-user'
fi
# The pipeline ran through fmvgen itself.
expect_match "scan step" "$out" '\$ fmvgen scan -- make'
expect_match "list step" "$out" '\$ fmvgen list'
expect_match "patch step" "$out" '\$ fmvgen patch --apply'
expect_match "array_addition checksum shown" "$out" 'array_addition checksum [0-9]+'

# The clone table: the FMV binaries hold clones of the patched functions,
# sum_sse2's among them (SSE2 intrinsics: the baseline), never main's.
clones=$(printf '%s\n' "$out" | sed -n '/which clone runs here/,/^$/p')
expect_match "foo cloned" "$clones" '^  foo +'
for fn in saxpy dot_i32 accumulate_rows mat4_mul fill_inputs sum_sse2; do
  expect_match "$fn cloned" "$clones" "^  $fn +"
done
expect_no_match "main not cloned" "$clones" '^  main '
if printf '%s' "$clones" | grep -q 'cannot measure'; then
  # perf unavailable here: the reason is given, and the clones still listed
  expect_match "why no profile" "$clones" 'cannot measure: .*perf'
else
  # measured: the hot functions ran one of their own clones
  expect_match "foo ran a clone" "$clones" '^  foo +runs foo\.[A-Za-z0-9_.-]+ +\([0-9]+ of its [0-9]+ samples\)'
  expect_match "accumulate_rows ran a clone" "$clones" '^  accumulate_rows +runs accumulate_rows\.[A-Za-z0-9_.-]+ '
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
