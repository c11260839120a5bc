#!/bin/bash
# test_alias_target.sh - a function that an alias attribute names (xz 5.4's
# lzma_stream_encoder_mt_52, aliased by its symbol-versioned declarations):
# with target_clones, clang < 18 names its dispatcher SYMBOL.ifunc and
# rejects the alias ("alias must point to a defined variable or function";
# xz's patched build failed with clang 14). alias-target: add_impl is
# excluded (attribute, naming the alias's line), add_other is a candidate;
# mul_impl, renamed mul_twin and aliased only in alias.c's -DTWIN compile
# (xz's PIC compile of stream_encoder_mt.c), is excluded in both compiles:
# the file takes one line for both.
# For gcc, clang-14 and clang-19 (when installed): scan, list, patch, build
# with -Werror, output as the unpatched build's.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/alias-target/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && BASE2=$(./prog2) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')" \
    "add_other"
  expect_eq "$cc: add_impl excluded as attribute" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "add_impl") | .reason] | unique | join(",")')" \
    "attribute"
  expect_match "$cc: list says why" "$("$FMVGEN" list --excluded)" \
    'the target of __attribute__\(\(alias\("add_impl"\)\)\) at line 20: clang < 18 names'
  expect_eq "$cc: mul_impl excluded as attribute in the plain compile too" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "mul_impl") | .reason] | unique | join(",")')" \
    "attribute"
  expect_match "$cc: list says why" "$("$FMVGEN" list --excluded)" \
    'defines it here as mul_twin, which it excludes, and the file takes one line'

  "$FMVGEN" patch --apply >"$TMP/patch-$cc.out" 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_no_match "$cc: add_impl and mul_impl keep no attribute line" "$(cat alias.c)" 'FMVGEN_CLONES\((add|mul)_impl\)'
  make -s clean
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: patched output of the twin" "$(./prog2)" "$BASE2"
done

finish
