#!/bin/bash
# test_select_oot.sh - `fmvgen select` on a CMake project built out of tree
# (tests/fixtures/select-cmake, scanned from its compile_commands.json):
#   - build dir outside the root: refused without --configure (saying what
#     to pass); with --configure each variant gets a private source copy and
#     a fresh build dir where configure, build, workloads and --test run with
#     FMVGEN_SOURCE_DIR set; the hot kernel is selected, the cold one not,
#     5 builds, the patch applies to the user's tree, which is untouched
#     (sources and build dir); --keep keeps that layout, else the temp dir
#     is removed;
#   - a failing --configure is reported as such, nothing selected; Ctrl-C
#     while configuring exits 130 and removes everything;
#   - build dir below the root (ROOT/build) without --configure: the copy's
#     build dir is moved (CMake caches) and built; the user's build dir is
#     left as it was.
# Asserts on the selection, never on times.
source "$TESTLIB"

if ! command -v cmake >/dev/null; then
  skip_test "cmake is not installed"
fi
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

# configure_and_scan SRC BUILD: the user's own configure, build and scan.
configure_and_scan() {
  cmake -S "$1" -B "$2" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null 2>&1 &&
    make -C "$2" >/dev/null 2>&1 &&
    (cd "$2" && "$FMVGEN" scan --root "$1" --compdb compile_commands.json >/dev/null 2>&1)
}
snapshot() { (cd "$1" && find . -path ./tmpdir -prune -o -type f -print0 | sort -z | xargs -0 md5sum); }

# ---- build dir outside the root ----
P=$(copy_fixture select-cmake)
B="$TMP/build-elsewhere"
configure_and_scan "$P" "$B" || fail "outside: configure/build/scan failed"
before_src=$(snapshot "$P")
before_build=$(cd "$B" && md5sum prog CMakeCache.txt Makefile)

out=$(cd "$B" && "$FMVGEN" select --max-growth none --build make --run './prog 40000' --runs 3 2>&1); rc=$?
expect_eq "outside, no --configure: exit" "$rc" 1
expect_match "outside, no --configure: says what to pass" "$out" \
  "^fmvgen: $B: the build directory is outside the project root $P: give --configure CMD"
expect_eq "outside, no --configure: one line" "$(printf '%s\n' "$out" | wc -l)" 1
[ -e "$B/.fmvgen/report.json" ] && fail "outside, no --configure: report written" || pass

# The test checks it runs in a fresh build dir beside its own source copy.
test_cmd='[ -f "$FMVGEN_SOURCE_DIR/kernels.c" ] && [ -f CMakeCache.txt ] && [ ! -f kernels.c ] && [ "$FMVGEN_SOURCE_DIR" != '"'$P'"' ]'
out=$(cd "$B" && "$FMVGEN" select --max-growth none --configure 'cmake -S "$FMVGEN_SOURCE_DIR" -B .' --build make \
        --run './prog 40000' --test "$test_cmd" --runs 3 --keep --json 2>"$TMP/err"); rc=$?
expect_eq "outside: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "outside: dot selected" "$(jq -r '.functions[] | select(.name=="dot") | .selected' <<<"$out")" true
expect_eq "outside: fill not selected" "$(jq -r '.functions[] | select(.name=="fill") | .selected' <<<"$out")" false
expect_eq "outside: builds (+ the -march=x86-64-v3 reference)" "$(jq -r .builds <<<"$out")" 5
# a fresh configure takes CC from the environment: the wrapper's link, which appends -march=x86-64-v3
expect_eq "outside: -march=x86-64-v3 reference compared" \
  "$(jq -r '.code_size.march_x86_64_v3 | [.built, .failure, .code.code_bytes > 0] | map(tostring) | join(",")' <<<"$out")" "true,null,true"
expect_match "outside: the fresh configure cached the wrapper" "$(jq -r '.references[0].built_via' <<<"$out")" \
  "fresh CMake configure cached as its compiler"
expect_eq "outside: variants pass --test (env and layout as documented)" \
  "$(jq -r '[.variants[1:][] | .eligible] | join(",")' <<<"$out")" "true,true"
patch="$B/.fmvgen/selected.patch"
expect_match "outside: patch names dot" "$(cat "$patch")" "FMVGEN_CPU_BODY\(dot, fmvgen_resolve_dot\)"   # cpuid, select's default
(cd "$P" && patch -p1 --dry-run -s <"$patch" >/dev/null) && pass || fail "outside: patch does not apply to the root"
expect_eq "outside: user's sources untouched" "$(snapshot "$P")" "$before_src"
expect_eq "outside: user's build untouched" "$(cd "$B" && md5sum prog CMakeCache.txt Makefile)" "$before_build"
kept=$(sed -n 's/^select: kept the temp directory //p' "$TMP/err")
expect_match "outside: --keep names the temp dir" "$kept" "^$TMPDIR/"
for v in baseline fma-levels fma-free selected; do
  [ -f "$kept/src-$v/kernels.c" ] && [ -f "$kept/$v/CMakeCache.txt" ] && [ -x "$kept/$v/prog" ] && pass ||
    fail "outside: --keep: no source copy and fresh build dir for $v"
done
expect_match "outside: the selected copy is patched" "$(cat "$kept/src-selected/kernels.c")" "^FMVGEN_CLONES_CPU$"
expect_match "outside: its build dir is configured for it" \
  "$(grep CMAKE_HOME_DIRECTORY "$kept/selected/CMakeCache.txt")" "=$kept/src-selected\$"
rm -rf "$kept"

# A failing configure: reported as such, nothing written, temp dir removed.
rm -f "$B/.fmvgen/report.json"
out=$(cd "$B" && "$FMVGEN" select --max-growth none --configure 'echo no-configure-here; exit 4' --build make \
        --run './prog 40000' --runs 2 2>&1); rc=$?
expect_eq "failing configure: exit" "$rc" 1
expect_match "failing configure: error line" "$out" "fmvgen: .*build of variant 'baseline' failed \(configure: exit status 4\)"
expect_match "failing configure: its output shown" "$out" "no-configure-here"
[ -e "$B/.fmvgen/report.json" ] && fail "failing configure: report written" || pass
expect_eq "failing configure: temp dir removed" "$(ls -A "$TMPDIR")" ""

# Ctrl-C while a fresh build dir is being configured: exit 130, the source
# copies and build dirs removed.
(cd "$B" && exec "$FMVGEN" select --max-growth none --configure 'sleep 2; cmake -S "$FMVGEN_SOURCE_DIR" -B .' --build make \
   --run './prog 100' --runs 2 >/dev/null 2>&1) &
pid=$!
for _ in $(seq 1 100); do ls -d "$TMPDIR"/*/src-baseline >/dev/null 2>&1 && break; sleep 0.1; done
ls -d "$TMPDIR"/*/src-baseline >/dev/null 2>&1 && pass || fail "SIGINT: no source copy seen"
kill -INT "$pid"
wait "$pid"; rc=$?
expect_eq "SIGINT while configuring: exit" "$rc" 130
expect_eq "SIGINT while configuring: temp dir removed" "$(ls -A "$TMPDIR")" ""

# ---- build dir below the root, no --configure ----
Q="$TMP/q"
mkdir -p "$Q" && cp -a "$FIXTURES/select-cmake/." "$Q/"
configure_and_scan "$Q" "$Q/build" || fail "below: configure/build/scan failed"
before_q=$(cd "$Q" && find . -path ./build/.fmvgen -prune -o -type f -print0 | sort -z | xargs -0 md5sum)
out=$(cd "$Q/build" && "$FMVGEN" select --max-growth none --build make --run './prog 40000' --runs 3 --json 2>"$TMP/err"); rc=$?
expect_eq "below: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$TMP/err" >&2
expect_eq "below: dot selected" "$(jq -r '.functions[] | select(.name=="dot") | .selected' <<<"$out")" true
expect_eq "below: fill not selected" "$(jq -r '.functions[] | select(.name=="fill") | .selected' <<<"$out")" false
expect_eq "below: builds (+ the -march=x86-64-v3 reference)" "$(jq -r .builds <<<"$out")" 5
# a CMake cache configured before select runs /usr/bin/cc by absolute path:
# the reference gets fmvgen's wrapper as the moved cache's compiler launcher,
# so every source gets -march=x86-64-v3 and its code differs from the baseline's
expect_eq "below: -march=x86-64-v3 reference built with its flag" \
  "$(jq -r '.code_size.march_x86_64_v3.failure' <<<"$out")" null
expect_match "below: through the CMake cache's compiler launcher" "$(jq -r '.references[0].built_via' <<<"$out")" \
  "compiler launcher of the copied CMake cache"
expect_eq "below: every source got the flag" \
  "$(jq -r '.references[0] | .sources == .sources_with_flags and .sources > 0' <<<"$out")" true
expect_eq "below: -march=x86-64-v3 reference timed" \
  "$(jq -r '.workloads[0].march_x86_64_v3 != null' <<<"$out")" true
expect_match "below: patch names dot" "$(cat "$Q/build/.fmvgen/selected.patch")" "FMVGEN_CPU_BODY\(dot, fmvgen_resolve_dot\)"
expect_eq "below: user's tree and build dir untouched" \
  "$(cd "$Q" && find . -path ./build/.fmvgen -prune -o -type f -print0 | sort -z | xargs -0 md5sum)" "$before_q"
expect_eq "below: temp dir removed" "$(ls -A "$TMPDIR")" ""

finish
