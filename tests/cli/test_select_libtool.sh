#!/bin/bash
# test_select_libtool.sh - `fmvgen select` proves what ran (select/ranwhat.h)
# and runs each variant as itself (select/isolation.h), on
# tests/fixtures/select-libtool: libdot.so and libfill.so built in lib/, a
# program in bin/ run through a wrapper setting LD_LIBRARY_PATH to the
# absolute path of lib/ (like libtool's), and one linked with that path as
# RUNPATH. The build command 'make libs' rebuilds the libraries only.
#   - fmvgen without its compiler wrapper fmvgen-cc beside it: refused up
#     front, one line, nothing built, unless '--reference none' (nothing
#     else needs the wrapper);
#   - without namespaces (fmvgen away from its fmvgen-ns helper; or
#     --no-namespaces) every copy runs the user's libdot.so: refused, the
#     error naming the library, the program that loaded it, the cause (a
#     libtool wrapper; a RUNPATH) and why no namespace was used; nothing
#     written, the user's tree untouched;
#   - with namespaces (as root here) the same build runs each variant's own
#     library: dot's clones run and dot is selected;
#   - a build command that rebuilds nothing (no clone ever runs), a perf
#     whose mmap records are empty, and a workload whose program changes
#     between runs: refused.
# Asserts on verdicts and error lines, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"     # select's private copies go here: must be empty at the end
mkdir -p "$TMPDIR"

P=$(copy_fixture select-libtool)
(cd "$P" && "$FMVGEN" scan -- make >/dev/null 2>&1) || fail "scan failed"
snapshot() { (cd "$1" && find . -path ./.fmvgen -prune -o -type f -print0 | sort -z | xargs -0 md5sum); }
before=$(snapshot "$P")

# refused RC OUT WHAT: exit 1, exactly one error line, nothing written, tree and temp dir clean
refused() {
  expect_eq "$3: exit" "$1" 1
  expect_eq "$3: one error line" "$(grep -c '^fmvgen: ' <<<"$2")" 1
  expect_eq "$3: no report written" "$(ls "$P/.fmvgen" | grep -c '^report\|^selected')" "${4:-0}"
  expect_eq "$3: user's tree untouched" "$(snapshot "$P")" "$before"
  expect_eq "$3: temp dir removed" "$(ls -A "$TMPDIR")" ""
}

# ---- no compiler wrapper: fmvgen alone, without fmvgen-cc (and without
# its helper fmvgen-ns). The -march=x86-64-v3 reference (the default)
# builds through fmvgen-cc: refused before anything is built ----
mkdir -p "$TMP/alone" && cp "$FMVGEN" "$TMP/alone/"
out=$(cd "$P" && "$TMP/alone/fmvgen" select --build 'make libs' --run './bin/prog 20000' --runs 2 2>&1); rc=$?
refused "$rc" "$out" "no fmvgen-cc"
expect_match "no fmvgen-cc: says what is missing and what needs it" "$(grep '^fmvgen: ' <<<"$out")" \
  "^fmvgen: $TMP/alone/fmvgen-cc: the compiler wrapper is missing \(build or install it with fmvgen\); the -march=x86-64-v3 reference builds through it"
expect_no_match "no fmvgen-cc: nothing built" "$out" "building"
out=$(cd "$P" && "$TMP/alone/fmvgen" select --reference v3-nofma --build 'make libs' --run './bin/prog 20000' --runs 2 2>&1); rc=$?
refused "$rc" "$out" "no fmvgen-cc, --reference v3-nofma"

# ---- no namespace: the same fmvgen, no reference asked for, so nothing
# needs fmvgen-cc ----
out=$(cd "$P" && "$TMP/alone/fmvgen" select --reference none --max-growth none --build 'make libs' --run './bin/prog 20000' --runs 2 2>&1); rc=$?
refused "$rc" "$out" "wrapper, no helper"
expect_no_match "wrapper: fmvgen-cc not asked for" "$out" "compiler wrapper is missing"
err=$(grep '^fmvgen: ' <<<"$out")
expect_match "wrapper: names the library, the loader and the cause" "$err" \
  "^fmvgen: $P/lib/libdot.so: (baseline|fma-levels|fma-free)'s run of './bin/prog 20000' ran this file \([0-9]+ samples\), from the user's tree $P, not from the variant's own build in $TMPDIR/[^ ]*/\1, loaded by $TMPDIR/[^ ]*/\1/bin/\.libs/lt-prog; likely cause: a libtool wrapper script"
expect_match "wrapper: says what to do" "$err" "make --build rebuild and relink every program, library and wrapper"
expect_match "wrapper: says why no namespace" "$err" "private mount namespace, not used here: $TMP/alone/fmvgen-ns: not found"
expect_no_match "wrapper: no verdict" "$out" "no function gained|selected\.patch"

# ---- --no-namespaces, the RUNPATH program ----
out=$(cd "$P" && "$FMVGEN" select --no-namespaces --build 'make libs' --run './bin/prog-rpath 20000' --runs 2 2>&1); rc=$?
refused "$rc" "$out" "rpath, --no-namespaces"
expect_match "rpath: names the library, the program and the cause" "$(grep '^fmvgen: ' <<<"$out")" \
  "^fmvgen: $P/lib/libdot.so: (baseline|fma-levels|fma-free)'s run of './bin/prog-rpath 20000' ran this file .* loaded by $TMPDIR/[^ ]*/\1/bin/prog-rpath; likely cause: the program's RUNPATH, .*not used here: --no-namespaces was given"

expect_match "rpath: said at the start" "$out" "select: variants ran at their copies' own paths, not in private mount namespaces at the project's path \(--no-namespaces was given\)"

# ---- namespaces: the same build, each variant runs its own library ----
if ! unshare --mount true 2>/dev/null; then
  echo "skipped: private mount namespaces are not permitted here"
  finish
  exit $?
fi
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build 'make libs' --run './bin/prog 20000' --run './bin/prog-rpath 10000' \
        --runs 3 --json 2>"$TMP/err"); rc=$?
expect_eq "namespaces: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "namespaces: dot selected" "$(jq -r '.functions[] | select(.name=="dot") | .selected' <<<"$out")" true
expect_eq "namespaces: fill not selected" "$(jq -r '.functions[] | select(.name=="fill") | .selected' <<<"$out")" false
expect_match "namespaces: dot's clones ran in both variants" \
  "$(jq -r '.functions[] | select(.name=="dot") | [.variants[] | .clone_ran] | join(",")' <<<"$out")" \
  '^fmvgen_cp_dot_[a-z_0-9]+,fmvgen_cp_dot_[a-z_0-9]+$'   # select's default dispatch, cpuid: dot's copies
expect_no_match "namespaces: no note on copies' paths" "$(jq -r '.notes[]' <<<"$out")" "copies' own paths"
expect_match "namespaces: patch names dot" "$(cat "$P/.fmvgen/selected.patch")" "FMVGEN_CPU_BODY\(dot, fmvgen_resolve_dot\)"
expect_eq "namespaces: user's tree untouched" "$(snapshot "$P")" "$before"
expect_eq "namespaces: temp dir removed" "$(ls -A "$TMPDIR")" ""
written=$(cd "$P/.fmvgen" && md5sum selected.patch report.json)

# ---- a build command that rebuilds nothing: the copies hold the user's build, no clone could run ----
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build true --run './bin/prog 20000' --runs 2 2>&1); rc=$?
refused "$rc" "$out" "nothing rebuilt" 4
expect_match "nothing rebuilt: names the build dir, the variant and the command" "$(grep '^fmvgen: ' <<<"$out")" \
  "^fmvgen: $TMPDIR/[^ ]*/fma-levels: the build of fma-levels \('true'\) changed none of its 4 programs and libraries, which are still the copies of the user's build"
expect_eq "nothing rebuilt: earlier outputs unchanged" "$(cd "$P/.fmvgen" && md5sum selected.patch report.json)" "$written"

# ---- a perf without mmap data ----
mkdir -p "$TMP/fakeperf"
cat >"$TMP/fakeperf/perf" <<'SH'
#!/bin/sh
# perf whose `perf script` prints nothing: no mmap records
[ "$1" = script ] && exit 0
exec /usr/bin/perf "$@"
SH
chmod +x "$TMP/fakeperf/perf"
out=$(cd "$P" && PATH="$TMP/fakeperf:$PATH" "$FMVGEN" select --max-growth none --build make --run './bin/prog 20000' --runs 2 2>&1); rc=$?
refused "$rc" "$out" "no mmap data" 4
expect_match "no mmap data: says so" "$(grep '^fmvgen: ' <<<"$out")" \
  "^fmvgen: $P: cannot profile './bin/prog 20000' on (baseline|fma-levels|fma-free): perf recorded no mmap events"
expect_eq "no mmap data: earlier outputs unchanged" "$(cd "$P/.fmvgen" && md5sum selected.patch report.json)" "$written"

# ---- a program that moves between runs: every other run starts the RUNPATH program ----
moving='if [ -e .alt ]; then rm .alt; exec ./bin/prog-rpath 20000; else touch .alt; exec ./bin/prog 20000; fi'
out=$(cd "$P" && "$FMVGEN" select --max-growth none --build make --run "$moving" --runs 2 2>&1); rc=$?
refused "$rc" "$out" "moving program" 4
expect_match "moving program: names it and the runs" "$(grep '^fmvgen: ' <<<"$out")" \
  "^fmvgen: bin/(prog-rpath|\.libs/lt-prog): run 1 of [a-z-]+ of '.*' loaded it, run 1 of [a-z-]+ did not: a workload must run the same programs"

finish
