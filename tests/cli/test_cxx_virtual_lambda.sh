#!/bin/bash
# test_cxx_virtual_lambda.sh - a C++ virtual member function defined out of
# class (GCC 12 refuses target_clones on it) is a candidate dispatched by
# lambdas (candidates/lambdadisp.h, patch/lambda.h): its body duplicated in
# the source, one lambda with a target attribute per target. With g++,
# clang++-14 and clang++-19 on tests/fixtures/cxx-virtual-lambda: list and
# --json say the dispatch; a virtual with a static local stays excluded,
# saying why; the patch applies with patch -p1 and git apply, builds
# -Wall -Wextra -Werror, prints the unpatched output natively and under
# qemu -cpu Nehalem (default lambda) and -cpu Haswell (v3 lambda), has the
# lambdas' v3 code (vroundss on ymm/xmm in a lambda symbol of the
# function), and -DFMVGEN_NO_CLONES gives the plain function back.
source "$TESTLIB"

QEMU=""; command -v qemu-x86_64 >/dev/null && QEMU=qemu-x86_64
for cxx in g++ clang++-14 clang++-19; do
  installed "$cxx" || continue
  P="$TMP/$cxx"; mkdir -p "$P"; cp -a "$FIXTURES/cxx-virtual-lambda/." "$P/"
  cd "$P" || exit 1
  make -s CXX="$cxx" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cxx: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CXX="$cxx" >"$TMP/scan-$cxx.out" 2>&1
  expect_eq "$cxx: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cxx: the out-of-class virtual kernel is the candidate" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .display_name] | unique | join(",")')" \
    "Floor::run(const float *, int)"
  expect_match "$cxx: list says its dispatch" "$("$FMVGEN" list)" \
    "note: lambda-dispatch: virtual: dispatched by lambdas, its body duplicated in the source"
  expect_match "$cxx: the static local keeps Floor::calls out, saying why" "$("$FMVGEN" list --excluded)" \
    "reason: virtual: .*no lambda dispatch: its static local variable count \\(line 18\\) would be duplicated"
  expect_eq "$cxx: --json says lambda" \
    "$("$FMVGEN" patch --min-score 0 --json 2>/dev/null | jq -r '[.functions[] | .dispatch] | join(",")')" "lambda"
  "$FMVGEN" patch --min-score 0 -o "$TMP/fmv-$cxx.patch" 2>/dev/null
  expect_eq "$cxx: patch exit" "$?" 0
  expect_match "$cxx: header says the body is duplicated" "$(cat "$TMP/fmv-$cxx.patch")" \
    "dispatch: lambda \\(virtual: its body is duplicated in the source"
  expect_match "$cxx: a v3 lambda" "$(cat "$TMP/fmv-$cxx.patch")" \
    "^\\+    if \\(fmvgen_sel == [0-9]\\) return \\[&\\]\\(\\) __attribute__\\(\\(target\\(\"arch=x86-64-v3\"\\)\\)\\) -> float \\{"
  make -s clean
  git init -q . && git apply --check "$TMP/fmv-$cxx.patch" || fail "$cxx: git apply --check"
  patch -p1 -s <"$TMP/fmv-$cxx.patch" || fail "$cxx: patch -p1"
  if make -s CXX="$cxx" CXXFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/build-$cxx" 2>&1; then pass; else
    fail "$cxx: patched build: $(grep -m1 error "$TMP/build-$cxx")"; continue
  fi
  expect_eq "$cxx: patched output" "$(./prog)" "$BASE"
  # g++ names them ...ENKUlvE_clEv, clang ...ENK3$_0clEv: local entities of the function
  lam=$(nm prog | awk '$3 ~ /^_ZZNK5Floor3runEPKfiE.*clEv$/ {print $3}')
  expect_eq "$cxx: one lambda symbol per target (v3, v4)" "$(printf '%s\n' $lam | wc -l)" 2
  v3=$(for s in $lam; do objdump -d --no-show-raw-insn "--disassemble=$s" prog; done | grep -c "vroundss")
  [ "$v3" -gt 0 ] && pass || fail "$cxx: no vroundss in the lambdas"
  if [ -n "$QEMU" ]; then
    expect_eq "$cxx: output on Nehalem" "$($QEMU -cpu Nehalem ./prog 2>/dev/null)" "$BASE"
    expect_eq "$cxx: output on Haswell" "$($QEMU -cpu Haswell ./prog 2>/dev/null)" "$BASE"
  fi
  make -s clean
  make -s CXX="$cxx" CXXFLAGS="-O2 -Wall -Wextra -Werror -DFMVGEN_NO_CLONES" >/dev/null 2>&1 || fail "$cxx: NO_CLONES build"
  expect_eq "$cxx: -DFMVGEN_NO_CLONES: no lambda" "$(nm prog | grep -c '_ZZNK5Floor3runEPKfiE.*clEv')" 0
  expect_eq "$cxx: -DFMVGEN_NO_CLONES output" "$(./prog)" "$BASE"
done

finish
