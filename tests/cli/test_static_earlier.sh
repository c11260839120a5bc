#!/bin/bash
# test_static_earlier.sh - a function declared static and defined without
# the word (tests/fixtures/static-earlier, as libsamplerate's converters): for
# gcc, clang-14 and clang-19, scan, and check list says where its internal
# linkage comes from (the earlier declaration; a macro for the one LOCAL(void)
# declares), that the patch marks each FMVGEN_CLONES_STATIC, and that the
# patched program (two files' static kern) builds, links and prints the
# unpatched output; with --dispatch cpuid and pointer too, their copies and
# renamed bodies staying local symbols.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/static-earlier/." "$P/"
  cd "$P" || exit 1
  W="-Wall -Wextra -Werror"
  make -s CC="$cc" CFLAGS="-O3 -g $W" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="-O3 -g $W" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  note() {   # FILE FUNCTION -> the static-macro note's detail and "static"
    printf '%s' "$json" | jq -r --arg f "$1" --arg n "$2" '[.functions[] | select(.name == $n and (.file | endswith($f))) |
      .notes[]? | select(.kind == "static-macro") | "\(.static): \(.detail)"] | unique | join(" | ")'
  }
  expect_match "$cc: se_a.c kern: from the declaration" "$(note se_a.c kern)" \
    "^true: declared static at line 7, before its definition \(line 22\), which does not repeat 'static'"
  expect_match "$cc: se_a.c pick (a typedef before the name): from the declaration" "$(note se_a.c pick)" \
    "^true: declared static at line 9, before its definition \(line 27\)"
  expect_match "$cc: se_b.c kern: from the macro" "$(note se_b.c kern)" "^true: internal linkage through the macro LOCAL:"
  expect_no_match "$cc: list names no type or function as a macro" "$("$FMVGEN" list)" 'through the macro (kern|real_t|void)'

  "$FMVGEN" patch --min-score 0 -o "$TMP/fmv-$cc.patch" 2>"$TMP/patch-$cc.err"
  expect_eq "$cc: patch exit" "$?" 0
  for mode in cpuid pointer; do
    "$FMVGEN" patch --dispatch "$mode" --min-score 0 -o "$TMP/fmv-$cc-$mode.patch" 2>/dev/null
  done
  expect_eq "$cc: each function patched static" \
    "$(grep -c '^+FMVGEN_CLONES_STATIC$' "$TMP/fmv-$cc.patch")/$(grep -c '^+FMVGEN_CLONES(\(kern\|pick\))' "$TMP/fmv-$cc.patch")" "3/0"
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O3 -g $W" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 -E 'error|multiple definition' "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  # fmvgen's own dispatch: the copies (cpuid) and the renamed body (pointer)
  # of a function static from an earlier declaration stay local symbols
  for mode in cpuid pointer; do
    D="$TMP/$cc-$mode"; mkdir -p "$D"; cp -a "$FIXTURES/static-earlier/." "$D/"
    (cd "$D" && patch -p1 -s <"$TMP/fmv-$cc-$mode.patch") || fail "$cc $mode: patch -p1"
    if (cd "$D" && make -s CC="$cc" CFLAGS="-O3 -g $W" >"$TMP/build-$cc-$mode" 2>&1); then pass; else
      fail "$cc $mode: patched build: $(grep -m1 -E 'error|multiple definition' "$TMP/build-$cc-$mode")"; continue
    fi
    expect_eq "$cc $mode: patched output" "$("$D/prog")" "$BASE"
    # (but fmvgen_cpu_levels.v1, weak and hidden by design: the link keeps one, patch/cpuid.h)
    expect_eq "$cc $mode: no global fmvgen symbol" \
      "$(cd "$D" && nm -g --defined-only se_a.o se_b.o | grep ' fmvgen_' | grep -vc ' W fmvgen_cpu_levels\.v1$')" 0
  done
done

finish
