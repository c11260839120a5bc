#!/bin/bash
# test_noproto.sh - functions defined with an empty parameter list, "void
# scale() { ... }" (no prototype; old benchmark code such as BYTEmark writes
# them so), are candidates, not "variadic" (libclang's
# clang_isFunctionTypeVariadic says 1 for a type without a prototype).
# tests/fixtures/noproto, scanned with gcc, clang 14 and clang 19 (when
# installed): scale, whose loops vectorize, is a vectorized candidate
# redeclared above its first use with a prototype, "void scale(void);"
# (clang 14 emits no clones of a function without one, and clang 19 refuses
# to multi-version it), and so is every candidate defined with "()" (clang
# also makes run, which nothing uses above, one: redeclared above its
# definition). Each dispatch's patch (IFUNC; pointer and cpuid give scale
# IFUNC instead: its renamed body or its copies would have no prototype)
# builds with -Werror, multi-versions scale, and prints the unpatched output
# natively and under qemu -cpu Nehalem.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  W="-O2 -Wall -Wextra -Werror"
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/noproto/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" CFLAGS="$W" >/dev/null && BASE=$(./prog) && make -s clean || { fail "$cc: unpatched build"; continue; }
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="$W" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: scale is a vectorized candidate" \
    "$(jq -r '[.functions[] | select(.name == "scale") | .status + "/" + .kind] | unique | join(",")' <<<"$json")" \
    "candidate/vectorized"
  expect_eq "$cc: no function excluded as variadic" \
    "$(jq -r '[.functions[] | select(.reason == "variadic") | .name] | join(",")' <<<"$json")" ""
  expect_eq "$cc: scale redeclared with a prototype" \
    "$(jq -r '[.functions[] | select(.name == "scale") | .notes[]? | select(.kind == "redeclared") | .text] | unique | join(";")' <<<"$json")" \
    "void scale(void);"
  expect_eq "$cc: every candidate redeclared with a prototype" \
    "$(jq -r '[.functions[] | select(.status == "candidate") | select([.notes[]? | select(.kind == "redeclared" and .noproto == true and (.text | endswith("(void);")))] | length != 1) | .name] | join(",")' <<<"$json")" ""
  make -s clean
  for d in ifunc pointer cpuid; do
    "$FMVGEN" patch --dispatch "$d" -o "$TMP/$d-$cc.patch" 2>/dev/null
    expect_eq "$cc, $d: patch exit" "$?" 0
    expect_match "$cc, $d: the redeclaration" "$(cat "$TMP/$d-$cc.patch")" '^\+FMVGEN_CLONES\(scale\) void scale\(void\);$'
    fallback=$("$FMVGEN" patch --dispatch "$d" --json 2>/dev/null | jq -r '[.ifunc_fallback[]? | select(test("scale"))] | length')
    expect_eq "$cc, $d: scale dispatched by IFUNC instead" "$fallback" "$([ "$d" = ifunc ] && echo 0 || echo 1)"
    B="$TMP/$d-$cc"; cp -a "$P" "$B"; rm -rf "$B/.fmvgen"
    (cd "$B" && patch -p1 -s <"$TMP/$d-$cc.patch") || { fail "$cc, $d: patch -p1"; continue; }
    if (cd "$B" && make -s CC="$cc" CFLAGS="$W" >"$TMP/build-$d-$cc" 2>&1); then pass; else
      fail "$cc, $d: patched build: $(grep -m1 error "$TMP/build-$d-$cc")"; continue
    fi
    expect_match "$cc, $d: scale cloned" "$(nm "$B/prog")" " scale\.(arch_x86|avx2)"
    expect_eq "$cc, $d: same output" "$("$B/prog")" "$BASE"
    expect_eq "$cc, $d: same output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem "$B/prog")" "$BASE"
  done
done
finish
