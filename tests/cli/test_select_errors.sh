#!/bin/bash
# test_select_errors.sh - `fmvgen select` on bad input and failing variants
# (tests/fixtures/select-hot-cold, gcc): a workload failing on the baseline
# stops everything with its output shown; a hanging one is killed after
# --timeout; variants whose tests fail or whose outputs differ from the
# baseline's are reported and never selected (a function no set's build
# ran is "not measured"); a select whose every set's build fails stops
# before profiling; --static says nothing was
# timed and keeps the function whose clones use wider instructions. The temp
# directory is removed in every case.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
P=$(copy_fixture select-hot-cold)
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "scan failed"
sel() { (cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=gcc" "$@"); }

# A workload failing on the baseline: exit 1, its output shown, nothing written.
out=$(sel --run 'echo boom-on-stdout; echo boom-on-stderr >&2; exit 3' --runs 2 2>&1); rc=$?
expect_eq "failing workload: exit" "$rc" 1
expect_match "failing workload: error line" "$out" "fmvgen: .*workload 'echo boom.*' fails on the baseline \(exit status 3\)"
expect_match "failing workload: its stdout shown" "$out" "boom-on-stdout"
expect_match "failing workload: its stderr shown" "$out" "boom-on-stderr"
expect_no_match "failing workload: found before the variants are built" "$out" "building fma|with every candidate cloned"
[ -e "$P/.fmvgen/report.json" ] && fail "failing workload: report written" || pass
expect_eq "failing workload: temp dir removed" "$(ls -A "$TMPDIR")" ""

# A --test failing on the baseline: found right after the baseline's build.
out=$(sel --run './prog 2000' --test 'echo test-log-line; exit 8' --runs 2 2>&1); rc=$?
expect_eq "failing --test: exit" "$rc" 1
expect_match "failing --test: error line" "$out" "fmvgen: .*--test 'echo test-log-line; exit 8' fails on the baseline \(exit status 8\)"
expect_match "failing --test: its output shown" "$out" "test-log-line"
expect_no_match "failing --test: found before the variants are built" "$out" "building fma|with every candidate cloned"
expect_eq "failing --test: temp dir removed" "$(ls -A "$TMPDIR")" ""

# A hanging workload is killed after --timeout.
start=$(date +%s)
out=$(sel --run 'sleep 60' --runs 2 --timeout 1 2>&1); rc=$?
expect_eq "hang: exit" "$rc" 1
expect_match "hang: timed out" "$out" "timed out"
[ $(( $(date +%s) - start )) -lt 50 ] && pass || fail "hang: not killed"
expect_eq "hang: temp dir removed" "$(ls -A "$TMPDIR")" ""

# A --test that fails on the patched variants only (they carry an FMVGEN_CLONES*
# line whatever the dispatch: cpuid's FMVGEN_CLONES_CPU by default):
# both variants are not eligible, nothing is selected, the patch is empty.
out=$(sel --run './prog 20000' --runs 2 --json \
          --test '! grep -q "FMVGEN_CLONES" kernels.c' 2>/dev/null); rc=$?
expect_eq "failing tests: exit" "$rc" 0
expect_eq "failing tests: no variant eligible" "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "false,false"
expect_match "failing tests: reason" "$(jq -r '.variants[1].failure' <<<"$out")" "^--test failed"
expect_eq "failing tests: nothing selected" "$(jq -r .selected <<<"$out")" 0
expect_eq "failing tests: empty patch" "$(wc -c <"$P/.fmvgen/selected.patch")" 0
expect_eq "failing tests: 4 builds (+ the -march reference, no selected one)" "$(jq -r .builds <<<"$out")" 4
# no set's build ran a workload: nothing says dot gained with one
expect_match "failing tests: dot not measured" "$(jq -r '.functions[] | select(.name=="dot") | .why' <<<"$out")" \
  "^not measured: no target set's build ran the workloads \(fma-levels: --test failed"

# Every target set's build fails (a libtool export list dropping IFUNC
# symbols did that to WavPack): one error line, exit 1, no profiled runs.
out=$(sel --build 'if grep -q FMVGEN_CLONES kernels.c; then echo patched-build-breaks >&2; exit 1; fi; make CC=gcc' \
          --run './prog 20000' --runs 2 2>&1); rc=$?
expect_eq "every set's build fails: exit" "$rc" 1
expect_match "every set's build fails: error line" "$out" \
  "^fmvgen: $P: no target set's build succeeded \(fma-levels: build failed \(exit status 1\)\): nothing to measure, nothing selected"
expect_match "every set's build fails: the build's output shown" "$out" "patched-build-breaks"
expect_no_match "every set's build fails: nothing profiled" "$out" "profiled runs"
expect_eq "every set's build fails: temp dir removed" "$(ls -A "$TMPDIR")" ""

# The selected build alone prints something else (its copy is named
# "selected"): a build that fails its check is never selected, the selected
# one neither - the selection is withdrawn, the patch left empty.
run='case "$FMVGEN_SOURCE_DIR" in */selected) echo wrong;; esac; ./prog 40000'
out=$(sel --run "$run" --runs 3 --json 2>/dev/null); rc=$?
expect_eq "selected build fails its check: exit" "$rc" 0
expect_eq "selected build fails its check: nothing selected" "$(jq -r .selected <<<"$out")" 0
expect_eq "selected build fails its check: empty patch" "$(wc -c <"$P/.fmvgen/selected.patch")" 0
expect_match "selected build fails its check: said" "$(jq -r '.notes[]' <<<"$out")" \
  "^the selected build fails a check \(output of .* differs from the baseline's at line 1 \(different\)\): nothing is selected and selected.patch is empty"
expect_match "selected build fails its check: dot withdrawn" \
  "$(jq -r '.functions[] | select(.name=="dot") | .why' <<<"$out")" "^withdrawn: the selected build fails a check"

# Outputs that differ on the patched variants: not eligible, reported.
out=$(sel --run 'grep -q "FMVGEN_CLONES" kernels.c && echo patched; ./prog 20000' --runs 2 --json 2>/dev/null); rc=$?
expect_eq "differing output: exit" "$rc" 0
expect_match "differing output: reason" "$(jq -r '.variants[1].failure' <<<"$out")" "^output of .* differs from the baseline"
expect_eq "differing output: nothing selected" "$(jq -r .selected <<<"$out")" 0
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

# Last-bit float differences (as FMA makes): not eligible without
# --tolerance, eligible within it.
fma_run='if grep -q "FMVGEN_CLONES" kernels.c; then echo 0.30000001; else echo 0.3; fi; ./prog 20000'
out=$(sel --run "$fma_run" --runs 2 --json 2>/dev/null); rc=$?
expect_eq "float differences: exit" "$rc" 0
expect_match "float differences: suggests --tolerance" "$(jq -r '.variants[1].failure' <<<"$out")" "floats-differ.*--tolerance"
out=$(sel --run "$fma_run" --runs 2 --tolerance 1e-6 --json 2>/dev/null); rc=$?
expect_eq "--tolerance: exit" "$rc" 0
expect_eq "--tolerance: eligible" "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "true,true"
expect_eq "--tolerance: outputs" "$(jq -r '.variants[1].outputs' <<<"$out")" "within-tolerance"
out=$(sel --run ./prog --tolerance 2 2>&1); rc=$?
expect_eq "--tolerance 2: usage error" "$rc" 2
out=$(sel --run ./prog --max-growth 0 2>&1); rc=$?
expect_eq "--max-growth 0: usage error" "$rc" 2
expect_match "--max-growth 0: said" "$out" "--max-growth: '0' is not a percentage above 0 \(or 'none'\)"
out=$(sel --run ./prog --dispatch plt 2>&1); rc=$?
expect_eq "--dispatch plt: usage error" "$rc" 2
expect_match "--dispatch plt: said" "$out" "--dispatch: 'plt' is not a dispatch \(cpuid, pointer, ifunc or auto\)"

# Ctrl-C (SIGINT) while the workloads run: exit 130, temp dir removed.
(cd "$P" && exec "$FMVGEN" select --build "make CC=gcc" --run 'sleep 1; ./prog 100' --runs 20 >/dev/null 2>&1) &
pid=$!
for _ in $(seq 1 100); do ls "$TMPDIR"/*/baseline >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1
kill -INT "$pid"
wait "$pid"; rc=$?
expect_eq "SIGINT: exit" "$rc" 130
expect_eq "SIGINT: temp dir removed" "$(ls -A "$TMPDIR")" ""

# --static: no timing, one build, dot kept from its clones' ISA needs.
out=$(sel --static 2>/dev/null); rc=$?
expect_eq "static: exit" "$rc" 0
expect_match "static: says nothing was timed" "$out" "nothing was timed"
js=$(cat "$P/.fmvgen/report.json")
expect_eq "static: mode" "$(jq -r .mode <<<"$js")" static
expect_eq "static: builds" "$(jq -r .builds <<<"$js")" 1
expect_eq "static: profiled runs" "$(jq -r .profiled_runs <<<"$js")" 0
expect_eq "static: dot selected" "$(jq -r '.functions[] | select(.name=="dot") | .selected' <<<"$js")" true
expect_match "static: why (inspect)" "$(jq -r '.functions[] | select(.name=="dot") | .why' <<<"$js")" "inspect"
# written with select's default dispatch, cpuid (the inspected build was IFUNC)
expect_match "static: patch" "$(cat "$P/.fmvgen/selected.patch")" "FMVGEN_CPU_BODY\(dot, fmvgen_resolve_dot\)"
expect_eq "static: report says cpuid" "$(jq -r .dispatch.mode <<<"$js")" cpuid
expect_match "static: report.md says so" "$(cat "$P/.fmvgen/report.md")" "nothing was timed"
expect_eq "static: temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
