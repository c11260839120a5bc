#!/bin/bash
# test_wrapper_exe.sh - fmvgen-cc is the only compiler wrapper:
#   - a scan by an fmvgen with no fmvgen-cc next to it fails with one line
#     naming the missing file (never links pointing at fmvgen itself), and
#     no compile is recorded;
#   - fmvgen called through a link named like a compiler (cc, gcc-12,
#     x86_64-linux-gnu-g++) refuses with one line and exit 2, compiling
#     nothing;
#   - the real fmvgen's links (next to fmvgen-cc) point at fmvgen-cc.
source "$TESTLIB"

# ---- fmvgen without fmvgen-cc ----
mkdir -p "$TMP/bin"
cp "$FMVGEN" "$TMP/bin/fmvgen"
P=$(copy_fixture scan-multidir)
(cd "$P" && "$TMP/bin/fmvgen" scan --no-probe -- make -s >"$TMP/out" 2>"$TMP/err"); rc=$?
if [ "$rc" -ne 0 ]; then pass; else fail "no fmvgen-cc: exit 0"; fi
expect_match "no fmvgen-cc: the error names it" "$(cat "$TMP/err")" \
  "^fmvgen: $TMP/bin/fmvgen-cc: the compiler wrapper is missing"
expect_eq "no fmvgen-cc: nothing recorded" "$(sqlite3 "$P/.fmvgen/store.sqlite" 'SELECT count(*) FROM compiles')" 0
expect_eq "no fmvgen-cc: no links to fmvgen" "$(find "$P/.fmvgen" -type l 2>/dev/null | wc -l)" 0
expect_eq "no fmvgen-cc: nothing built" "$(find "$P" -name '*.o' | wc -l)" 0

# ---- fmvgen under a compiler's name ----
printf 'int f(void) { return 1; }\n' >"$TMP/x.c"
for name in cc gcc-12 x86_64-linux-gnu-g++; do
  ln -s "$FMVGEN" "$TMP/bin/$name"
  (cd "$TMP" && "$TMP/bin/$name" -O2 -c x.c -o x.o >"$TMP/out" 2>"$TMP/err"); rc=$?
  expect_eq "as $name: exit" "$rc" 2
  expect_match "as $name: one line" "$(cat "$TMP/err")" \
    "^fmvgen: $TMP/bin/${name//+/\\+}: this link runs fmvgen, which is not a compiler; the compiler wrapper is fmvgen-cc"
  expect_eq "as $name: error lines" "$(wc -l <"$TMP/err")" 1
  if [ ! -e "$TMP/x.o" ]; then pass; else fail "as $name: compiled"; fi
done
# fmvgen by its own name, and through a link of another name, is the tool
expect_match "fmvgen --version" "$("$TMP/bin/fmvgen" --version)" '^fmvgen '
ln -s "$FMVGEN" "$TMP/bin/mytool"
expect_match "another name: the tool" "$("$TMP/bin/mytool" --version)" '^fmvgen '

# ---- the real links ----
P2="$TMP/real"; mkdir -p "$P2"; cp -a "$FIXTURES/scan-multidir/." "$P2/"
(cd "$P2" && "$FMVGEN" scan --no-probe -- make -s >/dev/null 2>&1); rc=$?
expect_eq "fmvgen-cc beside: exit" "$rc" 0
expect_eq "fmvgen-cc beside: links" \
  "$(for l in "$P2/.fmvgen/wrap/"*; do readlink "$l"; done | sort -u)" "$(dirname "$FMVGEN")/fmvgen-cc"
expect_match "fmvgen-cc beside: compiles recorded" "$(sqlite3 "$P2/.fmvgen/store.sqlite" 'SELECT count(*) FROM compiles')" '^[1-9]'

finish
