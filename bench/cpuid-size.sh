#!/bin/bash
# cpuid-size.sh - the code `fmvgen patch --dispatch cpuid` adds, against
# --dispatch pointer (target_clones, whose resolvers link libgcc's
# __cpu_indicator_init) and IFUNC: tests/fixtures/patch-cpuid (5 candidate
# functions in k.c, targets arch=x86-64-v3,arch=x86-64-v4) scanned with
# gcc, patched each way, built by each compiler as the fixture's program
# (-O2) and as its -fvisibility=hidden shared library libk.so. Prints, per
# compiler and build: .text size (and file size) of unpatched and each
# patched build, growth, then for cpuid the sizes (nm -S) of
# fmvgen_cpu_levels, the resolvers, the trampolines' init and ctor stubs,
# and the copies. Sizes only: no timing.
# usage: bench/cpuid-size.sh [FMVGEN]
# Writes nothing outside a temp dir; redirect the output to bench/results/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${1:-$here/build/src/fmvgen}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -a "$here/tests/fixtures/patch-cpuid" "$W/base"
for d in ifunc pointer cpuid; do   # a store names its tree's absolute paths: one scan each
  cp -a "$here/tests/fixtures/patch-cpuid" "$W/$d"
  (cd "$W/$d" && "$FMVGEN" scan --root "$W/$d" -- make -s CC=gcc >/dev/null 2>&1 && make -s clean &&
    "$FMVGEN" patch --dispatch "$d" --apply >/dev/null 2>&1)
done
text() { size -A "$1" | awk '$1 == ".text" {print $2}'; }
sumsyms() { nm -S -t d --size-sort "$1" | awk -v re="$2" '$4 ~ re {s += $2; n++} END {printf "%d B in %d", s, n}'; }
echo "fmvgen $("$FMVGEN" --version 2>/dev/null | head -1); fixture patch-cpuid: 5 functions, targets v3, v4"
for cc in gcc clang-14 clang-19; do
  command -v "$cc" >/dev/null || continue
  for what in prog libk.so; do
    for d in base ifunc pointer cpuid; do
      (cd "$W/$d" && make -s clean && make -s CC="$cc" CFLAGS=-O2 "$what" >"$W/$d.log" 2>&1) || true
    done
    b=$(text "$W/base/$what")
    printf '%s %s: .text unpatched %d B' "$cc" "$what" "$b"
    for d in ifunc pointer cpuid; do
      if [ ! -e "$W/$d/$what" ]; then
        printf '; %s: build fails (%s)' "$d" "$(grep -m1 -o 'error: .*' "$W/$d.log")"
        continue
      fi
      t=$(text "$W/$d/$what")
      printf '; %s +%d B (%.1f%%)' "$d" $((t - b)) "$(echo "100 * ($t - $b) / $b" | bc -l)"
    done
    echo
    f="$W/cpuid/$what"
    printf '  cpuid: fmvgen_cpu_levels %s; resolvers %s; init stubs %s; ctor stubs %s; copies %s; libgcc cpuinfo symbols: %s\n' \
      "$(sumsyms "$f" '^fmvgen_cpu_levels$')" "$(sumsyms "$f" '^fmvgen_resolve_')" "$(sumsyms "$f" '\.fmvgen_init$')" \
      "$(sumsyms "$f" '\.fmvgen_ctor$')" "$(sumsyms "$f" '^fmvgen_cp_')" "$(nm "$f" | grep -c '__cpu_indicator_init\|__cpu_model' || true)"
    [ -e "$W/pointer/$what" ] && printf '  pointer: libgcc __cpu_indicator_init %s, its helpers get_available_features/get_intel_cpu/... %s\n' \
      "$(sumsyms "$W/pointer/$what" '^__cpu_indicator_init$')" "$(sumsyms "$W/pointer/$what" '^(get_available_features|get_intel_cpu|get_amd_cpu|get_zhaoxin_cpu|update_cpu_indicator_init)')"
  done
done
