#!/usr/bin/env bash
# o2-table.sh - the benchmark table of issue 9 on one project: what
# `fmvgen select` keeps, against the whole-program rebuilds a distribution
# could ship instead. Four builds, the ones select itself makes (so each is
# built exactly as select builds: in its private copy, the references'
# flags appended to every compile by fmvgen's compiler wrapper):
#   baseline   the project as scanned (e.g. -O2 -g)
#   selected   + .fmvgen/selected.patch (what select chose)
#   v3-nofma   the whole project once more with -march=x86-64-v3 -mno-fma
#   v3         the whole project once more with -march=x86-64-v3
# Every workload is then run on the four, interleaved (the build order
# rotates each round), N times, each run as the project itself (fmvgen-ns:
# the build's copy mounted at the project's path, as select runs it), and
# timed in CPU time (user+sys of the workload and its children, in
# microseconds: bench/lib/cputime.py; on a shared machine waits for the CPU
# do not count). Printed per workload: the median
# CPU seconds and, per build, the ratio baseline/build of the geometric
# means with its 95% interval (--test rank, the default: Hodges-Lehmann
# with the Mann-Whitney interval on log times, as select's end-to-end
# intervals; --test welch: the ratio of geometric means with Welch's
# interval on log times); whether stdout matches
# the baseline's (lines that differ between two baseline runs, a benchmark's
# own timings, left out as select leaves them: bench/lib/outputs.sh); the share of the v3 -mno-fma gain the selected build
# reaches ((sel-1)/(nofma-1); n/a where that gain is not significant:
# bench/lib/stats.sh gain_share); over all workloads the geometric means; and
# the code (allocated executable sections of every linked ELF of the build,
# not the build system's compiler checks in CMakeFiles/ or meson-private/)
# of each build, the selected build's growth against the baseline and that
# growth as a share of a second whole build (the v3 build's code: what
# glibc-hwcaps would ship beside the baseline).
#
# usage: bench/o2-table.sh [options] PROJECT
#   --build CMD        the rebuild command (select's --build; required)
#   --run CMD          a workload, run by sh in the build dir (repeatable; required)
#   --scan CMD         scan first: `fmvgen scan -j2 -- sh -c CMD` in the build dir
#   --build-dir SUB    the scanned build dir is PROJECT/SUB (default: PROJECT)
#   --runs N           select's --runs (default 5)
#   -n N               timed runs per build and workload (default 9)
#   --test rank|welch  the interval of each ratio (default rank, see above)
#   --select-arg ARG   one more argument for select (repeatable)
#   --reuse DIR        skip scan and select: use a kept select work dir DIR
#                      (select --keep) and PROJECT/SUB/.fmvgen/report.json
#   --out FILE         also write everything printed to FILE
#   --keep             keep select's work dir (its builds), for --reuse
# Environment: FMVGEN (default build/src/fmvgen of this tree); FMVGEN_NS
# (default: fmvgen-ns next to it).
# Select runs with --keep --reference v3,v3-nofma; its work dir is removed
# at the end unless --reuse named it. The machine may be shared: read the
# intervals, not only the medians.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$here/build/src/fmvgen}
FMVGEN_NS=${FMVGEN_NS:-$(dirname "$FMVGEN")/fmvgen-ns}
build_cmd= scan_cmd= out= reuse= sruns=5 n=9 project= sub=. test=rank
runs=() select_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build_cmd=$2; shift 2 ;;
    --run) runs+=("$2"); shift 2 ;;
    --scan) scan_cmd=$2; shift 2 ;;
    --build-dir) sub=$2; shift 2 ;;
    --runs) sruns=$2; shift 2 ;;
    -n) n=$2; shift 2 ;;
    --test) test=$2; shift 2 ;;
    --select-arg) select_args+=("$2"); shift 2 ;;
    --reuse) reuse=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep_work=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "o2-table: unknown option $1" >&2; exit 2 ;;
    *) project=$1; shift ;;
  esac
done
die() { echo "o2-table: $*" >&2; exit 1; }
[ -n "$project" ] && [ -d "$project" ] || die "give a PROJECT directory (see --help)"
[ -n "$reuse" ] || [ -n "$build_cmd" ] || die "--build CMD is required"
[ ${#runs[@]} -gt 0 ] || die "give at least one --run CMD"
case $test in rank|welch) ;; *) die "--test $test: give rank or welch" ;; esac
[ -x "$FMVGEN" ] || die "$FMVGEN: not built (set FMVGEN)"
[ -x "$FMVGEN_NS" ] || die "$FMVGEN_NS: not built (set FMVGEN_NS)"
project=$(cd "$project" && pwd)
[ -d "$project/$sub" ] || die "$project/$sub: no such build directory"
bdir=$(cd "$project/$sub" && pwd)
if [ -n "$out" ]; then
  out=$(realpath -m "$out")
  exec > >(tee "$out") 2>&1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/o2-table.XXXXXX")
work=
cleanup() { rm -rf "$tmp"; [ -n "$reuse" ] || [ -z "$work" ] || [ -n "${keep_work:-}" ] || rm -rf "$work"; }
trap cleanup EXIT

echo "== project $project ($(cd "$project" && git rev-parse --short HEAD 2>/dev/null || echo 'not a git tree')), build dir $sub"
echo "== $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); cc: $(cc --version | head -1)"
cd "$bdir"
if [ -z "$reuse" ]; then
  if [ -n "$scan_cmd" ]; then
    "$FMVGEN" scan -j2 -- sh -c "$scan_cmd" >"$tmp/scan.log" 2>&1 || { tail -20 "$tmp/scan.log"; die "scan failed"; }
    grep -E '^(compiles|candidates)' "$tmp/scan.log" || true
  fi
  [ -d .fmvgen ] || die "$bdir: no .fmvgen/ (scan it, or give --scan)"
  args=(--build "$build_cmd" --runs "$sruns" --keep --reference v3,v3-nofma)
  for r in "${runs[@]}"; do args+=(--run "$r"); done
  args+=("${select_args[@]}")
  echo "== fmvgen select ${args[*]}"
  rc=0
  "$FMVGEN" select "${args[@]}" >"$tmp/select.out" 2>"$tmp/select.err" || rc=$?
  work=$(sed -n 's/.*kept the temp directory \(.*\)$/\1/p' "$tmp/select.out" "$tmp/select.err" | tail -1)
  [ "$rc" = 0 ] || { cat "$tmp/select.err"; die "select failed (exit $rc)"; }
  grep -E '^  (yes|no) |^end to end|^code growth|selected; builds|candidates selected|^note|^calibration' "$tmp/select.out" || true
  [ -z "${keep_work:-}" ] || echo "== select's work dir kept: $work"
else
  work=$(cd "$reuse" && pwd)
fi
[ -n "$work" ] && [ -d "$work" ] || die "no kept select work dir found"
[ -f .fmvgen/report.json ] || die "no .fmvgen/report.json"
jq -r '"select: \([.functions[] | select(.selected)] | length) of \(.functions | length) candidates selected: \([.functions[] | select(.selected) | .name] | join(", "))"' .fmvgen/report.json

# ---- the builds select kept ----
names=(baseline selected v3-nofma v3)
declare -A dir
for b in "${names[@]}"; do
  d=$b
  case $b in v3) d=reference-v3 ;; v3-nofma) d=reference-v3-nofma ;; esac
  # in-tree: WORK/NAME is the root's copy; below the root: WORK/NAME/SUB
  if [ "$b" = selected ] && [ ! -d "$work/$d" ] &&
     [ "$(jq '[.functions[] | select(.selected)] | length' .fmvgen/report.json)" = 0 ]; then
    echo "== nothing selected: the selected build is the baseline"
    d=baseline
  fi
  [ -d "$work/$d" ] || die "$work/$d: select kept no $b build (did it build? see its report)"
  dir[$b]=$work/$d
done
in_copy() {   # BUILD: the build dir inside the copy
  if [ "$bdir" = "$project" ]; then echo "${dir[$1]}"; else echo "${dir[$1]}/$sub"; fi
}

code_bytes() {   # DIR: bytes of allocated executable sections of every linked ELF under DIR
  local total=0 f t
  while IFS= read -r -d '' f; do
    [ "$(head -c4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    readelf -h "$f" 2>/dev/null | grep -qE 'Type:[[:space:]]+(EXEC|DYN)' || continue
    for t in $(readelf -SW "$f" 2>/dev/null | awk '/^ *\[ *[0-9]+\]/ {
               sub(/^ *\[ *[0-9]+\] */, ""); if ($(NF-3) ~ /A/ && $(NF-3) ~ /X/) print $5 }'); do
      total=$((total + 16#$t))
    done
  done < <(find "$1" \( -path "$1/.fmvgen" -o -name CMakeFiles -o -name meson-private \) -prune -o \
             -type f \( -perm -u+x -o -name '*.so*' \) -print0)
  echo "$total"
}

# ---- interleaved CPU-time runs ----
source "$here/bench/lib/outputs.sh"
declare -A cpu same
for ((w = 0; w < ${#runs[@]}; w++)); do for b in "${names[@]}"; do cpu[$w.$b]=""; same[$w.$b]=same; done; done
for ((r = 0; r < n; r++)); do
  for ((w = 0; w < ${#runs[@]}; w++)); do
    for ((k = 0; k < ${#names[@]}; k++)); do
      b=${names[$(((k + r) % ${#names[@]}))]}
      bind=(--bind "${dir[$b]}" "$project")
      python3 "$here/bench/lib/cputime.py" "$tmp/cpu" "$FMVGEN_NS" "${bind[@]}" -- sh -c "cd '$bdir' && ${runs[$w]}" \
        >"$tmp/out.$w.$b" 2>/dev/null || same[$w.$b]=FAILED
      cpu[$w.$b]+="$(awk 'END {printf "%.4f", $1 + $2}' "$tmp/cpu") "
      [ "$r" -gt 0 ] || cp "$tmp/out.$w.$b" "$tmp/first.$w.$b"
      [ "$r" != 1 ] || [ "$b" != baseline ] || cp "$tmp/out.$w.$b" "$tmp/second.$w.$b"
    done
  done
done
for ((w = 0; w < ${#runs[@]}; w++)); do
  for b in "${names[@]}"; do
    [ "${same[$w.$b]}" = FAILED ] && continue
    # with one run there is no second baseline run: every line is compared
    [ -f "$tmp/second.$w.baseline" ] || cp "$tmp/first.$w.baseline" "$tmp/second.$w.baseline"
    same[$w.$b]=$(output_verdict "$tmp/first.$w.baseline" "$tmp/second.$w.baseline" "$tmp/first.$w.$b")
  done
done

source "$here/bench/lib/stats.sh"   # $here: absolute (the script cd-s before this line)

declare -A code
for b in "${names[@]}"; do code[$b]=$(code_bytes "$(in_copy "$b")"); done

cmp_ratio() { if [ "$test" = rank ]; then ratio_rank "$1" "$2"; else ratio "$1" "$2"; fi; }
what="geometric means, Welch 95% on log times"
[ "$test" = rank ] && what="Hodges-Lehmann estimates, Mann-Whitney 95% on log times"
echo "== CPU time, $n interleaved runs per build and workload; ratio = baseline / build (above 1: faster), $what"
sel_logs= nofma_logs= v3_logs= nofma_sig=0
for ((w = 0; w < ${#runs[@]}; w++)); do
  echo "-- workload $((w + 1)): ${runs[$w]}"
  printf '  %-9s %9s %26s %s\n' build cpu-s ratio output
  for b in "${names[@]}"; do
    read -r rr lo hi _ < <(cmp_ratio "${cpu[$w.baseline]}" "${cpu[$w.$b]}")
    printf '  %-9s %9.3f %8.3fx [%6.3f, %6.3f] %s\n' "$b" "$(median <<<"${cpu[$w.$b]}")" "$rr" "$lo" "$hi" "${same[$w.$b]}"
    case $b in selected) sr=$rr ;; v3-nofma) nr=$rr nl=$lo ;; v3) vr=$rr ;; esac
  done
  read -r svn svl svh _ < <(cmp_ratio "${cpu[$w.v3-nofma]}" "${cpu[$w.selected]}")
  share=$(gain_share "$sr" "$nr" "$nl")
  awk -v v="$vr" -v s="$sr" -v a="$svn" -v l="$svl" -v h="$svh" -v share="$share" 'BEGIN {
    printf "  selected vs v3-nofma %.3fx [%.3f, %.3f]; share of the v3-nofma gain reached: %s; selected vs v3: %.3fx\n",
      a, l, h, share, (v > 0) ? s / v : 0 }'
  sel_logs+="$sr " nofma_logs+="$nr " v3_logs+="$vr "
  awk -v l="$nl" 'BEGIN { exit !(l > 1.0) }' && nofma_sig=$((nofma_sig + 1))
done
read -r gs gf gv < <(awk -v S="$sel_logs" -v F="$nofma_logs" -v V="$v3_logs" 'BEGIN {
  k = split(S, s, " "); split(F, f, " "); split(V, v, " ")
  for (i = 1; i <= k; i++) { gs += log(s[i]); gf += log(f[i]); gv += log(v[i]) }
  printf "%.6f %.6f %.6f\n", exp(gs / k), exp(gf / k), exp(gv / k) }')
printf "== geometric mean over %d workload(s): selected %.3fx, v3-nofma %.3fx, v3 %.3fx; share of the v3-nofma gain: %s\n" \
  "${#runs[@]}" "$gs" "$gf" "$gv" "$(gain_share_geomean "$gs" "$gf" "$nofma_sig")"
awk -v b="${code[baseline]}" -v s="${code[selected]}" -v f="${code[v3-nofma]}" -v v="${code[v3]}" 'BEGIN {
  printf "== code (executable sections of the linked ELF files): baseline %d, selected %d, v3-nofma %d, v3 %d bytes\n", b, s, f, v
  printf "== code growth: selected +%d bytes = %.1f%% of the baseline, %.1f%% of a second whole build (the v3 build, %d bytes)\n",
    s - b, b ? 100 * (s - b) / b : 0, v ? 100 * (s - b) / v : 0, v }'
