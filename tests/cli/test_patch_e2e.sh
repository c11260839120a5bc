#!/bin/bash
# test_patch_e2e.sh - the user's path from a build to a patched build:
# `fmvgen scan -- make` on tests/fixtures/patch-basic (gcc), `fmvgen patch`
# (text and --apply), then the patched project rebuilt with its own Makefile
# by gcc, clang 14 and clang 19 (when installed): clones in nm, the original
# output under qemu -cpu Nehalem (the default clones), and a second scan
# finds the patched functions already multi-versioned (nothing to do).
source "$TESTLIB"

P=$(copy_fixture patch-basic)
cd "$P" || exit 1
make -s CC=gcc >/dev/null || fail "unpatched build"
BASE=$(./prog)
make -s clean

"$FMVGEN" scan --root "$P" -- make -s CC=gcc >"$TMP/scan.out" 2>&1; rc=$?
expect_eq "scan: exit" "$rc" 0

"$FMVGEN" patch -o "$TMP/fmv.patch" 2>/dev/null; rc=$?
expect_eq "patch: exit" "$rc" 0
PATCH=$(cat "$TMP/fmv.patch")
for fn in scale saxpy mul_add_all add_crlf add_tail shift_left; do
  expect_match "patch: $fn cloned" "$PATCH" $'\n\\+FMVGEN_CLONES\\('"$fn"$'\\)\r?\n'
done
expect_match "patch: probe-only function (int32 products summed into int64)" "$PATCH" \
  'sum_products: vectorizes only at arch=x86-64-v4'
expect_no_match "patch: main is never patched" "$PATCH" 'FMVGEN_CLONES\(main\)'
cmp -s "$FIXTURES/patch-basic/kernels.c" "$P/kernels.c" && pass || fail "patch -o modified kernels.c"
C=$(mktemp -d "$TMP/copy.XXXX"); cp -a "$FIXTURES/patch-basic/." "$C/"
(cd "$C" && patch -p1 --dry-run <"$TMP/fmv.patch" >/dev/null); expect_eq "patch -p1 --dry-run" "$?" 0
(cd "$C" && git apply --check "$TMP/fmv.patch"); expect_eq "git apply --check" "$?" 0

"$FMVGEN" patch --apply >"$TMP/apply.out" 2>&1; rc=$?
expect_eq "patch --apply: exit" "$rc" 0
(cd "$C" && patch -p1 -s <"$TMP/fmv.patch")
expect_eq "--apply = patch -p1" "$(diff -r -x .fmvgen -x '*.o' -x prog "$C" "$P" >/dev/null; echo $?)" 0

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  make -s clean
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Werror" >"$TMP/build-$cc" 2>&1; then pass; else fail "$cc: patched build: $(head -3 "$TMP/build-$cc")"; continue; fi
  syms=$(nm prog)
  for fn in saxpy scale shift_left add_crlf add_tail; do
    expect_match "$cc: nm shows clones of $fn" "$syms" "[tT] $fn\\.(arch_x86|avx)"
  done
  out=$(qemu-x86_64 -cpu Nehalem ./prog 2>/dev/null); rc=$?
  expect_eq "$cc: runs under qemu -cpu Nehalem" "$rc" 0
  [ "$out" = "$BASE" ] && pass || fail "$cc: Nehalem output differs from the unpatched gcc build"
done

# Scanning the patched project again: the functions carry the attribute
# line now; patching again changes nothing.
make -s clean
"$FMVGEN" scan --root "$P" -- make -s CC=gcc >"$TMP/scan2.out" 2>&1
# list: the patched functions are exclusions now (they carry target_clones).
json=$("$FMVGEN" list --json)
expect_eq "rescan: no candidates left" "$(printf '%s' "$json" | jq '.candidates')" 0
expect_eq "rescan: the 7 patched functions excluded as 'attribute'" \
  "$(printf '%s' "$json" | jq '[.functions[] | select(.reason == "attribute")] | length')" 7
out=$("$FMVGEN" patch 2>&1); rc=$?
expect_eq "second patch after a rescan: exit" "$rc" 0
expect_match "second patch after a rescan: nothing to do" "$out" "nothing to do"

finish
