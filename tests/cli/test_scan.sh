#!/bin/bash
# test_scan.sh - `fmvgen scan -- make` on tests/fixtures/scan-multidir (two
# util.c in different directories, one compiled from inside its directory
# without -o; a directory with a space and a non-ASCII file name; a C++ TU),
# with gcc, clang and clang-19 (when installed), at -O3 and with -g (GCC's
# vectorizer dumps are not copied into DW_AT_producer, so even a -g build
# is compiled once per TU, the dumps riding along):
#   - every compile is in the store with absolute source/output, language,
#     compiler kind, and a record file that was read;
#   - the objects and the program are byte-identical to a plain build;
#   - nothing is left in the source tree but the build's own outputs;
#   - the probes ran (probe:<widest target> records);
#   - a second scan after an edit updates the store;
#   - a later plain `make` through a cached wrapper path (FMVGEN_STORE
#     unset) just runs the real compiler.
source "$TESTLIB"

OBJS=(main.o src/a/util.o src/b/util.o "dir with space/naïve.o" ops.o prog)

# scan_and_compare NAME CC CXX FLAGS: plain build, then scan, in one copy.
scan_and_compare() {
  local name=$1 cc=$2 cxx=$3 flags=$4
  local P="$TMP/$name"
  mkdir -p "$P" && cp -a "$FIXTURES/scan-multidir/." "$P/"
  local before plain="$TMP/$name.plain"
  before=$(cd "$P" && find . | sort)
  (cd "$P" && CC=$cc CXX=$cxx make -s CFLAGS="$flags" CXXFLAGS="$flags" >/dev/null 2>&1) || { fail "$name: plain build"; return; }
  local outputs
  outputs=$(cd "$P" && find . | sort)
  mkdir -p "$plain"
  for o in "${OBJS[@]}"; do mkdir -p "$plain/$(dirname "$o")"; cp "$P/$o" "$plain/$o"; done
  (cd "$P" && make -s clean)

  local out rc
  out=$(cd "$P" && CC=$cc CXX=$cxx "$FMVGEN" scan -- make -s CFLAGS="$flags" CXXFLAGS="$flags" 2>&1); rc=$?
  expect_eq "$name: exit" "$rc" 0
  expect_match "$name: summary" "$out" "compiles: +5"
  for o in "${OBJS[@]}"; do
    if cmp -s "$P/$o" "$plain/$o"; then pass; else fail "$name: $o differs from the plain build"; fi
  done
  local after
  after=$(cd "$P" && find . -path ./.fmvgen -prune -o -print | sort)
  expect_eq "$name: source tree holds only the build's outputs" "$after" "$outputs"

  local DB="$P/.fmvgen/store.sqlite"
  expect_eq "$name: compiles" "$(sqlite3 "$DB" "SELECT source||'|'||output||'|'||language||'|'||exit_status FROM compiles ORDER BY source")" \
"$P/dir with space/naïve.c|$P/dir with space/naïve.o|c|0
$P/main.c|$P/main.o|c|0
$P/ops.cpp|$P/ops.o|c++|0
$P/src/a/util.c|$P/src/a/util.o|c|0
$P/src/b/util.c|$P/src/b/util.o|c|0"
  local kind=gcc; case $cc in clang*) kind=clang ;; esac
  expect_eq "$name: compiler kind" "$(sqlite3 "$DB" "SELECT DISTINCT compiler_kind FROM compiles")" "$kind"
  expect_eq "$name: build records read" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='build' AND status='read'")" 5
  expect_eq "$name: record files under .fmvgen/records" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE path NOT LIKE '$P/.fmvgen/records/%'")" 0
  expect_eq "$name: probe records" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='probe:arch=x86-64-v4' AND status='read'")" 5
  expect_eq "$name: argv is the build's own" \
    "$(sqlite3 "$DB" "SELECT argv FROM compiles WHERE source LIKE '%/src/b/util.c'")" \
    "[\"$(sqlite3 "$DB" "SELECT compiler FROM compiles WHERE source LIKE '%/src/b/util.c'")\",\"$(printf '%s' "$flags" | sed 's/ /","/g')\",\"-c\",\"util.c\"]"
  expect_eq "$name: meta root" "$(sqlite3 "$DB" "SELECT value FROM meta WHERE key='root'")" "$P"
  expect_eq "$name: meta targets" "$(sqlite3 "$DB" "SELECT value FROM meta WHERE key='targets'")" "arch=x86-64-v3,arch=x86-64-v4"
  if [ "${flags%% *}" = -O3 ]; then
    expect_eq "$name: loops in both util.c" \
      "$(sqlite3 "$DB" "SELECT DISTINCT c.source FROM loops l JOIN compiles c ON c.id=l.compile_id WHERE l.variant='build' AND c.source LIKE '%util.c' ORDER BY 1")" \
      "$P/src/a/util.c
$P/src/b/util.c"
    expect_eq "$name: candidates" \
      "$(sqlite3 "$DB" "SELECT name FROM functions WHERE status='candidate' ORDER BY name")" \
      "$(printf 'blend\nmul_ops\nscale_a\nsum_b')"
  fi
}

# Inside a git work tree, the root defaults to its toplevel (outside: the cwd).
export GIT_CEILING_DIRECTORIES=$TMP
scan_and_compare gcc-O3 gcc g++ -O3
scan_and_compare gcc-g gcc g++ "-O2 -g"
scan_and_compare gcc-O3g gcc g++ "-O3 -g"
scan_and_compare clang-O3 clang clang++ -O3
scan_and_compare clang-g clang clang++ "-O3 -g"
if have_clang19; then scan_and_compare clang19-O3 clang-19 clang++-19 -O3; fi

# One compile per TU, also with -g: a "gcc"/"g++" first in PATH behind the
# wrapper logs each call. GCC 12's dumps ride along on the build's own
# compile (no records-only second compile), and the objects stay the same
# (checked above).
mkdir -p "$TMP/logbin"
for c in gcc g++; do
  cat > "$TMP/logbin/$c" <<EOF
#!/bin/bash
printf '%s\n' "\$*" >> "$TMP/logbin/calls"
exec /usr/bin/$c "\$@"
EOF
  chmod +x "$TMP/logbin/$c"
done
P="$TMP/once"; mkdir -p "$P" && cp -a "$FIXTURES/scan-multidir/." "$P/"
out=$(cd "$P" && PATH="$TMP/logbin:$PATH" CC=gcc CXX=g++ "$FMVGEN" scan --no-probe -- make -s CFLAGS="-O2 -g" CXXFLAGS="-O2 -g" 2>&1); rc=$?
expect_eq "gcc -g once: exit" "$rc" 0
expect_eq "gcc -g once: one compile per TU" "$(grep -c -- ' -c ' "$TMP/logbin/calls")" 5
expect_eq "gcc -g once: each with the dumps" "$(grep -- ' -c ' "$TMP/logbin/calls" | grep -c -- '-fdump-tree-vect-optimized=.*-fdump-tree-slp1-optimized=.*-fdump-tree-slp2-optimized=')" 5
expect_eq "gcc -g once: records read" "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT count(*) FROM record_files WHERE format='gcc-dump' AND status='read'")" 5

# A second scan after an edit: the edited TU's row is replaced (new hash),
# the others stay.
P="$TMP/gcc-O3"
DB="$P/.fmvgen/store.sqlite"
old_hash=$(sqlite3 "$DB" "SELECT source_hash FROM compiles WHERE source='$P/main.c'")
old_other=$(sqlite3 "$DB" "SELECT id FROM compiles WHERE source='$P/ops.cpp'")
printf '/* edited */\n' >> "$P/main.c"
out=$(cd "$P" && CC=gcc CXX=g++ "$FMVGEN" scan --no-probe -- make -s CFLAGS=-O3 CXXFLAGS=-O3 2>&1); rc=$?
expect_eq "rescan: exit" "$rc" 0
expect_eq "rescan: still 5 compiles" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles")" 5
new_hash=$(sqlite3 "$DB" "SELECT source_hash FROM compiles WHERE source='$P/main.c'")
if [ -n "$new_hash" ] && [ "$new_hash" != "$old_hash" ]; then pass; else fail "rescan: main.c hash not updated ($old_hash -> $new_hash)"; fi
expect_eq "rescan: untouched TU kept" "$(sqlite3 "$DB" "SELECT id FROM compiles WHERE source='$P/ops.cpp'")" "$old_other"
expect_eq "rescan: no pending record files" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE status<>'read'")" 0

# The wrapper without FMVGEN_STORE (a build dir that cached the wrapper's
# path, rebuilt later by plain make): the real compiler, nothing recorded.
W="$P/.fmvgen/wrap"
rm -f "$P/main.o"
before=$(sqlite3 "$DB" "SELECT count(*) FROM compiles; SELECT max(id) FROM compiles")
(cd "$P" && env -u FMVGEN_STORE "$W/cc" -O3 -c main.c -o main.o); rc=$?
expect_eq "cached wrapper: exit" "$rc" 0
if [ -f "$P/main.o" ]; then pass; else fail "cached wrapper: no object"; fi
expect_eq "cached wrapper: nothing recorded" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles; SELECT max(id) FROM compiles")" "$before"
out=$(env -u FMVGEN_STORE "$W/gcc" --version 2>&1 | head -1)
expect_match "cached wrapper: --version is the real compiler's" "$out" "^gcc "

# The links point at the small wrapper executable, not at fmvgen itself.
expect_match "wrapper links" "$(readlink "$W/cc")" "/fmvgen-cc$"

# Inside a git repository, the root is its toplevel.
G="$TMP/gitproj"; mkdir -p "$G/build"; cp -a "$FIXTURES/scan-multidir/." "$G/"
git -C "$G" init -q
out=$(cd "$G" && "$FMVGEN" -C build scan --no-probe -- make -s 2>&1); rc=$?
expect_eq "git root: exit" "$rc" 0
expect_eq "git root: store in -C dir" "$(ls "$G/build/.fmvgen/store.sqlite" 2>/dev/null)" "$G/build/.fmvgen/store.sqlite"
expect_eq "git root: meta root" "$(sqlite3 "$G/build/.fmvgen/store.sqlite" "SELECT value FROM meta WHERE key='root'")" "$G"

finish
