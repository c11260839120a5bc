#!/bin/bash
# test_redecl_visibility.sh - a function used above its definition gets a
# redeclaration there (candidates/redecl.h), and that redeclaration keeps
# the definition's visibility attribute: in tests/fixtures/redecl-visibility
# (a shared library built with -fvisibility=hidden, its exported functions
# marked on their definitions only, as xiph/speex does) clang 19 takes the
# dispatcher's visibility from the first multi-versioned declaration, so a
# redeclaration without it made vec_reset hidden and prog failed to link.
# For gcc, clang-14 and clang-19: scan, patch, the redeclaration's text,
# the patched build links, exports vec_reset, multi-versions both functions
# and prints the unpatched output.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/redecl-visibility/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  expect_eq "$cc: vec_reset is a candidate with a redeclaration" \
    "$("$FMVGEN" list --json | jq -r '[.functions[] | select(.name == "vec_reset") |
      .status + "/" + ([.notes[]? | select(.kind == "redeclared")] | length | tostring)] | unique | join(",")')" \
    "candidate/1"
  "$FMVGEN" patch --min-score 0 -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: the redeclaration keeps the definition's visibility" "$(cat "$TMP/fmv-$cc.patch")" \
    '^\+FMVGEN_CLONES\(vec_reset\) __attribute__\(\(visibility\("default"\)\)\) void vec_reset\(int \*a, int n\);$'
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 -E 'error|undefined' "$TMP/build-$cc")"; continue
  fi
  expect_match "$cc: libvec.so exports vec_reset" "$(readelf --dyn-syms -W libvec.so)" ' (FUNC|IFUNC) +(GLOBAL|WEAK) +DEFAULT +[0-9]+ vec_reset$'
  multi=" $("$FMVGEN" inspect --json libvec.so | jq -r '[.files[].functions[] | select(.versions >= 3) | .name] | join(" ")') "
  for fn in vec_reset vec_fill; do expect_match "$cc: $fn multi-versioned" "$multi" " $fn "; done
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
done

finish
