#!/bin/bash
# test_alternative_callee.sh - a candidate whose hot loops are in a static
# inline callee the build inlined into it (tests/fixtures/alternative-callee,
# libsamplerate's calc_output_stereo in sinc_stereo_vari_process): for gcc,
# clang-14 and clang-19, scan at -O2 -g and check
#   - the candidate set (process, filt_gain, shape),
#   - process's "alternative-callee" note: dot, declared inline, holding
#     some of process's loop lines (all of them with gcc, the two
#     coefficient loops with clang), in list --json and in list;
#   - shape's alternative: poly, credited by its ISA share alone (a
#     recurrence, no vectorized loop: FMA at the target), as for
#     libsamplerate's calc_output_stereo;
#   - no alternative for filt_gain (its loop is in an always_inline helper,
#     whose clone could not stay out of line);
#   - the patch without select is unchanged: process cloned, dot inlined
#     into each clone (FMVGEN_CLONES_ALWAYS_INLINE), no clone of dot (the
#     same for shape and poly);
#   - the patched program builds with -Werror by each compiler and prints
#     the unpatched output, natively and under qemu -cpu Nehalem.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/alternative-callee/." "$P/"
  cd "$P" || exit 1
  W="-O2 -g -Wall -Wextra -Werror"
  make -s CC="$cc" CFLAGS="$W" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="$W" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  J=$("$FMVGEN" list --json)
  expect_eq "$cc: candidates" "$(jq -r '[.functions[] | select(.status == "candidate") | .name] | sort | join(",")' <<<"$J")" \
    "filt_gain,process,shape"
  alt=$(jq -r '[.functions[] | select(.name == "process") | .notes[] | select(.kind == "alternative-callee")]' <<<"$J")
  expect_eq "$cc: process's alternative is dot, declared inline" \
    "$(jq -r '[.[] | "\(.callee.name):\(.callee.line):\(.callee.declared_inline)"] | join(",")' <<<"$alt")" "dot:10:true"
  if [ "$cc" = gcc ]; then want="13,17,19,21 of 4"; else want="14,15 of 4"; fi
  expect_eq "$cc: dot holds process's loop lines" \
    "$(jq -r '.[0] | "\(.lines | map(tostring) | join(",")) of \(.host_loops)"' <<<"$alt")" "$want"
  expect_eq "$cc: shape's alternative is poly, by its ISA share" \
    "$(jq -r '[.functions[] | select(.name == "shape") | .notes[] | select(.kind == "alternative-callee") |
       "\(.callee.name):\(.callee.declared_inline):\(.lines | length):\(.isa_score > 0)"] | join(",")' <<<"$J")" \
    "poly:true:0:true"
  expect_match "$cc: list says poly's share" "$("$FMVGEN" list)" \
    "note: alternative-callee: poly \(line [0-9]+\) holds ISA gains at the target scoring [1-9][0-9]* in shape's code: where shape's clone does not fit"
  expect_eq "$cc: no alternative for filt_gain (always_inline helper)" \
    "$(jq -r '[.functions[] | select(.name == "filt_gain") | .notes[] | select(.kind == "alternative-callee")] | length' <<<"$J")" 0
  expect_match "$cc: list says it" "$("$FMVGEN" list)" \
    "note: alternative-callee: dot \(line 10\) holds .*select may clone dot alone instead; its clones stay out of line, one call more at each call from process \(the patch drops its inline keyword\)\. Without select, the patch clones process"

  "$FMVGEN" patch --min-score 0 -o "$TMP/fmv-$cc.patch" 2>"$TMP/patch-$cc.err"
  expect_eq "$cc: patch exit" "$?" 0
  expect_eq "$cc: without select dot and poly stay inlined into their hosts' clones" \
    "$(grep -A2 '^+FMVGEN_CLONES_ALWAYS_INLINE$' "$TMP/fmv-$cc.patch" | grep -oE '^ (dot|poly)\(' | tr -d ' \n')" "dot(poly("
  expect_match "$cc: process is cloned" "$(cat "$TMP/fmv-$cc.patch")" '^\+FMVGEN_CLONES_STATIC$'
  expect_eq "$cc: patched functions" "$("$FMVGEN" patch --min-score 0 --json 2>/dev/null | jq -r '[.functions[].name] | sort | join(",")')" \
    "filt_gain,process,shape"
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  for build in gcc clang-14 clang-19; do
    command -v "$build" >/dev/null || continue
    make -s clean
    if ! make -s CC="$build" CFLAGS="$W" >"$TMP/build-$cc-$build" 2>&1; then
      fail "$cc, built by $build: $(grep -m1 -E 'error' "$TMP/build-$cc-$build")"; continue
    fi
    expect_no_match "$cc, built by $build: dot and poly inlined into every clone (no symbol)" "$(nm prog)" ' (dot|poly)$'
    expect_eq "$cc, built by $build: patched output" "$(./prog)" "$BASE"
    if command -v qemu-x86_64 >/dev/null; then
      expect_eq "$cc, built by $build: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
    fi
  done
done

finish
