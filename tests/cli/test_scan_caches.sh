#!/bin/bash
# test_scan_caches.sh - compiles the scan must see although the build would
# hide them, on tests/fixtures/scan-multidir:
#   - ccache as a launcher (CC="ccache gcc") and as masquerade links first
#     in PATH (/usr/lib/ccache): with a warm cache every compile would be a
#     hit and call no compiler; the scan runs them with CCACHE_DISABLE, so
#     every TU has records, the objects are those of a plain build, the
#     stored compiler is the real one (probes run it directly), and the
#     cache is neither read nor written;
#   - a response file (CFLAGS=@flags.rsp) is expanded by the wrapper: the
#     stored argv carries its -O3 (the wrapper and compdb share the expander).
# The ccache cases are skipped (said so) when ccache is not installed.
source "$TESTLIB"

CANDIDATES=$(printf 'blend\nmul_ops\nscale_a\nsum_b')
OBJS=(main.o src/a/util.o src/b/util.o "dir with space/naïve.o" ops.o)
export CCACHE_DIR="$TMP/ccache-dir"
unset CCACHE_DISABLE

# scan_cached NAME MAKE-ENV...: warms the cache with a plain build, keeps its
# objects, cleans, scans the same build, and checks what the scan saw.
scan_cached() {
  local name=$1; shift
  local P; P=$(copy_fixture scan-multidir); mv "$P" "$TMP/$name"; P="$TMP/$name"
  (cd "$P" && env "$@" make -s >/dev/null 2>&1) || { fail "$name: plain build"; return; }
  mkdir -p "$TMP/$name.plain"
  for o in "${OBJS[@]}"; do mkdir -p "$TMP/$name.plain/$(dirname "$o")"; cp "$P/$o" "$TMP/$name.plain/$o"; done
  (cd "$P" && make -s clean && env "$@" make -s >/dev/null 2>&1 && make -s clean)   # now every compile hits
  local hits_before; hits_before=$(ccache --print-stats | awk '$1 == "direct_cache_hit" {print $2}')
  local out rc
  # (timeout: a wrapper taking ccache's masquerade link for the real
  # compiler would call itself through ccache forever)
  out=$(cd "$P" && env "$@" timeout 300 "$FMVGEN" scan --no-probe -- make -s 2>&1); rc=$?
  expect_eq "$name: exit" "$rc" 0
  local DB="$P/.fmvgen/store.sqlite"
  expect_eq "$name: every compile recorded" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles")" 5
  expect_eq "$name: every record file read" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE status='read'")" 5
  expect_eq "$name: candidates" "$(sqlite3 "$DB" "SELECT name FROM functions WHERE status='candidate' ORDER BY name")" "$CANDIDATES"
  expect_no_match "$name: stored compiler is the real one" "$(sqlite3 "$DB" "SELECT group_concat(compiler) FROM compiles")" "ccache"
  for o in "${OBJS[@]}"; do
    if cmp -s "$P/$o" "$TMP/$name.plain/$o"; then pass; else fail "$name: $o differs from the plain build"; fi
  done
  expect_eq "$name: the cache was not read" \
    "$(ccache --print-stats | awk '$1 == "direct_cache_hit" {print $2}')" "$hits_before"
  expect_eq "$name: CCACHE_DISABLE only for the scan's build" "${CCACHE_DISABLE-unset}" unset
}

if command -v ccache >/dev/null 2>&1; then
  scan_cached launcher CC="ccache gcc" CXX="ccache g++" CFLAGS=-O3 CXXFLAGS=-O3
  if [ -x /usr/lib/ccache/gcc ]; then
    scan_cached masquerade PATH="/usr/lib/ccache:$PATH" CC=gcc CXX=g++ CFLAGS=-O3 CXXFLAGS=-O3
  else
    echo "SKIP: masquerade: no /usr/lib/ccache/gcc"
  fi
else
  echo "SKIP: ccache cases: ccache is not installed"
fi

# A response file in the build's flags.
P=$(copy_fixture scan-multidir); mv "$P" "$TMP/rsp"; P="$TMP/rsp"
printf -- '-O3\n-DFROM_RSP="a b"\n' > "$TMP/flags.rsp"
out=$(cd "$P" && CC=gcc CXX=g++ "$FMVGEN" scan --no-probe -- make -s CFLAGS="@$TMP/flags.rsp" CXXFLAGS=-O3 2>&1); rc=$?
expect_eq "response file: exit" "$rc" 0
DB="$P/.fmvgen/store.sqlite"
expect_match "response file: argv expanded" \
  "$(sqlite3 "$DB" "SELECT argv FROM compiles WHERE source LIKE '%/main.c'")" '"-O3","-DFROM_RSP=a b","-c","main.c"'
expect_eq "response file: candidates" "$(sqlite3 "$DB" "SELECT name FROM functions WHERE status='candidate' ORDER BY name")" "$CANDIDATES"

finish
