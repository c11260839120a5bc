#!/bin/bash
# test_patch_fastmath.sh - `fmvgen patch --exact` on a build with
# -ffast-math (tests/fixtures/patch-fastmath, a 1024-float sum; gcc, clang
# 14, clang 19 when installed). FMA-free clones do not make such a function
# bit-exact: reassociation lets each clone sum in its own vector width's
# order. The patch header, the note and --json name the function; without
# -ffast-math, or with -fno-associative-math after it, the header promises
# bit-identical results as before. With gcc under qemu -cpu Haswell (the
# avx2 clone runs) the result indeed differs from the unpatched build's.
. "$TESTLIB"

scan_with() {   # CC CFLAGS -> the project dir, scanned
  local dir="$TMP/fm-$1-$3"
  mkdir -p "$dir" && cp -a "$FIXTURES/patch-fastmath/." "$dir/"
  (cd "$dir" && "$FMVGEN" scan -- make CC="$1" CFLAGS="$2" >/dev/null 2>&1) || fail "$1 $2: scan"
  printf '%s' "$dir"
}

for cc in gcc clang clang-19; do
  installed "$cc" || continue
  dir=$(scan_with "$cc" "-O2 -ffast-math" fast)
  expect_match "$cc: sum is a candidate" "$("$FMVGEN" -C "$dir" list 2>&1)" "sum +\("
  "$FMVGEN" -C "$dir" patch --exact -o "$dir/exact.patch" 2>"$TMP/err"
  expect_eq "$cc: --exact exit" "$?" 0
  head=$(sed -n '1,/^---/p' "$dir/exact.patch")
  expect_no_match "$cc: no promise of bit-identical results" "$head" "every clone computes bit-identical"
  expect_match "$cc: header says why" "$head" "BUT 1 function was compiled with floating-point reassociation"
  expect_match "$cc: header names it" "$head" "^    sum\.c:[0-9]+ sum$"
  expect_match "$cc: note" "$(cat "$TMP/err")" \
    "^fmvgen: note: 1 patched function was compiled with -ffast-math \(or -Ofast, -fassociative-math\), e\.g\. sum\.c:[0-9]+ sum: each clone may sum"
  expect_eq "$cc: --json" "$("$FMVGEN" -C "$dir" patch --exact --json 2>/dev/null | jq -r '.reassociating | join(",")' | sed 's/:[0-9]*//')" "sum.c sum"
  # The default targets: the FMA warning's offer of --exact says the exception.
  expect_match "$cc: FMA warning qualifies --exact" "$("$FMVGEN" -C "$dir" patch 2>/dev/null)" \
    "bit-identical results - except where -ffast-math reorders sums \(below\)"

  for flags in "-O2" "-O2 -ffast-math -fno-associative-math" "-Ofast -O2"; do
    dir=$(scan_with "$cc" "$flags" "$(printf '%s' "$flags" | tr -c 'a-zA-Z0-9' _)")
    out=$("$FMVGEN" -C "$dir" patch --exact 2>"$TMP/err")
    if ! grep -q "sum" <<<"$out"; then continue; fi   # not a candidate at these flags: nothing to say
    expect_match "$cc $flags: bit-identical promised" "$out" "every clone computes bit-identical results"
    expect_no_match "$cc $flags: no reassociation said" "$out$(cat "$TMP/err")" "reassociation|-ffast-math"
    expect_eq "$cc $flags: --json empty" "$("$FMVGEN" -C "$dir" patch --exact --json 2>/dev/null | jq -r '.reassociating | length')" 0
  done
done

# The premise: the avx2 clone's sum differs from the SSE2 build's.
if installed gcc && installed qemu-x86_64; then
  dir="$TMP/fm-gcc-fast"
  (cd "$dir" && make CC=gcc CFLAGS="-O2 -ffast-math" -B >/dev/null 2>&1 && cp prog base &&
     patch -p1 -s <exact.patch && make CC=gcc CFLAGS="-O2 -ffast-math" -B >/dev/null 2>&1) || fail "gcc build"
  expect_match "gcc: avx2 clone" "$(nm "$dir/prog")" "sum\.avx2"
  expect_no_match "gcc: clone's sum differs from the baseline's" "$(qemu-x86_64 -cpu Haswell "$dir/prog")" \
    "^$(qemu-x86_64 -cpu Haswell "$dir/base" | sed 's/[.+]/\\&/g')$"
fi

finish
