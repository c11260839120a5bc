#!/usr/bin/env bash
# select-dispatch-budget.sh - what each dispatch costs in code, the way
# `fmvgen select`'s code-growth budget counts it (issue 9): a scanned,
# built project is copied three times - base (as scanned), and the same
# all-candidates patch with each dispatch (`fmvgen patch --dispatch D
# PATCH-ARGS`, default --exact --min-score 0: select's fma-free variant) -
# each copy rebuilt with BUILD, and its linked ELF files read with `fmvgen
# inspect --json`: code bytes, clones + resolvers + trampolines, and the CPU
# detection by kind (libgcc's cpuinfo, fmvgen's fmvgen_cpu_levels). Prints
# per build the growth over base split as select's report splits it
# (clones/resolvers, CPU detection, other) and the growth against 10% of
# base's code (select's limit is 10% of the -march=x86-64-v3 reference, a
# little smaller or larger: said, not computed here). Timing nothing.
#
# usage: bench/select-dispatch-budget.sh PROJECT 'BUILD' [PATCH-ARGS...]
#   PROJECT  a scanned tree (PROJECT/.fmvgen) built in place (in-tree build)
#   BUILD    the rebuild command, run by sh in each copy (e.g. 'make -s -j2')
# FMVGEN (default build/src/fmvgen) is the fmvgen used. The copies go to a
# temp dir, removed at the end; PROJECT is only read (the patches are
# written to stdout by fmvgen patch and applied to the copies).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$here/build/src/fmvgen}
P=$(cd "$1" && pwd); BUILD=$2; shift 2
[ $# -gt 0 ] || set -- --exact --min-score 0
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# sum over the linked ELF files of a copy: text clones+resolvers+trampolines libgcc fmvgen files
measure() {
  local dir=$1 t=0 c=0 rt=0 own=0 n=0 f j
  while IFS= read -r -d '' f; do
    [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    j=$("$FMVGEN" inspect --json "$f" 2>/dev/null) || continue
    read -r a b d e < <(jq -r '.files[0].code_size | "\(.text_bytes) \(.clone_bytes + .resolver_bytes + .trampoline_bytes) \(.cpu_detection.runtime_bytes // 0) \(.cpu_detection.fmvgen_cpu_levels_bytes // 0)"' <<<"$j")
    t=$((t + a)); c=$((c + b)); rt=$((rt + d)); own=$((own + e)); n=$((n + 1))
  done < <(find "$dir" -path "$dir/.fmvgen" -prune -o -type f \( -perm -u+x -o -name '*.so*' \) -print0)
  echo "$t $c $rt $own $n"
}

echo "# $(basename "$P"): fmvgen $(git -C "$here" rev-parse --short HEAD), patch args: $*; build: $BUILD; $(date -u +%FT%TZ)"
cp -a "$P" "$W/base"
read -r bt bc brt bown bn < <(measure "$W/base")
printf '%-7s %7s files %9s code bytes\n' base "$bn" "$bt"
for d in ifunc cpuid; do
  cp -a "$P" "$W/$d"
  (cd "$P" && "$FMVGEN" patch --dispatch "$d" "$@" 2>"$W/$d.err") >"$W/$d.diff"
  nf=$(grep -c '^+++ ' "$W/$d.diff" || true)
  fb=$(grep -c 'is dispatched by IFUNC' "$W/$d.err" || true)
  (cd "$W/$d" && patch -p1 -s <"$W/$d.diff" && sh -c "$BUILD" >"$W/$d.log" 2>&1) || { echo "$d: patch or build failed"; tail -5 "$W/$d.log"; continue; }
  read -r t c rt own n < <(measure "$W/$d")
  g=$((t - bt)); cpu=$((rt - brt + own - bown)); other=$((g - (c - bc) - cpu))
  printf '%-7s %7s files %9s code bytes: growth %6d = clones/resolvers %6d + CPU detection %5d (libgcc %d, fmvgen_cpu_levels %d) + other %5d; %s patched files, %s IFUNC fallbacks; growth / 10%% of base: %.2f\n' \
    "$d" "$n" "$t" "$g" "$((c - bc))" "$cpu" "$((rt - brt))" "$((own - bown))" "$other" "$nf" "$fb" \
    "$(echo "$g / ($bt / 10)" | bc -l)"
done
