#!/bin/bash
# test_header_template.sh - static functions defined in a project header that
# TUs #include as a code template (libsoxr's poly-fir.h). Fixture
# header-template: poly.h's static poly_mac is included by plain.c (plain C:
# eligible) and by simd.c (its MAC macro expands to SSE intrinsics, the path
# picked by #ifdef __FMA__ around the #include:
# excluded); plain.c includes twice.h twice (sum_by2, sum_by3 from one
# place); util.h's static inline util_sum is included by both.
# For gcc, clang-14 and clang-19 (when installed):
#   - poly_mac is a candidate with a header-switch note (tag, plain.c on,
#     simd.c off as intrinsics); simd.c's row of it stays 'intrinsics';
#   - sum_by2/sum_by3 (one place, expanded twice under the names FUNCTION
#     gives) are two candidates, each with its own switch and the note's
#     "expansion"; util_sum is no candidate (inline in a header);
#   - the patch: poly.h gets "#ifdef FMVGEN_CLONE_poly_h_poly_mac" /
#     FMVGEN_CLONES_STATIC / "#endif" above poly_mac, plain.c the line
#     "#define FMVGEN_CLONE_poly_h_poly_mac 1 ..." above its first #include,
#     simd.c no switch (its own simd_scale, a loop that makes the scan
#     parse it, gets its line); twice.h one block: an empty default per name and
#     FMVGEN_CLONES_IN_TU(twice_h, FUNCTION), plain.c one
#     "#define FMVGEN_CLONE_twice_h_sum_byN FMVGEN_CLONES_STATIC" per name;
#     patch -p1 --dry-run is clean;
#   - the patched project builds (-Werror) and prints what it printed; nm:
#     plain.o's poly_mac is cloned (gcc, clang-19; clang 14 clones no static
#     function), simd.o's never is; under qemu -cpu Nehalem the output holds;
#   - patching again finds the guarded line and adds nothing; a scan of the
#     patched tree excludes them ("already carries");
#   - -DFMVGEN_NO_CLONES and a build without the switch lines compile; with
#     sum_by2's switch line gone, sum_by2 is plain and sum_by3 still cloned.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/header-template/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_match "$cc: poly_mac is a candidate" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')" \
    '(^|,)poly_mac(,|$)'
  note=$(printf '%s' "$json" | jq -c '[.functions[] | select(.name == "poly_mac" and .status == "candidate") | .notes[]
         | select(.kind == "header-switch")] | first')
  expect_eq "$cc: the switch" "$(printf '%s' "$note" | jq -r .tag)" FMVGEN_CLONE_poly_h_poly_mac
  expect_eq "$cc: on in plain.c" "$(printf '%s' "$note" | jq -r '[.tus[] | .source | split("/") | last] | join(",")')" \
    plain.c
  expect_eq "$cc: off in simd.c (intrinsics)" \
    "$(printf '%s' "$note" | jq -r '[.off[] | (.source | split("/") | last) + "=" + .reason] | join(",")')" \
    simd.c=intrinsics
  expect_eq "$cc: the note's sentence" "$(printf '%s' "$note" | jq -r .detail)" \
    "static function of header poly.h: cloned in the TUs that define FMVGEN_CLONE_poly_h_poly_mac (plain.c); not in simd.c (intrinsics)"
  expect_eq "$cc: sum_by2/sum_by3 are candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name | test("^sum_by")) | .status] | unique | join(",")')" candidate
  expect_eq "$cc: each with its switch, pasted from FUNCTION" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name | test("^sum_by")) | .notes[]
        | select(.kind == "header-switch") | .tag + "=" + .expansion.spelled + ":" + (.expansion.symbols | join("+"))]
        | unique | join(",")')" \
    "FMVGEN_CLONE_twice_h_sum_by2=FUNCTION:sum_by2+sum_by3,FMVGEN_CLONE_twice_h_sum_by3=FUNCTION:sum_by2+sum_by3"
  expect_eq "$cc: util_sum is no candidate" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "util_sum" and .status == "candidate")] | length')" 0

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  expect_eq "$cc: poly.h's guarded line" \
    "$(awk '/^--- a\/poly.h/{f=1;next} /^--- /{f=0} f && /^\+(#ifdef|#endif|FMVGEN_CLONES)/' "$TMP/fmv-$cc.patch" | tail -n 3 | tr '\n' ' ')" \
    "+#ifdef FMVGEN_CLONE_poly_h_poly_mac +FMVGEN_CLONES_STATIC +#endif "
  expect_match "$cc: right above poly_mac" "$(cat "$TMP/fmv-$cc.patch")" \
    $'\\+#endif\n static void poly_mac\\('
  expect_match "$cc: plain.c's switch above its first #include" "$(cat "$TMP/fmv-$cc.patch")" \
    $'\\+#define FMVGEN_CLONE_poly_h_poly_mac 1 /\\* fmvgen: poly.h\'s poly_mac multi-versioned in this TU \\*/\n\\+#define FMVGEN_CLONES_ON_twice_h 1 [^\n]*\n\\+#define FMVGEN_CLONE_twice_h_sum_by2 [^\n]*\n\\+#define FMVGEN_CLONE_twice_h_sum_by3 [^\n]*\n #include "kernels.h"'
  expect_eq "$cc: simd.c gets no switch" \
    "$(awk '/^--- a\/simd.c/{f=1;next} /^--- /{f=0} f && /FMVGEN_CLONE_/' "$TMP/fmv-$cc.patch")" ""
  expect_eq "$cc: twice.h's block" \
    "$(awk '/^--- a\/twice.h/{f=1;next} /^--- /{f=0} f && /^\+(#ifndef FMVGEN_CLONE_|FMVGEN_CLONES_IN_TU\()/' "$TMP/fmv-$cc.patch" | tr '\n' ' ')" \
    "+#ifndef FMVGEN_CLONE_twice_h_sum_by2 +#ifndef FMVGEN_CLONE_twice_h_sum_by3 +FMVGEN_CLONES_IN_TU(twice_h, FUNCTION) "
  expect_match "$cc: right above the template's definition" "$(cat "$TMP/fmv-$cc.patch")" \
    $'\\+FMVGEN_CLONES_IN_TU\\(twice_h, FUNCTION\\)\n static long FUNCTION\\('
  expect_eq "$cc: plain.c's switches" \
    "$(grep -E '^\+#define FMVGEN_CLONE_' "$TMP/fmv-$cc.patch" | cut -d' ' -f2,3 | tr '\n' ' ')" \
    "FMVGEN_CLONE_poly_h_poly_mac 1 FMVGEN_CLONE_twice_h_sum_by2 FMVGEN_CLONES_STATIC FMVGEN_CLONE_twice_h_sum_by3 FMVGEN_CLONES_STATIC "
  expect_eq "$cc: twice.h's gate, once" \
    "$(grep -c '^+# ifdef FMVGEN_CLONES_ON_twice_h$' "$TMP/fmv-$cc.patch") $(grep -c '^+#define FMVGEN_CLONES_ON_twice_h 1 ' "$TMP/fmv-$cc.patch")" "1 1"
  make -s clean
  patch -p1 --dry-run <"$TMP/fmv-$cc.patch" >"$TMP/dry-$cc" 2>&1
  expect_eq "$cc: patch -p1 --dry-run exit" "$?" 0
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  # A TU the scan never saw, expanding twice.h under a name of its own (and
  # one the scan saw): it defines no gate, so both stay plain and it builds.
  printf '#define FUNCTION sum_by7\n#define SCALE 7\n#include "twice.h"\n#define FUNCTION sum_by2\n#define SCALE 2\n#include "twice.h"\nlong unseen(const int *v, int n) { return sum_by7(v, n) + sum_by2(v, n); }\n' >unseen.c
  if "$cc" -O2 -Wall -Werror -c unseen.c -o unseen.o 2>"$TMP/unseen-$cc"; then pass; else
    fail "$cc: a TU the scan never saw does not build: $(grep -m1 error "$TMP/unseen-$cc")"
  fi
  expect_eq "$cc: its expansions are not cloned" "$(nm unseen.o | grep -c 'sum_by[27]\.')" 0
  rm -f unseen.c unseen.o
  if command -v qemu-x86_64 >/dev/null; then
    expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
  fi
  if [ "$cc" = clang-14 ]; then
    expect_no_match "clang-14: static functions get no clones" "$(nm plain.o)" 'poly_mac\.'
  else
    expect_match "$cc: plain.o's poly_mac is cloned" "$(nm plain.o)" '[tT] poly_mac\.arch_x86[-_]64[-_]v3'
    expect_match "$cc: dispatched by IFUNC" "$(nm plain.o)" ' i poly_mac$'
    expect_match "$cc: sum_by2 cloned" "$(nm plain.o)" '[tT] sum_by2\.arch_x86[-_]64[-_]v3'
    expect_match "$cc: sum_by3 cloned" "$(nm plain.o)" '[tT] sum_by3\.arch_x86[-_]64[-_]v3'
  fi
  expect_eq "$cc: simd.o's poly_mac is not cloned" "$(nm simd.o | grep -c 'poly_mac\.')" 0
  expect_match "$cc: simd.o keeps its plain poly_mac" "$(nm simd.o)" ' t poly_mac$'

  # Patched already: nothing more to add (the guarded line is found).
  "$FMVGEN" patch -o "$TMP/again-$cc.patch" 2>"$TMP/again-$cc.err"
  expect_no_match "$cc: no second line for poly_mac" "$(cat "$TMP/again-$cc.patch")" 'FMVGEN_CLONE_poly_h_poly_mac'
  expect_no_match "$cc: no second block in twice.h" "$(cat "$TMP/again-$cc.patch")" 'FMVGEN_CLONES_IN_TU'
  # A scan of the patched tree: the header functions are patched already.
  make -s clean
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/rescan-$cc.out" 2>&1
  expect_eq "$cc: rescan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: rescan: no header function is a candidate" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select((.name | test("^(poly_mac|sum_by[23])$")) and .status == "candidate")] | length')" 0
  expect_match "$cc: rescan: poly_mac carries its line" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "poly_mac" and .reason == "attribute") | .detail] | first')" \
    'already carries FMVGEN_CLONES_STATIC'

  # One name's switch off: that expansion is plain, the other still cloned.
  make -s clean
  sed -i '/^#define FMVGEN_CLONE_twice_h_sum_by2/d' plain.c
  make -s CC="$cc" CFLAGS="-O3 -Wall -Werror" >/dev/null 2>&1 || fail "$cc: build without sum_by2's switch"
  expect_eq "$cc: sum_by2 not cloned without its switch" "$(nm plain.o | grep -c 'sum_by2\.')" 0
  [ "$cc" = clang-14 ] || expect_match "$cc: sum_by3 still cloned" "$(nm plain.o)" '[tT] sum_by3\.arch_x86[-_]64[-_]v3'
  expect_eq "$cc: output with one switch" "$(./prog)" "$BASE"

  # The switch off: the guarded line compiles to nothing.
  make -s clean
  make -s CC="$cc" CFLAGS="-O3 -Wall -Werror -DFMVGEN_NO_CLONES" >/dev/null 2>&1 || fail "$cc: -DFMVGEN_NO_CLONES build"
  expect_eq "$cc: no clones with -DFMVGEN_NO_CLONES" "$(nm plain.o | grep -c 'poly_mac\.')" 0
  make -s clean
  sed -i '/^#define FMVGEN_CLONE_/d' plain.c
  make -s CC="$cc" CFLAGS="-O3 -Wall -Werror" >/dev/null 2>&1 || fail "$cc: build without the switches"
  expect_eq "$cc: no clones without the switches" "$(nm plain.o | grep -cE '(poly_mac|sum_by[23])\.')" 0
  expect_eq "$cc: output without the switch" "$(./prog)" "$BASE"
done

finish
