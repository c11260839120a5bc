#!/bin/bash
# test_patch_helpers_scalar.sh - a loop-free static helper the build inlined
# is a helper too (tests/fixtures/patch-helpers-scalar, candidates/helpers.h):
# level's gains at the target (roundsd for floor/ceil) stand in shape, which
# holds no loop and which GCC -O2 inlines into level late (a function called
# once). Cloned alone, GCC keeps shape out of line in level's clones, built
# for the baseline (shape.constprop.0, calling floor and ceil).
# - scanned with gcc and with clang: level's note names shape as an inlined
#   helper ("was inlined into level by the build");
# - the patch marks shape FMVGEN_CLONES_INLINE; built by gcc, clang 14 and
#   clang 19 (IFUNC target_clones), and by gcc with --dispatch cpuid, shape
#   has no symbol, the output is the unpatched build's (natively and under
#   qemu -cpu Nehalem), and gcc's x86-64-v3 clone / copy calls no floor or
#   ceil.
# - nothing vectorizes here, all gains are isa: list still names the probe's
#   target (header, --json .probe), and none after scan --no-probe.
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }

for scanner in gcc clang; do
  rm -rf "$TMP/p"; P=$(copy_fixture patch-helpers-scalar); mv "$P" "$TMP/p"; P=$TMP/p
  (cd "$P" && make -s CC=$scanner >/dev/null && ./prog 3000 >"$TMP/base" && make -s clean) || fail "$scanner: unpatched build"
  (cd "$P" && "$FMVGEN" scan -- make CC=$scanner >/dev/null 2>&1) || { fail "$scanner: scan failed"; continue; }
  list=$(cd "$P" && "$FMVGEN" list --json)
  expect_eq "$scanner: level is a candidate" "$(jq -r '.functions[] | select(.name=="level") | .status' <<<"$list")" candidate
  expect_eq "$scanner: level's helper" \
    "$(jq -r '[.functions[] | select(.name=="level") | .notes[] | select(.kind=="inlined-helper") | .helper.name] | join(",")' <<<"$list")" shape
  expect_match "$scanner: the note says the build inlined it" \
    "$(jq -r '.functions[] | select(.name=="level") | .notes[] | select(.kind=="inlined-helper") | .detail' <<<"$list")" \
    '^shape \(line 11\) was inlined into level by the build \(no symbol of its own\) and only level uses it'
  expect_match "$scanner: list names the probe's target" "$(cd "$P" && "$FMVGEN" list)" '^ +\(target = arch=x86-64-v4\)$'
  expect_eq "$scanner: list --json probe" "$(jq -r '.probe' <<<"$list")" "probe:arch=x86-64-v4"
  [ "$scanner" = gcc ] || continue

  text=$(cd "$P" && "$FMVGEN" patch --min-score 0 2>/dev/null)
  expect_eq "the patch marks shape" "$(grep -A1 '^+FMVGEN_CLONES_INLINE$' <<<"$text" | sed -n 's/^ *static double \([a-z_]*\)(.*/\1/p')" shape
  for dispatch in auto cpuid; do
    (cd "$P" && "$FMVGEN" patch --min-score 0 --dispatch "$dispatch" -o "$TMP/$dispatch.patch" 2>/dev/null) ||
      { fail "$dispatch: patch"; continue; }
    for build in gcc clang-14 clang-19; do
      [ "$dispatch" = cpuid ] && [ "$build" != gcc ] && continue
      if ! command -v "$build" >/dev/null; then
        [ "$build" = clang-19 ] && continue
        fail "$build missing"; continue
      fi
      rm -rf "$TMP/b"; cp -a "$P" "$TMP/b"
      (cd "$TMP/b" && make -s clean && patch -s -p1 <"$TMP/$dispatch.patch") || { fail "$dispatch: patch -p1"; continue; }
      (cd "$TMP/b" && make -s CC=$build CFLAGS="-O2 -Wall -Werror" >"$TMP/build" 2>&1) ||
        { fail "$dispatch, built by $build: $(head -3 "$TMP/build")"; continue; }
      expect_eq "$dispatch, $build: same output" "$("$TMP/b/prog" 3000)" "$(cat "$TMP/base")"
      if command -v qemu-x86_64 >/dev/null; then
        expect_eq "$dispatch, $build: same output on Nehalem" "$(qemu-x86_64 -cpu Nehalem "$TMP/b/prog" 3000)" "$(cat "$TMP/base")"
      fi
      expect_no_match "$dispatch, $build: shape is inlined into the clones (no symbol)" "$(nm "$TMP/b/prog")" ' shape'
      if [ "$build" = gcc ]; then
        v3=$(objdump -d --no-show-raw-insn "$TMP/b/prog" |
             awk '/<(level\.arch_x86_64_v3|fmvgen_cp_level_x86_64_v3)>:/,/^$/')
        expect_match "$dispatch, gcc: the v3 clone rounds with vroundsd" "$v3" 'vroundsd'
        expect_no_match "$dispatch, gcc: the v3 clone calls no floor/ceil" "$v3" 'call.*<(floor|ceil)'
      fi
    done
  done
done
rm -rf "$TMP/np"; NP=$(copy_fixture patch-helpers-scalar); mv "$NP" "$TMP/np"
(cd "$TMP/np" && "$FMVGEN" scan --no-probe -- make >/dev/null 2>&1) || fail "scan --no-probe failed"
expect_eq "--no-probe: no probe in list --json" "$(cd "$TMP/np" && "$FMVGEN" list --json | jq -c '.probe')" null
finish
