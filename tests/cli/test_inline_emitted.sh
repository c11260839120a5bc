#!/bin/bash
# test_inline_emitted.sh - functions declared inline that the build compiled
# out of line (libvorbis' STIN mdct_butterfly_* and decode_packed_entry_number,
# hot and gaining at the target, were excluded as "inline"): saxpy_stin
# (static inline through a macro) and scale_inline (static inline) have a
# symbol of their own in the object and are candidates with an
# "inline-out-of-line" note; add_once, inlined into its one caller, is none.
# For gcc, clang-14 and clang-19 (when installed): scan, check the candidate
# set, the note and the exclusion, then patch, build with -Werror, check the
# clones in the binary and the output against the unpatched build.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/inline-emitted/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  cands=$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')
  expect_match "$cc: the inline functions compiled out of line are candidates" "$cands" 'saxpy_stin.*scale_inline'
  expect_no_match "$cc: add_once (inlined, no symbol) is no candidate" "$cands" 'add_once'
  noted=$(printf '%s' "$json" | jq -r '[.functions[] | select(.notes | map(.kind) | index("inline-out-of-line")) |
    .name] | unique | join(",")')
  expect_eq "$cc: the inline-out-of-line note, on those two only" "$noted" "saxpy_stin,scale_inline"
  expect_match "$cc: list says why" "$("$FMVGEN" list --candidates)" \
    'inline-out-of-line: declared inline, but the build compiled it out of line'

  "$FMVGEN" patch --apply >"$TMP/patch-$cc.out" 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: saxpy_stin gets the static attribute line" "$(cat inl.c)" \
    'FMVGEN_CLONES_STATIC
STIN void saxpy_stin'
  make -s clean
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  multi=$("$FMVGEN" inspect --json prog | jq -r '[.files[].functions[] | select(.versions >= 3) | .name] | unique | join(",")')
  # clang < 18 gives static functions no clones (FMVGEN_CLONES_STATIC is empty there).
  if [ "$cc" = clang-14 ]; then
    expect_no_match "$cc: no clones of static functions" "$multi" 'saxpy_stin|scale_inline'
  else
    expect_match "$cc: both multi-versioned in the binary" "$multi" 'saxpy_stin.*scale_inline'
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
done

finish
