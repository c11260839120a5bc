#!/usr/bin/env bash
# kernel-table.sh - interleaved CPU-time ratios of several builds of one
# project on a list of commands (e.g. one kernel or one test per command):
# per command and build the ratio baseline/build of the geometric means of
# the CPU times, with a Welch 95% interval on log times, and whether the
# command's stdout matches the baseline's; over all commands the geometric
# mean per build and how many commands each build runs slower than the
# baseline beyond the interval. It builds nothing: give it build trees made
# before (e.g. the builds `bench/o2-table.sh --keep` / `fmvgen select --keep`
# leave in select's work dir: WORK/baseline, WORK/selected,
# WORK/reference-v3-nofma, WORK/reference-v3).
#
# usage: bench/kernel-table.sh [options] --build NAME=DIR... --cmds FILE
#   --build NAME=DIR   a build tree (repeatable, >= 2; the first is the baseline)
#   --cmds FILE        one command per line: LABEL COMMAND... (the first word
#                      labels the row; the rest is run by sh); blank lines
#                      and lines starting with # are skipped
#   --project PATH     run each build as PATH: fmvgen-ns mounts the build's
#                      DIR at PATH for the command, as o2-table runs it
#                      (without it the command runs in DIR itself)
#   --sub SUB          run the commands in PATH/SUB (or DIR/SUB) (default .)
#   --compare A/B      also print, per command, time(A)/time(B) with its
#                      interval (above 1: B is faster) (repeatable)
#   -n N               timed runs per build and command (default 5)
#   --out FILE         also write everything printed to FILE
# Each round runs every command on every build, the build order rotating
# each round, so a load change hits all builds alike. CPU time is user+sys
# of the command and its children (bash's time, in ms): waits for a shared
# CPU do not count. Environment: FMVGEN_NS (default: fmvgen-ns of this tree's build).
# The geometric mean's interval treats the commands as fixed and only their
# measurement noise as random (Welch-Satterthwaite degrees of freedom).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN_NS=${FMVGEN_NS:-$here/build/src/fmvgen-ns}
n=5 cmds='' project='' sub=. out=''
names=() compares=()
declare -A dir
die() { echo "kernel-table: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case $1 in --build|--cmds|--project|--sub|--compare|-n|--out) [ $# -ge 2 ] || die "$1 wants a value" ;; esac
  case $1 in
    --build) [[ $2 == ?*=?* ]] || die "--build wants NAME=DIR, not '$2'"
             b=${2%%=*}; [ -z "${dir[$b]+x}" ] || die "build $b given twice"
             [ -d "${2#*=}" ] || die "${2#*=}: no such build directory"
             names+=("$b"); dir[$b]=$(cd "${2#*=}" && pwd); shift 2 ;;
    --cmds) cmds=$2; shift 2 ;;
    --project) project=$2; shift 2 ;;
    --sub) sub=$2; shift 2 ;;
    --compare) compares+=("$2"); shift 2 ;;
    -n) n=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[ ${#names[@]} -ge 2 ] || die "give at least two --build NAME=DIR (the first is the baseline)"
[ -n "$cmds" ] && [ -r "$cmds" ] || die "give --cmds FILE (readable)"
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] || die "-n wants a number >= 2, not '$n'"
for c in "${compares[@]}"; do
  [[ $c == ?*/?* ]] && [ -n "${dir[${c%%/*}]+x}" ] && [ -n "${dir[${c#*/}]+x}" ] ||
    die "--compare $c: want A/B, two of the builds (${names[*]})"
done
if [ -n "$project" ]; then
  [ -d "$project" ] || die "$project: no such directory"
  project=$(cd "$project" && pwd)
  [ -x "$FMVGEN_NS" ] || die "$FMVGEN_NS: not built (set FMVGEN_NS)"
fi
labels=() lines=()
while IFS= read -r line || [ -n "$line" ]; do
  [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
  read -r label rest <<<"$line"
  [ -n "$rest" ] || die "$cmds: line '$line' has a label but no command"
  labels+=("$label"); lines+=("$rest")
done <"$cmds"
[ ${#labels[@]} -gt 0 ] || die "$cmds: no commands"
if [ -n "$out" ]; then
  out=$(realpath -m "$out")
  exec > >(tee "$out") 2>&1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kernel-table.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "== $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); ${#labels[@]} commands, $n interleaved runs per build"
for b in "${names[@]}"; do echo "== build $b: ${dir[$b]}"; done
[ -z "$project" ] || echo "== each build run as $project (fmvgen-ns), in $sub"

run_one() {   # BUILD CMD-INDEX OUTFILE: CPU seconds on stdout, or FAILED
  # bash's time keyword: user and sys of the command and its children in
  # milliseconds (/usr/bin/time prints 10 ms steps)
  local b=$1 c=$2 rc=0 TIMEFORMAT='%3U %3S'
  if [ -n "$project" ]; then
    { time "$FMVGEN_NS" --bind "${dir[$b]}" "$project" -- \
        sh -c "cd '$project/$sub' && ${lines[$c]}" >"$3" 2>/dev/null || rc=$?; } 2>"$tmp/cpu"
  else
    { time sh -c "cd '${dir[$b]}/$sub' && ${lines[$c]}" >"$3" 2>/dev/null || rc=$?; } 2>"$tmp/cpu"
  fi
  [ "$rc" = 0 ] || { echo FAILED; return; }
  awk 'END {printf "%.4f", $1 + $2}' "$tmp/cpu"
}

declare -A cpu same
for ((c = 0; c < ${#labels[@]}; c++)); do for b in "${names[@]}"; do cpu[$c.$b]=""; same[$c.$b]=same; done; done
for ((r = 0; r < n; r++)); do
  for ((c = 0; c < ${#labels[@]}; c++)); do
    for ((k = 0; k < ${#names[@]}; k++)); do
      b=${names[$(((k + r + c) % ${#names[@]}))]}
      t=$(run_one "$b" "$c" "$tmp/out")
      if [ "$t" = FAILED ]; then same[$c.$b]=FAILED; continue; fi
      cpu[$c.$b]+="$t "
      [ "$r" -gt 0 ] || cp "$tmp/out" "$tmp/first.$c.$b"
    done
  done
  echo "   round $((r + 1)) of $n done $(date -u +%H:%MZ), load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
for ((c = 0; c < ${#labels[@]}; c++)); do
  for b in "${names[@]}"; do
    [ "${same[$c.$b]}" = FAILED ] && continue
    cmp -s "$tmp/first.$c.$b" "$tmp/first.$c.${names[0]}" 2>/dev/null || same[$c.$b]=DIFFERENT
  done
done

source "$(dirname "${BASH_SOURCE[0]}")/lib/stats.sh"

base=${names[0]}
others=("${names[@]:1}")
echo "== CPU time; ratio = $base / build (above 1: faster) of geometric means, [Welch 95% on log times]; '!' = output differs from $base's or the command failed"
hdr=$(printf '%-12s %8s' command "$base-s")
for b in "${others[@]}"; do hdr+=$(printf '  %-26s' "$b"); done
for c in "${compares[@]}"; do hdr+=$(printf '  %-26s' "$c"); done
echo "$hdr"
declare -A sumd sumv sumq slower faster
declare -A cnt
for k in "${others[@]}" "${compares[@]}"; do sumd[$k]=0; sumv[$k]=0; sumq[$k]=0; slower[$k]=""; faster[$k]=0; cnt[$k]=0; done
ok=0
for ((c = 0; c < ${#labels[@]}; c++)); do
  row=$(printf '%-12s %8.3f' "${labels[$c]}" "$(median <<<"${cpu[$c.$base]:-0}")")
  bad=
  for b in "${names[@]}"; do [ "${same[$c.$b]}" = same ] || bad=1; done
  [ -n "$bad" ] || ok=$((ok + 1))
  for k in "${others[@]}" "${compares[@]}"; do
    case $k in */*) A=${k%%/*} B=${k#*/} ;; *) A=$base B=$k ;; esac
    if [ "${same[$c.$A]}" = FAILED ] || [ "${same[$c.$B]}" = FAILED ]; then
      row+=$(printf '  %-26s' FAILED); continue
    fi
    read -r rr lo hi d v q < <(ratio "${cpu[$c.$A]}" "${cpu[$c.$B]}")
    mark=" "; [ "${same[$c.$A]}" = same ] && [ "${same[$c.$B]}" = same ] || mark="!"
    cnt[$k]=$((cnt[$k] + 1))
    row+=$(printf '  %6.3fx [%6.3f, %6.3f]%s' "$rr" "$lo" "$hi" "$mark")
    sumd[$k]=$(awk -v a="${sumd[$k]}" -v b="$d" 'BEGIN {print a + b}')
    sumv[$k]=$(awk -v a="${sumv[$k]}" -v b="$v" 'BEGIN {print a + b}')
    sumq[$k]=$(awk -v a="${sumq[$k]}" -v b="$q" 'BEGIN {print a + b}')
    awk -v h="$hi" 'BEGIN {exit !(h < 1)}' && slower[$k]+="${labels[$c]} "
    awk -v l="$lo" 'BEGIN {exit !(l > 1)}' && faster[$k]=$((faster[$k] + 1))
  done
  echo "$row"
done
K=${#labels[@]}
echo "== over $K commands ($ok with every build's output the same as $base's):"
for k in "${others[@]}" "${compares[@]}"; do
  case $k in */*) what="$k" ;; *) what="$base/$k" ;; esac
  awk -v w="$what" -v d="${sumd[$k]}" -v v="${sumv[$k]}" -v q="${sumq[$k]}" -v K="${cnt[$k]}" -v f="${faster[$k]}" -v s="${slower[$k]}" 'BEGIN {
    if (K == 0) { printf "  %-22s no command ran on both\n", w; exit }
    split("12.71 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ")
    df = q > 0 ? v ^ 2 / q : 1; if (df < 1) df = 1
    m = d / K; h = (df <= 20 ? t[int(df)] : (df <= 30 ? 2.05 : 1.98)) * sqrt(v) / K; ns = split(s, x, " ")
    printf "  %-22s geometric mean over %d: %.3fx [%.3f, %.3f]; faster beyond the interval on %d, slower beyond it on %d%s\n",
      w, K, exp(m), exp(m - h), exp(m + h), f, ns, ns ? " (" s ")" : "" }' | sed 's/ )/)/'
done
echo "== end $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
