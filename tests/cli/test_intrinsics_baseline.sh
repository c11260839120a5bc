#!/bin/bash
# test_intrinsics_baseline.sh - functions whose intrinsics are all within
# the build's baseline ISA are judged like any other code (candidates/
# intrinsics.h); the others keep the 'intrinsics' exclusion with its
# reason. Fixture intrinsics-baseline (-O2):
#   - sse.c's mix_sse2: SSE2 intrinsics (one, _mm_shuffle_epi32, a macro
#     that writes a __builtin_ia32_ call) and a popcount that gains at v3:
#     a candidate;
#   - sse41.c's max_sse41 (built with -msse4.1): SSE4.1 intrinsics, the
#     raised baseline: a candidate;
#   - sse.c's pick_path: SSE2 intrinsics on the build's path, an AVX2 path
#     under #ifdef __AVX2__: excluded (the probe compiles the other path);
#   - wide.c's wide_add (built with -march=haswell, not linked): AVX2
#     intrinsics above the baseline fmvgen vouches for: excluded.
# For gcc, clang-14 and clang-19 (when installed): list's verdicts and
# reasons; the patch applies with patch -p1, builds -Werror, clones
# mix_sse2 (IFUNC), and prints what it printed, natively and under
# qemu-x86_64 -cpu Nehalem.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/intrinsics-baseline/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  verdict() { printf '%s' "$json" | jq -r --arg n "$1" '[.functions[] | select(.name == $n) | .status + ":" + (.reason // "")] | unique | join(",")'; }
  detail() { printf '%s' "$json" | jq -r --arg n "$1" '[.functions[] | select(.name == $n) | .detail // ""] | first'; }
  expect_eq "$cc: mix_sse2 (SSE2 intrinsics) is a candidate" "$(verdict mix_sse2)" "candidate:"
  expect_eq "$cc: max_sse41 (SSE4.1 under -msse4.1) is a candidate" "$(verdict max_sse41)" "candidate:"
  expect_eq "$cc: pick_path is excluded" "$(verdict pick_path)" "excluded:intrinsics"
  expect_match "$cc: pick_path's reason" "$(detail pick_path)" \
    "within the build's baseline \\(SSE2\\), but '__AVX2__' picks its SIMD path with the preprocessor"
  expect_eq "$cc: wide_add is excluded" "$(verdict wide_add)" "excluded:intrinsics"
  expect_match "$cc: wide_add's reason" "$(detail wide_add)" \
    "calls the intrinsic _mm256_[a-z0-9_]+ \\(avx[a-z0-9]*intrin.h\\) at line [0-9]+, above the build's baseline \\(SSE2\\)"

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>"$TMP/patch-$cc.err"
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: mix_sse2 gets its line" "$(cat "$TMP/fmv-$cc.patch")" \
    $'\\+FMVGEN_CLONES\\(mix_sse2\\)\n long mix_sse2\\('
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O2 -Wall -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_match "$cc: mix_sse2 is an IFUNC" "$(nm sse.o)" ' i mix_sse2$'
  expect_match "$cc: with a v3/avx2 clone" "$(nm sse.o)" '[tT] mix_sse2\.(arch_x86[-_]64[-_]v3|avx2)'
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  if command -v qemu-x86_64 >/dev/null; then
    expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
  fi
done
