#!/usr/bin/env bash
# Runs every libFuzzer target of a FMVGEN_FUZZ=ON build for a set time.
#   scripts/run-fuzz.sh BUILD_DIR SECONDS [JOBS] [READER...]
# Each target fuzz_<reader> starts from its seeds tests/fuzz/<reader>/ and
# the crashes fixed before (tests/fuzz/regressions/<reader>/); what it
# learns goes to a scratch corpus under BUILD_DIR/fuzz-corpus/<reader>
# (kept between runs, never the seed folder), with the dictionary
# tests/fuzz/<reader>.dict when there is one. JOBS targets run at once.
# A crash, leak, UB report or timeout leaves its input in
# BUILD_DIR/fuzz-artifacts/<reader>/ and makes the script exit 1: fix the
# reader, then add the input to tests/fuzz/regressions/<reader>/.
# Prints the executions per target.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS [JOBS] [READER...]}
seconds=${2:?usage: run-fuzz.sh BUILD_DIR SECONDS [JOBS] [READER...]}
jobs=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
readers=("$@")
if [ ${#readers[@]} -eq 0 ]; then
  for t in "$build"/tests/fuzz/fuzz_*; do
    [ -x "$t" ] && readers+=("${t##*/fuzz_}")
  done
fi
[ ${#readers[@]} -gt 0 ] || { echo "run-fuzz: no fuzz targets in $build/tests/fuzz (configure with -DFMVGEN_FUZZ=ON)" >&2; exit 1; }

export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1
run_one() {
  local r=$1 corpus="$build/fuzz-corpus/$1" art="$build/fuzz-artifacts/$1" log="$build/fuzz-logs/$1.log"
  mkdir -p "$corpus" "$art" "$build/fuzz-logs"
  local dirs=("$corpus" "tests/fuzz/$r")
  [ -d "tests/fuzz/regressions/$r" ] && dirs+=("tests/fuzz/regressions/$r")
  local dict=()
  [ -f "tests/fuzz/$r.dict" ] && dict=(-dict="tests/fuzz/$r.dict")
  "$build/tests/fuzz/fuzz_$r" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dict[@]}" -artifact_prefix="$art/" "${dirs[@]}" >"$log" 2>&1
  local rc=$? execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ $rc -eq 0 ]; then
    printf 'fuzz_%-12s %9s executions in %ss, no crash\n' "$r" "${execs:-?}" "$seconds"
  else
    printf 'fuzz_%-12s FAILED (exit %d) after %s executions: see %s, input in %s\n' "$r" $rc "${execs:-?}" "$log" "$art" >&2
    grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" >&2
  fi
  return $rc
}

failed=0
pids=()
for r in "${readers[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$r" ] || { echo "run-fuzz: no target fuzz_$r in $build" >&2; failed=1; continue; }
  run_one "$r" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit $failed
