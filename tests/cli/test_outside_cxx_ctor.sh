#!/bin/bash
# test_outside_cxx_ctor.sh - C++ constructors and destructors are never
# patched (found on snappy: ZLib::ZLib() made the patched build fail with
# GCC: "clones for 'target_clones' attribute cannot be created ...
# cannot be combined with 'alias' attribute"; clang 19 crashes on a
# multiversioned destructor). Also from snappy: a C++ function with internal
# linkage calling template code (std::vector) links with clang 19 only
# unpatched ("undefined reference to std::allocator<int>::allocator()"):
# excluded as internal-template. clang refuses target_clones next to
# noinline (and cold, hot, used, visibility, ...) on a function's first
# declaration: scale_noinline is a candidate whose patch declares it with
# the attribute above its definition. With g++, clang++-14 and clang++-19
# (when installed) on tests/fixtures/outside-cxx-ctor: those are excluded
# with their reasons, the other functions stay candidates, and the patched
# project builds (-Werror), has clones and prints the unpatched output
# natively and under qemu -cpu Nehalem.
source "$TESTLIB"

for cxx in g++ clang++-14 clang++-19; do
  if ! command -v "$cxx" >/dev/null; then
    [ "$cxx" = clang++-19 ] && { echo "clang++-19 not installed: skipped"; continue; }
    fail "$cxx missing"; continue
  fi
  P="$TMP/$cxx"; mkdir -p "$P"; cp -a "$FIXTURES/outside-cxx-ctor/." "$P/"
  cd "$P" || exit 1
  make -s CXX="$cxx" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cxx: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CXX="$cxx" >"$TMP/scan-$cxx.out" 2>&1
  expect_eq "$cxx: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cxx: constructor and destructor excluded as constructor" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.reason == "constructor") | .display_name] | unique | join(",")')" \
    "Table::Table(),Table::~Table()"
  expect_eq "$cxx: member functions and a static function without templates are candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .display_name] | unique | join(",")')" \
    "Table::add(const int *),Table::checksum(const int *),scale_noinline(int *),scale_static(int *)"
  expect_eq "$cxx: internal linkage calling std::vector: internal-template" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.reason == "internal-template") | .display_name] | unique | join(",")')" \
    "(anonymous namespace)::sum_vector(const int *)"
  expect_eq "$cxx: noinline on the definition: redeclared above it" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "_Z14scale_noinlinePi") | .notes[] | select(.kind == "redeclared") | .text] | unique | join(",")')" \
    "void scale_noinline(int *);"
  "$FMVGEN" patch -o "$TMP/fmv-$cxx.patch" 2>/dev/null
  expect_eq "$cxx: patch exit" "$?" 0
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cxx.patch" || fail "$cxx: patch -p1"
  if make -s CXX="$cxx" CXXFLAGS="-O3 -Wall -Werror" >"$TMP/build-$cxx" 2>&1; then pass; else
    fail "$cxx: patched build: $(grep -m1 error "$TMP/build-$cxx")"; continue
  fi
  syms=$(nm prog)
  expect_match "$cxx: clones of Table::add" "$syms" "[tT] _ZN5Table3addEPKi\\.(arch_x86|avx)"
  expect_match "$cxx: clones of Table::checksum" "$syms" "[tT] _ZN5Table8checksumEPKi\\.(arch_x86|avx)"
  expect_match "$cxx: clones of scale_noinline" "$syms" "[tT] _Z14scale_noinlinePi\\.(arch_x86|avx)"
  if [ "$cxx" = clang++-14 ]; then
    # clang < 18 makes a static function's resolver global: the preamble
    # leaves static functions uncloned with it (two files' static helpers of
    # one name would not link)
    expect_no_match "$cxx: no clones of scale_static" "$syms" "_ZL12scale_staticPi\\.(arch_x86|avx)"
  else
    expect_match "$cxx: clones of scale_static" "$syms" "[tT] _ZL12scale_staticPi\\.(arch_x86|avx)"
  fi
  expect_eq "$cxx: patched output" "$(./prog)" "$BASE"
  expect_eq "$cxx: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
done

finish
