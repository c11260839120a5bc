#!/bin/bash
# test_patch_libtool_recursive.sh - a function a libtool library exports
# through -export-symbols-regex needs a plain symbol (patch/ltexports.h),
# and one whose body names it (a recursive call) cannot be reached through
# a pointer: patched with IFUNC it vanished from the library's exports and
# the programs linking it failed ("undefined reference to `syn123_conv'",
# mpg123's libsyn123, found on a held-out run). Fixture
# tests/fixtures/patch-libtool-recursive: liblt.la exports lt_sum and the
# recursive lt_scale. With gcc, clang 14 and clang 19 (each when
# installed; gcc required):
# - for the default (IFUNC) and cpuid dispatch, lt_scale is not patched:
#   --json "skipped" and the header's "Not patched" say why, a warning on
#   stderr; lt_sum is patched (reached through a pointer);
# - the default patch applies, the library and prog build, prog prints
#   what the unpatched prog printed, the library exports both as plain
#   functions.
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v libtool >/dev/null || { echo "libtool missing (scripts/setup-deps.sh installs libtool-bin)"; exit 1; }

why="exported through libtool's -export-symbols-regex list, which nm makes without IFUNC symbols (the library would hide it), and it cannot be reached through a pointer: its body names it too"
for cc in gcc clang-14 clang-19; do
  command -v "$cc" >/dev/null || { [ "$cc" = gcc ] && fail "gcc missing"; continue; }
  S=$TMP/scan-$cc
  mkdir -p "$S" && cp -a "$FIXTURES/patch-libtool-recursive/." "$S/"
  (cd "$S" && "$FMVGEN" scan -- make CC="$cc" >"$TMP/scan-$cc.log" 2>&1) || { fail "$cc: scan: $(tail -3 "$TMP/scan-$cc.log")"; continue; }
  want=$("$S/prog")
  expect_match "$cc: unpatched prog runs" "$want" '^-?[0-9]+ -?[0-9]+$'
  expect_eq "$cc: both are candidates" \
    "$(cd "$S" && "$FMVGEN" list --json 2>/dev/null | jq -r '[.functions[] | select(.status == "candidate") | .name] | sort | join(",")')" "lt_scale,lt_sum"

  for d in ifunc cpuid; do
    json=$(cd "$S" && "$FMVGEN" patch --dispatch "$d" --json 2>/dev/null)
    expect_eq "$cc $d: only lt_sum patched" \
      "$(printf '%s' "$json" | jq -r '[.functions[] | .name] | join(",")')" "lt_sum"
    expect_match "$cc $d: skipped says why" "$(printf '%s' "$json" | jq -r '.skipped[]')" \
      "^lt\.c:12 lt_scale: $(printf '%s' "$why" | sed 's/[.()]/\\&/g')"
    (cd "$S" && "$FMVGEN" patch --dispatch "$d" -o "$TMP/$cc-$d.patch" 2>"$TMP/$cc-$d.err")
    expect_eq "$cc $d: patch exit" "$?" 0
    [ "$d" = ifunc ] || continue   # one patched build per compiler keeps the test short
    expect_match "$cc $d: warning on stderr" "$(cat "$TMP/$cc-$d.err")" \
      "^fmvgen: warning: [^ ]*lt\.c:12: lt_scale not patched: exported through libtool's"
    expect_match "$cc $d: header lists it" "$(cat "$TMP/$cc-$d.patch")" $'\nNot patched \\(1\\):\n  lt\\.c:12 lt_scale: '
    P=$TMP/$cc-$d
    mkdir -p "$P" && cp -a "$S/." "$P/" && rm -rf "$P/.fmvgen"
    (cd "$P" && patch -p1 -s <"$TMP/$cc-$d.patch" && make clean >/dev/null && make CC="$cc" >"$TMP/$cc-$d.build" 2>&1)
    expect_eq "$cc $d: patched library and prog build" "$?" 0
    [ -x "$P/prog" ] || { fail "$cc $d: no prog: $(grep -m3 -i -e error -e undefined "$TMP/$cc-$d.build")"; continue; }
    expect_eq "$cc $d: prog prints what the unpatched one did" "$("$P/prog")" "$want"
    syms=$(nm -D --defined-only "$P/.libs/liblt.so" | awk '$3 ~ /^lt_/ {print $2, $3}' | sort | tr '\n' ',')
    expect_eq "$cc $d: both exported as plain functions" "$syms" "T lt_scale,T lt_sum,"
  done
done
finish
