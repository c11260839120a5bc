#!/bin/bash
# test_outside_o2_template.sh - two patterns found on libdeflate (CMake, -O2):
#  1. a loop GCC 12 vectorizes only at -O3 (the probe:O3 comparison of an -O2
#     TU, scan --o3) makes no candidate: the clones are built at -O2 too. It is
#     counted in the TU's note instead. (Clang vectorizes it at -O2: there it
#     is a candidate.)
#  2. one header text included twice with another function name each time
#     (decompress_template.h): both functions are reported as exclusions
#     (noinline: attribute), none silently dropped.
# With gcc, clang-14 and clang-19 (when installed), on tests/fixtures/outside-o2-template.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/outside-o2-template/." "$P/"
  cd "$P" || exit 1
  "$FMVGEN" scan --o3 --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  want="fixed_add,run_steps"
  [ "$cc" = gcc ] || want="fixed_add,maybe_alias,run_steps"
  expect_eq "$cc: candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')" "$want"
  # a header's static function is judged in its TU (candidates/header.h):
  # the template's noinline excludes both before their double definition does
  expect_eq "$cc: both functions of the twice-included header, excluded (noinline)" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.reason == "attribute") | .name] | unique | join(",")')" \
    "step_add,step_xor"
  if [ "$cc" = gcc ]; then
    expect_match "$cc: the -O3-only loop is the TU's note" "$("$FMVGEN" list)" \
      "built at -O2: 1 more loop vectorizes at -O3 \\(GCC 12's -O2 uses the very-cheap cost model\\)"
    expect_eq "$cc: the TU's compiler in --json" \
      "$(printf '%s' "$json" | jq -r '[.tus[] | select(.o3_extra_loops != null) | .compiler] | unique | join(",")')" gcc
    expect_no_match "$cc: no functions row for the -O3-only function" "$json" '"maybe_alias"'
    "$FMVGEN" patch -o "$TMP/p-$cc.patch" 2>/dev/null
    expect_no_match "$cc: patch leaves maybe_alias alone" "$(cat "$TMP/p-$cc.patch")" 'FMVGEN_CLONES\(maybe_alias\)'
  else
    # GCC's cost model is no explanation for a clang TU
    expect_no_match "$cc: no GCC reason for clang" "$("$FMVGEN" list)" 'very-cheap'
  fi
done

finish
