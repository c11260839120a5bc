#!/bin/bash
# scan_overhead.sh - what `fmvgen scan` costs a build: times a full rebuild
# (make -B) of a project N times each, plain, through `fmvgen scan
# --no-probe --`, and through `fmvgen scan --` (with the target and -O3
# probes), runs interleaved, and prints the medians and their ratios to the
# plain build, both in wall time and in CPU time (user+sys of the process
# and its children, from GNU time). For the scans it prints two times: the
# build itself as it ran inside the scan (make timed from inside, i.e. what
# the wrapper costs the build) and the whole command (build + reading
# records + probes + locating candidates with libclang). The issue asks for
# --no-probe <= 1.15 x plain, and probes costing at most one compile per TU
# per probed target (here: CPU of the probes / probe compiles per TU / CPU
# of the plain build).
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
# Environment: FMVGEN (default: build/src/fmvgen under the source tree), CC
# (the compiler the build uses: gcc, clang, ...).
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$HERE/build/src/fmvgen}
RUNS=5 JOBS=2 CFLAGS_B="-O2" PROJECT=
while [ $# -gt 0 ]; do
  case $1 in
    -n) RUNS=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --cflags) CFLAGS_B=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
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
  # The committed sources (the work tree may hold someone's half-edit).
  git -C "$HERE" archive HEAD lib | tar -x -C "$P" 2>/dev/null || cp -a "$HERE/lib" "$P/lib"
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

# Each measurement is "wall cpu": elapsed seconds, and the CPU seconds
# (user+sys) of the measured process and all its waited-for children, from
# GNU time's rusage. CPU time is what the issue's ratio should be judged by
# on a shared machine: wall time moves with the other users' load, CPU time
# much less.
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "scan_overhead: $TIME (GNU time, Debian package 'time') is needed" >&2; exit 1; }
declare -a W_PLAIN C_PLAIN W_SCAN C_SCAN W_PROBE C_PROBE WB_SCAN CB_SCAN WB_PROBE CB_PROBE
# The build command run inside the scans: make, timed from inside.
INNER=("$TIME" -o "$WORK/inner.time" -f '%e %U %S' make -s -B -j"$JOBS" CFLAGS="$CFLAGS_B")
timed() {   # timed OUTFILE CMD... -> runs CMD in the project, rusage into OUTFILE
  local out=$1; shift
  (cd "$P" && "$TIME" -o "$out" -f '%e %U %S' "$@" >/dev/null 2>&1)
}
read_time() { awk '{printf "%s %.3f\n", $1, $2 + $3}' "$1"; }   # "wall cpu"
build() {   # build VARIANT -> "wall cpu [inner-wall inner-cpu]"
  case $1 in
    plain) timed "$WORK/outer.time" make -s -B -j"$JOBS" CFLAGS="$CFLAGS_B" ;;
    scan) timed "$WORK/outer.time" "$FMVGEN" scan --no-probe -- "${INNER[@]}" ;;
    probe) timed "$WORK/outer.time" "$FMVGEN" scan -j "$JOBS" -- "${INNER[@]}" ;;
  esac || { echo "scan_overhead: the $1 build failed" >&2; exit 1; }
  if [ "$1" = plain ]; then read_time "$WORK/outer.time"
  else echo "$(read_time "$WORK/outer.time") $(read_time "$WORK/inner.time")"; fi
}
build plain >/dev/null   # warm the caches
for ((i = 0; i < RUNS; i++)); do
  read -r w c <<< "$(build plain)"; W_PLAIN+=("$w"); C_PLAIN+=("$c")
  read -r w c bw bc <<< "$(build scan)"; W_SCAN+=("$w"); C_SCAN+=("$c"); WB_SCAN+=("$bw"); CB_SCAN+=("$bc")
  read -r w c bw bc <<< "$(build probe)"; W_PROBE+=("$w"); C_PROBE+=("$c"); WB_PROBE+=("$bw"); CB_PROBE+=("$bc")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
wp=$(median "${W_PLAIN[@]}"); cp=$(median "${C_PLAIN[@]}")
ws=$(median "${W_SCAN[@]}"); cs=$(median "${C_SCAN[@]}")
wq=$(median "${W_PROBE[@]}"); cq=$(median "${C_PROBE[@]}")
wbs=$(median "${WB_SCAN[@]}"); cbs=$(median "${CB_SCAN[@]}")
wbq=$(median "${WB_PROBE[@]}"); cbq=$(median "${CB_PROBE[@]}")
# Probe compiles per TU: one at the widest target, plus -O3 for -O2 TUs.
case " $CFLAGS_B " in *" -O2 "*) NPROBE=2 ;; *) NPROBE=1 ;; esac
ccver=$(${CC:-cc} --version 2>/dev/null | head -1)
printf 'project: %s (%s TUs), CFLAGS=%s, make -j%s, %s runs each (medians), CC=%s (%s)\n' \
  "$NAME" "$TUS" "$CFLAGS_B" "$JOBS" "$RUNS" "${CC:-cc}" "$ccver"
printf '%-46s %9s %6s  %9s %6s\n' "" "wall" "ratio" "CPU" "ratio"
row() { printf '%-46s %8.2fs %5.2fx  %8.2fs %5.2fx\n' "$1" "$2" "$(echo "$2 / $wp" | bc -l)" "$3" "$(echo "$3 / $cp" | bc -l)"; }
row "plain build" "$wp" "$cp"
row "build inside 'fmvgen scan --no-probe --'" "$wbs" "$cbs"
row "whole 'fmvgen scan --no-probe --'" "$ws" "$cs"
row "build inside 'fmvgen scan --'" "$wbq" "$cbq"
row "whole 'fmvgen scan --' (with probes)" "$wq" "$cq"
row "  probes (whole scan minus whole --no-probe)" "$(echo "$wq - $ws" | bc -l)" "$(echo "$cq - $cs" | bc -l)"
printf '%-46s %s probe compile(s) per TU; CPU per probe compile = %.2fx a plain compile\n' "" "$NPROBE" \
  "$(echo "($cq - $cs) / $NPROBE / $cp" | bc -l)"
# Paired ratios: each round's scan build against the plain build of the
# same round (run next to it), median over rounds. Under a load that drifts
# during the benchmark this is steadier than the ratio of the medians. The
# builds inside 'scan --no-probe' and 'scan --' do the same work (the
# wrapper) and are pooled.
pr=()
for ((k = 0; k < RUNS; k++)); do
  pr+=("$(echo "${CB_SCAN[k]} / ${C_PLAIN[k]}" | bc -l)" "$(echo "${CB_PROBE[k]} / ${C_PLAIN[k]}" | bc -l)")
done
printf '%-46s %.2fx CPU (median of %d paired ratios: %s)\n' "build inside the scan, paired by round" "$(median "${pr[@]}")" \
  "${#pr[@]}" "$(printf '%.2f ' "${pr[@]}")"
printf 'runs (wall/CPU): plain %s | scan-build %s | probe-build %s\n' \
  "$(paste -d/ <(printf '%s\n' "${W_PLAIN[@]}") <(printf '%s\n' "${C_PLAIN[@]}") | tr '\n' ' ')" \
  "$(paste -d/ <(printf '%s\n' "${WB_SCAN[@]}") <(printf '%s\n' "${CB_SCAN[@]}") | tr '\n' ' ')" \
  "$(paste -d/ <(printf '%s\n' "${WB_PROBE[@]}") <(printf '%s\n' "${CB_PROBE[@]}") | tr '\n' ' ')"
