#!/bin/bash
# test_scan_errors.sh - what `fmvgen scan` does with bad input and under
# load:
#   - make -j8 over twenty TUs (tests/fixtures/scan-many): every compile and
#     record file is in the store (parallel wrappers lose nothing);
#   - a failing build: scan exits with the build's status and keeps (and
#     analyzes) the compiles that succeeded; the failed one is stored failed;
#   - a corrupt record file (a compiler script that truncates it): named on
#     stderr, exit 1, the other files still read;
#   - a compiler that is neither GCC nor Clang: one clear line naming it,
#     exit 1, and the build itself still ran;
#   - configure-style probes (conftest.c) run but are not recorded;
#   - two sources in one -c command (gcc, clang): both recorded with records;
#   - CC given as an absolute path (clang-19): that compiler runs;
#   - usage errors: no build command, two sources, unknown target, bad -j
#     (exit 2); --help (exit 0); a project with nothing to vectorize says
#     "nothing to do" with exit 0; --json.
source "$TESTLIB"

GCC=$(command -v gcc)
# fresh_copy FIXTURE NAME -> path of a new copy (copy_fixture reuses one path)
fresh_copy() { mkdir -p "$TMP/$2" && cp -a "$FIXTURES/$1/." "$TMP/$2/" && printf '%s' "$TMP/$2"; }

# ---- make -j8, twenty TUs ----
P=$(copy_fixture scan-many)
out=$(cd "$P" && "$FMVGEN" scan --no-probe -- make -s -j8 2>&1); rc=$?
expect_eq "-j8: exit" "$rc" 0
DB="$P/.fmvgen/store.sqlite"
expect_eq "-j8: compiles" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE exit_status=0")" 20
expect_eq "-j8: distinct outputs" "$(sqlite3 "$DB" "SELECT count(DISTINCT output) FROM compiles")" 20
expect_eq "-j8: record files read" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='build' AND status='read'")" 20
expect_eq "-j8: every TU vectorized" "$(sqlite3 "$DB" "SELECT count(DISTINCT compile_id) FROM loops WHERE variant='build'")" 20
# Again with clang, rebuilding everything.
out=$(cd "$P" && CC=clang "$FMVGEN" scan --no-probe -- make -s -j8 -B 2>&1); rc=$?
expect_eq "-j8 clang: exit" "$rc" 0
expect_eq "-j8 clang: compiles" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE compiler_kind='clang'")" 20
expect_eq "-j8 clang: record files read" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='build' AND status='read'")" 20

# ---- a failing build ----
P=$(fresh_copy scan-multidir failing)
printf 'this is not C;\n' >> "$P/src/a/util.c"
out=$(cd "$P" && "$FMVGEN" scan --no-probe -- make -k -s CFLAGS=-O3 CXXFLAGS=-O3 2>&1); rc=$?
expect_eq "failing build: exit is make's" "$rc" 2
DB="$P/.fmvgen/store.sqlite"
expect_eq "failing build: successful compiles kept" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE exit_status=0")" 4
expect_eq "failing build: failed compile stored as failed" \
  "$(sqlite3 "$DB" "SELECT source FROM compiles WHERE exit_status<>0")" "$P/src/a/util.c"
expect_match "failing build: the rest analyzed" "$(sqlite3 "$DB" "SELECT group_concat(name) FROM functions WHERE status='candidate'")" "sum_b"
expect_match "failing build: summary" "$out" "compiles: +5 \(1 failed\)"
expect_match "failing build: said in one line" "$out" \
  "^fmvgen: the build 'make -k -s CFLAGS=-O3 CXXFLAGS=-O3' failed \(exit 2\): only what compiled before it stopped is scanned; fix the build and scan again$"
# A build that fails without a word of its own (a script's exit 1): still said.
P=$(fresh_copy scan-multidir silent)
out=$(cd "$P" && "$FMVGEN" scan --no-probe -- false 2>&1); rc=$?
expect_eq "silent failing build: exit is its own" "$rc" 1
expect_match "silent failing build: said" "$out" "^fmvgen: the build 'false' failed \(exit 1\)"

# ---- a corrupt record file ----
# A "gcc" first in PATH (after the wrapper's) that cuts short the loop
# vectorizer's dump GCC wrote for main.c (as a killed compile would).
P=$(fresh_copy scan-multidir corrupt)
mkdir -p "$TMP/badbin"
cat > "$TMP/badbin/gcc" <<EOF
#!/bin/bash
"$GCC" "\$@"; rc=\$?
for a in "\$@"; do
  case \$a in
    -fdump-tree-vect-optimized=*/main.vect)
      printf '\\n;; Function main (main, funcdef_no=0, decl_uid=1, cgraph_uid=1, symbol_order=0)\\n\\nmain.c:3:5: optimized: loop vec' > "\${a#*=}" ;;
  esac
done
exit \$rc
EOF
chmod +x "$TMP/badbin/gcc"
out=$(cd "$P" && PATH="$TMP/badbin:$PATH" CC=gcc "$FMVGEN" scan --no-probe -- make -s CFLAGS=-O3 CXXFLAGS=-O3 2>&1); rc=$?
expect_eq "corrupt record: exit" "$rc" 1
expect_match "corrupt record: named" "$out" "fmvgen: [^ ]*/main.vect: truncated GCC dump"
DB="$P/.fmvgen/store.sqlite"
expect_eq "corrupt record: marked" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE status='corrupt'")" 1
expect_eq "corrupt record: others read" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE status='read'")" 4
expect_match "corrupt record: others analyzed" "$(sqlite3 "$DB" "SELECT group_concat(name) FROM functions WHERE status='candidate'")" "scale_a"
expect_match "corrupt record: summary" "$out" "1 corrupt"

# ---- a compiler that is neither GCC nor Clang ----
P=$(fresh_copy scan-multidir fake)
mkdir -p "$TMP/fakebin"
cat > "$TMP/fakebin/cc" <<EOF
#!/bin/bash
if [ "\$1" = --version ]; then echo "FakeCC 1.0 (not a real compiler)"; exit 0; fi
exec "$GCC" "\$@"
EOF
chmod +x "$TMP/fakebin/cc"
out=$(cd "$P" && PATH="$TMP/fakebin:$PATH" "$FMVGEN" scan --no-probe -- make -s main.o 2>&1); rc=$?
expect_eq "fake compiler: exit" "$rc" 1
expect_match "fake compiler: clear error" "$out" "^fmvgen: $TMP/fakebin/cc: not GCC or Clang"
expect_match "fake compiler: says what it is" "$out" "FakeCC 1.0"
if [ -f "$P/main.o" ]; then pass; else fail "fake compiler: the build did not run"; fi
expect_eq "fake compiler: nothing recorded" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT count(*) FROM compiles")" 0

# ---- configure probes are not recorded ----
P="$TMP/conf"; mkdir -p "$P"
printf 'int main(void) { return 0; }\n' > "$P/conftest.c"
printf 'void f(float *x) { for (int i = 0; i < 64; i++) x[i] *= 2; }\n' > "$P/real.c"
out=$(cd "$P" && "$FMVGEN" scan --no-probe -- sh -c 'cc -O3 -o conftest conftest.c && cc -O3 -c real.c' 2>&1); rc=$?
expect_eq "configure probe: exit" "$rc" 0
if [ -x "$P/conftest" ]; then pass; else fail "configure probe: not built"; fi
expect_eq "configure probe: only the real TU" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT source FROM compiles")" "$P/real.c"

# ---- compile-and-link in one step, a link step, -E: only the compile ----
P="$TMP/onestep"; mkdir -p "$P"
printf 'float a[256], b[256];\nvoid add(void) { for (int i = 0; i < 256; i++) a[i] += b[i]; }\nint main(void) { add(); return (int)a[1]; }\n' > "$P/prog.c"
out=$(cd "$P" && "$FMVGEN" scan --no-probe -- sh -c 'cc -O3 -o prog prog.c && cc -E prog.c -o prog.i && cc -O3 -c prog.c -o prog.o && cc -o prog2 prog.o' 2>&1); rc=$?
expect_eq "one step: exit" "$rc" 0
expect_eq "one step: compiles" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT output FROM compiles ORDER BY output")" "$P/prog
$P/prog.o"
expect_eq "one step: records" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT count(*) FROM record_files WHERE status='read'")" 2

# ---- two sources in one -c command: each recorded, each with records ----
P="$TMP/multi"; mkdir -p "$P"
printf 'void f(float *restrict x, const float *restrict y) { for (int i = 0; i < 256; i++) x[i] += y[i]; }\n' > "$P/one.c"
printf 'void g(int *restrict x, const int *restrict y) { for (int i = 0; i < 256; i++) x[i] *= y[i]; }\n' > "$P/two.c"
for cc in gcc clang; do
  rm -f "$P"/*.o
  out=$(cd "$P" && "$FMVGEN" scan --no-probe -- $cc -O3 -c one.c two.c 2>&1); rc=$?
  expect_eq "two sources $cc: exit" "$rc" 0
  expect_eq "two sources $cc: compiles" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT output FROM compiles WHERE compiler_kind='$cc' ORDER BY output")" "$P/one.o
$P/two.o"
  expect_eq "two sources $cc: functions" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT DISTINCT l.function FROM loops l JOIN compiles c ON c.id=l.compile_id WHERE c.compiler_kind='$cc' AND l.variant='build' ORDER BY 1")" "f
g"
  expect_eq "two sources $cc: only the objects" "$(cd "$P" && ls)" "one.c
one.o
two.c
two.o"
done

# ---- CC given as an absolute path: that very compiler runs ----
if command -v clang-19 >/dev/null; then
  P="$TMP/abscc"; mkdir -p "$P"; cp "$TMP/multi/one.c" "$P/"
  printf 'one.o: one.c\n\t$(CC) -O3 -c one.c -o one.o\n' > "$P/Makefile"
  out=$(cd "$P" && CC=$(command -v clang-19) "$FMVGEN" scan --no-probe -- make -s 2>&1); rc=$?
  expect_eq "absolute CC: exit" "$rc" 0
  expect_match "absolute CC: clang-19 ran" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT compiler||' '||compiler_version FROM compiles")" "clang-19 19\."
fi

# ---- usage ----
out=$("$FMVGEN" scan 2>&1); rc=$?
expect_eq "no build: exit" "$rc" 2
expect_match "no build: message" "$out" "^fmvgen: scan: no build command"
out=$(cd "$TMP" && "$FMVGEN" scan --log x.log -- make 2>&1); rc=$?
expect_eq "two sources: exit" "$rc" 2
out=$(cd "$TMP" && "$FMVGEN" scan --targets arch=x86-64-v9 -- true 2>&1); rc=$?
expect_eq "unknown target: exit" "$rc" 2
expect_match "unknown target: named" "$out" "x86-64-v9"
out=$(cd "$TMP" && "$FMVGEN" scan -j zero -- true 2>&1); rc=$?
expect_eq "bad -j: exit" "$rc" 2
out=$("$FMVGEN" scan --help); rc=$?
expect_eq "--help: exit" "$rc" 0
expect_match "--help: usage" "$out" "usage: fmvgen scan"
out=$(cd "$TMP" && "$FMVGEN" scan --compdb "$TMP/none.json" 2>&1); rc=$?
expect_eq "missing compdb: exit" "$rc" 1
expect_match "missing compdb: named" "$out" "^fmvgen: $TMP/none.json: "
out=$(mkdir -p "$TMP/nb" && cd "$TMP/nb" && "$FMVGEN" scan -- no-such-build-tool 2>&1); rc=$?
expect_eq "build not found: exit" "$rc" 127
expect_match "build not found: message" "$out" "no-such-build-tool: cannot run the build"

# ---- nothing to do, and --json ----
P="$TMP/nothing"; mkdir -p "$P"
printf 'int answer(void) { return 42; }\n' > "$P/a.c"
out=$(cd "$P" && "$FMVGEN" scan --no-probe -- cc -O3 -c a.c 2>&1); rc=$?
expect_eq "nothing to do: exit" "$rc" 0
expect_match "nothing to do: message" "$out" "nothing to do"
out=$(cd "$P" && "$FMVGEN" scan --no-probe --json -- cc -O1 -c a.c); rc=$?
expect_eq "json: exit" "$rc" 0
expect_eq "json: compiles" "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["compiles"], d["candidates"], d["nothing_to_do"], d["build_status"])')" "1 0 True 0"
expect_eq "json: -O1 note" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT kind FROM tu_notes")" "low-opt"

finish
