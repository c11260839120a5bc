#!/bin/bash
# test_scan_cmake.sh - `fmvgen scan` in CMake trees (tests/fixtures/scan-cmake):
#   - a tree configured before the scan runs the compiler by the absolute
#     path CMake cached: no compile goes through the wrapper, and the scan
#     says so in one error line naming CMakeCache.txt, the compiler and the
#     remedies, exit 1 (it used to print "nothing to do", exit 0); the
#     build itself still ran;
#   - the first remedy works: compile_commands.json + --compdb;
#   - configuring inside the scan works: the project's compiles are
#     recorded, CMake's try-compiles (CMakeFiles/CMakeScratch) are not;
#   - from the project's top (cmake -S . -B build, then the scan): both
#     remedies name the tree and source as seen from there, keep the build
#     type, and work as written; --compdb's summary says -C build;
#   - a Makefile with an absolute compiler path gets the generic error.
# With gcc and clang (and clang-19 when installed).
source "$TESTLIB"
command -v cmake >/dev/null || skip_test "cmake is not installed"
SRC=$(copy_fixture scan-cmake)

check_with() {
  local cc=$1
  # Configured before the scan.
  local B="$TMP/pre-$cc"
  CC=$cc cmake -S "$SRC" -B "$B" >/dev/null || { fail "$cc: configure"; return; }
  local out rc
  out=$(cd "$B" && "$FMVGEN" scan -- make 2>&1); rc=$?
  expect_eq "$cc: configured tree: exit" "$rc" 1
  local err; err=$(printf '%s\n' "$out" | grep '^fmvgen: ')
  expect_eq "$cc: one error line" "$(printf '%s\n' "$err" | wc -l)" 1
  expect_match "$cc: names the cache and the compiler" "$err" \
    "^fmvgen: $B/CMakeCache.txt: the build succeeded, but no compile went through fmvgen's wrapper: .* runs $(command -v "$cc")"
  expect_match "$cc: says the remedies" "$err" "CMAKE_EXPORT_COMPILE_COMMANDS=ON .*--compdb compile_commands.json.*configure a fresh build dir"
  expect_eq "$cc: the build ran" "$([ -x "$B/prog" ] && echo yes)" yes
  # The same, the tree named by make -C and cmake --build from elsewhere.
  for cmd in "make -C pre-$cc" "cmake --build pre-$cc"; do
    mkdir -p "$TMP/elsewhere-$cc"
    out=$(cd "$TMP" && "$FMVGEN" -C "$TMP/elsewhere-$cc" scan -- $cmd 2>&1); rc=$?
    expect_eq "$cc: $cmd: exit" "$rc" 1
    expect_match "$cc: $cmd: names the cache" "$out" "^fmvgen: $B/CMakeCache.txt: the build succeeded, but no compile"
  done
  # Remedy 1: a compilation database.
  cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$B" >/dev/null
  out=$(cd "$B" && "$FMVGEN" scan --compdb compile_commands.json 2>&1); rc=$?
  expect_eq "$cc: --compdb exit" "$rc" 0
  expect_eq "$cc: --compdb candidates" "$(sqlite3 "$B/.fmvgen/store.sqlite" "SELECT name FROM functions WHERE status='candidate'")" mix

  # Configured inside the scan (cmake --build also names the tree).
  local F="$TMP/fresh-$cc"; mkdir -p "$F"
  out=$(cd "$F" && CC=$cc "$FMVGEN" scan -- sh -c "cmake -S '$SRC' -B . >/dev/null && cmake --build ." 2>&1); rc=$?
  expect_eq "$cc: fresh configure: exit" "$rc" 0
  local DB="$F/.fmvgen/store.sqlite"
  expect_eq "$cc: only the project's compiles" \
    "$(sqlite3 "$DB" "SELECT group_concat(replace(source, '$SRC/', ''), ' ') FROM (SELECT source FROM compiles ORDER BY source)")" \
    "kernel.c main.c"
  expect_eq "$cc: fresh candidates" "$(sqlite3 "$DB" "SELECT name FROM functions WHERE status='candidate'")" mix
  expect_no_match "$cc: fresh: no error" "$out" "^fmvgen: .*(error|no compile went)"
  expect_match "$cc: fresh: the cached wrapper is said" "$out" \
    "^fmvgen: warning: $F/CMakeCache.txt: CMake cached fmvgen's wrapper .*/\\.fmvgen/wrap/[^ ]* as CMAKE_C_COMPILER"
  # Configured in a subdirectory named inside `sh -c`: the tree is found
  # there, and the cached wrapper said too.
  local S="$TMP/sub-$cc"; mkdir -p "$S"
  out=$(cd "$S" && CC=$cc "$FMVGEN" scan -- sh -c "cmake -S '$SRC' -B out/b >/dev/null && cmake --build out/b" 2>&1); rc=$?
  expect_eq "$cc: sh -c subdir: exit" "$rc" 0
  expect_match "$cc: sh -c subdir: the cached wrapper is said" "$out" \
    "^fmvgen: warning: $S/out/b/CMakeCache.txt: CMake cached fmvgen's wrapper .*/\\.fmvgen/wrap/[^ ]* as CMAKE_C_COMPILER"
  # Scanned again with the store gone and nothing to rebuild: the cached
  # compiler is the wrapper, so the line says nothing needed compiling.
  rm -rf "$F/.fmvgen/store.sqlite"*
  out=$(cd "$F" && "$FMVGEN" scan -- cmake --build . 2>&1); rc=$?
  expect_eq "$cc: up-to-date tree: exit" "$rc" 1
  expect_match "$cc: up-to-date tree: generic line" "$out" "^fmvgen: cmake: the build succeeded, but no C/C\+\+ compile .*nothing needed compiling"
  expect_match "$cc: up-to-date tree: CMake's own rebuild option" "$out" "nothing needed compiling \('cmake --build \. --clean-first' rebuilds everything\)"
  # A rebuild of that tree after the scan needs no fmvgen environment.
  (cd "$F" && touch "$SRC/kernel.c" && cmake --build . >/dev/null 2>&1); expect_eq "$cc: plain rebuild" "$?" 0
}

# A new user's order from the project's top: 'cmake -S . -B build', then
# the scan. The remedies name the tree and the source as seen from there
# (not '.': that would configure the source tree in place) and keep the
# cached build type, and each works as written; after --compdb (whose
# store goes beside the database) the next commands are said with -C.
check_from_top() {
  local cc=$1 out rc err r1 r2
  local P="$TMP/proj-$cc"
  cp -a "$SRC" "$P"
  (cd "$P" && CC=$cc cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null) || { fail "$cc: top: configure"; return; }
  out=$(cd "$P" && "$FMVGEN" scan -- cmake --build build 2>&1); rc=$?
  expect_eq "$cc: top: exit" "$rc" 1
  err=$(printf '%s\n' "$out" | grep '^fmvgen: ')
  expect_match "$cc: top: remedy 1 names the tree" "$err" \
    "; run 'cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON build && fmvgen scan --compdb build/compile_commands.json'"
  expect_match "$cc: top: remedy 2 names the source and keeps the build type" "$err" \
    "under the scan: 'fmvgen scan -- sh -c \"cmake -S \\. -B build-fmvgen -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build-fmvgen\"'"
  r1=$(printf '%s' "$err" | sed -n "s/.*; run '\([^']*\)'.*/\1/p")
  r2=$(printf '%s' "$err" | sed -n "s/.*under the scan: '\([^']*\)'.*/\1/p")
  out=$(cd "$P" && eval "${r1//fmvgen scan/\"\$FMVGEN\" scan}" 2>&1); rc=$?
  expect_eq "$cc: top: remedy 1 as written: exit" "$rc" 0
  expect_match "$cc: top: remedy 1: next commands with -C" "$out" "^next: 'fmvgen -C build list' to review, 'fmvgen -C build patch"
  expect_eq "$cc: top: remedy 1: list -C build" \
    "$(cd "$P" && "$FMVGEN" -C build list --json | jq -r '[.functions[] | select(.status=="candidate") | .name] | join(" ")')" mix
  rm -rf "$P/.fmvgen"   # the first scan's empty store
  out=$(cd "$P" && eval "${r2//fmvgen scan/\"\$FMVGEN\" scan}" 2>&1); rc=$?
  expect_eq "$cc: top: remedy 2 as written: exit" "$rc" 0
  expect_match "$cc: top: remedy 2: next commands as they are" "$out" "^next: 'fmvgen list' to review"
  expect_eq "$cc: top: remedy 2: candidates" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.status=="candidate") | .name] | join(" ")')" mix
  expect_match "$cc: top: remedy 2: built with the build type" \
    "$(grep -h '^CMAKE_BUILD_TYPE' "$P/build-fmvgen/CMakeCache.txt")" "=RelWithDebInfo$"
}

check_with gcc
check_from_top gcc
check_from_top clang
if have_clang19; then check_from_top clang-19; fi
check_with clang
if have_clang19; then check_with clang-19; else echo "clang-19 not installed: skipped"; fi

# A Makefile with an absolute compiler path: the generic explanation.
M="$TMP/abs"; cp -a "$SRC" "$M"
out=$(cd "$M" && "$FMVGEN" scan -- make -f Makefile.abs CC="$(command -v gcc)" 2>&1); rc=$?
expect_eq "absolute CC: exit" "$rc" 1
expect_match "absolute CC: says why" "$out" "^fmvgen: make: the build succeeded, but no C/C\+\+ compile went through fmvgen's wrapper.*absolute path"
expect_match "absolute CC: make's own rebuild option" "$out" "nothing needed compiling \('make -B' rebuilds everything\)"
finish
