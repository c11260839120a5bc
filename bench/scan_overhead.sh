#!/bin/bash
# scan_overhead.sh - what `fmvgen scan` costs a build: times a full rebuild
# (make -B) of a project N times each, plain, through `fmvgen scan
# --no-probe --`, and through `fmvgen scan --` (with the target and -O3
# probes), runs interleaved, and prints the medians and their ratios to the
# plain build. For the scans it prints two times: the build itself as it ran
# inside the scan (timed by a shell around make, i.e. what the wrapper costs
# the build) and the whole command (build + reading records + probes +
# locating candidates with libclang). The issue asks for --no-probe <= 1.15 x plain, and probes
# costing at most one compile per TU per probed target.
#
# usage: bench/scan_overhead.sh [-n RUNS] [-j JOBS] [--cflags FLAGS] [PROJECT]
#   PROJECT  a directory with a Makefile honouring CC and CFLAGS (copied
#            first); default: fmvgen's own lib/ sources (~60 C files of real
#            code) with a generated Makefile that compiles each to an object
#   -n       runs per variant (default 5)
#   -j       make -j (default 2)
#   --cflags CFLAGS for the build (default -O2; try "-O2 -g", where GCC needs
#            a second, records-only compile per TU to keep the objects
#            byte-identical)
# Environment: FMVGEN (default: build/src/fmvgen under the source tree).
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$HERE/build/src/fmvgen}
RUNS=5 JOBS=2 CFLAGS_B="-O2" PROJECT=
while [ $# -gt 0 ]; do
  case $1 in
    -n) RUNS=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --cflags) CFLAGS_B=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) PROJECT=$1; shift ;;
  esac
done
[ -x "$FMVGEN" ] || { echo "scan_overhead: $FMVGEN: not built (set FMVGEN)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fmvgen-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
P="$WORK/project"
if [ -n "$PROJECT" ]; then
  mkdir -p "$P" && cp -a "$PROJECT/." "$P/"
  NAME=$(basename "$PROJECT")
else
  # fmvgen's own library: real C of every size, one object per file.
  NAME="fmvgen lib/ sources"
  mkdir -p "$P"
  cp -a "$HERE/lib" "$P/lib"
  INCS="-Ilib $(pkg-config --cflags jansson sqlite3 yaml-0.1 libelf capstone 2>/dev/null) -I/usr/lib/llvm-14/include"
  {
    echo "CFLAGS ?= -O2"
    echo "OBJS = \$(patsubst %.c,%.o,\$(wildcard lib/*/*.c))"
    echo "all: \$(OBJS)"
    echo "%.o: %.c"
    printf '\t$(CC) -std=c11 -D_GNU_SOURCE -DFMVGEN_VERSION=\\"bench\\" -DFMVGEN_SOURCE_DIR=\\"x\\" -DFMVGEN_DATADIR=\\"x\\" -DFMVGEN_PKGLIBDIR=\\"x\\" %s $(CFLAGS) -c $< -o $@\n' "$INCS"
  } > "$P/Makefile"
fi
TUS=$(cd "$P" && make -s -B -n CFLAGS="$CFLAGS_B" 2>/dev/null | grep -c -- ' -c ' || true)

now() { date +%s.%N; }
declare -a T_PLAIN T_SCAN T_PROBE B_SCAN B_PROBE
# The build command run inside the scans: make, timed from inside.
INNER=(sh -c 'date +%s.%N > "$0.t0"; make -s -B -j"$1" CFLAGS="$2"; rc=$?; date +%s.%N > "$0.t1"; exit $rc' "$WORK/inner" "$JOBS" "$CFLAGS_B")
build() {   # build VARIANT -> "whole-seconds inner-build-seconds"
  local t0 t1
  t0=$(now)
  case $1 in
    plain) (cd "$P" && make -s -B -j"$JOBS" CFLAGS="$CFLAGS_B" >/dev/null 2>&1) ;;
    scan) (cd "$P" && "$FMVGEN" scan --no-probe -- "${INNER[@]}" >/dev/null 2>&1) ;;
    probe) (cd "$P" && "$FMVGEN" scan -j "$JOBS" -- "${INNER[@]}" >/dev/null 2>&1) ;;
  esac || { echo "scan_overhead: the $1 build failed" >&2; exit 1; }
  t1=$(now)
  if [ "$1" = plain ]; then echo "$(echo "$t1 - $t0" | bc -l) 0"
  else echo "$(echo "$t1 - $t0" | bc -l) $(echo "$(cat "$WORK/inner.t1") - $(cat "$WORK/inner.t0")" | bc -l)"; fi
}
build plain >/dev/null   # warm the caches
for ((i = 0; i < RUNS; i++)); do
  read -r w _ <<< "$(build plain)"; T_PLAIN+=("$w")
  read -r w b <<< "$(build scan)"; T_SCAN+=("$w"); B_SCAN+=("$b")
  read -r w b <<< "$(build probe)"; T_PROBE+=("$w"); B_PROBE+=("$b")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mp=$(median "${T_PLAIN[@]}"); ms=$(median "${T_SCAN[@]}"); mq=$(median "${T_PROBE[@]}")
bs=$(median "${B_SCAN[@]}"); bq=$(median "${B_PROBE[@]}")
printf 'project: %s (%s TUs), CFLAGS=%s, make -j%s, %s runs each, CC=%s\n' "$NAME" "$TUS" "$CFLAGS_B" "$JOBS" "$RUNS" "${CC:-cc}"
printf '%-44s %8.3f s  %5.2fx\n' "plain build" "$mp" 1
printf '%-44s %8.3f s  %5.2fx\n' "build inside 'fmvgen scan --no-probe --'" "$bs" "$(echo "$bs / $mp" | bc -l)"
printf '%-44s %8.3f s  %5.2fx\n' "whole 'fmvgen scan --no-probe --'" "$ms" "$(echo "$ms / $mp" | bc -l)"
printf '%-44s %8.3f s  %5.2fx\n' "build inside 'fmvgen scan --'" "$bq" "$(echo "$bq / $mp" | bc -l)"
printf '%-44s %8.3f s  %5.2fx\n' "whole 'fmvgen scan --' (with probes)" "$mq" "$(echo "$mq / $mp" | bc -l)"
printf '%-44s %8.3f s  %5.2fx\n' "  of which probes + analysis after the build" "$(echo "$mq - $bq" | bc -l)" "$(echo "($mq - $bq) / $mp" | bc -l)"
