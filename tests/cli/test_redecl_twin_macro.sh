#!/bin/bash
# test_redecl_twin_macro.sh - a source compiled twice under one name, the
# second time with a macro that turns on a static inline function of a
# header calling it above its definition (faad2: libfaad's sources are
# compiled again with -DDRM for libfaad_drm, and bits.h's faad_check_CRC,
# under #ifdef DRM, calls faad_rewindbits, which bits.c defines below its
# #include). That compile excludes bits_rewind (used-before-definition);
# the file takes one attribute line for both compiles, so the plain
# compile's row is excluded too, naming the other compile (clang 14 and 19
# rejected the patched -DCRC compile: "function declaration cannot become
# a multiversioned function after first usage"); list shows one row for
# both compiles. bits_count stays a
# candidate. For gcc, clang-14 and clang-19 (when installed): scan, list,
# patch (--min-score 1), both programs built with -Werror, output as the
# unpatched build's.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/redecl-twin-macro/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && BASE2=$(./prog_crc) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: bits_rewind excluded in both compiles" \
    "$(jq -r '[.functions[] | select(.name == "bits_rewind") | "\(.status) \(.reason)"] | unique | join(",")' <<<"$json")" \
    "excluded used-before-definition"
  expect_eq "$cc: one row for both compiles" \
    "$(jq -r '[.functions[] | select(.name == "bits_rewind") | .outputs | join(" ")] | join(";")' <<<"$json")" \
    "bits-crc.o bits.o"
  expect_eq "$cc: bits_count a candidate" \
    "$(jq -r '[.functions[] | select(.name == "bits_count") | .status] | unique | join(",")' <<<"$json")" "candidate"

  "$FMVGEN" patch --min-score 1 --apply >"$TMP/patch-$cc.out" 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_no_match "$cc: no attribute line for bits_rewind" "$(cat bits.c)" 'FMVGEN_CLONES\(bits_rewind\)'
  expect_match "$cc: bits_count patched" "$(cat bits.c)" 'FMVGEN_CLONES\(bits_count\)'
  make -s clean
  if make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: patched output of the -DCRC twin" "$(./prog_crc)" "$BASE2"
done
finish
