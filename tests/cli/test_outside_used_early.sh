#!/bin/bash
# test_outside_used_early.sh - a function used in its file before its
# definition (a forward-declared static helper called by an earlier
# function, a public function called through its header prototype, a
# function whose address an earlier initializer takes) cannot take
# target_clones with clang 14 or 19 ("function declaration cannot become a
# multiversioned function after first usage"; found on lz4's lz4frame.c).
# For gcc, clang-14 and clang-19 (when installed): scan the fixture, those
# three are excluded as used-before-definition, the others stay candidates,
# and the patched project builds with that compiler (-Werror), shows clones,
# and prints the unpatched output natively and under qemu -cpu Nehalem.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/outside-used-early/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  for fn in add_static add_public scale_by_pointer; do
    expect_eq "$cc: $fn excluded as used-before-definition" \
      "$(printf '%s' "$json" | jq -r --arg f "$fn" '[.functions[] | select(.name == $f) | .reason] | unique | join(",")')" \
      "used-before-definition"
  done
  expect_eq "$cc: candidates used only after their definition" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')" \
    "add_after,run_all,sum_rows"
  expect_match "$cc: list names the line of the first use" "$("$FMVGEN" list --excluded)" \
    'add_static'$'\n''.*used at line 17 before its definition'

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  syms=$(nm prog)
  for fn in sum_rows add_after run_all; do
    expect_match "$cc: nm shows clones of $fn" "$syms" "[tT] $fn\\.(arch_x86|avx)"
  done
  expect_no_match "$cc: no clones of an excluded function" "$syms" "add_public\\.(arch_x86|avx)"
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
done

finish
