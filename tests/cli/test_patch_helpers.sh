#!/bin/bash
# test_patch_helpers.sh - a candidate whose vectorized loops stand in static
# helpers it inlined (tests/fixtures/patch-helpers, candidates/helpers.h):
# blend's loop records point into scale, accumulate and clamp. scale and
# accumulate serve blend alone and get its clones (FMVGEN_CLONES_STATIC, the
# header's "Helpers" list, patch --json); clamp is also called by clamp_all
# and gets none, with the line of that use in a note. The patched project
# builds with gcc, clang 14 and clang 19 (when installed) and computes what
# it computed; with gcc (and clang 19) the helpers have clones of their own,
# and blend's clone for a target calls the helpers' clones for that target.
# Scanned again, the patched helpers are excluded as patched.
source "$TESTLIB"

names() { jq -r "[$1] | join(\",\")"; }

for cc in gcc clang; do
  rm -rf "$TMP/patch-helpers"
  P=$(copy_fixture patch-helpers)
  (cd "$P" && make -s CC=$cc >/dev/null && ./prog 300 >"$TMP/base-$cc" && make -s clean) || fail "$cc: unpatched build"
  (cd "$P" && "$FMVGEN" scan -- make CC=$cc >/dev/null 2>&1) || fail "$cc: scan failed"
  list=$(cd "$P" && "$FMVGEN" list --json)
  expect_eq "$cc: candidates" "$(names '.functions[] | select(.status=="candidate") | .name' <<<"$list")" \
    "blend,clamp_all"
  blend='.functions[] | select(.name=="blend") | .notes[]'
  expect_eq "$cc: blend's helpers" \
    "$(names "$blend | select(.kind==\"inlined-helper\") | .helper.name" <<<"$list")" "scale,accumulate"
  expect_match "$cc: clamp left out, with the other use's line" \
    "$(jq -r "$blend | select(.kind==\"helper-left-out\") | .detail" <<<"$list")" \
    "^clamp \(line 17\) holds blend's vectorized loops at line 19 but gets no clones: it is also used at line 31, outside blend"
  expect_eq "$cc: clamp_all has no helper (clamp is blend's too)" \
    "$(names '.functions[] | select(.name=="clamp_all") | .notes[] | select(.kind=="inlined-helper") | .helper.name' <<<"$list")" ""

  js=$(cd "$P" && "$FMVGEN" patch --json 2>/dev/null)
  expect_eq "$cc: --json helpers" "$(names '.helpers[] | "\(.name)@\(.line)<-\(.helper_of)"' <<<"$js")" \
    "scale@7<-blend,accumulate@12<-blend"
  text=$(cd "$P" && "$FMVGEN" patch 2>/dev/null)
  expect_match "$cc: header lists the helpers" "$text" $'Helpers \\(2\\)'
  expect_match "$cc: header: scale with blend" "$text" "kernels.c:7 scale: with blend"
  marked=$(grep -A1 '^+FMVGEN_CLONES' <<<"$text" | sed -n 's/^ *static void \([a-z_]*\)(.*/\1/p' | paste -sd,)
  expect_eq "$cc: the static functions marked FMVGEN_CLONES_STATIC (not clamp)" "$marked" "scale,accumulate"
  expect_eq "$cc: four marker lines" "$(grep -c '^+FMVGEN_CLONES' <<<"$text")" 4

  (cd "$P" && "$FMVGEN" patch --apply >/dev/null 2>&1) || fail "$cc: patch --apply"
  for build in gcc clang-14 clang-19; do
    if ! command -v "$build" >/dev/null; then
      [ "$build" = clang-19 ] && continue
      fail "$build missing"; continue
    fi
    (cd "$P" && make -s clean && make -s CC=$build CFLAGS="-O3 -Wall -Werror" >"$TMP/build" 2>&1) ||
      { fail "$cc, built by $build: $(head -3 "$TMP/build")"; continue; }
    expect_eq "$cc, built by $build: same output" "$(cd "$P" && ./prog 300)" "$(cat "$TMP/base-$cc")"
    expect_eq "$cc, built by $build: same output under qemu -cpu Nehalem" \
      "$(cd "$P" && qemu-x86_64 -cpu Nehalem ./prog 300)" "$(cat "$TMP/base-$cc")"
    syms=$(nm "$P/prog")
    [ "$build" = clang-14 ] && continue   # clang < 18: FMVGEN_CLONES_STATIC is empty (no static clones)
    for fn in scale accumulate; do
      expect_match "$cc, built by $build: $fn has clones" "$syms" "[tT] $fn\\.arch_x86"
    done
    expect_no_match "$cc, built by $build: clamp has none" "$syms" "clamp\\.arch_x86"
    if [ "$build" = gcc ]; then
      # gcc calls the helper's clone of the caller's target directly
      calls=$(objdump -d --no-show-raw-insn "$P/prog" | awk '/<blend.arch_x86_64_v3>:/,/^$/' | grep -E 'call|jmp')
      expect_match "$cc, built by gcc: blend's v3 clone calls scale's v3 clone" "$calls" "<scale\\.arch_x86_64_v3>"
    fi
  done

  (cd "$P" && make -s clean && "$FMVGEN" scan -- make CC=$cc >/dev/null 2>&1) || fail "$cc: rescan failed"
  list=$(cd "$P" && "$FMVGEN" list --json)
  expect_eq "$cc: rescan: no candidates left" "$(jq '.candidates' <<<"$list")" 0
  # a gcc build compiles the patched helper on its own (clang 14 keeps
  # inlining it: no clones for static functions there, nothing to list)
  [ "$cc" = gcc ] && expect_match "$cc: rescan: a patched helper is excluded as patched" \
    "$(jq -r '.functions[] | select(.name=="scale") | .detail' <<<"$list")" "already carries FMVGEN_CLONES_STATIC"
done

finish
