#!/bin/bash
# test_select_outputs.sh - `fmvgen select` on workloads whose stdout is not
# deterministic (tests/fixtures/select-hot-cold, gcc), as every benchmark
# printing its MB/s is: the baseline runs each workload twice; lines that
# differ between those two runs are not compared (the report says so, and
# never suggests --tolerance for it), the other lines still must match; when
# even the number of lines differs, or every line does, the output is not
# compared at all, and the note says so.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
P=$(copy_fixture select-hot-cold)
(cd "$P" && "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1) || fail "scan failed"
sel() { (cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=gcc" "$@" --json 2>"$TMP/err"); }

# A timing line: masked; the variants stay eligible and dot is selected.
run='./prog 40000; echo "throughput: $(date +%N) MB/s"'
out=$(sel --run "$run" --runs 3); rc=$?
expect_eq "timing line: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "timing line: variants eligible" "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "true,true"
expect_eq "timing line: dot selected" "$(jq -r '.functions[] | select(.name=="dot") | .selected' <<<"$out")" true
expect_match "timing line: patch names dot" "$(cat "$P/.fmvgen/selected.patch")" "FMVGEN_CPU_BODY\(dot, fmvgen_resolve_dot\)"
notes=$(jq -r '.notes[]' <<<"$out")
expect_match "timing line: reported" "$notes" \
  "^'\./prog 40000; echo .*': its output differs between two runs of the baseline \(timings\?\) on 1 line \(the first: line 2\): it is not compared, the other lines must match; to compare everything, pipe a checksum of the real output, or use --test"
expect_no_match "timing line: --tolerance not suggested" "$notes$(jq -r '.functions[].why' <<<"$out")" "tolerance"
expect_match "timing line: said while it runs" "$(cat "$TMP/err")" "select: .*its output differs between two runs of the baseline"

# The other lines still count: a line only the patched variants print makes
# them not eligible, as text (no --tolerance suggested).
run='echo "took $(date +%N) ns"; grep -q "FMVGEN_CLONES" kernels.c && echo patched; ./prog 20000'
out=$(sel --run "$run" --runs 2); rc=$?
expect_eq "masked, real difference: exit" "$rc" 0
expect_eq "masked, real difference: not eligible" "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "false,false"
expect_match "masked, real difference: reason" "$(jq -r '.variants[1].failure' <<<"$out")" \
  "^output of .* differs from the baseline's at line 2 \(different\)$"
expect_eq "masked, real difference: nothing selected" "$(jq -r .selected <<<"$out")" 0
expect_no_match "masked, real difference: --tolerance not suggested" \
  "$(jq -r '.notes[], .functions[].why' <<<"$out")" "tolerance"

# The number of lines changes from run to run: not compared, said so.
run='echo run >> runs.txt; cat runs.txt; ./prog 20000'
out=$(sel --run "$run" --runs 2); rc=$?
expect_eq "lines vary: exit" "$rc" 0
# FMA clones would change results unseen: that set is not eligible (bit-exact
# mode, no --test); the FMA-free set is.
expect_eq "lines vary: FMA set not eligible, FMA-free eligible" \
  "$(jq -r '[.variants[1:][] | "\(.fma):\(.eligible)"] | join(",")' <<<"$out")" "true:false,false:true"
expect_match "lines vary: why" "$(jq -r '.variants[] | select(.fma) | .failure' <<<"$out")" \
  "^its clones may fuse a\*b\+c \(FMA\), and no line of the output of 'echo run .*' is compared \(it varies between two runs of the baseline\): a changed result would go unseen; make that output reproducible, or give --test$"
# With --test the FMA set is checked by it, and eligible again.
out=$(sel --run "$run" --runs 2 --test true); rc=$?
expect_eq "lines vary, --test: both sets eligible" "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "true,true"
expect_match "lines vary: reported" "$(jq -r '.notes[]' <<<"$out")" \
  "': its output differs between two runs of the baseline \(timings\?\), even in its number of lines: its output is not compared; pipe a checksum of the real output, or use --test"

# Every line varies (a checksum of an output that carries a random seed, as
# libvorbis's encoder_example writes its stream serial from time()): nothing is
# compared, and the note says so instead of "the other lines must match".
run='./prog 20000 >/dev/null; date +%N | md5sum'
out=$(sel --run "$run" --runs 2); rc=$?
expect_eq "every line varies: exit" "$rc" 0
notes=$(jq -r '.notes[]' <<<"$out")
expect_match "every line varies: reported" "$notes" \
  "': its output differs between two runs of the baseline on every line it prints \(1\): nothing of it is compared, its correctness is not checked; make the output reproducible \(a time stamp, a random seed or a PID in it\?\), or use --test"
expect_no_match "every line varies: no 'other lines'" "$notes" "the other lines must match"
expect_eq "every line varies: FMA set not eligible" \
  "$(jq -r '[.variants[1:][] | "\(.fma):\(.eligible)"] | join(",")' <<<"$out")" "true:false,false:true"

expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
