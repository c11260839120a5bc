#!/bin/bash
# ISA gains of static callees inlined into an excluded function (issue 9,
# part 2) on tests/fixtures/isa-inlined: three static kernels that main
# calls once, built -O2 -g, so every compiler inlines them into main and
# main, excluded, holds their gains at the target. Per compiler:
#   - each kernel is a candidate with its own share of main's gains as
#     evidence and an inlined-into note naming main ("adds one call");
#     what each compiler does differs:
#       gcc expands floorf/ceilf inline at -O2 (the target rounds in one
#         instruction: round/rndscale) and calls __popcountdi2 (the target:
#         popcnt); no kernel vectorizes, all three are of kind isa;
#       clang 14 and 19 call floorf/ceilf (the target: vroundss replaces
#         them) and vectorize kernel_bits's loop already at -O2 (its loop
#         makes it a vectorized candidate, the target's pshufb its evidence);
#       all three contract d * 0.5 + x * y into FMA at the target;
#   - main stays excluded and is never patched;
#   - plain patch leaves the isa kernels out, each said ("left to select");
#   - patch --min-score 0 marks the three kernels (FMVGEN_CLONES_STATIC);
#     the patched tree builds and prints the same output (the FMA kernel's
#     products are exact); gcc and clang 19 clone them, clang 14 leaves
#     static functions plain (the preamble's rule);
#   - without -g (the build's code has no inline frames, the target probe's
#     -g1 code has): each kernel is credited with its share, bounded by
#     what main as a whole gained (gcc, clang, clang-19).
. "$TESTLIB"

check_compiler() {
  local cc=$1 dir out json expected got
  dir=$(copy_fixture isa-inlined)
  mv "$dir" "$TMP/isainl-$cc"
  dir="$TMP/isainl-$cc"
  cd "$dir" || { fail "cd $dir"; return 1; }
  expected=$(make -s CC="$cc" >/dev/null 2>&1 && ./prog)
  make -s clean
  out=$("$FMVGEN" scan -- make CC="$cc" 2>&1)
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: candidate set" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(" ")')" \
    "kernel_bits kernel_fma kernel_round"
  expect_eq "$cc: main excluded" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="main") | .status')" excluded
  field() { printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$1\") | .$2"; }
  for k in kernel_round kernel_bits kernel_fma; do
    expect_eq "$cc: $k inlined into main" \
      "$(printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$k\") | .notes[] | select(.kind==\"inlined-into\") | .hosts[].name")" main
    expect_match "$cc: $k note says it adds a call" \
      "$(printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$k\") | .notes[] | select(.kind==\"inlined-into\") | .detail")" \
      "stays out of line: (adds one call|one call more) at each call from main"
  done
  expect_eq "$cc: kernel_round kind" "$(field kernel_round kind)" isa
  expect_eq "$cc: kernel_fma kind" "$(field kernel_fma kind)" isa
  expect_match "$cc: kernel_fma evidence (its own share only)" "$(field kernel_fma evidence)" "^[0-9]+ FMA$"
  expect_match "$cc: kernel_round note gives its evidence" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="kernel_round") | .notes[] | select(.kind=="inlined-into") | .detail')" \
    "^its code gains at the target \(isa: "
  if [ "$cc" = gcc ]; then
    expect_match "$cc: kernel_round evidence" "$(field kernel_round evidence)" "^[0-9]+ v(round|rndscale)ss$"
    expect_eq "$cc: kernel_bits kind" "$(field kernel_bits kind)" isa
    expect_eq "$cc: kernel_bits evidence" "$(field kernel_bits evidence)" "popcnt replaces __popcountdi2"
    expect_eq "$cc: kernel_bits drops (data)" "$(field kernel_bits 'dropped_calls | join(" ")')" "__popcountdi2"
    expect_eq "$cc: kernel_round drops nothing (expanded inline)" "$(field kernel_round 'dropped_calls | length')" 0
  else
    expect_eq "$cc: kernel_round evidence" "$(field kernel_round evidence)" "vroundss replaces floorf, ceilf (4 calls)"
    expect_eq "$cc: kernel_round drops (data)" "$(field kernel_round 'dropped_calls | join(" ")')" "floorf ceilf"
    expect_eq "$cc: kernel_bits kind (its loop vectorizes at -O2)" "$(field kernel_bits kind)" vectorized
    expect_match "$cc: kernel_bits evidence" "$(field kernel_bits evidence)" "pshufb"
  fi
  expect_no_match "$cc: main's gains were credited" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="main") | .notes[].kind')" "isa-unattributed"

  # Plain patch leaves the isa kernels to select (a kernel out of line may
  # lose what inlining gave it); a loop candidate still passes.
  out=$("$FMVGEN" patch -o plain.patch 2>&1)
  expect_eq "$cc: plain patch exit" "$?" 0
  expect_match "$cc: plain patch says why kernel_fma is left out" "$out" \
    "kernel_fma not patched: inlined into main in the build: cloned, it runs out of line .* left to select, which measures it; --min-score 0 takes it"
  if [ "$cc" = gcc ]; then
    expect_eq "$cc: plain patch has nothing to patch" "$([ -e plain.patch ] && echo written || echo none)" none
  else
    expect_match "$cc: the vectorized kernel passes" "$(grep -A1 '^+FMVGEN_CLONES_STATIC$' plain.patch)" "kernel_bits"
  fi
  out=$("$FMVGEN" patch --min-score 0 -o fmv.patch 2>&1)
  expect_eq "$cc: patch exit" "$?" 0
  local patch
  patch=$(cat fmv.patch)
  expect_eq "$cc: the kernels are marked" \
    "$(grep -A1 '^+FMVGEN_CLONES_STATIC$' fmv.patch | sed -n 's/^ static [a-z ]*[ *]\(kernel_[a-z]*\)(.*/\1/p' | sort | tr '\n' ' ')" \
    "kernel_bits kernel_fma kernel_round "
  expect_no_match "$cc: main not patched" "$patch" "^\+FMVGEN_CLONES\(main\)"
  patch -s -p1 <fmv.patch
  expect_eq "$cc: patch applies" "$?" 0
  make -s clean
  make -s CC="$cc" >/dev/null 2>&1
  expect_eq "$cc: patched tree builds" "$?" 0
  got=$(./prog)
  expect_eq "$cc: patched program prints the same" "$got" "$expected"
  if [ "$cc" = clang ]; then
    # clang 14 makes a static function's resolver global: the preamble
    # leaves static functions plain there (FMVGEN_CLONES_STATIC is empty).
    expect_no_match "$cc: static kernels stay plain" "$(nm prog)" "kernel_round\.(default|resolver)"
  else
    for k in kernel_round kernel_bits kernel_fma; do
      expect_match "$cc: $k cloned" "$(nm prog)" " $k\.resolver"
    done
  fi
  cd "$TMP" || { fail "cd $TMP"; return 1; }
}

check_compiler gcc
check_compiler clang
if have_clang19; then check_compiler clang-19; else echo "clang-19 not installed: skipped"; fi

# Without -g the build's code has no inline frames; the target probe's
# (-g1 always) has: each kernel's share is credited with what main gained,
# a dropped call with the share holding what replaces it.
no_g() {
  local cc=$1 dir json
  dir=$(copy_fixture isa-inlined)
  mv "$dir" "$TMP/nog-$cc"
  cd "$TMP/nog-$cc" || { fail "cd nog-$cc"; return 1; }
  "$FMVGEN" scan -- make CC="$cc" CFLAGS=-O2 >/dev/null 2>&1
  json=$("$FMVGEN" list --json)
  field() { printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$1\") | .$2"; }
  expect_eq "no -g, $cc: the kernels are candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(" ")')" \
    "kernel_bits kernel_fma kernel_round"
  expect_eq "no -g, $cc: kernel_fma inlined into main" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="kernel_fma") | .notes[] | select(.kind=="inlined-into") | .hosts[].name')" main
  expect_match "no -g, $cc: kernel_fma evidence" "$(field kernel_fma evidence)" "^[0-9]+ FMA$"
  if [ "$cc" = gcc ]; then
    expect_eq "no -g, $cc: kernel_bits evidence (the dropped call)" "$(field kernel_bits evidence)" "popcnt replaces __popcountdi2"
    expect_match "no -g, $cc: kernel_round evidence" "$(field kernel_round evidence)" "^[0-9]+ v(round|rndscale)ss$"
  else
    expect_eq "no -g, $cc: kernel_round evidence" "$(field kernel_round evidence)" "vroundss replaces floorf, ceilf (4 calls)"
  fi
  expect_no_match "no -g, $cc: main's gains were credited" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="main") | .notes[].kind')" "isa-unattributed"
  cd "$TMP" || return 1
}
no_g gcc
no_g clang
if have_clang19; then no_g clang-19; fi

finish
