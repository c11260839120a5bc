#!/bin/bash
# test_select.sh - `fmvgen select` on tests/fixtures/select-hot-cold (a hot
# vectorizable kernel `dot` that takes ~all of the run, a cold one `fill`
# run once), built by gcc and by clang: the hot one is selected, the cold
# one is not, the builds spent are baseline + 2 target sets + the selected
# one, the patch applies, the user's tree is untouched and the temp dir is
# removed; report.html, loaded in headless chromium, is a page of tables
# and one chart per workload. The confirmation on fresh runs of what Holm
# alone held back: with --confirm-runs 0 (clang) none runs, as before it
# existed; by default (gcc, one workload: every function Holm alone held
# back is retested) report.json records its rounds exactly when some
# function was held back - whether any was is the timings' call, so both
# outcomes are checked, never which happened. Asserts on the selection,
# never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"     # select's private copies go here: must be empty at the end
mkdir -p "$TMPDIR"

select_on() {   # CC [EXTRA SELECT ARGS: more --run workloads]
  local cc=$1
  shift
  local nw=1 a
  for a in "$@"; do [ "$a" = --run ] && nw=$((nw + 1)); done
  local P
  P=$(copy_fixture select-hot-cold)
  mv "$P" "$TMP/p-$cc"
  P="$TMP/p-$cc"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || { fail "$cc: scan failed"; return; }
  local before
  before=$(cat "$P"/*.c | md5sum)
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=$cc" --run './prog 40000' "$@" --runs 3 --json 2>"$TMP/err"); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err" >&2; return; }
  expect_eq "$cc: dot selected" "$(jq -r '.functions[] | select(.name=="dot") | .selected' <<<"$out")" true
  expect_eq "$cc: fill not selected" "$(jq -r '.functions[] | select(.name=="fill") | .selected' <<<"$out")" false
  expect_match "$cc: fill is cold" "$(jq -r '.functions[] | select(.name=="fill") | .why' <<<"$out")" "^cold"
  # baseline + 2 target sets + the -march=x86-64-v3 reference + the selected one
  expect_eq "$cc: builds" "$(jq -r .builds <<<"$out")" 5
  # 3 variants + the A/A arm (the baseline again) x 3 runs x workloads
  expect_eq "$cc: profiled runs (4 arms x 3 runs x workloads)" "$(jq -r .profiled_runs <<<"$out")" $((12 * nw))
  # the confirmation stage (decision_confirm.h)
  local conf held confirmed
  conf=$(jq -c .statistics.confirmation <<<"$out")
  # retested: held back by Holm alone, or near-significant (decision_confirm_near)
  held=$(jq -r '[.functions[] | select(.decision == "multiple-tests" or .decision == "confirmed" or
                 (.confirmation != null and .confirmation.why == "near-significant"))] | length' <<<"$out")
  confirmed=$(jq -r '[.functions[] | select(.decision == "confirmed")] | length' <<<"$out")
  if [[ " $* " == *" --confirm-runs 0 "* ]]; then
    expect_eq "$cc: --confirm-runs 0: no fresh rounds" "$(jq -r '[.rounds_asked, .rounds, .tests] | join(",")' <<<"$conf")" "0,0,0"
    expect_eq "$cc: --confirm-runs 0: nothing retested" "$(jq -r '[.functions[] | select(.confirmation != null)] | length' <<<"$out")" 0
    expect_eq "$cc: --confirm-runs 0: nothing confirmed" "$confirmed" 0
    expect_eq "$cc: --confirm-runs 0: each function held back says it was not retested" \
      "$(jq -r '[.functions[] | select(.decision == "multiple-tests") | .why | test("not retested \\(--confirm-runs below 2\\)$")] | all' <<<"$out")" true
    expect_eq "$cc: --confirm-runs 0: the bound is 5%" "$(jq -r .statistics.family_wise_error_bound <<<"$out")" 0.05
  else
    expect_eq "$cc: confirmation asks for --runs rounds" "$(jq -r .rounds_asked <<<"$conf")" 3
    if [ "$held" -gt 0 ]; then
      echo "$cc: $held function(s) held back by Holm alone or near-significant: the confirmation ran" >&2
      expect_eq "$cc: confirmation: near-significant ones within the cap" \
        "$(jq -r '.near_significant_retested <= .near_significant_cap and .near_significant_retested == ([$o.functions[] |
                  select(.confirmation != null and .confirmation.why == "near-significant")] | length)' \
           --argjson o "$out" <<<"$conf")" true
      expect_eq "$cc: confirmation: 3 fresh rounds" "$(jq -r .rounds <<<"$conf")" 3
      expect_eq "$cc: confirmation: a test per retested function (one workload, every set eligible)" \
        "$(jq -r '.tests >= .functions and .functions == '"$held" <<<"$conf")" true
      expect_eq "$cc: confirmation: runs of the baseline, A/A and the retested variants" \
        "$(jq -r '.profiled_runs >= 9 and .profiled_runs <= 12' <<<"$conf")" true
      expect_eq "$cc: confirmation: confirmed = decision confirmed" "$(jq -r .confirmed <<<"$conf")" "$confirmed"
      expect_eq "$cc: confirmation: each retested function has its fresh intervals" \
        "$(jq -r '[.functions[] | select(.decision == "multiple-tests" or .decision == "confirmed" or .confirmation != null) |
                  .confirmation.rounds == 3] | all' <<<"$out")" true
      expect_eq "$cc: confirmed functions' speedups are the fresh runs' (estimate_from, equal to confirmation's)" \
        "$(jq -r '[.functions[] | select(.decision == "confirmed" and .selected) | .target_set as $s |
                  .variants[$s].estimate_from == "confirmation_runs" and
                  .variants[$s].speedup == .confirmation.variants[$s].speedup] | all' <<<"$out")" true
      expect_eq "$cc: confirmation: the bound over both stages" "$(jq -r .statistics.family_wise_error_bound <<<"$out")" 0.1
      expect_match "$cc: report.md says so" "$(cat "$P/.fmvgen/report.md")" "\*\*Confirmation on fresh runs\.\*\* .* at most 10%"
    else
      expect_eq "$cc: nothing held back: no fresh rounds" "$(jq -r '[.rounds, .tests, .profiled_runs] | join(",")' <<<"$conf")" "0,0,0"
      expect_eq "$cc: nothing held back: the bound is 5%" "$(jq -r .statistics.family_wise_error_bound <<<"$out")" 0.05
    fi
  fi
  expect_eq "$cc: confirmation_runs = the confirmation's runs, counted apart from profiled_runs" \
    "$(jq -r '.confirmation_runs == .statistics.confirmation.profiled_runs and .run_counts.total == .profiled_runs + .confirmation_runs + .timed_runs + .placement.selected_profiled_runs' <<<"$out")" true
  # the placement check (select/placement.h): the selected build profiled
  # --runs times per workload; on this fixture nothing outside the
  # selection is hot enough to read slower: no victim, no note
  expect_eq "$cc: placement: checked, --runs runs per workload" \
    "$(jq -r '.placement | .checked and .selected_profiled_runs == '"$((3 * nw))"' and .why_not == null' <<<"$out")" true
  expect_eq "$cc: placement: no victim" "$(jq -r '[.placement.slower[] | select(.placement)] | length' <<<"$out")" 0
  expect_no_match "$cc: placement: no note" "$(jq -r '.notes[]' <<<"$out")" "placement"
  expect_eq "$cc: A/A calibration in report.json" \
    "$(jq -r '.statistics.calibration | .functions_checked >= 1 and (.workloads | length) == '"$nw" <<<"$out")" true
  expect_match "$cc: seed printed" "$(jq -r .statistics.seed <<<"$out")" '^[0-9]+$'
  expect_match "$cc: report.md has the calibration" "$(cat "$P/.fmvgen/report.md")" "A/A calibration"
  expect_match "$cc: report.md states the rule" "$(cat "$P/.fmvgen/report.md")" "Holm-Bonferroni"
  expect_eq "$cc: every workload timed end to end" "$(jq -r '[.workloads[] | .end_to_end.valid] | all' <<<"$out")" true
  expect_eq "$cc: workloads" "$(jq -r '.workloads | length' <<<"$out")" "$nw"
  expect_eq "$cc: variants eligible" "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "true,true"
  expect_eq "$cc: end to end measured" "$(jq -r '.workloads[0].end_to_end.valid' <<<"$out")" true
  expect_match "$cc: progress lines" "$(cat "$TMP/err")" "select: building fma-free"
  # a deterministic workload of fixed work: no note on its output or its time
  expect_no_match "$cc: no output or fixed-time note" "$(jq -r '.notes[]' <<<"$out")" \
    "differs between two runs|took the same time"
  # code size: dot's clones add bytes in its set's all-candidates build and in
  # the selected one; fill's only in the all-candidates builds; the selected
  # build grows less than the all-candidates build of dot's set
  local set
  set=$(jq -r '.functions[] | select(.name=="dot") | .target_set' <<<"$out")
  expect_eq "$cc: dot's bytes shown for its set" \
    "$(jq -r '.functions[] | select(.name=="dot") | .bytes_added_all_candidates_set' <<<"$out")" "$set"
  expect_eq "$cc: dot adds bytes (all candidates, selected)" \
    "$(jq -r '.functions[] | select(.name=="dot") | [.bytes_added_all_candidates, .bytes_added_selected] | map(. > 0) | all' <<<"$out")" true
  expect_eq "$cc: fill adds bytes only with every candidate cloned" \
    "$(jq -r '.functions[] | select(.name=="fill") | [.bytes_added_all_candidates > 0, .bytes_added_selected] | map(tostring) | join(",")' <<<"$out")" "true,null"
  expect_eq "$cc: selected grows, less than all candidates of its set" \
    "$(jq -r --arg s "$set" '.code_size | .selected.growth_bytes > 0 and .selected.growth_bytes < .all_candidates[$s].growth_bytes' <<<"$out")" true
  expect_eq "$cc: growth = code bytes - baseline's" \
    "$(jq -r '.code_size | .selected.code_bytes - .baseline.code_bytes == .selected.growth_bytes' <<<"$out")" true
  expect_eq "$cc: -march=x86-64-v3 reference built with its flag appended by the wrapper" \
    "$(jq -r '.code_size.march_x86_64_v3 | [.built, .failure, .flags] | map(tostring) | join(",")' <<<"$out")" "true,null,-march=x86-64-v3"
  expect_eq "$cc: every source reached" "$(jq -r '.references[0] | .sources == .sources_with_flags' <<<"$out")" true
  # integer code: FMA changes no output, so no FMA-free reference is added
  expect_eq "$cc: one reference" "$(jq -r '.references | length' <<<"$out")" 1
  expect_eq "$cc: hwcaps ships the whole reference build" \
    "$(jq -r '.code_size.march_x86_64_v3 | .hwcaps_extra_bytes == .code.code_bytes and .hwcaps_extra_bytes > 0' <<<"$out")" true
  expect_eq "$cc: reference timed with the others" \
    "$(jq -r '[.workloads[] | .march_x86_64_v3.valid and .selected_vs_march_x86_64_v3.valid] | all' <<<"$out")" true
  expect_match "$cc: progress names the reference" "$(cat "$TMP/err")" "select: building the -march=x86-64-v3 reference"
  expect_match "$cc: report.md has the code size" "$(cat "$P/.fmvgen/report.md")" "## Code size"
  expect_match "$cc: report.html has the code chart" "$(cat "$P/.fmvgen/report.html")" "<h2>Code growth</h2>"
  local patch="$P/.fmvgen/selected.patch"
  # select's default dispatch, cpuid (patch/cpuid.h): dot's copies, resolver
  # and trampoline, its marker line right above it; nothing of fill
  expect_match "$cc: patch names dot" "$(cat "$patch")" "\+FMVGEN_PTR_DEF int64_t dot\(.*FMVGEN_CPU_BODY\(dot, fmvgen_resolve_dot\)"
  expect_eq "$cc: one marker line" "$(grep -c "^+FMVGEN_CLONES_CPU" "$patch")" 1
  expect_match "$cc: marker before dot" "$(grep -A1 "^+FMVGEN_CLONES_CPU" "$patch")" "int64_t dot"
  expect_eq "$cc: nothing of fill" "$(grep -c "fmvgen_cp_fill" "$patch")" 0
  (cd "$P" && patch -p1 --dry-run -s <"$patch" >/dev/null) && pass || fail "$cc: patch does not apply"
  expect_eq "$cc: user's sources untouched" "$(cat "$P"/*.c | md5sum)" "$before"
  [ -s "$P/.fmvgen/report.md" ] && pass || fail "$cc: no report.md"
  expect_match "$cc: report.html has the chart" "$(cat "$P/.fmvgen/report.html")" "<svg "
  expect_match "$cc: report.html has dot's bar" "$(cat "$P/.fmvgen/report.html")" ">dot</text><rect [^>]*fill=\"#2a7\""
  # report.html is a page, not Markdown in a <pre>: self-contained, and as
  # headless chromium lays it out at 1300 px: HTML tables, one chart per
  # workload (baseline, A/A, selected, every all-candidates build, the
  # -march=x86-64-v3 reference), nothing wider than the window
  local html="$P/.fmvgen/report.html" dom
  expect_no_match "$cc: report.html loads nothing" "$(cat "$html")" "<(script|link|img|iframe)|src=|href=|@import|url\("
  if have_chromium; then
    dom=$(chromium_dom "$html") || fail "$cc: chromium did not load report.html: $(tail -3 "$TMP/chromium.err")"
    expect_eq "$cc: DOM: tables" \
      "$(grep -oE '<table id="(end-to-end|functions|variants|code)-table"' <<<"$dom" | wc -l)" 4
    expect_eq "$cc: DOM: one chart per workload" "$(grep -o '<figure class="workload-chart">' <<<"$dom" | wc -l)" "$nw"
    expect_eq "$cc: DOM: each with the A/A arm" "$(grep -o '>baseline again (A/A)</text>' <<<"$dom" | wc -l)" "$nw"
    expect_eq "$cc: DOM: each with the reference" "$(grep -o '>-march=x86-64-v3</text>' <<<"$dom" | wc -l)" "$nw"
    expect_eq "$cc: DOM: each with both all-candidates builds" \
      "$(grep -oE '>fma-(levels|free) \(all candidates\)</text>' <<<"$dom" | wc -l)" $((2 * nw))
    expect_match "$cc: DOM: dot's row" "$dom" "<tr><td>dot( \[[a-z-]+\])?</td><td>kernels.c:"
    expect_no_match "$cc: DOM: no <pre>, no Markdown table" "$dom" "<pre|\|---\|"
    local width
    width=$(grep -oE 'data-page-width="[0-9]+"' <<<"$dom" | grep -oE '[0-9]+')
    [ -n "$width" ] && [ "$width" -le 1300 ] && pass || fail "$cc: DOM: page width ${width:-?} > 1300 px"
  else
    echo "SKIP: $cc: report.html not loaded: chromium is not installed (scripts/setup-deps.sh installs it)" >&2
  fi
  expect_eq "$cc: report.json = --json" "$(jq -c . "$P/.fmvgen/report.json")" "$(jq -c . <<<"$out")"
  expect_eq "$cc: temp dir removed" "$(ls -A "$TMPDIR")" ""
}

select_on gcc
select_on clang --run './prog 20000' --confirm-runs 0   # two workloads: judged on both

# Usage errors: exit 2, one line.
P=$TMP/p-gcc
out=$(cd "$P" && "$FMVGEN" select --run ./prog 2>&1); rc=$?
expect_eq "no --build: exit" "$rc" 2
expect_match "no --build: message" "$out" "^fmvgen: select: --build CMD is required"
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make 2>&1); rc=$?
expect_eq "no --run: exit" "$rc" 2
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run ./prog --runs 1 2>&1); rc=$?
expect_eq "--runs 1: exit" "$rc" 2
expect_match "--runs 1: suggests more runs" "$out" "too few samples.*--runs 3"
for bad in 1 -2 x ''; do
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run ./prog --confirm-runs "$bad" 2>&1); rc=$?
  expect_eq "--confirm-runs '$bad': exit" "$rc" 2
  expect_eq "--confirm-runs '$bad': one line" "$out" "fmvgen: --confirm-runs: '$bad' is not a number of runs (0, or 2..1000)"
done
out=$("$FMVGEN" -C "$TMP/tmpdir" select --max-growth none --build make --run ./prog 2>&1); rc=$?
expect_eq "no store: exit" "$rc" 1
out=$("$FMVGEN" select --help); rc=$?
expect_eq "--help: exit" "$rc" 0
expect_match "--help: text" "$out" "usage: fmvgen select"

finish
