#!/bin/bash
# test_patch_vzeroupper.sh - clones (cpuid's target copies, target_clones
# with IFUNC and pointer dispatch) call their file's legacy-SSE functions
# with clean upper halves (patch/preamble.h, FMVGEN_NO_IPA_RA_).
# tests/fixtures/patch-vzeroupper: scale's loops vectorize (256-bit in its
# avx2 clone), then it calls clampsum, a static function of its file kept
# out of line and built for the baseline. GCC's IPA-RA sees
# that clampsum leaves some SSE registers alone and so emits no vzeroupper
# before the call: clampsum's legacy SSE code then runs with dirty upper
# halves (LAME's vbrpsy_compute_MS_thresholds: 2.2x the samples under
# L3psycho_anal_vbr's avx2 copy). optimize("no-ipa-ra") on the copies (gcc
# only) brings the vzeroupper back. Each dispatch's patch (--exact: one
# avx2 clone) built by gcc, clang 14 and clang 19 (-O2 -Wall -Wextra
# -Werror): the output is the unpatched build's, the avx2 clone holds ymm
# code, and no call from it to clampsum follows ymm code without a
# vzeroupper between them (in address order: the fixture's clone is
# straight-line around its loops).
source "$TESTLIB"

P=$(copy_fixture patch-vzeroupper)
(cd "$P" && make -s >/dev/null && ./prog 50 >"$TMP/base" && make -s clean) || fail "unpatched build"
(cd "$P" && "$FMVGEN" scan -- make >/dev/null 2>&1) || fail "scan failed"
for dispatch in cpuid auto pointer; do
  (cd "$P" && "$FMVGEN" patch --dispatch $dispatch --exact -o "$TMP/$dispatch.patch" 2>"$TMP/patch.err") ||
    fail "$dispatch: patch: $(head -3 "$TMP/patch.err")"
  expect_match "$dispatch: gcc builds the clones without IPA-RA" "$(cat "$TMP/$dispatch.patch")" \
    '^\+#  define FMVGEN_NO_IPA_RA_ , optimize\("no-ipa-ra"\)'
done
expect_match "cpuid: scale gets an avx2 copy" "$(cat "$TMP/cpuid.patch")" \
  'FMVGEN_CPU_T_AVX2 float fmvgen_cp_scale_avx2\(float s\)'
expect_match "auto: scale's clones carry FMVGEN_NO_IPA_RA_" "$(cat "$TMP/auto.patch")" \
  'target_clones\("avx2", "default"\) FMVGEN_NO_IPA_RA_\)\)'

# 1 per call to clampsum made with dirty upper halves (ymm code since the last vzeroupper), 0 per clean one
calls_dirty() {
  objdump -d --no-show-raw-insn "$1" | awk '
    /^[0-9a-f]+ <.*>:$/ { in_copy = ($2 ~ /^<(fmvgen_cp_scale_avx2|(fmvgen_mv_)?scale\.avx2(\.0)?)>:$/); dirty = 0; next }
    in_copy && /vzeroupper/ { dirty = 0; next }
    in_copy && /%[yz]mm/ { dirty = 1; next }
    in_copy && /(call|jmp) +[0-9a-f]+ <clampsum(\.[a-z]+\.[0-9]+)*>/ { print dirty }'
}

for dispatch in cpuid auto pointer; do
  for build in gcc clang-14 clang-19; do
    if ! command -v "$build" >/dev/null; then
      [ "$build" = clang-19 ] && continue
      fail "$build missing"; continue
    fi
    rm -rf "$TMP/b"; cp -a "$P" "$TMP/b"
    (cd "$TMP/b" && make -s clean && patch -s -p1 <"$TMP/$dispatch.patch") || { fail "$dispatch, $build: patch -p1"; continue; }
    (cd "$TMP/b" && make -s CC=$build CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/build" 2>&1) ||
      { fail "$dispatch, $build: $(head -3 "$TMP/build")"; continue; }
    expect_eq "$dispatch, $build: same output" "$("$TMP/b/prog" 50)" "$(cat "$TMP/base")"
    expect_match "$dispatch, $build: the avx2 clone holds ymm code" \
      "$(objdump -d --no-show-raw-insn "$TMP/b/prog" | awk '/<(fmvgen_cp_scale_avx2|(fmvgen_mv_)?scale\.avx2(\.0)?)>:/,/^$/')" '%ymm'
    calls=$(calls_dirty "$TMP/b/prog" | tr -d '\n')
    expect_match "$dispatch, $build: the avx2 clone calls clampsum" "$calls" '^[01]+$'
    expect_no_match "$dispatch, $build: no call to clampsum with dirty upper halves" "$calls" '1'
  done
done
finish
