#!/bin/bash
# test_verify_against.sh - `fmvgen verify --against PROG0 -- PROG`: PROG0
# (the unpatched build) runs too, natively and on each CPU, and PROG must
# end as it does and write the same stdout and --compare files there.
# - a build that prints nothing and exits 0 passes verify on its own (it
#   agrees with its own native run) but fails --against: SILENT, the
#   explanation line, exit 1, JSON silent/ok;
# - the verify-fmv program with target_clones built by musl-gcc -static
#   (no IFUNC in musl: it never runs main's work) is caught;
# - a build that exits differently, or writes a different --compare file,
#   is caught with what differs;
# - the FMV build of verify-fmv against its plain build passes (exit 0,
#   "same" on every CPU);
# - a missing or non-executable PROG0: one error line naming it, exit 2.
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }
cd "$TMP" || exit 1
SRC=$FIXTURES/verify-fmv/checksum.c

gcc -O2 "$SRC" -o plain || { fail "gcc plain build"; finish; }
gcc -O2 -DFMV "$SRC" -o fmv || { fail "gcc FMV build"; finish; }
printf 'int main(void) { return 0; }\n' >silent.c
gcc -O2 silent.c -o silent

# A correct build: the same as the plain one everywhere.
out=$("$FMVGEN" verify --cpu Nehalem,Haswell --against ./plain -- ./fmv); rc=$?
expect_eq "correct build: exit" "$rc" 0
expect_match "correct build: column" "$out" 'CPU +level +result +time +stdout +vs plain'
expect_match "correct build: native same" "$out" 'native .* reference +same'
expect_match "correct build: Nehalem same" "$out" 'Nehalem .* identical +same'
expect_match "correct build: verdict" "$out" "Result: OK on all 3 CPUs, each run as plain's there"
json=$("$FMVGEN" verify --json --cpu Nehalem --against ./plain -- ./fmv)
expect_eq "correct build JSON: against" "$(printf '%s' "$json" | jq -r '.against')" "./plain"
expect_eq "correct build JSON: per CPU" \
  "$(printf '%s' "$json" | jq -c '[.cpus[] | [.cpu, .against.ok, .against.status_match, .against.silent, .against.stdout.match]]')" \
  '[["native",true,true,false,"identical"],["Nehalem",true,true,false,"identical"]]'
expect_eq "without --against: null" "$("$FMVGEN" verify --json --cpu Nehalem -- ./fmv | jq -c '[.against, .cpus[0].against]')" '[null,null]'

# Prints nothing, exits 0: fine on its own, a failure against the plain build.
"$FMVGEN" verify --cpu Nehalem -- ./silent >/dev/null
expect_eq "silent build alone: passes (its own native run is empty too)" "$?" 0
out=$("$FMVGEN" verify --cpu Nehalem --against ./plain -- ./silent); rc=$?
expect_eq "silent build: exit" "$rc" 1
expect_match "silent build: cell" "$out" 'Nehalem .* SILENT \(prints nothing\)'
expect_match "silent build: why" "$out" "native: prints nothing and exits 0, while plain prints $(./plain | wc -c) bytes: the program did not do its work"
expect_match "silent build: verdict" "$out" 'Result: FAILED: native \(silent: prints nothing, exits 0\), Nehalem \(silent: prints nothing, exits 0\)'
json=$("$FMVGEN" verify --json --cpu Nehalem --against ./plain -- ./silent)
expect_eq "silent build JSON" "$(printf '%s' "$json" | jq -c '[.ok, [.cpus[] | .against.silent, .against.ok, .against.stdout.match]]')" \
  '[false,[true,false,"different",true,false,"different"]]'

# The issue's broken build: target_clones under musl -static.
if command -v musl-gcc >/dev/null; then
  musl-gcc -O2 -static -DFMV "$SRC" -o fmv-musl-static && musl-gcc -O2 -static "$SRC" -o plain-musl-static
  out=$("$FMVGEN" verify --cpu Nehalem --against ./plain-musl-static -- ./fmv-musl-static); rc=$?
  expect_eq "musl -static clones: exit" "$rc" 1
  expect_match "musl -static clones: verdict" "$out" 'Result: FAILED: native \(.*\), Nehalem \(.*\)'
  expect_eq "musl -static clones: no CPU agrees with the plain build" \
    "$("$FMVGEN" verify --json --cpu Nehalem --against ./plain-musl-static -- ./fmv-musl-static | jq -c '[.cpus[].against.ok]')" \
    '[false,false]'
else
  fail "musl-gcc missing: scripts/setup-deps.sh installs musl-tools"
fi

# Another exit status, another --compare file.
cat >writer.c <<'EOF'
#include <stdio.h>
int main(void)
{
    FILE *f = fopen("out.txt", "w");
    if (!f) return 2;
    fprintf(f, "value %d\n", VALUE);
    fclose(f);
    puts("done");
    return RC;
}
EOF
gcc -DVALUE=1 -DRC=0 writer.c -o writer-ref
gcc -DVALUE=2 -DRC=0 writer.c -o writer-value
gcc -DVALUE=1 -DRC=3 writer.c -o writer-rc
out=$("$FMVGEN" verify --cpu Nehalem --compare out.txt --against ./writer-ref -- ./writer-value); rc=$?
expect_eq "other file: exit" "$rc" 1
expect_match "other file: cell" "$out" 'native .* out.txt DIFFERS \(line 1\)'
expect_match "other file: line" "$out" 'native: out.txt line 1: writer-ref "value 1", here "value 2"'
expect_match "other file: verdict" "$out" 'Result: FAILED: native \(output differs from the unpatched build\)'
out=$("$FMVGEN" verify --cpu Nehalem --against ./writer-ref -- ./writer-rc); rc=$?
expect_eq "other exit status: exit" "$rc" 1
expect_match "other exit status: cell" "$out" 'native .* DIFFERS \(it: exit 0\)'
expect_match "other exit status: why" "$out" 'native: ends with exit 3, writer-ref with exit 0'
"$FMVGEN" verify --cpu Nehalem --compare out.txt --against ./writer-ref -- ./writer-ref >/dev/null
expect_eq "same writer: passes" "$?" 0

# Bad input: one line naming PROG0, exit 2, nothing run.
out=$("$FMVGEN" verify --against ./nope -- ./fmv 2>&1); rc=$?
expect_eq "missing PROG0: line" "$out" "fmvgen: ./nope: no such program (--against)"
expect_eq "missing PROG0: exit" "$rc" 2
out=$("$FMVGEN" verify --against ./silent.c -- ./fmv 2>&1); rc=$?
expect_eq "not executable PROG0: line" "$out" "fmvgen: ./silent.c: not executable (--against)"
expect_eq "not executable PROG0: exit" "$rc" 2
out=$("$FMVGEN" verify --against no-such-program-here -- ./fmv 2>&1); rc=$?
expect_eq "PROG0 not in PATH: line" "$out" "fmvgen: no-such-program-here: no such program in PATH (--against)"
expect_eq "PROG0 not in PATH: exit" "$rc" 2

finish
