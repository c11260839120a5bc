# test_verify_ignore.sh - `fmvgen verify --ignore-lines REGEX`: a program
# that prints its own timing ("took N ms", as gtest's "(4110 ms total)")
# fails verify on every CPU unless that line is ignored; with the pattern it
# passes, the report counts the lines left out, and a real difference on
# another line still fails (with its line number in the unfiltered output).
# A pattern that does not compile is one error line and exit 2. A binary
# --compare file is reported by its first differing byte, not by a line.
. "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }

dir=$(copy_fixture verify-timing)
cd "$dir"
gcc -O2 timing.c -o timing

# The timing line differs from the native run's: verify fails.
"$FMVGEN" verify --json --cpu Haswell -- ./timing >plain.json
expect_eq "timing line fails without --ignore-lines" "$?" 1
expect_eq "the timing line is the difference" "$(jq -r '.cpus[1].stdout | "\(.match) \(.line)"' plain.json)" "different 2"
expect_eq "no patterns in the report" "$(jq -c '.ignore_lines' plain.json)" "[]"

# Ignored: passes, and says one line was left out on each side.
"$FMVGEN" verify --json --cpu Haswell --ignore-lines 'took [0-9]+ ms' -- ./timing >ign.json
expect_eq "passes with --ignore-lines" "$?" 0
expect_eq "patterns in the report" "$(jq -c '.ignore_lines' ign.json)" '["took [0-9]+ ms"]'
expect_eq "ignored counts" "$(jq -r '[.cpus[] | "\(.stdout.match):\(.stdout.ignored_lines)"] | join(",")' ign.json)" \
  "reference:1,identical:1"
table=$("$FMVGEN" verify --cpu Haswell --ignore-lines 'took [0-9]+ ms' -- ./timing)
expect_eq "table passes" "$?" 0
expect_match "table counts the ignored line" "$table" 'Haswell +x86-64-v3 +ok +\(emulated\) +identical \(1 ignored\)'
expect_match "table verdict" "$table" 'Result: OK on all 2 CPUs'

# A pattern that matches nothing hides nothing; repeated patterns all count.
"$FMVGEN" verify --json --cpu Haswell --ignore-lines 'no such line' -- ./timing >none.json
expect_eq "a pattern matching nothing still fails" "$?" 1
"$FMVGEN" verify --json --cpu Haswell --ignore-lines 'no such line' --ignore-lines '^took ' -- ./timing >two.json
expect_eq "the second pattern ignores the line" "$?" 0

# A real difference elsewhere (AVX2 or not on Nehalem) still fails; its line
# number is the one in the program's output (4), not in the filtered text.
# The binary file differs at byte 5.
"$FMVGEN" verify --json --cpu Nehalem --ignore-lines 'took [0-9]+ ms' --compare out.bin \
  -- ./timing --show-cpu --binary out.bin >wrong.json
expect_eq "a wrong line still fails" "$?" 1
expect_eq "the wrong line" "$(jq -r '.cpus[1].stdout | "\(.match) \(.line) \(.expected)|\(.actual)"' wrong.json)" \
  "different 4 avx2 yes|avx2 no"
expect_eq "native binary file is the reference" "$(jq -r '.cpus[0].files[0] | "\(.match) \(.binary) \(.ignored_lines)"' wrong.json)" \
  "reference true 0"
expect_eq "binary file" "$(jq -r '.cpus[1].files[0] | "\(.match) \(.binary) \(.byte) \(.line)"' wrong.json)" \
  "different true 5 null"
table=$("$FMVGEN" verify --cpu Nehalem --ignore-lines 'took [0-9]+ ms' --compare out.bin -- ./timing --show-cpu --binary out.bin)
expect_match "table: line of the real difference" "$table" 'Nehalem: stdout line 4: native "avx2 yes", here "avx2 no"'
expect_match "table: binary difference" "$table" 'Nehalem: out.bin: binary content differs at byte 5'
expect_match "table: binary cell" "$table" 'DIFFERS \(byte 5\)'
expect_no_match "table: no line number for binary data" "$table" 'out.bin line'
# On Haswell (AVX2) the binary file is identical.
"$FMVGEN" verify --json --cpu Haswell --ignore-lines 'took' --compare out.bin -- ./timing --binary out.bin >same.json
expect_eq "identical binary file passes" "$?" 0
expect_eq "identical binary file" "$(jq -r '.cpus[1].files[0].match' same.json)" identical

# A pattern that is not a regular expression: one line, exit 2, nothing run.
rm -f out.bin
err=$("$FMVGEN" verify --ignore-lines 'took (' --compare out.bin -- ./timing --binary out.bin 2>&1 >/dev/null)
expect_eq "invalid regex exit" "$?" 2
expect_match "invalid regex message" "$err" "^fmvgen: --ignore-lines: 'took \(' is not a valid extended regular expression: .+"
expect_eq "invalid regex: one line" "$(printf '%s\n' "$err" | wc -l)" 1
expect_eq "invalid regex: the program did not run" "$(test -e out.bin && echo ran || echo not-run)" not-run

finish
