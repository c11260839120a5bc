#!/bin/bash
# test_select_inlined_kernels.sh - `fmvgen select` on a numeric-kernel suite
# (tests/fixtures/select-inlined-kernels, -O2 -g): static kernels called
# once from main, which the build inlines into main, so the baseline's
# profile has no symbol of them - their time is main's - while each
# variant's clones run out of line. select credits each kernel, in every
# arm alike, with main's samples whose inline frames hold it, and judges
# it: kernel_mul and kernel_max (SSE4.1 pmulld/pmaxsd at the target) get
# an interval with every set and their clones run; kernel_divide (a
# division chain) is judged on its time inside main too. Only kernels are
# ever selected, and the selected patch never clones main.
# Verdicts only, never times. For gcc, clang 14 and clang-19: with select's
# default dispatch, cpuid, clang 14's static kernels get their copies too
# (its target_clones, --dispatch ifunc, clones no static function:
# FMVGEN_CLONES_STATIC is empty there, and nothing would be selected).
# Without -g no line information tells a kernel from main: the
# kernels are not judged, and the report says so.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

run_select() {   # DIR CC CFLAGS -> report.json on stdout
  (cd "$1" && "$FMVGEN" select --max-growth none --build "make -s CC=$2 CFLAGS='$3'" --run './prog 20000' --runs 3 \
     --reference none --json 2>"$TMP/err-$2")
}
verdict() { jq -r --arg f "$2" '.functions[] | select(.name == $f) | "\(.selected)"' <<<"$1"; }

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P=$(copy_fixture select-inlined-kernels)
  mv "$P" "$TMP/$cc" && P="$TMP/$cc"
  (cd "$P" && "$FMVGEN" scan -- make -s CC="$cc" >/dev/null 2>&1) || { fail "$cc: scan"; continue; }
  expect_eq "$cc: the kernels are the candidates" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.status == "candidate") | .name] | sort | join(",")')" \
    "kernel_divide,kernel_max,kernel_mul"
  out=$(run_select "$P" "$cc" "-O2 -g"); rc=$?
  expect_eq "$cc: select exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err-$cc" >&2; continue; }
  for k in kernel_mul kernel_max kernel_divide; do
    expect_eq "$cc: $k credited with its time inside main in the baseline" \
      "$(jq -r --arg f "$k" '.functions[] | select(.name == $f) | .baseline_sampled' <<<"$out")" true
  done
  # kernel_mul and kernel_max gain at the target (pmulld/pmaxsd), and their
  # clones differ from the default's: each is judged on its time inside
  # main, with an interval per set and its clones seen running. Whether a
  # gain is significant is the statistics' call (a few runs, under load or
  # ASan it may not be): what was selected is asserted only as a kernel.
  for k in kernel_mul kernel_max kernel_divide; do
    expect_match "$cc: $k judged" \
      "$(jq -r --arg f "$k" '.functions[] | select(.name == $f) | .reason' <<<"$out")" \
      '^(selected|selected-together|held-back|no-gain|slower|multiple-tests|calibration)$'
  done
  for k in kernel_mul kernel_max; do
    expect_eq "$cc: $k has an interval with every set" \
      "$(jq -r --arg f "$k" '.functions[] | select(.name == $f) | [.variants[] | .valid] | all' <<<"$out")" true
    expect_eq "$cc: $k's clones ran and are not its default's code" \
      "$(jq -r --arg f "$k" '.functions[] | select(.name == $f) | [.variants[] | (.clone_ran // "" | startswith($f + ".") or startswith("fmvgen_cp_" + $f + "_")) and (.same_code | not)] | all' <<<"$out")" true
  done
  expect_match "$cc: the report says how" "$(jq -r '.notes[]' <<<"$out")" \
    '^inlined into their hosts in the baseline, compared out of line in the variants: .*kernel_mul \([0-9]+ samples per run, in main\)'
  expect_eq "$cc: only kernels selected" \
    "$(jq -r '[.functions[] | select(.selected) | .name | select(startswith("kernel_") | not)] | length' <<<"$out")" 0
  if [ "$(verdict "$out" kernel_mul)" = true ]; then
    expect_match "$cc: the selected patch clones the kernels, not main" \
      "$(tr '\n' '~' <"$P/.fmvgen/selected.patch")" '~\+FMVGEN_CLONES[A-Z0-9_]*_STATIC~ static void kernel_mul\('
  fi
  expect_eq "$cc: the selected patch leaves main alone" \
    "$(grep -A1 '^+.*FMVGEN_CLONES' "$P/.fmvgen/selected.patch" | grep -c ' main(')" 0
done

# no -g: main's samples cannot be told apart, so the kernels are not judged
P=$(copy_fixture select-inlined-kernels)
(cd "$P" && "$FMVGEN" scan -- make -s CC=gcc CFLAGS=-O2 >/dev/null 2>&1) || fail "no -g: scan"
out=$(run_select "$P" gcc "-O2"); rc=$?
expect_eq "no -g: select exit" "$rc" 0
expect_eq "no -g: nothing selected" "$(jq -r '[.functions[] | select(.selected)] | length' <<<"$out")" 0
expect_match "no -g: said why" "$(jq -r '.notes[]' <<<"$out")" \
  '^kernel_mul: not judged: the baseline inlined it into main, and [0-9]+ of the [0-9]+ samples taken there have no line information .*\(build with -g\)'
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
