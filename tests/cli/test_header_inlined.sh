#!/bin/bash
# test_header_inlined.sh - a static, not inline, function of a project
# header that one TU keeps out of line and another inlines (faad2's
# bits.h faad_getbits: switched on in all 27 including TUs, while the build
# emitted it in 7; in huffman.c the clones became calls where the build had
# inlined it). header-inlined: ops.h's ops_scale has a symbol in a.o (its
# address is taken) and none in b.o (one call, inlined). It is a candidate
# with a header-switch note that names a.c only and lists b.c under "off"
# (inline: its object defines no ops_scale); the patch switches it on in
# a.c only. For gcc, clang-14 and clang-19 (when installed): scan, list,
# patch, build with -Werror, b.o without clones, output as unpatched.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/header-inlined/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="-O2 -g" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  note() { jq -r "[.functions[] | select(.name == \"ops_scale\") | .notes[]? | select(.kind == \"header-switch\") | $1] | unique | join(\";\")" <<<"$json"; }
  expect_eq "$cc: ops_scale is a candidate" \
    "$(jq -r '[.functions[] | select(.name == "ops_scale") | .status] | unique | join(",")' <<<"$json")" candidate
  expect_eq "$cc: switched on in a.c only" "$(note '[.tus[].source | split("/") | last] | join(",")')" "a.c"
  expect_eq "$cc: off in b.c, inlined there" "$(note '[.off[] | "\(.source | split("/") | last) \(.reason)"] | join(",")')" \
    "b.c inline"
  expect_match "$cc: says why" "$(note '.off[].detail')" "^this TU's object defines no ops_scale: the build inlined it"

  "$FMVGEN" patch --min-score 1 --apply >"$TMP/patch-$cc.out" 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: a.c switches it on" "$(cat a.c)" '#define FMVGEN_CLONE_ops_h_ops_scale 1'
  expect_no_match "$cc: b.c does not" "$(cat b.c)" 'FMVGEN_CLONE_ops_h_ops_scale'
  make -s clean
  if make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: no clone of ops_scale in b.o" "$(nm b.o | grep -c 'ops_scale')" 0
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
done

finish
