#!/bin/bash
# test_redecl_shapes.sh - the redeclarations of tests/fixtures/redecl-shapes
# (K&R definitions, function-pointer, array and restrict parameters, typedef
# names, a static hidden by LOCAL(void), a use in what a macro writes at file
# scope; the exact texts are checked by tests/unit/test_redecl.c) build: for
# gcc, clang-14 and clang-19 (when installed), scan, patch, check the patch
# applies with git apply and patch -p1, build it with -Werror, and check the
# redeclared functions are multi-versioned and the program prints the
# unpatched output natively and under qemu -cpu Nehalem. Those that cannot be
# redeclared stay excluded.
source "$TESTLIB"

# redeclared ones the compiler keeps out of line (the others are inlined)
REDECLARED="apply_cb axpy fill64 knr_mul knr_sum macro_used u8_add"
for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  # K&R definitions: clang >= 15 calls them deprecated
  W="-Wall -Wextra -Werror"
  [ "$cc" != gcc ] && W="$W -Wno-unknown-warning-option -Wno-deprecated-non-prototype"
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/redecl-shapes/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" CFLAGS="-O3 $W" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="-O3 $W" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  for fn in $REDECLARED; do
    expect_eq "$cc: $fn is a candidate with a redeclaration" \
      "$(printf '%s' "$json" | jq -r --arg f "$fn" '[.functions[] | select(.name == $f) |
        .status + "/" + ([.notes[]? | select(.kind == "redeclared")] | length | tostring)] | unique | join(",")')" \
      "candidate/1"
  done
  for fn in pair_add vla_sum line_shared; do
    reason=$(printf '%s' "$json" | jq -r --arg f "$fn" '[.functions[] | select(.name == $f) | .reason] | unique | join(",")')
    # (not every compiler keeps each out of line: only a row there counts)
    [ -z "$reason" ] || expect_eq "$cc: $fn stays excluded" "$reason" "used-before-definition"
  done

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: K&R redeclared without a prototype" "$(cat "$TMP/fmv-$cc.patch")" \
    '^\+FMVGEN_CLONES\(knr_mul\) void knr_mul\(\);$'
  make -s clean
  cp -a "$P" "$TMP/check-$cc"
  (cd "$TMP/check-$cc" && git init -q && git apply --check "$TMP/fmv-$cc.patch") || fail "$cc: git apply --check"
  (cd "$TMP/check-$cc" && patch -p1 --dry-run <"$TMP/fmv-$cc.patch" >/dev/null) || fail "$cc: patch -p1 --dry-run"
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O3 $W" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  multi=" $("$FMVGEN" inspect --json prog | jq -r '[.files[].functions[] | select(.versions >= 3) | .name] | join(" ")') "
  for fn in $REDECLARED; do expect_match "$cc: $fn multi-versioned" "$multi" " $fn "; done
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
done

finish
