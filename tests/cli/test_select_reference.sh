#!/bin/bash
# test_select_reference.sh - select's whole-program references are built
# through fmvgen's compiler wrapper, whatever the build does with CFLAGS:
# tests/fixtures/select-reference is a Makefile as configure writes one
# (CC = gcc, CFLAGS = -O2 set in it), so CFLAGS in the environment would
# change nothing. Its -march=x86-64-v3 reference and the -mno-fma one
# (--reference v3,v3-nofma) must differ from the baseline - in report.json
# and in `fmvgen inspect --isa` of the kept binaries (AVX2 and ymm) - and a
# build that reaches its compiler by absolute path (make CC=/usr/bin/gcc)
# gets no reference, said with why. Asserts on builds and verdicts, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
P=$(copy_fixture select-reference)
(cd "$P" && "$FMVGEN" scan -- make >/dev/null 2>&1) || fail "scan failed"
before=$(cd "$P" && md5sum Makefile *.c *.h)

out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run './prog 30000' --runs 2 --reference v3,v3-nofma --keep \
        --json 2>"$TMP/err"); rc=$?
expect_eq "exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "builds: baseline + 2 sets + 2 references (+ the selected one when any)" \
  "$(jq -r '.builds - (if .selected > 0 then 1 else 0 end)' <<<"$out")" 5
expect_eq "two references" "$(jq -r '[.references[].name] | join(",")' <<<"$out")" "v3,v3-nofma"
expect_eq "their flags, appended by the wrapper" "$(jq -r '[.references[].flags] | join(",")' <<<"$out")" \
  "-march=x86-64-v3,-march=x86-64-v3 -mno-fma"
expect_match "built through the wrapper's links" "$(jq -r '.references[0].built_via' <<<"$out")" "PATH and in CC/CXX"
expect_eq "every source of the scan compiled with the flags" \
  "$(jq -r '[.references[] | .sources == .sources_with_flags and .sources == 2] | all' <<<"$out")" true
expect_eq "both compared (their code differs from the baseline's)" \
  "$(jq -r '[.references[] | .built and .failure == null] | all' <<<"$out")" true
expect_eq "code differs from the baseline's" \
  "$(jq -r '[.references[].code_crc] | map(. != null) | all' <<<"$out"),$(jq -r '(.references[0].code_crc != .variants[0].code.code_crc)' <<<"$out")" "true,true"
expect_eq "code_size section agrees" "$(jq -r '.code_size.march_x86_64_v3 | [.flags, .failure] | map(tostring) | join(",")' <<<"$out")" \
  "-march=x86-64-v3,null"
expect_match "report.md says how it was built" "$(cat "$P/.fmvgen/report.md")" \
  "The -march=x86-64-v3 reference \(--reference v3\): the unpatched project built once more, \`-march=x86-64-v3\` appended to every compile by fmvgen's compiler wrapper"
expect_eq "report.html charts both references per workload" \
  "$(grep -oE '>-march=x86-64-v3( -mno-fma)?</text>' "$P/.fmvgen/report.html" | sort | uniq -c | awk '{print $1}' | xargs)" "1 1"
kept=$(sed -n 's/^select: kept the temp directory //p' "$TMP/err")
isa() { "$FMVGEN" inspect --isa --json "$1" | jq -r '.files[0].code_isa | (.needs | join(",")) + " " + .widest_vectors'; }
expect_no_match "inspect: the baseline has no AVX2" "$(isa "$kept/baseline/prog")" "AVX2|ymm"
expect_match "inspect: the v3 reference is x86-64-v3 code" "$(isa "$kept/reference-v3/prog")" "AVX2.* ymm$"
expect_match "inspect: the FMA-free one too" "$(isa "$kept/reference-v3-nofma/prog")" "AVX2.* ymm$"
expect_no_match "inspect: without FMA" "$(isa "$kept/reference-v3-nofma/prog")" "FMA"
expect_match "inspect --isa text" "$("$FMVGEN" inspect --isa "$kept/reference-v3/prog")" \
  "^Code ISA \(every function of the file\): .*AVX2.*; widest vectors ymm; [1-9][0-9]* of [0-9]+ functions"
rm -rf "$kept"
expect_eq "user's tree untouched" "$(cd "$P" && md5sum Makefile *.c *.h)" "$before"
# the build steps are counted with one total, the references included (1/4, 2/4, 3/4, 4/5 was written)
expect_eq "build steps: one count, references included" \
  "$(grep -o '^select: building .*([0-9]*/[0-9]*)$' "$TMP/err" | grep -o '([0-9]*/[0-9]*)$' | tr -d '\n')" \
  "(1/5)(2/5)(3/5)(4/5)(5/5)"

# Nothing selected (no function holds 99% of the samples): the references
# are still timed against the baseline - what a whole rebuild would have
# given - and nothing claims a selected-vs-reference figure.
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run './prog 30000' --runs 2 --reference v3,v3-nofma \
        --min-share 99 2>"$TMP/err"); rc=$?
expect_eq "nothing selected: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "nothing selected" "$(jq -r '.selected' "$P/.fmvgen/report.json")" 0
expect_match "nothing selected: the references are timed" "$(cat "$TMP/err")" \
  "nothing selected: timing baseline, -march=x86-64-v3, -march=x86-64-v3 -mno-fma, 2 runs each"
j="$P/.fmvgen/report.json"
expect_eq "nothing selected: both references vs the baseline" \
  "$(jq -r '[.references[].workloads[0] | (.vs_baseline.valid|tostring) + "," + (.selected_vs_it|tostring)] | join(" ")' "$j")" \
  "true,null true,null"
expect_eq "nothing selected: the workload's v3 figure, no selected one" \
  "$(jq -r '.workloads[0] | [(.march_x86_64_v3.valid|tostring), (.end_to_end|tostring), (.selected_vs_march_x86_64_v3|tostring)] | join(",")' "$j")" \
  "true,null,null"
expect_eq "nothing selected: timed runs are baseline + 2 references" "$(jq -r '.timed_runs' "$j")" 6
expect_match "nothing selected: the note" "$(jq -r '.notes | join("\n")' "$j")" \
  "nothing selected, so the selected build is the baseline: the references were timed against it on every workload, 2 runs each"
expect_match "nothing selected: the summary" "$out" \
  "end to end, './prog 30000': nothing selected; -march=x86-64-v3 build [0-9.]+x"
expect_match "nothing selected: report.md" "$(cat "$P/.fmvgen/report.md")" \
  "Nothing was selected, so the selected build is the baseline: the references were timed against it"

# A build that reaches its compiler by absolute path bypasses the wrapper:
# no reference, and why, in report.json, report.md and on the terminal.
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build 'make CC=/usr/bin/gcc' --run './prog 30000' --runs 2 --reference v3 \
        2>"$TMP/err"); rc=$?
expect_eq "absolute CC: exit" "$rc" 0
expect_eq "build steps with one reference" \
  "$(grep -o '^select: building .*([0-9]*/[0-9]*)$' "$TMP/err" | grep -o '([0-9]*/[0-9]*)$' | tr -d '\n')" \
  "(1/4)(2/4)(3/4)(4/4)"
expect_match "absolute CC: said on the terminal" "$out" \
  "reference -march=x86-64-v3: not compared: no compile went through fmvgen's wrapper"
j="$P/.fmvgen/report.json"
expect_eq "absolute CC: no source got the flags" "$(jq -r '.references[0] | [.sources, .sources_with_flags] | join(",")' "$j")" "2,0"
expect_match "absolute CC: the failure names the cause" "$(jq -r '.code_size.march_x86_64_v3.failure' "$j")" \
  "runs its compiler by an absolute path"
expect_match "absolute CC: report.md says it" "$(cat "$P/.fmvgen/report.md")" "no comparison: no compile went through"
expect_eq "absolute CC: not timed" "$(jq -r '.workloads[0].march_x86_64_v3' "$j")" null
expect_eq "temp dir removed" "$(ls -A "$TMPDIR")" ""

# --reference errors: exit 2, one line
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run ./prog --reference v4 2>&1); rc=$?
expect_eq "--reference v4: exit" "$rc" 2
expect_match "--reference v4: message" "$out" "^fmvgen: --reference: 'v4' is not a reference \(v3, v3-nofma or none\)$"
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run ./prog --reference none,v3 2>&1); rc=$?
expect_eq "--reference none,v3: exit" "$rc" 2

finish
