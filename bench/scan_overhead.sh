#!/bin/bash
# scan_overhead.sh - what `fmvgen scan` costs a build: times a full rebuild
# (make -B) of a project N times each, plain, through `fmvgen scan
# --no-probe --`, and through `fmvgen scan --` (with the target probe; the
# -O3 one too with --o3 in SCAN_ARGS of --autotools), runs interleaved, and prints the medians and their ratios to the
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
#        bench/scan_overhead.sh --autotools [-n RUNS] [-j JOBS] [--configure-args ARGS] [--scan-args ARGS] SRCDIR
#   PROJECT  a directory with a Makefile honouring CC and CFLAGS (copied
#            first); default: fmvgen's own lib/ sources (~60 C files of real
#            code) with a generated Makefile that compiles each to an object
#   -n       runs per variant (default 5)
#   -j       make -j (default 2)
#   --cflags CFLAGS for the build (default -O2; try "-O2 -g", where GCC needs
#            a second, records-only compile per TU to keep the objects
#            byte-identical; with --autotools: passed to configure, default
#            none, i.e. the project's own, usually "-g -O2")
#   --autotools  SRCDIR is an autotools project (a configure script, or a
#            configure.ac: `autoreconf -fi` runs once in the copy, untimed).
#            Each round builds twice in fresh out-of-tree build dirs, one
#            after the other: configure + make, and configure + `fmvgen scan
#            -- make` (configure runs outside the scan, as for a tree
#            configured before); both CPU times (user+sys of the whole tree
#            of processes), medians, ratios for make alone and for configure
#            + make, and the scan's CPU by phase (FMVGEN_SCAN_PHASES: the
#            build inside the scan, probes, analysis with libclang, the rest;
#            and addr2line's share, counted by a PATH shim around it that
#            adds a GNU time process per run)
#   --configure-args ARGS   for configure (word-split), e.g. "--disable-nls"
#   --scan-args ARGS        more `fmvgen scan` options, e.g. "--o3"
#   --baseline FMVGEN_B     (--autotools) each round also runs the scan with
#            this other fmvgen (configured afresh; the two scans take
#            turns going first): a before/after comparison under the same
#            load, with its own medians, phase split and paired ratios
# Environment: FMVGEN (default: build/src/fmvgen under the source tree), CC
# (the compiler the build uses: gcc, clang, ...).
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$HERE/build/src/fmvgen}
RUNS=5 JOBS=2 CFLAGS_B="-O2" CFLAGS_SET= PROJECT= AUTOTOOLS= CONF_ARGS= SCAN_ARGS= BASELINE=
while [ $# -gt 0 ]; do
  case $1 in
    -n) RUNS=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --cflags) CFLAGS_B=$2; CFLAGS_SET=1; shift 2 ;;
    --autotools) AUTOTOOLS=1; shift ;;
    --configure-args) CONF_ARGS=$2; shift 2 ;;
    --scan-args) SCAN_ARGS=$2; shift 2 ;;
    --baseline) BASELINE=$2; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) PROJECT=$1; shift ;;
  esac
done
[ -x "$FMVGEN" ] || { echo "scan_overhead: $FMVGEN: not built (set FMVGEN)" >&2; exit 1; }
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || { echo "scan_overhead: $BASELINE: not an executable (--baseline)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fmvgen-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "scan_overhead: $TIME (GNU time, Debian package 'time') is needed" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
cpu_of() { awk '{printf "%.3f\n", $2 + $3}' "$1"; }   # GNU time '%e %U %S' -> user+sys

read -r -a SARGS <<< "$SCAN_ARGS"
if [ -n "$AUTOTOOLS" ]; then
  [ -n "$PROJECT" ] || { echo "scan_overhead: --autotools needs the project's source dir" >&2; exit 1; }
  SRC="$WORK/src"
  mkdir -p "$SRC" && cp -a "$PROJECT/." "$SRC/"
  if [ ! -x "$SRC/configure" ]; then
    # A git tree of a gettext-using project (flac) lacks config.rpath, which
    # autogen.sh would copy from gettext; an empty one does for the build.
    (cd "$SRC" && { autoreconf -fi >"$WORK/autoreconf.log" 2>&1 ||
                    { grep -q "config.rpath' not found" "$WORK/autoreconf.log" && touch config.rpath &&
                      autoreconf -fi >"$WORK/autoreconf.log" 2>&1; }; }) ||
      { echo "scan_overhead: autoreconf -fi failed in the copy of $PROJECT (see the project's autogen.sh)" >&2; exit 1; }
  fi
  read -r -a CONF <<< "$CONF_ARGS"
  [ -n "$CFLAGS_SET" ] && CONF+=("CFLAGS=$CFLAGS_B")
  configure_in() {   # configure_in DIR -> CPU seconds of configure
    rm -rf "$1" && mkdir -p "$1"
    (cd "$1" && "$TIME" -o "$WORK/conf.time" -f '%e %U %S' "$SRC/configure" "${CONF[@]}" >/dev/null 2>&1) ||
      { echo "scan_overhead: configure failed in $1" >&2; exit 1; }
    cpu_of "$WORK/conf.time"
  }
  declare -a CONF_P MAKE_P CONF_S SCAN_S PH_BUILD PH_PROBES PH_ANALYZE PH_REST A2L
  declare -a CONF_S_B SCAN_S_B PH_BUILD_B PH_PROBES_B PH_ANALYZE_B PH_REST_B A2L_B
  # addr2line (inline frames of -g objects, elf/funcisa.h) runs through a
  # shim that adds each run's CPU to a log: its share of the scan.
  A2L_REAL=$(command -v addr2line || true)
  mkdir -p "$WORK/shim"
  [ -n "$A2L_REAL" ] && printf '#!/bin/sh\nexec %s -a -o %s -f "%%U %%S" %s "$@"\n' "$TIME" "$WORK/a2l.log" \
    "$A2L_REAL" > "$WORK/shim/addr2line" && chmod +x "$WORK/shim/addr2line"
  # scan_round BIN SUFFIX: configure + `BIN scan -- make` in a fresh dir;
  # CPU times into the arrays named with SUFFIX ("" or _B).
  scan_round() {
    local bin=$1 sfx=$2
    local -n conf_s=CONF_S$sfx scan_s=SCAN_S$sfx a2l=A2L$sfx ph_b=PH_BUILD$sfx ph_p=PH_PROBES$sfx \
      ph_a=PH_ANALYZE$sfx ph_r=PH_REST$sfx
    conf_s+=("$(configure_in "$WORK/scan")")
    rm -f "$WORK/a2l.log"
    (cd "$WORK/scan" && PATH="$WORK/shim:$PATH" FMVGEN_SCAN_PHASES=1 "$TIME" -o "$WORK/scan.time" -f '%e %U %S' \
       "$bin" scan -j "$JOBS" "${SARGS[@]}" -- make -j"$JOBS" >/dev/null 2>"$WORK/scan.err") ||
      { echo "scan_overhead: the scan failed ($bin):" >&2; tail -5 "$WORK/scan.err" >&2; exit 1; }
    local cpu
    cpu=$(cpu_of "$WORK/scan.time")
    scan_s+=("$cpu")
    a2l+=("$(awk '{s += $1 + $2} END {printf "%.3f\n", s}' "$WORK/a2l.log" 2>/dev/null || echo 0)")
    # Phase ends: "fmvgen: scan phase NAME: cpu self S children C" (cumulative).
    # (An fmvgen before FMVGEN_SCAN_PHASES prints none: no breakdown then.)
    local b p a
    read -r b p a <<< "$(awk '/scan phase build:/ {b = $7 + $9} /scan phase probe-ingest:/ {p = $7 + $9}
                              /scan phase analyze:/ {a = $7 + $9}
                              END {if (p == "") p = b; print b, p, a}' "$WORK/scan.err")"   # --no-probe: no probe phases
    if [ -n "$a" ]; then
      ph_b+=("$b"); ph_p+=("$(echo "$p - $b" | bc -l)"); ph_a+=("$(echo "$a - $p" | bc -l)")
      ph_r+=("$(echo "$cpu - $a" | bc -l)")
    fi
  }
  configure_in "$WORK/warm" >/dev/null && (cd "$WORK/warm" && make -s -j"$JOBS" >/dev/null 2>&1)   # warm the caches
  for ((i = 0; i < RUNS; i++)); do
    CONF_P+=("$(configure_in "$WORK/plain")")
    (cd "$WORK/plain" && "$TIME" -o "$WORK/make.time" -f '%e %U %S' make -j"$JOBS" >/dev/null 2>&1) ||
      { echo "scan_overhead: the plain build failed" >&2; exit 1; }
    MAKE_P+=("$(cpu_of "$WORK/make.time")")
    # With a baseline, the two scans take turns going first.
    if [ -n "$BASELINE" ] && ((i % 2)); then scan_round "$BASELINE" _B; scan_round "$FMVGEN" ""
    else scan_round "$FMVGEN" ""; [ -z "$BASELINE" ] || scan_round "$BASELINE" _B; fi
  done
  DB="$WORK/scan/.fmvgen/store.sqlite"
  ncomp=$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE exit_status=0" 2>/dev/null || echo "?")
  nprobe=$(sqlite3 "$DB" "SELECT count(DISTINCT path) FROM record_files WHERE variant LIKE 'probe:%'" 2>/dev/null || echo "?")
  cp=$(median "${CONF_P[@]}"); mp=$(median "${MAKE_P[@]}")
  ccver=$(${CC:-cc} --version 2>/dev/null | head -1)
  printf 'project: %s (autotools; %s compiles, %s probe compiles), configure %s, make -j%s, scan %s, %s runs each (medians), cc: %s\n' \
    "$(basename "$PROJECT")" "$ncomp" "$nprobe" "${CONF_ARGS:-(no args)}${CFLAGS_SET:+ CFLAGS=$CFLAGS_B}" "$JOBS" \
    "${SCAN_ARGS:-(defaults)}" "$RUNS" "$ccver"
  printf '%-48s %9s %6s\n' "" "CPU" "ratio"
  printf '%-48s %8.2fs\n' "configure (plain side)" "$cp"
  printf '%-48s %8.2fs %5.2fx\n' "make, plain" "$mp" 1
  printf '%-48s %8.2fs %5.2fx\n' "configure + make, plain" "$(echo "$cp + $mp" | bc -l)" 1
  # report_scan LABEL SUFFIX: the rows of one fmvgen's scans.
  report_scan() {
    local label=$1 sfx=$2
    local -n conf_s=CONF_S$sfx scan_s=SCAN_S$sfx a2l=A2L$sfx ph_b=PH_BUILD$sfx ph_p=PH_PROBES$sfx \
      ph_a=PH_ANALYZE$sfx ph_r=PH_REST$sfx
    local cs ss
    cs=$(median "${conf_s[@]}"); ss=$(median "${scan_s[@]}")
    printf '%s\n' "$label"
    printf '%-48s %8.2fs\n' "  configure (scan side)" "$cs"
    printf '%-48s %8.2fs %5.2fx\n' "  fmvgen scan -- make" "$ss" "$(echo "$ss / $mp" | bc -l)"
    if [ -n "${ph_b[*]:-}" ]; then
      printf '%-48s %8.2fs %5.2fx\n' "    the build inside the scan" "$(median "${ph_b[@]}")" "$(echo "$(median "${ph_b[@]}") / $mp" | bc -l)"
      printf '%-48s %8.2fs %5.2fx\n' "    records, probes (compiles), their records" "$(median "${ph_p[@]}")" "$(echo "$(median "${ph_p[@]}") / $mp" | bc -l)"
      printf '%-48s %8.2fs %5.2fx\n' "    analysis (libclang, candidates)" "$(median "${ph_a[@]}")" "$(echo "$(median "${ph_a[@]}") / $mp" | bc -l)"
      printf '%-48s %8.2fs %5.2fx\n' "    rest (summary, closing the store)" "$(median "${ph_r[@]}")" "$(echo "$(median "${ph_r[@]}") / $mp" | bc -l)"
    fi
    printf '%-48s %8.2fs %5.2fx\n' "    of these, addr2line (all runs, from a shim)" "$(median "${a2l[@]}")" "$(echo "$(median "${a2l[@]}") / $mp" | bc -l)"
    printf '%-48s %8.2fs %5.2fx\n' "  configure + fmvgen scan -- make" "$(echo "$cs + $ss" | bc -l)" "$(echo "($cs + $ss) / ($cp + $mp)" | bc -l)"
    local pr=() pc=() k
    for ((k = 0; k < RUNS; k++)); do
      pr+=("$(echo "${scan_s[k]} / ${MAKE_P[k]}" | bc -l)")
      pc+=("$(echo "(${conf_s[k]} + ${scan_s[k]}) / (${CONF_P[k]} + ${MAKE_P[k]})" | bc -l)")
    done
    printf '  paired by round (median): make %.2fx (%s), configure + make %.2fx (%s)\n' "$(median "${pr[@]}")" \
      "$(printf '%.2f ' "${pr[@]}")" "$(median "${pc[@]}")" "$(printf '%.2f ' "${pc[@]}")"
    printf '  runs (CPU s): configure %s| scan %s\n' "$(printf '%s ' "${conf_s[@]}")" "$(printf '%s ' "${scan_s[@]}")"
  }
  report_scan "scan with $FMVGEN" ""
  [ -z "$BASELINE" ] || report_scan "scan with --baseline $BASELINE (same rounds)" _B
  printf 'runs (CPU s): configure %s| make %s\n' "$(printf '%s ' "${CONF_P[@]}")" "$(printf '%s ' "${MAKE_P[@]}")"
  exit 0
fi
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
    probe) timed "$WORK/outer.time" "$FMVGEN" scan -j "$JOBS" "${SARGS[@]}" -- "${INNER[@]}" ;;
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
wp=$(median "${W_PLAIN[@]}"); cp=$(median "${C_PLAIN[@]}")
ws=$(median "${W_SCAN[@]}"); cs=$(median "${C_SCAN[@]}")
wq=$(median "${W_PROBE[@]}"); cq=$(median "${C_PROBE[@]}")
wbs=$(median "${WB_SCAN[@]}"); cbs=$(median "${CB_SCAN[@]}")
wbq=$(median "${WB_PROBE[@]}"); cbq=$(median "${CB_PROBE[@]}")
# Probe compiles per TU: one at the widest target, plus -O3 for -O2 TUs with --o3.
NPROBE=1
case " $CFLAGS_B | $SCAN_ARGS " in *" -O2 "*"--o3"*) NPROBE=2 ;; esac
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
