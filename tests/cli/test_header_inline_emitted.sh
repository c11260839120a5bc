#!/bin/bash
# test_header_inline_emitted.sh - a static inline function of a project
# header that a TU's build compiled out of line (xz's rc_encode in
# range_encoder.h: 13% of `xz -1`, its code different at the target, was
# excluded as "defined inline in header"). header-inline-emitted: hdr.h's
# hdr_scale has a symbol in a.o (its address is taken) and none in b.o (one
# call, inlined). It is a candidate with the inline-out-of-line and
# header-switch notes, switched on in a.c only; b.c's copy stays as it is.
# For gcc, clang-14 and clang-19 (when installed): scan, list, patch, build
# with -Werror, clones in the binary (not clang 14: no clones of static
# functions there), output as the unpatched build's.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/header-inline-emitted/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  cands=$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')
  expect_match "$cc: the header's inline function compiled out of line is a candidate" "$cands" 'hdr_scale'
  excl=$(printf '%s' "$json" | jq -r '[.functions[] | select(.status != "candidate") | .name] | unique | join(",")')
  expect_no_match "$cc: hdr_scale is not excluded" "$excl" 'hdr_scale'
  notes=$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "hdr_scale") | .notes[].kind] | unique | join(",")')
  expect_match "$cc: inline-out-of-line note" "$notes" 'inline-out-of-line'
  expect_match "$cc: header-switch note" "$notes" 'header-switch'

  "$FMVGEN" patch --apply >"$TMP/patch-$cc.out" 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: hdr.h gets the switched attribute line" "$(cat hdr.h)" \
    '#ifdef FMVGEN_CLONE_hdr_h_hdr_scale
FMVGEN_CLONES_STATIC
#endif
static inline void hdr_scale'
  expect_match "$cc: a.c switches it on" "$(cat a.c)" '#define FMVGEN_CLONE_hdr_h_hdr_scale 1'
  expect_no_match "$cc: b.c does not (the build inlined it there)" "$(cat b.c)" 'FMVGEN_CLONE_hdr_h_hdr_scale'
  make -s clean
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  multi=$("$FMVGEN" inspect --json prog | jq -r '[.files[].functions[] | select(.versions >= 3) | .name] | unique | join(",")')
  if [ "$cc" = clang-14 ]; then
    expect_no_match "$cc: no clones of static functions" "$multi" 'hdr_scale'
  else
    expect_match "$cc: hdr_scale multi-versioned in the binary" "$multi" 'hdr_scale'
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
done

finish
