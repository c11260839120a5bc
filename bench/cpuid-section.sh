#!/bin/bash
# cpuid-section.sh - where `patch --dispatch cpuid` puts what it adds, and
# whether the unchanged functions keep their offsets mod 64.
#
# Usage: bench/cpuid-section.sh FMVGEN FIXTURE_DIR [CONFIG...]
# FIXTURE_DIR holds C files built as one program (main.c has main) and a
# k.h; its functions are scanned with gcc, the candidates patched with
# --dispatch cpuid. Each CONFIG is NAME|CC|CFLAGS|LDFLAGS (default: the
# matrix below). For each, the unpatched tree (U), the patched tree built
# with -DFMVGEN_CPU_NO_SECTION (B: copies, resolvers and fmvgen_cpu_levels
# in .text), the patched tree as it is (A: all three in the fmvgen_text
# section) and the patched tree with fmvgen_cpu_levels put back in
# .text.unlikely (O: edited here, FMVGEN_CPU_LV_SEC_; the placement before
# fmvgen_cpu_levels joined the section) are built; one line each: B's, A's
# and O's outputs natively and under qemu -cpu Nehalem and Haswell against
# U's (y: same, 9 letters); how many of the project's unchanged functions
# (U's own functions that are not candidates) keep their address mod 64
# (proj-X), and their offset mod 64 from the start of the .text output
# section (tx-X: a shift of the whole .text - .plt slots, .rela growth
# with lld - taken out); how many fmvgen_cpu_levels.v1 A's file holds and
# in which section; A's .text start minus U's against the growth of
# .plt/.plt.got/.plt.sec (what moves .text); the output sections around
# fmvgen_text; the code sizes. NAME "so-*" builds the C files but main.c as
# a shared library and runs main against it.
set -u
FMVGEN=$1 FIX=$2
shift 2
W=$(mktemp -d "${TMPDIR:-/tmp}/cpuid-section.XXXXXX")
trap "${KEEP:+:} rm -rf $W" EXIT
cp -r "$FIX" "$W/U" && cp -r "$FIX" "$W/P"
(cd "$W/P" && "$FMVGEN" scan --root "$W/P" -- make -s CC=gcc >/dev/null 2>&1 && make -s clean) || { echo "scan failed" >&2; exit 1; }
cands=$(cd "$W/P" && "$FMVGEN" list --json | jq -r '.functions[] | select(.status == "candidate") | .name' | sort)
(cd "$W/P" && "$FMVGEN" patch --dispatch cpuid --apply >/dev/null 2>&1) || { echo "patch failed" >&2; exit 1; }
# O: as P with fmvgen_cpu_levels in .text.unlikely (not fmvgen's text: the placement before)
cp -r "$W/P" "$W/L" && sed -i 's/^\(#   define FMVGEN_CPU_LV_SEC_\) "fmvgen_text"$/\1 ".text.unlikely.fmvgen_cpu_levels.v1"/' "$W"/L/*.c
grep -q 'FMVGEN_CPU_LV_SEC_ ".text.unlikely' "$W"/L/*.c || echo "note: FMVGEN_CPU_LV_SEC_ not found: O is A" >&2
srcs=$(cd "$W/U" && ls *.c)
proj=$(cd "$W/U" && for s in $srcs; do gcc -O2 -c "$s" -o "$W/o.o" && nm "$W/o.o"; done | awk '$2 == "T" || $2 == "t" {print $3}' | sort -u |
  grep -vxF -f <(echo "$cands"))

if [ $# -eq 0 ]; then
  set --
  for cc in gcc clang-14 clang-19; do
    for ld in bfd gold lld; do set -- "$@" "$cc-$ld|$cc|-O2|-fuse-ld=$ld"; done
    set -- "$@" "$cc-pie-no|$cc|-O2|-no-pie" "$cc-static|$cc|-O2|-static" "$cc-gc|$cc|-O2 -ffunction-sections|-Wl,--gc-sections" \
      "$cc-noseparate|$cc|-O2|-Wl,-z,noseparate-code" "$cc-lto|$cc|-O2 -flto|" "so-$cc|$cc|-O2 -fPIC|"
  done
  set -- "$@" "gcc-static-pie|gcc|-O2|-static-pie" "clang-19-static-pie|clang-19|-O2|-static-pie" "gcc-gc-lld|gcc|-O2 -ffunction-sections|-fuse-ld=lld -Wl,--gc-sections" \
    "gcc-gc-gold|gcc|-O2 -ffunction-sections|-fuse-ld=gold -Wl,--gc-sections" "musl|musl-gcc|-O2|" "musl-static|musl-gcc|-O2|-static"
fi

# build DIR NAME CC CFLAGS LDFLAGS -> DIR/NAME/prog (and libk.so for so-*)
build() {
  local d="$1/$2" cc=$3 cf=$4 lf=$5 s o objs=""
  rm -rf "$d" && mkdir -p "$d"
  for s in $srcs; do
    o="$d/${s%.c}.o"
    $cc $cf -c "$1/$s" -o "$o" 2>>"$d/log" || return 1
    [ "$s" = main.c ] || objs="$objs $o"
  done
  case $2 in
    so-*) $cc $cf $lf -shared -o "$d/libk.so" $objs -lm 2>>"$d/log" &&
          $cc $cf $lf -o "$d/prog" "$d/main.o" "$d/libk.so" -Wl,-rpath,"$d" -lm 2>>"$d/log" ;;
    *) $cc $cf $lf -o "$d/prog" $objs "$d/main.o" -lm 2>>"$d/log" ;;
  esac
}
HEX='function hex(s,  i, v) {s = tolower(s); sub(/^0x/, "", s); v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v}'
# offsets FILE -> "name addr%64" of its defined functions (first of a name)
offsets() { readelf -sW "$1" | awk "$HEX"'$4 == "FUNC" && $7 != "UND" && !seen[$8]++ {print $8, hex($2) % 64}' | sort; }
# txoffsets FILE -> "name (addr - start of .text) % 64"
txoffsets() {
  local t
  t=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk "$HEX"'$1 == ".text" {print hex($3)}')
  readelf -sW "$1" | awk -v t="$t" "$HEX"'$4 == "FUNC" && $7 != "UND" && !seen[$8]++ {print $8, (hex($2) - t + 64 * 1048576) % 64}' | sort
}
# secaddr FILE NAME -> its address (decimal; 0 if absent); secsize likewise
secaddr() { readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk -v s="$2" "$HEX"'$1 == s {print hex($3); f = 1} END {if (!f) print 0}'; }
secsize() { readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk -v s="$2" "$HEX"'$1 == s {print hex($5); f = 1} END {if (!f) print 0}'; }
plts() { echo $(( $(secsize "$1" .plt) + $(secsize "$1" .plt.got) + $(secsize "$1" .plt.sec) )); }
# sec_of FILE SYMBOL-REGEX -> the distinct section names of the symbols
sec_of() {
  local f=$1
  readelf -sW "$f" | awk -v re="$2" '$8 ~ re && $7 ~ /^[0-9]+$/ {print $7}' | sort -u | while read -r n; do
    readelf -SW "$f" | awk -v n="$n" '{sub(/^ *\[ */, ""); sub(/\]/, "")} $1 == n {print $2}'
  done | sort -u | tr '\n' ',' | sed 's/,$//'
}
same() {   # same A B NAMES -> "k/n" of NAMES with one offset in both
  join <(echo "$1") <(echo "$2") | awk -v names="$3" 'BEGIN {split(names, a, " "); for (i in a) want[a[i]] = 1}
    (names == "" || $1 in want) {n++; if ($2 == $3) k++} END {printf "%d/%d", k, n}'
}
moved() { join <(echo "$1") <(echo "$2") | awk -v names="$3" 'BEGIN {split(names, a, " "); for (i in a) want[a[i]] = 1}
    $1 in want && $2 != $3 {printf "%s%s:%s->%s", s, $1, $2, $3; s = " "}'; }

printf '%-20s %-9s %-6s %-6s %-6s %-6s %-6s %-6s %-22s %-16s %-30s %s\n' config runs proj-B proj-A proj-O tx-B tx-A tx-O "levels(A): n@section" "text-shift/plt" "fmvgen_text" ".text U/B/A+fmvgen_text(A)"
for cfg in "$@"; do
  IFS='|' read -r name cc cf lf <<<"$cfg"
  command -v "$cc" >/dev/null || { echo "$name: $cc absent"; continue; }
  build "$W/U" "$name" "$cc" "$cf" "$lf" || { echo "$name: unpatched build failed: $(head -2 "$W/U/$name/log")"; continue; }
  build "$W/P" "$name-nosec" "$cc" "$cf -DFMVGEN_CPU_NO_SECTION" "$lf" || { echo "$name: B build failed: $(head -2 "$W/P/$name-nosec/log")"; continue; }
  build "$W/P" "$name" "$cc" "$cf" "$lf" || { echo "$name: patched build failed: $(head -2 "$W/P/$name/log")"; continue; }
  build "$W/L" "$name" "$cc" "$cf" "$lf" || { echo "$name: O build failed: $(head -2 "$W/L/$name/log")"; continue; }
  u=$W/U/$name p=$W/P/$name b=$W/P/$name-nosec o=$W/L/$name
  want=$("$u/prog")
  runs=""
  for d in "$b" "$p" "$o"; do
    for x in "" Nehalem Haswell; do
      if [ -z "$x" ]; then got=$("$d/prog"); else got=$(qemu-x86_64 -cpu "$x" "$d/prog" 2>/dev/null); fi
      [ "$got" = "$want" ] && runs="${runs}y" || runs="${runs}N"
    done
  done
  case $name in so-*) bin=libk.so ;; *) bin=prog ;; esac
  ou=$(offsets "$u/$bin") ob=$(offsets "$b/$bin") oa=$(offsets "$p/$bin") oo=$(offsets "$o/$bin")
  tu=$(txoffsets "$u/$bin") tb=$(txoffsets "$b/$bin") ta=$(txoffsets "$p/$bin") to=$(txoffsets "$o/$bin")
  pn=$(echo $proj)
  nlev=$(readelf -sW "$p/$bin" | awk '$8 ~ /^fmvgen_cpu_levels/' | wc -l)
  lsec=$(sec_of "$p/$bin" '^fmvgen_cpu_levels\.v1$')
  shift_=$(( $(secaddr "$p/$bin" .text) - $(secaddr "$u/$bin" .text) )) pltg=$(( $(plts "$p/$bin") - $(plts "$u/$bin") ))
  where=$(readelf -SW "$p/$bin" | awk '{sub(/^ *\[ */, ""); sub(/\]/, "")} $1 ~ /^[0-9]+$/ {print $2}' | awk '/^fmvgen_text$/ {print prev ">" ; getline; print $0; exit} {prev = $0}' | tr -d '\n')
  flags=$(readelf -SW "$p/$bin" | awk '$0 ~ / fmvgen_text / {for (i = 1; i <= NF; i++) if ($i == "fmvgen_text") print $(i + 6)}')
  printf '%-20s %-9s %-6s %-6s %-6s %-6s %-6s %-6s %-22s %-16s %-30s %s\n' "$name" "$runs" "$(same "$ou" "$ob" "$pn")" "$(same "$ou" "$oa" "$pn")" \
    "$(same "$ou" "$oo" "$pn")" "$(same "$tu" "$tb" "$pn")" "$(same "$tu" "$ta" "$pn")" "$(same "$tu" "$to" "$pn")" "$nlev@${lsec:-none}" "$shift_/$pltg" \
    "${where:-none}${flags:+ [$flags]}" "$(secsize "$u/$bin" .text)/$(secsize "$b/$bin" .text)/$(secsize "$p/$bin" .text)+$(secsize "$p/$bin" fmvgen_text)"
  mv=$(moved "$tu" "$ta" "$pn")
  [ -n "$mv" ] && echo "    A: moved from .text's start: $mv"
done
