#!/bin/bash
# test_patch_helpers.sh - a candidate whose vectorized loops stand in static
# helpers it inlined (tests/fixtures/patch-helpers, candidates/helpers.h):
# blend's loop records point into scale, accumulate and clamp; blend also
# calls running_sum, whose loop does not vectorize, and the build inlined it
# (no symbol in kernels.o). scale, accumulate and running_sum serve blend
# alone and get FMVGEN_CLONES_INLINE (always_inline: inlined into each of
# blend's clones; the header's "Helpers" list, patch --json); clamp is also
# called by clamp_all and gets nothing, with the line of that use in a note. The patched project builds with gcc, clang 14 and
# clang 19 (when installed) and computes what it computed; the helpers are
# no symbols of their own, and blend's AVX2-level clone holds their loops
# in ymm registers. Scanned again, the patched helpers are excluded. A
# --compdb scan of an unbuilt tree finds the same helpers.
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
    "$(names "$blend | select(.kind==\"inlined-helper\") | .helper.name" <<<"$list")" "scale,accumulate,running_sum"
  expect_match "$cc: running_sum found as a callee the build inlined" \
    "$(jq -r "$blend | select(.helper.name==\"running_sum\") | .detail" <<<"$list")" \
    "^running_sum \(line 20\) holds a loop, and the build inlined it into blend \(no symbol of its own\)"
  expect_match "$cc: clamp left out, with the other use's line" \
    "$(jq -r "$blend | select(.kind==\"helper-left-out\") | .detail" <<<"$list")" \
    "^clamp \(line 25\) holds blend's vectorized loops at line 27 but is not forced inline into its clones: it is also used at line 40, neither in blend nor in a helper inlined into it"
  expect_eq "$cc: clamp_all has no helper (clamp is blend's too)" \
    "$(names '.functions[] | select(.name=="clamp_all") | .notes[] | select(.kind=="inlined-helper") | .helper.name' <<<"$list")" ""

  js=$(cd "$P" && "$FMVGEN" patch --json 2>/dev/null)
  expect_eq "$cc: --json helpers" "$(names '.helpers[] | "\(.name)@\(.line)<-\(.helper_of)"' <<<"$js")" \
    "scale@10<-blend,accumulate@15<-blend,running_sum@20<-blend"
  text=$(cd "$P" && "$FMVGEN" patch 2>/dev/null)
  expect_match "$cc: header lists the helpers" "$text" $'Helpers \\(3\\)'
  expect_match "$cc: header: scale with blend" "$text" "kernels.c:10 scale: inlined into blend"
  marked=$(grep -A1 '^+FMVGEN_CLONES_INLINE$' <<<"$text" | sed -n 's/^ *static void \([a-z_]*\)(.*/\1/p' | paste -sd,)
  expect_eq "$cc: the helpers marked FMVGEN_CLONES_INLINE (not clamp)" "$marked" "scale,accumulate,running_sum"
  expect_match "$cc: the preamble defines it" "$text" "define FMVGEN_CLONES_INLINE __attribute__\(\(always_inline\)\) __inline__"
  expect_eq "$cc: five marker lines" "$(grep -cE '^\+FMVGEN_CLONES(\((blend|clamp_all)\)|_INLINE)$' <<<"$text")" 5

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
    expect_no_match "$cc, built by $build: the helpers are inlined (no symbols)" "$syms" " (scale|accumulate|running_sum)"
    expect_match "$cc, built by $build: clamp_all is cloned" "$syms" " clamp_all\.(arch_x86|avx)"
    # blend's AVX2-level clone (gcc: .arch_x86_64_v3, clang 19:
    # .arch_x86-64-v3.0, clang 14: .avx2.0) runs the helpers' loops on ymm
    ymm=$(objdump -d --no-show-raw-insn "$P/prog" | awk '/<blend\.(arch_x86_64_v3|arch_x86-64-v3\.0|avx2\.0)>:/,/^$/' |
          grep -c ymm)
    [ "$ymm" -gt 0 ] && pass || fail "$cc, built by $build: no ymm instruction in blend's AVX2-level clone"
  done

  (cd "$P" && make -s clean && "$FMVGEN" scan -- make CC=$cc >/dev/null 2>&1) || fail "$cc: rescan failed"
  list=$(cd "$P" && "$FMVGEN" list --json)
  expect_eq "$cc: rescan: no candidates left" "$(jq '.candidates' <<<"$list")" 0
  expect_eq "$cc: rescan: blend excluded as patched" \
    "$(jq -r '.functions[] | select(.name=="blend") | .reason' <<<"$list")" "attribute"
  out=$(cd "$P" && "$FMVGEN" patch 2>&1)
  expect_match "$cc: patching again: nothing to do" "$out" "nothing to do"
done

# --compdb on a tree that was never built: no kernels.o to read, so what
# the build inlined comes from the scan's own compile of kernels.c (its
# assembly's functions, kept in the store) - running_sum is found all the same.
rm -rf "$TMP/patch-helpers"
P=$(copy_fixture patch-helpers)
printf '[{"directory": "%s", "arguments": ["gcc", "-O3", "-c", "kernels.c", "-o", "kernels.o"], "file": "kernels.c"},\n {"directory": "%s", "arguments": ["gcc", "-O3", "-c", "main.c", "-o", "main.o"], "file": "main.c"}]\n' \
  "$P" "$P" >"$P/compile_commands.json"
(cd "$P" && "$FMVGEN" scan --compdb compile_commands.json >/dev/null 2>&1) || fail "compdb: scan failed"
expect_eq "compdb: blend's helpers, running_sum too" \
  "$(cd "$P" && "$FMVGEN" list --json | names '.functions[] | select(.name=="blend") | .notes[] | select(.kind=="inlined-helper") | .helper.name')" \
  "scale,accumulate,running_sum"
expect_eq "compdb: no object written into the tree" "$(cd "$P" && ls ./*.o 2>/dev/null)" ""

# select: blend's helpers go with it into every variant and into
# selected.patch; whether blend is selected depends on timings, what comes
# with it does not.
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
rm -rf "$TMP/patch-helpers"
P=$(copy_fixture patch-helpers)
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "select: scan failed"
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=gcc" --run './prog 20000' --runs 3 --json 2>"$TMP/err"); rc=$?
expect_eq "select: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "select: blend's helpers in report.json" \
  "$(jq -r '.functions[] | select(.name=="blend") | .inlined_helpers | join(",")' <<<"$out")" "scale,accumulate,running_sum"
if [ "$(jq -r '.functions[] | select(.name=="blend") | .selected' <<<"$out")" = true ]; then
  sel=$(cat "$P/.fmvgen/selected.patch")
  marked=$(grep -A1 '^+FMVGEN_CLONES_INLINE$' <<<"$sel" | sed -n 's/^ *static void \([a-z_]*\)(.*/\1/p' | paste -sd,)
  expect_eq "select: selected.patch inlines blend's helpers" "$marked" "scale,accumulate,running_sum"
  expect_match "select: said" "$(jq -r '.notes[]' <<<"$out")" \
    "^blend: its helpers scale, accumulate, running_sum are inlined into its clones"
else
  expect_no_match "select: blend not selected, no helper in the patch" "$(cat "$P/.fmvgen/selected.patch")" "FMVGEN_CLONES_INLINE"
fi
expect_eq "select: temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
