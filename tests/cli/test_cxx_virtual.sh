#!/bin/bash
# test_cxx_virtual.sh - a virtual member function defined out of class
# (GCC 12: "sorry, unimplemented: virtual function multiversioning not
# supported") is a candidate dispatched by lambdas (test_cxx_virtual_lambda.sh
# tests that dispatch), beside the non-virtual kernel one of them calls.
# Found on SoundTouch, whose hot kernels (FIRFilter::evaluateFilterStereo,
# TDStretch::calcCrossCorr*, Interpolate*::transposeStereo) are all virtual. A reason's detail does not repeat its
# code ("constructor: constructor: GCC makes ..."), and --dispatch cpuid's
# fallback to IFUNC says a member function is one, not that "its class-type
# parameters would be copied" (it has none). With g++, clang++-14 and
# clang++-19 (when installed) on tests/fixtures/cxx-virtual: the constructor
# is excluded with its detail, the virtual functions and the non-virtual
# kernel one of them calls are candidates, and with them
# patched the project builds (-Werror), has its clones and prints the
# unpatched output.
source "$TESTLIB"

for cxx in g++ clang++-14 clang++-19; do
  if ! command -v "$cxx" >/dev/null; then
    [ "$cxx" = clang++-19 ] && { echo "clang++-19 not installed: skipped"; continue; }
    fail "$cxx missing"; continue
  fi
  P="$TMP/$cxx"; mkdir -p "$P"; cp -a "$FIXTURES/cxx-virtual/." "$P/"
  cd "$P" || exit 1
  make -s CXX="$cxx" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cxx: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CXX="$cxx" >"$TMP/scan-$cxx.out" 2>&1
  expect_eq "$cxx: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cxx: no virtual member is excluded (out of class: lambda dispatch)" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.reason == "virtual") | .display_name] | unique | join(",")')" ""
  expect_eq "$cxx: the virtual members and the kernel they call are candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .display_name] | unique | join(",")')" \
    "FastFilter::kernel(const float *, int),FastFilter::run(const float *, int),Filter::run(const float *, int)"
  text=$("$FMVGEN" list --excluded)
  expect_match "$cxx: constructor's reason line" "$text" \
    "^      reason: constructor: GCC makes a constructor's complete-object symbol an alias"
  expect_no_match "$cxx: no reason repeats its code" "$text" "reason: ([a-z-]+): \\1:"
  expect_eq "$cxx: --dispatch cpuid says why a member function gets IFUNC" \
    "$("$FMVGEN" patch --min-score 0 --dispatch cpuid --json 2>/dev/null | jq -r '.ifunc_fallback | join("|")')" \
    "filter.cc:23 FastFilter::kernel(const float *, int): a C++ member function (fmvgen's CPUID copies are C only)"
  "$FMVGEN" patch --min-score 0 -o "$TMP/fmv-$cxx.patch" 2>/dev/null
  expect_eq "$cxx: patch exit" "$?" 0
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cxx.patch" || fail "$cxx: patch -p1"
  if make -s CXX="$cxx" CXXFLAGS="-O2 -Wall -Werror" >"$TMP/build-$cxx" 2>&1; then pass; else
    fail "$cxx: patched build: $(grep -m1 error "$TMP/build-$cxx")"; continue
  fi
  expect_match "$cxx: clones of FastFilter::kernel" "$(nm prog)" "[tT] _ZNK10FastFilter6kernelEPKfi\\.(arch_x86|avx)"
  expect_eq "$cxx: patched output" "$(./prog)" "$BASE"
done

finish
