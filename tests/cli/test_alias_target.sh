#!/bin/bash
# test_alias_target.sh - a function that an alias attribute names (xz 5.4's
# lzma_stream_encoder_mt_52, aliased by its symbol-versioned declarations):
# with target_clones, clang < 18 names its dispatcher SYMBOL.ifunc and
# rejects the alias ("alias must point to a defined variable or function";
# xz's patched build failed with clang 14). alias-target: add_impl is
# excluded (attribute, naming the alias's line), add_other is a candidate.
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
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

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
    'the target of __attribute__\(\(alias\("add_impl"\)\)\) at line 17: clang < 18 names'

  "$FMVGEN" patch --apply >"$TMP/patch-$cc.out" 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_no_match "$cc: add_impl keeps no attribute line" "$(cat alias.c)" 'FMVGEN_CLONES\(add_impl\)'
  make -s clean
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
done

finish
