#!/bin/bash
# cpulevels-size.sh - the bytes fmvgen_cpu_levels costs with --dispatch
# cpuid, an older fmvgen (one static copy per object file with cpuid
# copies) against this one (one per linked file: patch/cpuid.h), on two
# multi-file examples: examples/kernels (scanned with gcc at its -O3,
# patched with --min-score 0: 6 functions in 4 files), built as its
# program and its kernels/*.c as a shared library, and
# tests/fixtures/patch-cpuid-statics (a static snap in each of a.c and
# b.c; -O2). Each tree is scanned and patched by each fmvgen, then built by
# gcc, clang-14, clang-19 and musl-gcc. Prints per build: the code bytes
# (allocated executable sections, as elf/codesize.h counts them) of the
# old and the new patch, their difference, and the fmvgen_cpu_levels
# symbols each holds (count, bytes); and whether both programs print what
# the unpatched one prints (kernels: its checksums, not its times), and
# each other. Sizes only: no timing.
# usage: bench/cpulevels-size.sh OLD_FMVGEN [NEW_FMVGEN]
# Writes nothing outside a temp dir; redirect the output to bench/results/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?usage: bench/cpulevels-size.sh OLD_FMVGEN [NEW_FMVGEN]}
NEW=${2:-$here/build/src/fmvgen}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# code FILE: bytes of its allocated executable sections
code() {
  local s=0 h
  for h in $(readelf -SW "$1" | awk '/^ *\[ *[0-9]+\]/ { sub(/^ *\[ *[0-9]+\] */, ""); if ($7 ~ /A/ && $7 ~ /X/) print $5 }'); do
    s=$((s + 16#$h))
  done
  echo "$s"
}
# levels FILE: "count/bytes" of its fmvgen_cpu_levels functions (code
# symbols, each address once; not clang's fmvgen_cpu_levels.known data)
levels() { nm -S -t d "$1" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ && $4 ~ /^fmvgen_cpu_levels/ && !seen[$1]++ {n++; s += $2} END {printf "%d/%d", n, s}'; }
prepare() {   # EXAMPLE_DIR NAME FMVGEN SCAN_MAKE_ARGS PATCH_ARGS
  cp -a "$1" "$W/$2"
  (cd "$W/$2" && "$3" scan --root "$W/$2" -- make -s CC=gcc $4 >/dev/null 2>&1 && make -s clean >/dev/null &&
    "$3" patch --dispatch cpuid $5 --apply >"$W/$2.patch.out" 2>&1)
  echo "  $2: $(tail -1 "$W/$2.patch.out")"
}
row() {   # WHAT OLD_FILE NEW_FILE
  local o n
  o=$(code "$2") n=$(code "$3")
  printf '%-44s %8d %8d %+7d   %-9s %-9s\n' "$1" "$o" "$n" $((n - o)) "$(levels "$2")" "$(levels "$3")"
}
echo "old fmvgen: $OLD ($("$OLD" --version 2>/dev/null | head -1))"
echo "new fmvgen: $NEW ($("$NEW" --version 2>/dev/null | head -1))"
echo "patched:"
for v in old new; do
  f=$OLD; [ $v = new ] && f=$NEW
  prepare "$here/examples/kernels" "kernels-$v" "$f" "" "--min-score 0"
  prepare "$here/tests/fixtures/patch-cpuid-statics" "statics-$v" "$f" "" ""
done
cp -a "$here/examples/kernels" "$W/kernels-base"
cp -a "$here/tests/fixtures/patch-cpuid-statics" "$W/statics-base"
echo
printf '%-44s %8s %8s %7s   %-9s %-9s\n' "build" "old B" "new B" "new-old" "old lv" "new lv"
for cc in gcc clang-14 clang-19 musl-gcc; do
  command -v "$cc" >/dev/null || { echo "$cc: not installed"; continue; }
  for t in kernels statics; do
    for v in base old new; do
      (cd "$W/$t-$v" && make -s clean >/dev/null && make -s CC="$cc" >"$W/build.log" 2>&1) ||
        { echo "$cc $t $v: build failed: $(head -2 "$W/build.log")"; continue 2; }
      prog=kernels_demo; [ $t = statics ] && prog=prog
      cp "$W/$t-$v/$prog" "$W/$t-$v.$cc"
      if [ $t = kernels ]; then   # kernels/*.c as a shared library
        (cd "$W/$t-$v" && "$cc" -O3 -fPIC -shared -Iinclude kernels/*.c -o "$W/$t-$v.$cc.so" -lm) >"$W/build.log" 2>&1 ||
          { echo "$cc $t $v: library build failed: $(head -2 "$W/build.log")"; continue 2; }
      fi
    done
    row "$cc $t program" "$W/$t-old.$cc" "$W/$t-new.$cc"
    [ $t = kernels ] && row "$cc $t shared library (kernels/*.c)" "$W/$t-old.$cc.so" "$W/$t-new.$cc.so"
    want=$("$W/$t-base.$cc" 2>&1 | grep -v '^time ')
    for v in old new; do
      got=$("$W/$t-$v.$cc" 2>&1 | grep -v '^time ')
      [ "$got" = "$want" ] || echo "  $cc $t $v: output differs from the unpatched program's (FMA copies: last bits)"
    done
    [ "$("$W/$t-old.$cc" 2>&1 | grep -v '^time ')" = "$("$W/$t-new.$cc" 2>&1 | grep -v '^time ')" ] ||
      echo "  $cc $t: the old and the new patch print different results"
  done
done
