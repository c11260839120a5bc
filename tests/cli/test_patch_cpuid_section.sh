#!/bin/bash
# test_patch_cpuid_section.sh - fmvgen patch --dispatch cpuid puts the
# target copies and the resolvers in section fmvgen_text (patch/cpuid.h:
# FMVGEN_CPU_SEC_), which GNU ld places after the linked .text, so they no
# longer move the project's unchanged functions.
# tests/fixtures/cpuid-section (a.c and b.c: three candidates between
# unchanged functions; c.c: a file with none, linked after them) is
# patched and built unpatched, patched, and patched with
# -DFMVGEN_CPU_NO_SECTION by gcc, clang 14 and clang 19: the patched
# builds print what the unpatched one prints, natively and under qemu -cpu
# Nehalem and Haswell; the x86-64-v3/-v4 copies and the resolvers are in
# fmvgen_text, an AX section after the end of .text, the default copies in
# .text; the unchanged functions after the last candidate of a.c and b.c,
# and c.c's, keep their offset mod 64 from _start (crt1's first function),
# which the copies in .text (-DFMVGEN_CPU_NO_SECTION) do not keep. The
# link's one fmvgen_cpu_levels is in fmvgen_text too (.text with
# -DFMVGEN_CPU_NO_SECTION), so those functions keep their offset mod 64
# from the start of .text as well (a PLT slot per IFUNC still moves .text).
source "$TESTLIB"
command -v qemu-x86_64 >/dev/null || skip_test "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"
command -v jq >/dev/null || skip_test "jq missing (scripts/setup-deps.sh installs it)"

U=$(copy_fixture cpuid-section)
P="$TMP/patched"
mkdir -p "$P" && cp -a "$FIXTURES/cpuid-section/." "$P/"
(cd "$P" && "$FMVGEN" scan --root "$P" -- make -s CC=gcc >/dev/null 2>&1 && make -s clean &&
  "$FMVGEN" patch --dispatch cpuid --apply >/dev/null 2>&1) || fail "scan and patch"
expect_eq "three functions patched" "$(cat "$P"/*.c | grep -c '^FMVGEN_CLONES_CPU$')" 3

# build DIR NAME CC CFLAGS: DIR/prog-NAME
build() { (cd "$1" && make -s clean && make -s CC="$3" CFLAGS="$4" >"$TMP/build-$2.log" 2>&1 && mv prog "prog-$2"); }
# sym_sec FILE SYMBOL: the name of SYMBOL's section
sym_sec() {
  local ndx
  ndx=$(readelf -sW "$1" | awk -v n="$2" '$8 == n {print $7; exit}')
  readelf -SW "$1" | sed 's/^ *\[ *//; s/\]//' | awk -v n="$ndx" '$1 == n {print $2}'
}
# addr FILE SYMBOL: SYMBOL's address, in decimal
addr() { printf '%d' "0x$(readelf -sW "$1" | awk -v n="$2" '$8 == n {print $2; exit}')"; }
# text_start FILE: the address of its .text output section, in decimal
text_start() { printf '%d' "0x$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" {print $3}')"; }
# offsets FILE [FROM]: "name:offset mod 64 from _start" of the checked
# unchanged functions (FROM text: from the start of .text)
offsets() {
  local s f out=""
  if [ "${2:-}" = text ]; then s=$(text_start "$1"); else s=$(addr "$1" _start); fi
  for f in walk_a3 walk_b3 walk_c1 walk_c2; do out="$out $f:$(( ($(addr "$1" "$f") - s) % 64 ))"; done
  printf '%s' "${out# }"
}

ran=0
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  build "$U" "$cc" "$cc" "-O2" || { fail "$cc: unpatched build: $(head -3 "$TMP/build-$cc.log")"; continue; }
  build "$P" "$cc" "$cc" "-O2 -Wall -Wextra -Werror" || { fail "$cc: patched build: $(head -3 "$TMP/build-$cc.log")"; continue; }
  build "$P" "$cc-nosec" "$cc" "-O2 -Wall -Wextra -Werror -DFMVGEN_CPU_NO_SECTION" ||
    { fail "$cc: -DFMVGEN_CPU_NO_SECTION build: $(head -3 "$TMP/build-$cc-nosec.log")"; continue; }
  ran=$((ran + 1))
  u="$U/prog-$cc" p="$P/prog-$cc" b="$P/prog-$cc-nosec"
  want=$("$u")
  expect_match "$cc: unpatched prints" "$want" '^-?[0-9]+ [0-9]+ '
  for prog in "$p" "$b"; do
    expect_eq "$cc: ${prog##*/} natively" "$("$prog")" "$want"
    for cpu in Nehalem Haswell; do
      expect_eq "$cc: ${prog##*/} on $cpu" "$(qemu-x86_64 -cpu "$cpu" "$prog" 2>/dev/null)" "$want"
    done
  done
  for fn in snap_a bits_a snap_b; do
    for slug in x86_64_v3 x86_64_v4; do
      expect_eq "$cc: $fn's $slug copy in fmvgen_text" "$(sym_sec "$p" "fmvgen_cp_${fn}_$slug")" fmvgen_text
      expect_eq "$cc: -DFMVGEN_CPU_NO_SECTION: $fn's $slug copy in .text" "$(sym_sec "$b" "fmvgen_cp_${fn}_$slug")" .text
    done
    expect_eq "$cc: $fn's resolver in fmvgen_text" "$(sym_sec "$p" "fmvgen_resolve_$fn")" fmvgen_text
    expect_eq "$cc: $fn's default copy stays in .text" "$(sym_sec "$p" "fmvgen_cp_${fn}_default")" .text
  done
  # fmvgen_text: code, after the end of .text
  read -r taddr tsize < <(readelf -SW "$p" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" {print $3, $5}')
  read -r faddr fflags < <(readelf -SW "$p" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == "fmvgen_text" {print $3, $7}')
  expect_eq "$cc: fmvgen_text is code (AX)" "${fflags:-none}" AX
  expect_eq "$cc: fmvgen_text after the end of .text" "$(( 0x${faddr:-0} >= 0x${taddr:-1} + 0x${tsize:-1} ))" 1
  want_off=$(offsets "$u")
  expect_eq "$cc: unchanged functions keep their offsets mod 64" "$(offsets "$p")" "$want_off"
  expect_no_match "$cc: -DFMVGEN_CPU_NO_SECTION moves them (the copies in .text)" "$(offsets "$b")" "^$want_off\$"
  # fmvgen_cpu_levels (one, the link's) in fmvgen_text too: nothing fmvgen
  # adds is in .text before them, so they keep their offsets from the start
  # of .text (what moves .text itself is its IFUNCs' PLT slots)
  expect_eq "$cc: fmvgen_cpu_levels in fmvgen_text" "$(sym_sec "$p" fmvgen_cpu_levels.v1)" fmvgen_text
  expect_eq "$cc: -DFMVGEN_CPU_NO_SECTION: fmvgen_cpu_levels in .text" "$(sym_sec "$b" fmvgen_cpu_levels.v1)" .text
  expect_eq "$cc: unchanged functions keep their offsets mod 64 from .text's start" "$(offsets "$p" text)" "$(offsets "$u" text)"
done
[ "$ran" -ge 1 ] && pass || fail "no compiler built the fixture"
finish
