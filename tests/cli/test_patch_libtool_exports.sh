#!/bin/bash
# test_patch_libtool_exports.sh - a libtool library that exports through
# -export-symbols-regex (tests/fixtures/patch-libtool-exports: liblt.la
# exports lt_sum and lt_fill; scale_by is external but local to it).
# libtool makes that list with nm and drops IFUNC symbols (patch/ltexports.h),
# so an exported function dispatched by IFUNC would vanish from the library
# and prog would not link (WavPack's libwavpack, found on a held-out run).
# With gcc, clang 14 and clang 19 (each when installed; gcc required):
# - the default (IFUNC) patch reaches lt_sum and lt_fill through a pointer
#   (--json dispatch "pointer", plain_symbol names both, the header lists
#   them, a note on stderr), scale_by stays IFUNC; --dispatch cpuid gives
#   the exported ones its trampoline ("cpuid-pointer"), no IFUNC line;
#   --dispatch pointer lists nothing (every function is a pointer there);
# - both patches apply, the library and prog build (libtool regenerating
#   its list), prog prints what the unpatched prog printed, and the
#   library exports lt_sum and lt_fill as plain functions (nm -D: T).
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v libtool >/dev/null || { echo "libtool missing (scripts/setup-deps.sh installs libtool-bin)"; exit 1; }

for cc in gcc clang-14 clang-19; do
  command -v "$cc" >/dev/null || { [ "$cc" = gcc ] && fail "gcc missing"; continue; }
  S=$TMP/scan-$cc
  mkdir -p "$S" && cp -a "$FIXTURES/patch-libtool-exports/." "$S/"
  (cd "$S" && "$FMVGEN" scan -- make CC="$cc" >"$TMP/scan-$cc.log" 2>&1) || { fail "$cc: scan: $(tail -3 "$TMP/scan-$cc.log")"; continue; }
  want=$("$S/prog")
  expect_match "$cc: unpatched prog runs" "$want" '^-?[0-9]+ -?[0-9]+$'
  expect_eq "$cc: libtool's export list" "$(sort "$S/.libs/liblt.exp" | tr '\n' ' ')" "lt_fill lt_sum "

  json=$(cd "$S" && "$FMVGEN" patch --json 2>/dev/null)
  expect_eq "$cc: ifunc: exported functions through a pointer" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | .name + "=" + .dispatch] | sort | join(",")')" \
    "lt_fill=pointer,lt_sum=pointer,scale_by=ifunc"
  expect_eq "$cc: ifunc: plain_symbol" "$(printf '%s' "$json" | jq -r '[.plain_symbol[] | split(":")[0:2] | join(":")] | join(",")')" \
    "lt.c:6 lt_sum,lt.c:19 lt_fill"
  json=$(cd "$S" && "$FMVGEN" patch --dispatch cpuid --json 2>/dev/null)
  expect_eq "$cc: cpuid: exported functions take the trampoline" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | .name + "=" + .dispatch] | sort | join(",")')" \
    "lt_fill=cpuid-pointer,lt_sum=cpuid-pointer,scale_by=cpuid"
  json=$(cd "$S" && "$FMVGEN" patch --dispatch pointer --json 2>/dev/null)
  expect_eq "$cc: pointer: nothing to list" "$(printf '%s' "$json" | jq -c .plain_symbol)" "[]"

  for d in ifunc cpuid; do
    (cd "$S" && "$FMVGEN" patch --dispatch "$d" -o "$TMP/$cc-$d.patch" 2>"$TMP/$cc-$d.err")
    expect_eq "$cc $d: patch exit" "$?" 0
    expect_match "$cc $d: note on stderr" "$(cat "$TMP/$cc-$d.err")" \
      "^fmvgen: note: lt\.c:6: lt_sum is reached through a pointer, not an IFUNC symbol: exported through libtool's -export-symbols-regex list"
    expect_match "$cc $d: header lists them" "$(cat "$TMP/$cc-$d.patch")" \
      $'\nReached through a pointer[^\n]*, not an IFUNC symbol \\(2\\)'
    P=$TMP/$cc-$d
    mkdir -p "$P" && cp -a "$S/." "$P/" && rm -rf "$P/.fmvgen"
    (cd "$P" && patch -p1 -s <"$TMP/$cc-$d.patch" && make clean >/dev/null && make CC="$cc" >"$TMP/$cc-$d.build" 2>&1)
    expect_eq "$cc $d: patched library and prog build" "$?" 0
    [ -x "$P/prog" ] || { fail "$cc $d: no prog: $(grep -m3 -i error "$TMP/$cc-$d.build")"; continue; }
    expect_eq "$cc $d: prog prints what the unpatched one did" "$("$P/prog")" "$want"
    syms=$(nm -D --defined-only "$P/.libs/liblt.so" | awk '$3 ~ /^(lt_|scale)/ {print $2, $3}' | sort | tr '\n' ',')
    expect_eq "$cc $d: exported as plain functions, scale_by local" "$syms" "T lt_fill,T lt_sum,"
  done
done
finish
