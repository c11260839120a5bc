#!/bin/bash
# test_verify_libtool.sh - `fmvgen verify` given libtool's wrapper script
# (verify/ltwrapper.h), as a user of an autotools+libtool project gives it:
# tests/fixtures/verify-libtool built by GNU libtool, bin/prog being the
# script that runs bin/.libs/prog with LD_LIBRARY_PATH=lib/.libs.
# - the script is run as its program, under qemu too: exit 0, a note naming
#   the program and the library path, and the dispatch map follows the
#   script's library path into libval.so.0 (default clone on Nehalem, the
#   v3 clone on Haswell; clang 14's is the avx2 clone, see libval.c);
# - --against another tree's script runs that tree's own library: the same
#   library source agrees ("same"), a library built with another VALUE is
#   caught on every CPU (one LD_LIBRARY_PATH for both would have run the
#   patched library twice and agreed);
# - the JSON's program is the real program;
# - `fmvgen inspect` given the script inspects its program (the clones of
#   main.c: none; JSON libtool_wrapper names the script), and the library
#   is inspected as itself;
# - a script whose program is gone: one error line naming the script and
#   the missing program, exit 2.
# Compilers: gcc, clang 14 and clang-19 (each when installed; gcc required).
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }
command -v libtool >/dev/null || { echo "libtool missing (scripts/setup-deps.sh installs libtool-bin)"; exit 1; }
cd "$TMP" || exit 1
B=$FIXTURES/verify-libtool/build.sh

"$B" "$TMP/plain" gcc || { fail "libtool build (plain)"; finish; }
"$B" "$TMP/other" gcc -DVALUE=5 || { fail "libtool build (other VALUE)"; finish; }
expect_match "bin/prog is libtool's wrapper script" "$(head -5 plain/bin/prog)" 'temporary wrapper script for \.libs/prog'

for cc in gcc clang-14 clang-19; do
  command -v "$cc" >/dev/null || { [ "$cc" = gcc ] && fail "gcc missing"; continue; }
  "$B" "$TMP/fmv-$cc" "$cc" -DFMV || { fail "$cc: libtool build (FMV)"; continue; }
  prog=$TMP/fmv-$cc/bin/prog
  out=$(cd "$TMP/fmv-$cc" && "$FMVGEN" verify --cpu Nehalem,Haswell -- bin/prog 2>&1); rc=$?
  expect_eq "$cc: wrapper script verified: exit" "$rc" 0
  expect_match "$cc: note names the program and its library path" "$out" \
    "bin/prog is a libtool wrapper script: its program $TMP/fmv-$cc/bin/\.libs/prog ran, with LD_LIBRARY_PATH=$TMP/fmv-$cc/lib/\.libs as the script sets it"
  expect_match "$cc: Nehalem ran it" "$out" 'Nehalem +x86-64-v2 +ok +\(emulated\) +identical'
  expect_match "$cc: dispatch map reaches the script's library" "$out" '^weighted +libval\.so\.0 +.* default +(arch_x86.64.v3|avx2)$'
  expect_eq "$cc: JSON program is the real program" \
    "$("$FMVGEN" verify --json --cpu Nehalem -- "$prog" | jq -r '.program')" "$TMP/fmv-$cc/bin/.libs/prog"

  # --against: each script's program with its own tree's library.
  out=$("$FMVGEN" verify --cpu Nehalem --against "$TMP/plain/bin/prog" -- "$prog" 2>&1); rc=$?
  expect_eq "$cc: against the plain tree: exit" "$rc" 0
  expect_match "$cc: against the plain tree: Nehalem same" "$out" 'Nehalem .* identical +same'
  expect_match "$cc: against note" "$out" \
    "$TMP/plain/bin/prog \(--against\) is a libtool wrapper script: its program $TMP/plain/bin/\.libs/prog ran, with LD_LIBRARY_PATH=$TMP/plain/lib/\.libs"
  out=$("$FMVGEN" verify --json --cpu Nehalem --against "$TMP/other/bin/prog" -- "$prog" 2>/dev/null); rc=$?
  expect_eq "$cc: against another library: exit" "$rc" 1
  expect_eq "$cc: against another library: every CPU differs" \
    "$(printf '%s' "$out" | jq -c '[.cpus[] | .against.stdout.match]')" '["different","different"]'
done

# inspect: the script stands for its program.
out=$("$FMVGEN" inspect "$TMP/fmv-gcc/bin/prog"); rc=$?
expect_eq "inspect the script: exit" "$rc" 0
expect_match "inspect the script: says so" "$out" "^$TMP/fmv-gcc/bin/prog: a libtool wrapper script; its program:$"
expect_match "inspect the script: the program's report" "$out" "^$TMP/fmv-gcc/bin/\.libs/prog: PIE executable, 0 multiversioned functions"
expect_eq "inspect --json: the script and the program" \
  "$("$FMVGEN" inspect --json "$TMP/fmv-gcc/bin/prog" | jq -c '[.files[0].libtool_wrapper, .files[0].file]')" \
  "[\"$TMP/fmv-gcc/bin/prog\",\"$TMP/fmv-gcc/bin/.libs/prog\"]"
expect_match "inspect the library beside it" "$("$FMVGEN" inspect "$TMP/fmv-gcc/lib/.libs/libval.so")" \
  'shared library, 1 multiversioned function'

# The script's program is gone.
rm "$TMP/plain/bin/.libs/prog"
out=$("$FMVGEN" verify --cpu Nehalem -- "$TMP/plain/bin/prog" 2>&1); rc=$?
expect_eq "missing program: exit" "$rc" 2
expect_eq "missing program: one line" "$(printf '%s\n' "$out" | wc -l)" 1
expect_match "missing program: names script and program" "$out" \
  "$TMP/plain/bin/prog: a libtool wrapper script whose program $TMP/plain/bin/\.libs/prog does not exist"
finish
