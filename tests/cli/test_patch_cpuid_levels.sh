#!/bin/bash
# test_patch_cpuid_levels.sh - `fmvgen patch --dispatch cpuid` puts one
# fmvgen_cpu_levels in each linked file (patch/cpuid.h), however many of
# its object files hold cpuid copies: tests/fixtures/patch-cpuid-statics
# (a.c and b.c, a static snap each) patched, a.o and b.o each define
# fmvgen_cpu_levels.v1 weak and hidden in a COMDAT group whose code
# section is named fmvgen_text (.text.unlikely.fmvgen_cpu_levels.v1 with
# -DFMVGEN_CPU_NO_SECTION), and the link keeps one, in its fmvgen_text
# (.text), local (or hidden: -static) and called directly - no
# relocation, PLT or GOT entry names it, as IFUNC resolvers call it before
# relocation ends - built by gcc, clang 14, clang 19 and musl-gcc as a
# program of a.o and b.o and as a shared library of both (also
# -fvisibility=hidden; never exported), and by gcc as a static archive
# (a.o) linked beside another patched shared library (b.c), -static,
# -static-pie, -flto and -masm=intel, and musl-gcc -static; -masm=intel by
# clang 14, clang 19, musl-gcc and gcc -DFMVGEN_CPU_NO_IFUNC (the
# trampoline). Each program prints what
# the unpatched one does natively and under qemu Nehalem and Haswell, and
# verify's map of the resolvers gives each snap its default copy on
# Nehalem and its x86-64-v3 copy on Haswell. C++ gets none. (The old
# preamble's static fmvgen_cpu_levels gave one per object file: two.)
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }

S=$(copy_fixture patch-cpuid-statics)
(cd "$S" && "$FMVGEN" scan --root "$S" -- make -s CC=gcc >/dev/null 2>&1 && make -s CC=gcc && ./prog >"$TMP/s.base" &&
  make -s clean && "$FMVGEN" patch --dispatch cpuid --apply >/dev/null 2>&1) || fail "patch-cpuid-statics: scan and patch"
expect_eq "both snap patched" "$(cat "$S/a.c" "$S/b.c" | grep -c '^FMVGEN_CLONES_CPU_STATIC$')" 2
expect_match "the unpatched program prints" "$(cat "$TMP/s.base")" '^[0-9]+ [0-9]+$'

# sym_sec FILE SYMBOL: the name of SYMBOL's section
sym_sec() {
  local ndx
  ndx=$(readelf -sW "$1" | awk -v n="$2" '$8 == n {print $7; exit}')
  readelf -SW "$1" | sed 's/^ *\[ *//; s/\]//' | awk -v n="$ndx" '$1 == n {print $2}'
}
# its section in a linked file: fmvgen_text, after .text (.text with
# -DFMVGEN_CPU_NO_SECTION, its COMDAT section .text.unlikely.<sym>)
want_sec=fmvgen_text
one_levels() {   # WHAT FILE
  expect_eq "$1: one fmvgen_cpu_levels, local or hidden" \
    "$(readelf -sW "$2" | awk '$8 ~ /^fmvgen_cpu_levels/ {print $4, ($5 == "LOCAL" || $6 == "HIDDEN"), $8}')" \
    "FUNC 1 fmvgen_cpu_levels.v1"
  expect_eq "$1: in $want_sec" "$(sym_sec "$2" fmvgen_cpu_levels.v1)" "$want_sec"
  expect_eq "$1: not exported" "$(nm -D "$2" 2>/dev/null | grep -c fmvgen_cpu_levels)" 0
  expect_eq "$1: no relocation names it" "$(readelf -rW "$2" | grep -c fmvgen_cpu_levels)" 0
  local calls
  calls=$(objdump -d --no-show-raw-insn "$2" | grep -E 'call.*fmvgen_cpu_levels')
  expect_match "$1: its resolvers call it directly" "$calls" 'call +[0-9a-f]+ <fmvgen_cpu_levels\.v1>'
  expect_no_match "$1: never through the PLT or GOT" "$calls" '@plt|\*'
}
runs_right() {   # WHAT PROG: its output, and the copies its resolvers pick
  expect_eq "$1: same output natively" "$("$2")" "$(cat "$TMP/s.base")"
  for cpu in Nehalem Haswell; do
    expect_eq "$1: same output on $cpu" "$(qemu-x86_64 -cpu "$cpu" "$2" 2>/dev/null)" "$(cat "$TMP/s.base")"
  done
  "$FMVGEN" verify --json --cpu Nehalem,Haswell -- "$2" >"$TMP/s.verify" 2>"$TMP/s.verify.err"
  expect_eq "$1: verify [$(head -2 "$TMP/s.verify.err")]" "$?" 0
  # snap, or LTO's snap.lto_priv.N; -static lists glibc's own IFUNCs too
  expect_eq "$1: Nehalem default, Haswell x86-64-v3" \
    "$(jq -r '[.dispatch[] | select(.function | test("^snap(\\.lto_priv\\.[0-9]+)?$")) | .targets.Nehalem + "/" + .targets.Haswell] | join(" ")' "$TMP/s.verify")" \
    "default/arch=x86-64-v3 default/arch=x86-64-v3"
}

for cc in gcc clang-14 clang-19 musl-gcc; do
  installed "$cc" || continue
  (cd "$S" && make -s clean && make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/s.log" 2>&1) ||
    { fail "$cc: build: $(head -3 "$TMP/s.log")"; continue; }
  for o in a.o b.o; do
    expect_eq "$cc: $o defines it weak, hidden, in a COMDAT group" \
      "$(readelf -sW "$S/$o" | awk '$8 == "fmvgen_cpu_levels.v1" {print $4, $5, $6}')/$(readelf -gW "$S/$o" |
         grep -c 'COMDAT group section .*\[fmvgen_cpu_levels\.v1\]')" "FUNC WEAK HIDDEN/1"
    # the group's code section is named fmvgen_text, beside the copies' own
    expect_eq "$cc: $o: its code in the group's section fmvgen_text" "$(sym_sec "$S/$o" fmvgen_cpu_levels.v1)/$(readelf -gW "$S/$o" |
      awk '/\[fmvgen_cpu_levels\.v1\]/ {g = 1; next} /^$/ {g = 0} g && /^ +\[ *[0-9]+\]/ {print $NF}' | grep -cx fmvgen_text)" fmvgen_text/1
  done
  one_levels "$cc: program of a.o and b.o" "$S/prog"
  runs_right "$cc: program of a.o and b.o" "$S/prog"
  # a shared library of both; with -fvisibility=hidden it exports nothing
  # main.c could call, so only the library is checked
  for vis in "" -fvisibility=hidden; do
    rm -rf "$TMP/so" && mkdir -p "$TMP/so"
    if ! "$cc" -O2 -fPIC -shared $vis -Wall -Wextra -Werror "$S/a.c" "$S/b.c" -o "$TMP/so/libab.so" -lm >"$TMP/so.log" 2>&1; then
      fail "$cc: shared library $vis: build: $(head -3 "$TMP/so.log")"
      continue
    fi
    one_levels "$cc: shared library of a.c and b.c $vis" "$TMP/so/libab.so"
    [ -n "$vis" ] && continue
    if "$cc" -O2 "$S/main.c" -L"$TMP/so" -lab -Wl,-rpath,"$TMP/so" -o "$TMP/so/prog" -lm >"$TMP/so.log" 2>&1; then
      runs_right "$cc: program through the shared library" "$TMP/so/prog"
    else
      fail "$cc: program with the shared library: build: $(head -3 "$TMP/so.log")"
    fi
  done
done

# gcc: a.o in a static archive linked beside libb.so (b.c, patched too):
# one each; -static, -static-pie, -flto, -masm=intel (its code is bytes,
# whatever the assembler syntax) (musl-gcc: -static): one.
if installed gcc; then
  mkdir -p "$TMP/ar"
  if (cd "$TMP/ar" && gcc -O2 -c "$S/a.c" -o a.o && ar rcs liba.a a.o && gcc -O2 -fPIC -shared "$S/b.c" -o libb.so -lm &&
      gcc -O2 "$S/main.c" liba.a -L. -lb -Wl,-rpath,"$TMP/ar" -o prog -lm) >"$TMP/ar.log" 2>&1; then
    one_levels "gcc: program with liba.a" "$TMP/ar/prog"
    one_levels "gcc: libb.so beside it" "$TMP/ar/libb.so"
    runs_right "gcc: program with liba.a and libb.so" "$TMP/ar/prog"
  else
    fail "gcc: archive and library: build: $(head -3 "$TMP/ar.log")"
  fi
fi
# -masm=intel with clang (its static snaps), musl-gcc and gcc
# -DFMVGEN_CPU_NO_IFUNC reaches the copies through the trampoline, whose
# instructions are bytes too (its AT&T text did not assemble there).
for how in gcc:-static gcc:-static-pie gcc:-flto gcc:-masm=intel musl-gcc:-static clang-14:-masm=intel \
    clang-19:-masm=intel musl-gcc:-masm=intel "gcc:-masm=intel -DFMVGEN_CPU_NO_IFUNC" gcc:-DFMVGEN_CPU_NO_SECTION \
    clang-19:-DFMVGEN_CPU_NO_SECTION; do
  cc=${how%%:*} flag=${how#*:}
  installed "$cc" || continue
  case $flag in *FMVGEN_CPU_NO_SECTION*) want_sec=.text ;; *) want_sec=fmvgen_text ;; esac
  (cd "$S" && make -s clean && make -s CC="$cc" CFLAGS="-O2 $flag -Wall -Wextra -Werror" >"$TMP/s.log" 2>&1) ||
    { fail "$cc $flag: build: $(head -3 "$TMP/s.log")"; continue; }
  [ "$want_sec" = .text ] && expect_eq "$cc $flag: a.o holds it in .text.unlikely.fmvgen_cpu_levels.v1" \
    "$(sym_sec "$S/a.o" fmvgen_cpu_levels.v1)" .text.unlikely.fmvgen_cpu_levels.v1
  one_levels "$cc $flag: program of a.o and b.o" "$S/prog"
  runs_right "$cc $flag: program of a.o and b.o" "$S/prog"
done

# C++: FMVGEN_CPU_ON needs C, so no fmvgen_cpu_levels
if installed g++; then
  g++ -O2 -x c++ -c "$S/a.c" -o "$TMP/a-cxx.o" >"$TMP/cxx.log" 2>&1 || fail "g++: a.c as C++: $(head -3 "$TMP/cxx.log")"
  expect_eq "g++: a.c as C++ has no fmvgen_cpu_levels" "$(nm "$TMP/a-cxx.o" | grep -c fmvgen_cpu_levels)" 0
fi

finish
