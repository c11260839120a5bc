#!/bin/bash
# test_wrapper_cost.sh - what the wrapper costs a build's compiler calls
# (wrapper.h, src/CMakeLists.txt):
#   - a call the wrapper only passes on (no store; or a store but nothing
#     to record: --version, a link) runs the real compiler in the wrapper's
#     own process (exec), with its output and exit code; a real compiler
#     that cannot start is one line and exit 127;
#   - while the build runs, the scan keeps its connection to the store
#     open (scan.c), so that each compile's connection finds SQLite's WAL
#     index and does not rebuild it by reading the whole WAL;
#   - fmvgen-cc loads no shared SQLite when the static archive is installed.
source "$TESTLIB"
CC_EXE="$(dirname "$FMVGEN")/fmvgen-cc"

# A "real" gcc further down PATH that says which process it runs in.
mkdir -p "$TMP/real" "$TMP/links"
printf '#!/bin/sh\necho "pid $$"\nexit 3\n' >"$TMP/real/gcc"
chmod +x "$TMP/real/gcc"
ln -s "$CC_EXE" "$TMP/links/gcc"

# ---- pass-through without a store ----
out=$(env -u FMVGEN_STORE PATH="$TMP/links:$TMP/real:$PATH" sh -c 'echo "pid $$"; exec gcc --version'); rc=$?
expect_eq "no store: the compiler's exit code" "$rc" 3
expect_eq "no store: two lines" "$(printf '%s\n' "$out" | wc -l)" 2
expect_eq "no store: the compiler runs in the wrapper's process" \
  "$(printf '%s\n' "$out" | sed -n 2p)" "$(printf '%s\n' "$out" | sed -n 1p)"

# ---- pass-through inside a scan (nothing to record) ----
P=$(copy_fixture scan-multidir)
(cd "$P" && "$FMVGEN" scan --no-probe -- sh -c 'ls -l /proc/$PPID/fd >fds; make -s' >"$TMP/out" 2>"$TMP/err")
expect_match "scan: the scan holds the store while the build runs" "$(cat "$P/fds")" '/\.fmvgen/store\.sqlite$'
expect_match "scan: the build's compiles recorded" "$(sqlite3 "$P/.fmvgen/store.sqlite" 'SELECT count(*) FROM compiles')" '^[1-9]'

# a pass-through call inside a scan: the wrapper's process is the compiler's
out=$(cd "$P" && PATH="$TMP/real:$PATH" "$FMVGEN" scan --no-probe -- \
  sh -c 'echo "pid $$"; exec gcc --version' 2>/dev/null)
expect_eq "scan, exec'd link: the compiler runs in the wrapper's process" \
  "$(printf '%s\n' "$out" | grep '^pid' | sed -n 2p)" "$(printf '%s\n' "$out" | grep '^pid' | sed -n 1p)"

# ---- a real compiler that cannot start ----
printf '#!/nonexistent/interpreter\n' >"$TMP/real/gcc"
env -u FMVGEN_STORE PATH="$TMP/links:$TMP/real:$PATH" gcc --version >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_eq "cannot start: exit" "$rc" 127
expect_match "cannot start: one line naming it" "$(cat "$TMP/err")" "^fmvgen: $TMP/real/gcc: cannot run: "
expect_eq "cannot start: error lines" "$(wc -l <"$TMP/err")" 1

# ---- fmvgen-cc's libraries ----
archive=$(gcc -print-file-name=libsqlite3.a)
if [ -f "$archive" ] || [ -f /usr/lib/x86_64-linux-gnu/libsqlite3.a ]; then
  expect_eq "fmvgen-cc: no shared SQLite" "$(readelf -d "$CC_EXE" | grep -c 'NEEDED.*libsqlite3')" 0
else
  echo "libsqlite3.a not installed: fmvgen-cc links the shared one; check skipped"
fi

finish
