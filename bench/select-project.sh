#!/usr/bin/env bash
# select-project.sh - `fmvgen select` on a real project, then an independent
# check of its verdict (issue 4, "How it will be checked"): four builds of
# the project are made here, each in its own copy -
#   baseline  the project as scanned
#   selected  + .fmvgen/selected.patch (what select chose)
#   all       + the all-candidates patch (`fmvgen patch`, default targets)
#   v3        the whole program at -march=x86-64-v3 (what a glibc-hwcaps
#             package would ship as its second build)
# - and every workload is timed on all four, interleaved (the order rotates
# each round), N times; medians and ratios to the baseline are printed - of
# the wall time (what select times) and of the CPU time (user+sys of the
# workload's processes, which waits for a busy CPU do not inflate) -, with
# each build's stdout compared with the baseline's, --test run on each
# build, the .text bytes of the built ELF files, and whether select's own
# end-to-end interval (report.json) contains the independent ratio.
#
# usage: bench/select-project.sh [options] PROJECT
#   --build CMD       the rebuild command select runs in its copies (required)
#   --run CMD         a workload, run by sh in the build's directory (repeatable, required)
#   --test CMD        the project's tests: select's --test, and run on each build here
#   --scan CMD        scan PROJECT first (`fmvgen scan -- sh -c CMD`, in PROJECT);
#                     without it PROJECT must hold a scan (.fmvgen/)
#   --build-dir SUB   the scanned build directory is PROJECT/SUB (e.g. build for
#                     `cd build && cmake .. && make`): the scan, select, the
#                     builds, the workloads and the tests run there (as select
#                     runs them in its copy of it); the patches apply to PROJECT
#   --runs N          select's --runs (default 5)
#   -n N              independent runs per build and workload (default 7)
#   --v3-build CMD    how to build the -march=x86-64-v3 copy (default: --build
#                     with CFLAGS and CXXFLAGS="-O3 -march=x86-64-v3" in the
#                     environment, every source touched first; give e.g.
#                     'cmake -DCMAKE_C_FLAGS=-march=x86-64-v3 . && make' for CMake)
#   --select-arg ARG  one more argument for select (repeatable), e.g. --tolerance
#   --reuse           do not run select: check its last results in PROJECT/.fmvgen
#   --elf PATH        an ELF file (relative to the build dir, PROJECT/SUB) whose .text to
#                     report (repeatable; default: the sum over every ELF
#                     executable and shared object in the build)
#   --out FILE        also write everything printed to FILE
#   --keep            keep the four builds (and their build/test logs); say where
# Environment: FMVGEN (default: build/src/fmvgen of this tree).
#
# Select runs in PROJECT itself (it writes only PROJECT/.fmvgen); the four
# builds go to a temp dir, removed at the end. A CMake build directory is
# moved into each copy (cache paths rewritten, `cmake .`), as select does.
# The machine is shared: the ratios and the interleaving are what make the
# figures comparable; run it when idle for tight ones.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$here/build/src/fmvgen}
build_cmd= test_cmd= scan_cmd= v3_cmd= out= reuse=0 keep=0 sruns=5 n=7 project= sub=.
runs=() select_args=() elfs=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build_cmd=$2; shift 2 ;;
    --run) runs+=("$2"); shift 2 ;;
    --test) test_cmd=$2; shift 2 ;;
    --scan) scan_cmd=$2; shift 2 ;;
    --build-dir) sub=$2; shift 2 ;;
    --runs) sruns=$2; shift 2 ;;
    -n) n=$2; shift 2 ;;
    --v3-build) v3_cmd=$2; shift 2 ;;
    --select-arg) select_args+=("$2"); shift 2 ;;
    --reuse) reuse=1; shift ;;
    --elf) elfs+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "select-project: unknown option $1" >&2; exit 2 ;;
    *) project=$1; shift ;;
  esac
done
die() { echo "select-project: $*" >&2; exit 1; }
[ -n "$project" ] && [ -d "$project" ] || die "give a PROJECT directory (see --help)"
[ -n "$build_cmd" ] || die "--build CMD is required"
[ ${#runs[@]} -gt 0 ] || die "give at least one --run CMD"
[ -x "$FMVGEN" ] || die "$FMVGEN: not built (set FMVGEN)"
project=$(cd "$project" && pwd)
if [ -n "$out" ]; then
  out=$(realpath -m "$out")
  exec > >(tee "$out") 2>&1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/select-project.XXXXXX")
if [ "$keep" = 1 ]; then trap 'echo "kept $work"' EXIT; else trap 'rm -rf "$work"' EXIT; fi
now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", (b - a) / 1e9}'; }

echo "== project $project ($(cd "$project" && git rev-parse --short HEAD 2>/dev/null || echo 'not a git tree'))"
echo "== build: $build_cmd (cc: $(cc --version | head -1)); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -d "$project/$sub" ] || die "$project/$sub: no such build directory"
cd "$project/$sub"
if [ -n "$scan_cmd" ]; then
  t0=$(now)
  "$FMVGEN" scan -- sh -c "$scan_cmd" >"$work/scan.log" 2>&1 || { tail -20 "$work/scan.log"; die "scan failed"; }
  echo "== fmvgen scan: $(secs "$t0" "$(now)") s"
  grep -E '^(compiles|candidates):' "$work/scan.log" || true
fi
[ -d .fmvgen ] || die "$project/$sub: no .fmvgen/ here; scan it first (or pass --scan CMD)"

if [ "$reuse" = 0 ]; then
  args=(--build "$build_cmd" --runs "$sruns")
  for r in "${runs[@]}"; do args+=(--run "$r"); done
  [ -z "$test_cmd" ] || args+=(--test "$test_cmd")
  args+=("${select_args[@]}")
  echo "== fmvgen select --runs $sruns (${#runs[@]} workload(s))"
  t0=$(now)
  rc=0
  "$FMVGEN" select "${args[@]}" >"$work/select.out" 2>"$work/select.err" || rc=$?
  echo "select: exit $rc, $(secs "$t0" "$(now)") s wall"
  [ "$rc" = 0 ] || { cat "$work/select.err"; die "select failed"; }
  grep -E '^  yes|^end to end|selected; builds|^note' "$work/select.out" || true
fi
[ -f .fmvgen/report.json ] && [ -f .fmvgen/selected.patch ] || die "no .fmvgen/report.json and selected.patch from select"
cp .fmvgen/report.json "$work/report.json"
"$FMVGEN" patch -o "$work/all.patch" >/dev/null 2>&1 || die "fmvgen patch failed"
jq -r '"select: \(.builds) builds, \([.functions[] | select(.selected)] | length) of \(.functions | length) candidates selected (\(.patch_targets // "none")); \(.profiled_runs) profiled + \(.timed_runs) timed runs"' "$work/report.json"

# ---- the four builds ----
# A copied CMake build directory still names PROJECT: move it (as
# lib/measure/build.c does for select's copies).
relocate_cmake() {   # COPY-ROOT: its build dir (SUB) moved from PROJECT
  local dir="$1/$sub" old from to
  [ -f "$dir/CMakeCache.txt" ] || return 0
  old=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$dir/CMakeCache.txt")
  [ -n "$old" ] && [ "$old" != "$(cd "$dir" && pwd)" ] || return 0
  # A build dir below the root moves with the root (the cache names the sources too).
  from=$old to=$(cd "$dir" && pwd)
  if [ "$sub" != . ] && [ "${old%/"$sub"}" != "$old" ]; then from=${old%/"$sub"} to=$1; fi
  # The compiler entries stay: a tree configured inside the scan caches fmvgen's
  # wrapper below the build dir, and a changed compiler makes `cmake .` wipe
  # the cache (CMAKE_BUILD_TYPE and every -D lost: an -O0 build).
  sed -i "/^CMAKE_[A-Za-z_]*COMPILER[A-Z_]*:/!s#$from\([/;\" ]\|\$\)#$to\1#g" "$dir/CMakeCache.txt"
  if ! (cd "$dir" && cmake . >"$1.relocate.log" 2>&1) || grep -q 'cache to be deleted' "$1.relocate.log"; then
    cat "$1.relocate.log"; die "$dir: the moved CMake cache did not survive 'cmake .'"
  fi
}
variant() {   # NAME PATCH BUILD-CMD [v3]
  local dir="$work/$1"
  cp -a "$project/." "$dir"
  relocate_cmake "$dir"
  [ -z "$2" ] || (cd "$dir" && patch -s -p1 <"$2") || die "$1: the patch does not apply"
  if [ "${4:-}" = v3 ] && [ -z "$v3_cmd" ]; then
    find "$dir" -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx' \) -exec touch {} +
    (cd "$dir/$sub" && CFLAGS="-O3 -march=x86-64-v3" CXXFLAGS="-O3 -march=x86-64-v3" sh -c "$3") >"$work/$1.build.log" 2>&1
  else
    (cd "$dir/$sub" && sh -c "$3") >"$work/$1.build.log" 2>&1
  fi || { tail -20 "$work/$1.build.log"; die "$1: the build failed"; }
}
names=(baseline selected all v3)
t0=$(now)
variant baseline "" "$build_cmd"
variant selected "$project/$sub/.fmvgen/selected.patch" "$build_cmd"
variant all "$work/all.patch" "$build_cmd"
variant v3 "" "${v3_cmd:-$build_cmd}" v3
echo "== built baseline, selected, all, v3 here: $(secs "$t0" "$(now)") s"

# ---- interleaved timing ----
declare -A times cpu same tests
for b in "${names[@]}"; do tests[$b]=${tests[$b]:--}; done
if [ -n "$test_cmd" ]; then
  for b in "${names[@]}"; do
    if (cd "$work/$b/$sub" && sh -c "$test_cmd") >"$work/$b.test.log" 2>&1; then tests[$b]=pass; else tests[$b]=FAIL; fi
  done
fi
for ((w = 0; w < ${#runs[@]}; w++)); do
  for b in "${names[@]}"; do times[$w.$b]=""; cpu[$w.$b]=""; same[$w.$b]=same; done
done
for ((r = 0; r < n; r++)); do
  for ((w = 0; w < ${#runs[@]}; w++)); do
    for ((k = 0; k < ${#names[@]}; k++)); do
      b=${names[$(((k + r) % ${#names[@]}))]}
      t0=$(now)
      (cd "$work/$b/$sub" && /usr/bin/time -f '%U %S' -o "$work/cpu" sh -c "${runs[$w]}") >"$work/out.$w.$b" 2>/dev/null ||
        same[$w.$b]=FAILED
      times[$w.$b]+="$(($(now) - t0)) "
      cpu[$w.$b]+="$(awk '{printf "%d", ($1 + $2) * 1e9}' "$work/cpu") "
      [ "$r" -gt 0 ] || cp "$work/out.$w.$b" "$work/first.$w.$b"
      [ "$r" != 1 ] || [ "$b" != baseline ] || cp "$work/out.$w.$b" "$work/second.$w.baseline"
    done
  done
done
# Outputs: each build's first run against the baseline's, except the lines
# that differ between the baseline's first two runs (a benchmark's timings),
# as select compares them; a differing line count compares everything.
same_output() {   # W B
  local base="$work/first.$1.baseline" got="$work/first.$1.$2" again="$work/second.$1.baseline"
  cmp -s "$got" "$base" && { echo same; return; }
  [ -f "$again" ] || { echo DIFFERENT; return; }
  awk -v A="$again" -v G="$got" '
    { b[FNR] = $0; nb = FNR }
    END {
      na = 0; while ((getline l < A) > 0) a[++na] = l
      ng = 0; while ((getline l < G) > 0) g[++ng] = l
      if (na != nb || ng != nb) { print "DIFFERENT"; exit }
      masked = 0
      for (i = 1; i <= nb; i++) {
        if (a[i] != b[i]) { masked++; continue }
        if (g[i] != b[i]) { print "DIFFERENT (line " i ")"; exit }
      }
      print "same (" masked " varying lines masked)"
    }' "$base"
}
for ((w = 0; w < ${#runs[@]}; w++)); do
  for b in "${names[@]}"; do
    [ "$b" = baseline ] || [ "${same[$w.$b]}" = FAILED ] || same[$w.$b]=$(same_output "$w" "$b")
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

text_bytes() {   # DIR: .text bytes of the ELF files asked for, or of all
  local dir=$1 f total=0 t
  if [ ${#elfs[@]} -gt 0 ]; then
    for f in "${elfs[@]}"; do
      t=$(size -A "$dir/$sub/$f" 2>/dev/null | awk '$1==".text"{print $2}')
      total=$((total + ${t:-0}))
    done
  else
    while IFS= read -r -d '' f; do
      [ "$(head -c4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] || continue
      readelf -h "$f" 2>/dev/null | grep -qE 'Type:[[:space:]]+(EXEC|DYN)' || continue
      t=$(size -A "$f" 2>/dev/null | awk '$1==".text"{print $2}')
      total=$((total + ${t:-0}))
    done < <(find "$dir" -path "$dir/.fmvgen" -prune -o -type f \( -perm -u+x -o -name '*.so*' \) -print0)
  fi
  echo "$total"
}
declare -A text
for b in "${names[@]}"; do text[$b]=$(text_bytes "$work/$b"); done

echo "== independent timing: median of $n interleaved runs per build"
for ((w = 0; w < ${#runs[@]}; w++)); do
  echo "-- workload $((w + 1)): ${runs[$w]}"
  base=$(median <<<"${times[$w.baseline]}") cbase=$(median <<<"${cpu[$w.baseline]}")
  printf '%-9s %9s %9s %9s %9s %11s %6s %s\n' build wall-s speedup cpu-s speedup text-bytes tests output
  for b in "${names[@]}"; do
    m=$(median <<<"${times[$w.$b]}") c=$(median <<<"${cpu[$w.$b]}")
    awk -v b="$b" -v m="$m" -v base="$base" -v c="$c" -v cb="$cbase" -v t="${text[$b]}" -v tt="${tests[$b]}" \
      -v s="${same[$w.$b]}" 'BEGIN {printf "%-9s %9.4f %8.3fx %9.3f %8.3fx %11d %6s %s\n", b, m/1e9, base/m, c/1e9,
      (c > 0) ? cb/c : 0, t, tt, s}'
  done
  sel=$(median <<<"${times[$w.selected]}"); all=$(median <<<"${times[$w.all]}"); v3=$(median <<<"${times[$w.v3]}")
  csel=$(median <<<"${cpu[$w.selected]}"); call=$(median <<<"${cpu[$w.all]}"); cv3=$(median <<<"${cpu[$w.v3]}")
  # select's wall-time interval against the independent wall ratio, and its
  # CPU-time interval against the independent CPU ratio (on a loaded
  # machine the wall times measure mostly the load)
  jq -r --argjson w "$w" --arg ind "$(awk -v a="$base" -v b="$sel" 'BEGIN {print a/b}')" \
        --arg indcpu "$(awk -v a="$cbase" -v b="$csel" 'BEGIN {print (b > 0) ? a/b : 0}')" '
    def verdict($kind; $e; $i):
      if $e == null or ($e.valid | not) then "select end to end (\($kind)): no interval (\(.workloads[$w].failure // "not timed"))"
      else "select end to end (\($kind)): \($e.speedup * 1000 | round / 1000)x [\($e.speedup_low * 1000 | round / 1000), \(($e.speedup_high // infinite) * 1000 | round / 1000)]; independent \($i * 1000 | round / 1000)x: "
        + (if $i >= $e.speedup_low and ($e.speedup_high == null or $i <= $e.speedup_high) then "inside the interval" else "OUTSIDE the interval" end)
      end;
    verdict("wall"; .workloads[$w].end_to_end; $ind | tonumber),
    verdict("cpu"; .workloads[$w].end_to_end_cpu; $indcpu | tonumber)' "$work/report.json"
  awk -v s="$sel" -v a="$all" -v v="$v3" -v cs="$csel" -v ca="$call" -v cv="$cv3" 'BEGIN {
    printf "selected vs all-candidates: %.3fx wall, %.3fx cpu (>= 1 wanted); selected vs -march=x86-64-v3: %.3fx wall, %.3fx cpu\n",
      a/s, (cs > 0) ? ca/cs : 0, v/s, (cs > 0) ? cv/cs : 0}'
done
awk -v s="${text[selected]}" -v a="${text[all]}" -v b="${text[baseline]}" -v v="${text[v3]}" \
  'BEGIN {printf "code: selected adds %d bytes of .text to the baseline, all-candidates %d (selected = %.0f%% of that); the -march=x86-64-v3 build is a second copy of %d bytes\n", s-b, a-b, (a>b) ? 100*(s-b)/(a-b) : 0, v}'
for b in "${names[@]}"; do
  [ "${tests[$b]}" != FAIL ] || { echo "-- $b: the tests failed; the end of their log:"; tail -5 "$work/$b.test.log"; }
done
