#!/bin/bash
# test_header_template_extern.sh - external (non-static) functions defined
# in a project header that TUs #include as a code template, each expansion
# named by a macro (mpg123's synth.h under SYNTH_NAME). Fixture
# header-template-extern, built at -O2: synth.h's floorf/ceilf function is
# expanded by synth.c twice (synth_by2, synth_by3) and by other.c once
# (synth_by5); synths.h renames each to int_synth_byN (as mpg123's intsym.h);
# other.c reaches all three through a table of pointers.
# For gcc, clang-14 and clang-19 (when installed):
#   - the three symbols are candidates, each with a header-switch note
#     ("external function", static false, the expansion pasted from
#     SYNTH_NAME, every symbol of the place);
#   - the patch: synth.h one FMVGEN_CLONES_IN_TU(synth_h, SYNTH_NAME) block
#     above the template's definition, synth.c and other.c the gate and
#     "#define FMVGEN_CLONE_synth_h_int_synth_byN FMVGEN_CLONES(int_synth_byN)"
#     per expansion; patch -p1 applies;
#   - the patched project builds (-Werror), each symbol is an IFUNC with its
#     clones, and prints what it printed, natively and under
#     qemu-x86_64 -cpu Nehalem;
#   - a TU the scan never saw expands the template plain (no gate).
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/header-template-extern/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: the three expansions are candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name | test("^int_synth_by")) | .name + "=" + .status]
        | unique | join(",")')" \
    "int_synth_by2=candidate,int_synth_by3=candidate,int_synth_by5=candidate"
  expect_eq "$cc: each with its switch, pasted from SYNTH_NAME, external" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name | test("^int_synth_by")) | .notes[]
        | select(.kind == "header-switch") | .tag + "=" + .expansion.spelled + ":" + (.static | tostring) + ":"
          + (.expansion.symbols | sort | join("+"))] | unique | join(",")')" \
    "FMVGEN_CLONE_synth_h_int_synth_by2=SYNTH_NAME:false:int_synth_by2+int_synth_by3+int_synth_by5,FMVGEN_CLONE_synth_h_int_synth_by3=SYNTH_NAME:false:int_synth_by2+int_synth_by3+int_synth_by5,FMVGEN_CLONE_synth_h_int_synth_by5=SYNTH_NAME:false:int_synth_by2+int_synth_by3+int_synth_by5"
  expect_eq "$cc: the note's sentence" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "int_synth_by5") | .notes[]
        | select(.kind == "header-switch") | .detail] | first')" \
    "external function of header synth.h: cloned in the TUs that define FMVGEN_CLONE_synth_h_int_synth_by5 (other.c)"

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: synth.h's block right above the definition" "$(cat "$TMP/fmv-$cc.patch")" \
    $'\\+FMVGEN_CLONES_IN_TU\\(synth_h, SYNTH_NAME\\)\n float SYNTH_NAME\\('
  expect_eq "$cc: synth.c's switches name each symbol" \
    "$(awk '/^--- a\/synth.c/{f=1;next} /^--- /{f=0} f && /^\+#define FMVGEN_CLONE/' "$TMP/fmv-$cc.patch" | cut -d' ' -f2,3 | tr '\n' ' ')" \
    "FMVGEN_CLONES_ON_synth_h 1 FMVGEN_CLONE_synth_h_int_synth_by2 FMVGEN_CLONES(int_synth_by2) FMVGEN_CLONE_synth_h_int_synth_by3 FMVGEN_CLONES(int_synth_by3) "
  expect_eq "$cc: other.c's switch" \
    "$(awk '/^--- a\/other.c/{f=1;next} /^--- /{f=0} f && /^\+#define FMVGEN_CLONE/' "$TMP/fmv-$cc.patch" | cut -d' ' -f2,3 | tr '\n' ' ')" \
    "FMVGEN_CLONES_ON_synth_h 1 FMVGEN_CLONE_synth_h_int_synth_by5 FMVGEN_CLONES(int_synth_by5) "
  make -s clean
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O2 -Wall -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  if command -v qemu-x86_64 >/dev/null; then
    expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
  fi
  for s in 2 3; do
    expect_match "$cc: synth.o's int_synth_by$s is an IFUNC" "$(nm synth.o)" " i int_synth_by$s\$"
    expect_match "$cc: with a v3/avx2 clone" "$(nm synth.o)" "[tT] int_synth_by$s\\.(arch_x86[-_]64[-_]v3|avx2)"
  done
  expect_match "$cc: other.o's int_synth_by5 is an IFUNC" "$(nm other.o)" ' i int_synth_by5$'
  expect_match "$cc: prog's int_synth_by5 is an IFUNC" "$(nm prog)" ' i int_synth_by5$'

  # A TU the scan never saw: no gate, the expansion is plain.
  printf '#include <math.h>\n#define SYNTH_NAME synth_by7\n#define SCALE 7.0f\n#include "synth.h"\n' >unseen.c
  if "$cc" -O2 -Wall -Werror -c unseen.c -o unseen.o 2>"$TMP/unseen-$cc"; then pass; else
    fail "$cc: a TU the scan never saw does not build: $(grep -m1 error "$TMP/unseen-$cc")"
  fi
  expect_match "$cc: its expansion is plain" "$(nm unseen.o)" ' T synth_by7$'
  rm -f unseen.c unseen.o
done
