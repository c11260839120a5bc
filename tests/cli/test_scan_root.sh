#!/bin/bash
# test_scan_root.sh - the project root a scan takes without --root outside
# a git work tree (scan/root.h), as in a release tarball built out of tree:
#   - CMake, build/ under the source top, scanned from its compile database:
#     the root is CMakeCache.txt's CMAKE_HOME_DIRECTORY, so the patch names
#     kernels.c from the top and applies there with patch -p1;
#   - an autotools-style build dir (a Makefile whose abs_top_srcdir is the
#     top, compiling ../src/*.c) scanned through the wrapper: the same;
#   - a compiled source outside the root (no build-system record, nothing
#     narrower): scan warns, naming it and --root, and patch leaves its
#     function out, saying why in its header, while patching the others;
#     with every candidate outside, patch fails in one line.
source "$TESTLIB"
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
git -C "$TMP" rev-parse --show-toplevel >/dev/null 2>&1 && skip_test "$TMP is inside a git work tree"

# ---- CMake out of tree, scanned from its compile database ----
if command -v cmake >/dev/null; then
  P=$(copy_fixture select-cmake)
  cmake -S "$P" -B "$P/build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null 2>&1 && make -C "$P/build" >/dev/null 2>&1 ||
    fail "cmake: configure/build failed"
  (cd "$P/build" && "$FMVGEN" scan --no-probe --compdb compile_commands.json >/dev/null 2>"$TMP/err") ||
    { cat "$TMP/err" >&2; fail "cmake: scan failed"; }
  expect_eq "cmake: root is CMAKE_HOME_DIRECTORY" "$(cd "$P/build" && "$FMVGEN" list --json | jq -r .root)" "$P"
  (cd "$P/build" && "$FMVGEN" patch -o "$TMP/cmake.patch" >/dev/null 2>&1) || fail "cmake: patch failed"
  expect_match "cmake: the patch names kernels.c from the top" "$(cat "$TMP/cmake.patch")" '^\+\+\+ b/kernels\.c'
  (cd "$P" && patch -p1 --dry-run <"$TMP/cmake.patch" >/dev/null) && pass || fail "cmake: patch -p1 at the top"
fi

# ---- autotools-style build dir: Makefile with abs_top_srcdir ----
A="$TMP/tarball"
mkdir -p "$A/src" "$A/build"
cp "$FIXTURES/select-cmake/kernels.c" "$FIXTURES/select-cmake/kernels.h" "$FIXTURES/select-cmake/main.c" "$A/src/"
cat >"$A/build/Makefile" <<MK
abs_top_srcdir = $A
CC ?= cc
prog: kernels.o main.o
	\$(CC) -o \$@ kernels.o main.o
%.o: ../src/%.c
	\$(CC) -O3 -c \$< -o \$@
MK
(cd "$A/build" && "$FMVGEN" scan --no-probe -- make -s >/dev/null 2>"$TMP/err") || { cat "$TMP/err" >&2; fail "autotools: scan failed"; }
expect_eq "autotools: root is abs_top_srcdir" "$(cd "$A/build" && "$FMVGEN" list --json | jq -r .root)" "$A"
(cd "$A/build" && "$FMVGEN" patch -o "$TMP/at.patch" >/dev/null 2>&1) || fail "autotools: patch failed"
expect_match "autotools: the patch names src/kernels.c" "$(cat "$TMP/at.patch")" '^\+\+\+ b/src/kernels\.c'

# ---- a compiled source outside the root ----
O="$TMP/elsewhere"
mkdir -p "$O" "$TMP/plain"
cp "$FIXTURES/select-cmake/kernels.h" "$O/"
sed 's/\bdot\b/dot_far/; s/\bfill\b/fill_far/' "$FIXTURES/select-cmake/kernels.c" >"$O/far.c"
cp "$FIXTURES/select-cmake/kernels.c" "$FIXTURES/select-cmake/kernels.h" "$FIXTURES/select-cmake/main.c" "$TMP/plain/"
cat >"$TMP/plain/Makefile" <<MK
CC ?= cc
prog: kernels.o main.o far.o
	\$(CC) -o \$@ kernels.o main.o far.o
far.o: $O/far.c
	\$(CC) -O3 -c $O/far.c -o \$@
%.o: %.c
	\$(CC) -O3 -c \$< -o \$@
MK
(cd "$TMP/plain" && "$FMVGEN" scan --no-probe -- make -s >/dev/null 2>"$TMP/err"); rc=$?
expect_eq "outside: scan exit" "$rc" 0
expect_match "outside: scan warns, naming the file and --root" "$(cat "$TMP/err")" \
  "$O/far.c: outside the project root $TMP/plain: a patch cannot name it \(scan --root DIR"
(cd "$TMP/plain" && "$FMVGEN" patch -o "$TMP/plain.patch" >/dev/null 2>"$TMP/err"); rc=$?
expect_eq "outside: patch exit" "$rc" 0
expect_match "outside: the others are patched" "$(cat "$TMP/plain.patch")" '^\+\+\+ b/kernels\.c'
expect_match "outside: the header says why fill_far is left out" "$(cat "$TMP/plain.patch")" \
  "$O/far.c:[0-9]+ fill_far: outside the project root $TMP/plain: a patch cannot name it"
expect_match "outside: and stderr" "$(cat "$TMP/err")" "fill_far not patched: outside the project root"

# every candidate outside: one error line
rm -rf "$TMP/plain/.fmvgen"
(cd "$TMP/plain" && make -s clean >/dev/null 2>&1; rm -f ./*.o prog
 "$FMVGEN" scan --no-probe --root "$TMP/plain/sub" -- make -s >/dev/null 2>&1)
mkdir -p "$TMP/plain/sub"
out=$(cd "$TMP/plain" && "$FMVGEN" patch -o "$TMP/none.patch" 2>&1 >/dev/null); rc=$?
expect_eq "all outside: patch exit" "$rc" 1
expect_match "all outside: one error line" "$(printf '%s\n' "$out" | tail -1)" \
  "^fmvgen: .*: every candidate lies outside the project root $TMP/plain/sub; scan again with --root DIR"
[ -e "$TMP/none.patch" ] && fail "all outside: a patch was written" || pass
finish
