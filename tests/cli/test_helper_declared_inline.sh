#!/bin/bash
# test_helper_declared_inline.sh - a candidate whose work is in a static
# inline helper the build inlined into it (tests/fixtures/helper-declared-inline,
# libsamplerate's calc_output_stereo in sinc_stereo_vari_process): for gcc,
# clang-14 and clang-19, scan at -O2 -g, check the helper is an inlined
# helper marked declared_inline, that the patch gives it
# FMVGEN_CLONES_ALWAYS_INLINE (the attribute alone: a second 'inline' is a
# clang warning), and that the patched program builds with -Werror, prints
# the unpatched output (also under qemu -cpu Nehalem) and has no symbol dot:
# each clone inlined it. (Without the attribute GCC and clang 19 call dot out
# of line from every clone, compiled for the baseline.)
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/helper-declared-inline/." "$P/"
  cd "$P" || exit 1
  W="-O2 -g -Wall -Wextra -Werror"
  make -s CC="$cc" CFLAGS="$W" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="$W" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  expect_eq "$cc: dot is process's helper, declared inline" \
    "$("$FMVGEN" list --json | jq -r '[.functions[] | select(.name == "process") | .notes[] |
       select(.kind == "inlined-helper") | "\(.helper.name):\(.helper.declared_inline)"] | join(",")')" "dot:true"
  expect_match "$cc: list says why" "$("$FMVGEN" list)" \
    "it is declared inline, but GCC and clang 19 do not inline it into a clone of another target unless always_inline"

  "$FMVGEN" patch --min-score 0 -o "$TMP/fmv-$cc.patch" 2>"$TMP/patch-$cc.err"
  expect_eq "$cc: patch exit" "$?" 0
  expect_eq "$cc: dot marked with the attribute alone" \
    "$(grep -A1 '^+FMVGEN_CLONES_ALWAYS_INLINE$' "$TMP/fmv-$cc.patch" | sed -n 2p)" " static inline void"
  expect_eq "$cc: no FMVGEN_CLONES_INLINE on it" "$(grep -c '^+FMVGEN_CLONES_INLINE$' "$TMP/fmv-$cc.patch")" 0
  expect_match "$cc: the preamble defines it" "$(cat "$TMP/fmv-$cc.patch")" \
    '#   define FMVGEN_CLONES_ALWAYS_INLINE __attribute__\(\(always_inline\)\)$'
  expect_match "$cc: --json names its macro" "$("$FMVGEN" patch --min-score 0 --json 2>/dev/null | jq -r '.helpers[] | "\(.name) \(.macro)"')" \
    '^dot FMVGEN_CLONES_ALWAYS_INLINE$'
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  for build in gcc clang-14 clang-19; do
    command -v "$build" >/dev/null || continue
    make -s clean
    if ! make -s CC="$build" CFLAGS="$W" >"$TMP/build-$cc-$build" 2>&1; then
      fail "$cc, built by $build: $(grep -m1 -E 'error' "$TMP/build-$cc-$build")"; continue
    fi
    syms=$(nm prog)
    # (clang 14 clones no static function: the preamble's FMVGEN_CLONES_STATIC is empty there)
    [ "$build" = clang-14 ] || expect_match "$cc, built by $build: process is cloned" "$syms" ' process\.'
    expect_no_match "$cc, built by $build: dot inlined into every clone (no symbol)" "$syms" ' dot$'
    expect_eq "$cc, built by $build: patched output" "$(./prog)" "$BASE"
    if command -v qemu-x86_64 >/dev/null; then
      expect_eq "$cc, built by $build: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
    fi
  done
done

finish
