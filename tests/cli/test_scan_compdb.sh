#!/bin/bash
# test_scan_compdb.sh - `fmvgen scan --compdb FILE` and `fmvgen scan --log
# FILE` on tests/fixtures/scan-multidir:
#   - --compdb stores in the database's directory (and says so), whatever
#     the current directory; each compile re-run for records (variant
#     "build"), the probes too; the source tree gets no file at all;
#   - a compiler in the database that is not GCC/Clang: exit 1, named;
#   - --log reads a -fopt-info-vec build log: one compile per file named,
#     its loops, the candidates; no probes (a log has no commands).
source "$TESTLIB"

P=$(copy_fixture scan-multidir)
B="$P/build"
mkdir -p "$B"
cat > "$B/compile_commands.json" <<EOF
[
 {"directory": "$P", "file": "main.c", "arguments": ["gcc", "-O3", "-c", "main.c", "-o", "build/main.o"]},
 {"directory": "$P", "file": "src/a/util.c", "arguments": ["gcc", "-O3", "-MD", "-c", "src/a/util.c", "-o", "build/a_util.o"]},
 {"directory": "$P/src/b", "file": "util.c", "command": "gcc -O2 -c util.c -o ../../build/b_util.o"},
 {"directory": "$P", "file": "dir with space/naïve.c", "command": "gcc -O3 -c 'dir with space/naïve.c' -o build/naive.o"},
 {"directory": "$P", "file": "ops.cpp", "arguments": ["g++", "-O3", "-c", "ops.cpp", "-o", "build/ops.o"]}
]
EOF
before=$(cd "$P" && find . | sort)
out=$(cd "$TMP" && "$FMVGEN" scan --o3 --compdb "$B/compile_commands.json" 2>&1); rc=$?
expect_eq "compdb: exit" "$rc" 0
expect_match "compdb: says where the store goes" "$out" "store.* $B/.fmvgen"
DB="$B/.fmvgen/store.sqlite"
expect_eq "compdb: compiles" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE exit_status=0")" 5
expect_eq "compdb: build records" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='build' AND status='read'")" 5
expect_eq "compdb: probe records" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='probe:arch=x86-64-v4' AND status='read'")" 5
# Only src/b/util.c is built at -O2: the -O3 comparison (--o3) runs for it alone.
expect_eq "compdb: O3 probe" "$(sqlite3 "$DB" "SELECT c.source FROM record_files r JOIN compiles c ON c.id=r.compile_id WHERE r.variant='probe:O3'")" "$P/src/b/util.c"
# sum_b vectorizes only in the -O3 comparison: its clones would keep the
# build's -O2, so it is no candidate (the TU gets the -O2 note instead).
expect_eq "compdb: candidates" "$(sqlite3 "$DB" "SELECT group_concat(name) FROM (SELECT name FROM functions WHERE status='candidate' ORDER BY name)")" "blend,mul_ops,scale_a"
after=$(cd "$P" && find . -path ./build/.fmvgen -prune -o -print | sort)
expect_eq "compdb: no file written in the project" "$after" "$before"
# Run again: the same rows, updated in place.
out=$(cd "$TMP" && "$FMVGEN" scan --no-probe --compdb "$B/compile_commands.json" 2>&1); rc=$?
expect_eq "compdb rescan: exit" "$rc" 0
expect_eq "compdb rescan: compiles" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles")" 5

# A database naming a compiler that is neither GCC nor Clang.
mkdir -p "$TMP/fakebin" "$TMP/bad"
printf '#!/bin/sh\necho "FakeCC 1.0"\n' > "$TMP/fakebin/fakecc"
chmod +x "$TMP/fakebin/fakecc"
printf '[{"directory": "%s", "file": "main.c", "arguments": ["%s", "-c", "main.c"]}]\n' "$P" "$TMP/fakebin/fakecc" > "$TMP/bad/compile_commands.json"
out=$("$FMVGEN" scan --compdb "$TMP/bad/compile_commands.json" 2>&1); rc=$?
expect_eq "compdb fake compiler: exit" "$rc" 1
expect_match "compdb fake compiler: named" "$out" "$TMP/fakebin/fakecc.*not GCC or Clang"

# --log: a plain -fopt-info-vec build log.
L="$TMP/logproj"; mkdir -p "$L"; cp -a "$FIXTURES/scan-multidir/." "$L/"
(cd "$L" && gcc -O3 -fopt-info-vec -c src/a/util.c -o /dev/null && gcc -O3 -fopt-info-vec -c "dir with space/naïve.c" -o /dev/null) > "$L/build.log" 2>&1
mkdir -p "$L/scan"
out=$(cd "$L/scan" && "$FMVGEN" scan --root "$L" --log "$L/build.log" 2>&1); rc=$?
expect_eq "log: exit" "$rc" 0
DB="$L/scan/.fmvgen/store.sqlite"
expect_eq "log: compiles" "$(sqlite3 "$DB" "SELECT source FROM compiles ORDER BY source")" "$L/dir with space/naïve.c
$L/src/a/util.c"
expect_eq "log: no probes" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant LIKE 'probe:%'")" 0
expect_match "log: candidates" "$(sqlite3 "$DB" "SELECT group_concat(name) FROM functions WHERE status='candidate'")" "scale_a"
out=$("$FMVGEN" scan --log "$TMP/no-such.log" 2>&1); rc=$?
expect_eq "log missing: exit" "$rc" 1

finish
