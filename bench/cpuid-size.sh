#!/bin/bash
# cpuid-size.sh - the code `fmvgen patch --dispatch cpuid` adds, against
# --dispatch pointer and IFUNC (both target_clones, whose resolvers link
# libgcc's __cpu_indicator_init): tests/fixtures/patch-cpuid (5 candidate
# functions in k.c, one static; targets arch=x86-64-v3,arch=x86-64-v4)
# scanned with gcc, patched each way, built by each compiler as the
# fixture's program (-O2) and as its -fvisibility=hidden shared library
# libk.so. cpuid is built twice from one patch: as it comes (glibc: each
# function an IFUNC of its own resolver, but clang's static functions) and
# with -DFMVGEN_CPU_NO_IFUNC (every function the trampoline: a jump through
# a pointer, its init and constructor stubs, what musl builds get).
# Prints, per compiler and build: .text and PLT (.plt, .plt.got, .plt.sec)
# growth of each patched build over the unpatched one; for both cpuid
# builds the sizes (nm -S) of fmvgen_cpu_levels, the resolvers, the
# trampolines and their init and ctor stubs, and the copies; then per
# function what reaching its copies costs: resolver + PLT slot (IFUNC)
# against resolver + trampoline + init + ctor stub. Sizes only: no timing.
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
cp -a "$W/cpuid" "$W/tramp"
fns=$(cd "$W/cpuid" && grep -oE '^# define [a-z_]+ fmvgen_mv_' k.c | awk '{print $3}' | tr '\n' ' ')
sec() { size -A "$1" | awk -v re="$2" '$1 ~ re {s += $2} END {print s + 0}'; }
text() { sec "$1" '^\.text$'; }
plt() { sec "$1" '^\.plt(\.got|\.sec)?$'; }
# sumsyms FILE REGEX: "N B in K" over the defined symbols matching REGEX (each address once)
sumsyms() { nm -S -t d "$1" | awk -v re="$2" 'NF == 4 && $4 ~ re && !seen[$1 $4]++ {s += $2; n++} END {printf "%d B in %d", s, n}'; }
size_of() { nm -S -t d "$1" | awk -v n="$2" 'NF == 4 && $4 == n {print $2 + 0; exit}'; }
addr_of() { nm -t d "$1" | awk -v n="$2" '$3 == n {print $1 + 0; exit}'; }
# plt_slots FILE: the PLT's relocations, one a line: "IRELATIVE <resolver address, decimal>" or "JUMP_SLOT <symbol>"
plt_slots() {
  readelf -rW "$1" | awk '/^Relocation section/ {plt = ($3 == "'"'"'.rela.plt'"'"'")} plt && $3 == "R_X86_64_IRELATIVE" {print "IRELATIVE", $4}
    plt && $3 == "R_X86_64_JUMP_SLOT" {sub(/@.*/, "", $5); print "JUMP_SLOT", $5}' |
    while read -r k v; do [ "$k" = IRELATIVE ] && v=$((16#$v)); echo "$k $v"; done
}
echo "$("$FMVGEN" --version 2>/dev/null | head -1); fixture patch-cpuid: 5 functions (${fns% }), targets v3, v4"
echo "cpuid = --dispatch cpuid as built (IFUNC on glibc); tramp = the same patch with -DFMVGEN_CPU_NO_IFUNC"
for cc in gcc clang-14 clang-19; do
  command -v "$cc" >/dev/null || continue
  for what in prog libk.so; do
    for d in base ifunc pointer cpuid tramp; do
      flags=-O2
      [ $d = tramp ] && flags="-O2 -DFMVGEN_CPU_NO_IFUNC"
      rm -f "$W/$d/$what"
      (cd "$W/$d" && make -s clean && make -s CC="$cc" CFLAGS="$flags" "$what" >"$W/$d.log" 2>&1) || true
    done
    b=$(text "$W/base/$what")
    bp=$(plt "$W/base/$what")
    printf '%s %s: unpatched .text %d B, PLT %d B\n' "$cc" "$what" "$b" "$bp"
    for d in ifunc pointer cpuid tramp; do
      if [ ! -e "$W/$d/$what" ]; then
        printf '  %-7s build fails (%s)\n' "$d:" "$(grep -m1 -o 'error: .*' "$W/$d.log")"
        continue
      fi
      t=$(text "$W/$d/$what")
      p=$(plt "$W/$d/$what")
      printf '  %-7s .text +%d B (%.1f%%), PLT +%d B: +%d B; IFUNC symbols %d, IRELATIVE %d\n' "$d:" $((t - b)) \
        "$(echo "100 * ($t - $b) / $b" | bc -l)" $((p - bp)) $((t - b + p - bp)) \
        "$(readelf -sW "$W/$d/$what" | awk '$4 == "IFUNC" && !seen[$8]++' | wc -l)" \
        "$(readelf -rW "$W/$d/$what" | grep -c IRELATIV || true)"
    done
    for d in cpuid tramp; do
      f="$W/$d/$what"
      [ -e "$f" ] || continue
      printf '  %s: fmvgen_cpu_levels %s; resolvers %s; trampolines (with their stubs) %s, of which init stubs %s, ctor stubs %s; copies %s; libgcc cpuinfo symbols: %s\n' \
        "$d" "$(sumsyms "$f" '^fmvgen_cpu_levels$')" "$(sumsyms "$f" '^fmvgen_resolve_')" \
        "$(nm -S -t d "$f" | awk -v re="^($(tr ' ' '|' <<<"${fns% }"))\$" '$3 ~ /^[tT]$/ && $4 ~ re {s += $2; n++} END {printf "%d B in %d", s, n}')" \
        "$(sumsyms "$f" '\.fmvgen_init$')" "$(sumsyms "$f" '\.fmvgen_ctor$')" "$(sumsyms "$f" '^fmvgen_cp_')" \
        "$(nm "$f" | grep -c '__cpu_indicator_init\|__cpu_model' || true)"
    done
    [ -e "$W/cpuid/$what" ] && [ -e "$W/tramp/$what" ] || continue
    # per function: what reaches its copies in each cpuid build. A PLT slot
    # (16 B) where the linked file calls the IFUNC itself (IRELATIVE, or a
    # JUMP_SLOT for an exported one); the trampoline's symbol spans its jump
    # and its init and ctor stubs (one .text piece).
    f="$W/cpuid/$what"
    ci=$(readelf -sW "$f")
    slots=$(plt_slots "$f")
    tot_now=0 tot_tr=0
    for fn in $fns; do
      r=$(size_of "$f" "fmvgen_resolve_$fn")
      if awk -v n="$fn" '$8 == n && $4 == "IFUNC" {f = 1} END {exit !f}' <<<"$ci"; then
        slot=0
        grep -qx "IRELATIVE $(addr_of "$f" "fmvgen_resolve_$fn")\|JUMP_SLOT $fn" <<<"$slots" && slot=16
        now="IFUNC: resolver $r + PLT slot $slot = $((r + slot)) B"
        n=$((r + slot))
      else
        i=$(size_of "$f" "$fn.fmvgen_init") c=$(size_of "$f" "$fn.fmvgen_ctor") t=$(size_of "$f" "$fn")
        now="trampoline (clang, static): resolver $r + jump $((t - i - c)) + init $i + ctor $c = $((r + t)) B"
        n=$((r + t))
      fi
      r2=$(size_of "$W/tramp/$what" "fmvgen_resolve_$fn")
      t2=$(size_of "$W/tramp/$what" "$fn")
      i2=$(size_of "$W/tramp/$what" "$fn.fmvgen_init")
      c2=$(size_of "$W/tramp/$what" "$fn.fmvgen_ctor")
      printf '  %-13s cpuid %s; tramp: resolver %d + jump %d + init %d + ctor %d = %d B\n' "$fn:" "$now" \
        "$r2" $((t2 - i2 - c2)) "$i2" "$c2" $((r2 + t2))
      tot_now=$((tot_now + n)) tot_tr=$((tot_tr + r2 + t2))
    done
    printf '  reaching the copies, 5 functions: cpuid %d B, tramp %d B (%d B less)\n' "$tot_now" "$tot_tr" $((tot_tr - tot_now))
  done
done
