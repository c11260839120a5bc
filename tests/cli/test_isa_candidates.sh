#!/bin/bash
# ISA-sensitive candidates (issue 9, part 1) on tests/fixtures/isa-o2, an -O2
# build, with gcc, clang and clang-19 (when installed):
#   - the candidate set: every function whose code at the target removes a
#     libm/libgcc call or uses popcnt/round/BMI/FMA, and the vectorized
#     loop; not ratio (only VEX encoding differs) nor add3 (same code);
#   - kinds (isa / vectorized), evidence notes and scores in list and --json;
#   - an isa candidate's static helper, inlined by the build, gets
#     FMVGEN_CLONES_INLINE as a loop candidate's does;
#   - patch: lowbits (one bzhi, score 4) left out below the default
#     threshold, said in the header and on stderr; --min-score 0 takes it;
#     a bad --min-score is a usage error; --exact does not count FMA, nor
#     operations only AVX-512 has (scan --compdb, gcc/clang/clang-19); the applied patch builds and
#     prints the same checksum;
#   - scan --compdb (the scan's own compile's object);
#   - bad input, each a note: a TU whose target probe fails, a GCC -flto
#     build (objects without code), an object the build removed and the
#     wrapper's kept copy gone too;
#   - an object the build removed: the copy the wrapper kept is compared.
. "$TESTLIB"

check_compiler() {
  local cc=$1 dir out list json
  dir=$(copy_fixture isa-o2)
  mv "$dir" "$TMP/isa-$cc"
  dir="$TMP/isa-$cc"
  cd "$dir" || { fail "cd $dir"; return 1; }
  out=$("$FMVGEN" scan -- make CC="$cc" 2>&1)
  expect_eq "$cc: scan exit" "$?" 0
  expect_match "$cc: scan counts the candidates" "$out" "candidates: +7"
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: candidate set" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(" ")')" \
    "add_arrays floor_twice hamming2 lowbits mad quantize setbits"
  expect_eq "$cc: no row for the encoding-only and the identical function" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name=="ratio" or .name=="add3")] | length')" 0
  kind_of() { printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$1\") | .kind"; }
  evidence_of() { printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$1\") | .evidence"; }
  score_of() { printf '%s' "$json" | jq -r ".functions[] | select(.name==\"$1\") | .score"; }
  expect_eq "$cc: add_arrays kind" "$(kind_of add_arrays)" vectorized
  for f in quantize floor_twice hamming2 setbits lowbits mad; do
    expect_eq "$cc: $f kind" "$(kind_of $f)" isa
  done
  expect_match "$cc: hamming2 evidence" "$(evidence_of hamming2)" "popcnt"
  expect_match "$cc: setbits evidence" "$(evidence_of setbits)" "1 blsr"
  expect_eq "$cc: lowbits evidence" "$(evidence_of lowbits)" "1 bzhi"
  expect_eq "$cc: lowbits score" "$(score_of lowbits)" 4
  expect_match "$cc: mad evidence" "$(evidence_of mad)" "^vfmadd[0-9]+sd replaces fma$"
  if [ "$cc" = gcc ]; then
    expect_eq "$cc: hamming2 evidence" "$(evidence_of hamming2)" "popcnt replaces __popcountdi2 (2 calls)"
    expect_eq "$cc: quantize evidence (gcc inlines floorf at -O2)" "$(evidence_of quantize)" "2 vrndscaless"
  else
    expect_eq "$cc: hamming2 evidence" "$(evidence_of hamming2)" "2 popcnt"
    expect_eq "$cc: quantize evidence" "$(evidence_of quantize)" "vroundss replaces floorf, ceilf (6 calls)"
  fi
  expect_match "$cc: floor_twice's helper noted" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="floor_twice") | .notes[].kind')" "inlined-helper"
  if [ "$cc" = gcc ]; then
    expect_eq "$cc: floor_twice evidence" "$(evidence_of floor_twice)" "1 vrndscaless"
  else
    expect_eq "$cc: floor_twice evidence" "$(evidence_of floor_twice)" "vroundss replaces floorf (5 calls)"
  fi
  list=$("$FMVGEN" list --candidates)
  expect_match "$cc: list shows kind and score" "$list" "ops.c:48  lowbits  \(isa, score 4\)"
  expect_match "$cc: list shows the evidence" "$list" "isa: 1 bzhi"

  # patch: the threshold
  out=$("$FMVGEN" patch -o fmv.patch 2>&1)
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: stderr says what was left out" "$out" \
    "ops.c:48: lowbits not patched: score below threshold: 4 < 8 \(isa: 1 bzhi\); --min-score 4 takes it"
  local patch
  patch=$(cat fmv.patch)
  expect_match "$cc: header lists it" "$patch" "Not patched \([0-9]+\):"
  expect_match "$cc: header says why" "$patch" "  ops.c:48 lowbits: score below threshold: 4 < 8"
  expect_match "$cc: header gives the kind" "$patch" "ops.c:31 hamming2: no loop vectorized; isa: .*\[isa\]$"
  expect_match "$cc: header gives the loop kind" "$patch" "ops.c:72 add_arrays: 1 loop .*\[vectorized\]$"
  expect_match "$cc: hamming2 patched" "$patch" "^\+FMVGEN_CLONES\(hamming2\)"
  expect_no_match "$cc: lowbits not patched" "$patch" "^\+FMVGEN_CLONES\(lowbits\)"
  if [ "$cc" = gcc ]; then
    expect_match "$cc: floor_twice below the threshold" "$patch" "ops.c:25 floor_twice: score below threshold: 4 < 8"
  else
    # Its helper is inlined into each clone, as for a loop candidate.
    expect_match "$cc: floor_twice's helper in the header" "$patch" "ops.c:18 floor_sum: inlined into floor_twice"
    expect_match "$cc: floor_twice's helper gets the inline line" "$patch" "^\+FMVGEN_CLONES_INLINE$"
  fi
  json=$("$FMVGEN" patch --json 2>/dev/null)
  expect_eq "$cc: --json kinds" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | "\(.name)=\(.kind)"] | sort | join(" ")' | grep -o 'add_arrays=vectorized\|hamming2=isa\|mad=isa' | tr '\n' ' ')" \
    "add_arrays=vectorized hamming2=isa mad=isa "
  expect_match "$cc: --json skipped" "$(printf '%s' "$json" | jq -r '.skipped[]')" "lowbits: score below threshold"
  out=$("$FMVGEN" patch --min-score 0 2>&1)
  expect_match "$cc: --min-score 0 takes lowbits" "$out" "^\+FMVGEN_CLONES\(lowbits\)"
  # FMA-free clones get nothing of an FMA-only gain.
  out=$("$FMVGEN" patch --exact 2>&1)
  expect_match "$cc: --exact leaves out mad" "$out" \
    "ops.c:54: mad not patched: score without FMA and AVX-512 \(--exact\) below threshold: 0 < 8"
  expect_match "$cc: --exact keeps hamming2" "$out" "^\+FMVGEN_CLONES\(hamming2\)"
  "$FMVGEN" patch --min-score x >/dev/null 2>&1
  expect_eq "$cc: bad --min-score" "$?" 2

  # The patched build prints what the unpatched one did.
  local want got
  want=$(./prog)
  out=$("$FMVGEN" patch --apply 2>&1)
  expect_eq "$cc: apply" "$?" 0
  make -s clean && make -s CC="$cc" >/dev/null 2>&1
  got=$(./prog)
  expect_eq "$cc: patched output" "$got" "$want"
  cd "$TMP" || { fail "cd $TMP"; return 1; }
}

check_compiler gcc
check_compiler clang
if have_clang19; then check_compiler clang-19; fi

# scan --compdb: the scan's own compile keeps its object too (no object in
# the tree): the same candidates.
dir=$(copy_fixture isa-o2)
cd "$dir" || exit 1
printf '[{"directory":"%s","arguments":["gcc","-O2","-c","ops.c","-o","ops.o"],"file":"ops.c"}]\n' "$dir" \
  > compile_commands.json
out=$("$FMVGEN" scan --compdb compile_commands.json 2>&1)
expect_eq "compdb: scan exit" "$?" 0
json=$("$FMVGEN" list --json)
expect_eq "compdb: candidate set" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | "\(.name)=\(.kind)"] | sort | join(" ")')" \
  "add_arrays=vectorized floor_twice=isa hamming2=isa lowbits=isa mad=isa quantize=isa setbits=isa"
expect_eq "compdb: no object written into the tree" "$(ls ./*.o 2>/dev/null | wc -l)" 0
cd "$TMP" || exit 1
rm -rf "$dir"

# --exact (FMA-free avx2 clones): a gain made only of AVX-512 operations
# (four vcvtusi2sd at the probe's arch=x86-64-v4: score 8) is taken by the
# default targets, left out by --exact, which says why.
for cc in gcc clang clang-19; do
  [ "$cc" = clang-19 ] && ! have_clang19 && continue
  dir=$(copy_fixture isa-o2)
  cd "$dir" || exit 1
  printf 'double u4(unsigned long a, unsigned long b, unsigned long c, unsigned long d)\n{\n    return (double)a - (double)b + (double)c - (double)d;\n}\n' > u4.c
  printf '[{"directory":"%s","arguments":["%s","-O2","-c","u4.c","-o","u4.o"],"file":"u4.c"}]\n' "$dir" "$cc" \
    > compile_commands.json
  out=$("$FMVGEN" scan --compdb compile_commands.json 2>&1)
  expect_eq "avx512-only $cc: scan exit" "$?" 0
  expect_eq "avx512-only $cc: evidence" \
    "$("$FMVGEN" list --json | jq -r '.functions[] | select(.name=="u4") | "\(.kind) \(.score) \(.evidence)"')" \
    "isa 8 4 SSE4/AVX2/AVX-512 operations (cvtusi2sd)"
  expect_match "avx512-only $cc: default targets take it" "$("$FMVGEN" patch 2>&1)" "^\+FMVGEN_CLONES\(u4\)"
  out=$("$FMVGEN" patch --exact 2>&1)
  expect_no_match "avx512-only $cc: --exact leaves it out" "$out" "^\+FMVGEN_CLONES\(u4\)"
  expect_match "avx512-only $cc: --exact says why" "$out" \
    "u4.c:1: u4 not patched: score without FMA and AVX-512 \(--exact\) below threshold: 0 < 8"
  cd "$TMP" || exit 1
  rm -rf "$dir"
done

# Bad input: each a note, never a crash.
dir=$(copy_fixture isa-o2)
cd "$dir" || exit 1
printf '#ifdef __AVX512F__\n#error no wide target here\n#endif\nint odd(int x) { return x * 3; }\n' > odd.c
out=$("$FMVGEN" scan -- make CC=gcc OBJS="ops.o main.o odd.o" 2>&1)
expect_eq "probe failure: scan exit" "$?" 0
expect_match "probe failure: warned" "$out" "odd.c: probe:arch=x86-64-v4 compile failed"
json=$("$FMVGEN" list --json)
expect_match "probe failure: the other TU's candidates stay" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | .name] | join(" ")')" "hamming2"
expect_match "probe failure: noted" "$(printf '%s' "$json" | jq -r '.tus[].notes[].kind')" "probe-failed"

make -s clean
rm -rf .fmvgen
out=$("$FMVGEN" scan -- make CC=gcc CFLAGS="-O2 -flto" 2>&1)
expect_eq "lto: scan exit" "$?" 0
json=$("$FMVGEN" list --json)
expect_eq "lto: no isa candidate without the build's code" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | select(.kind=="isa")] | length')" 0
expect_match "lto: noted" "$(printf '%s' "$json" | jq -r '.tus[].notes[] | select(.kind=="isa-unmatched") | .detail')" \
  "a GCC LTO object \(GIMPLE, no code\); its code at arch=x86-64-v4 is not compared"

make -s clean
rm -rf .fmvgen
# A build that deletes its objects (make's intermediate files): the copy
# the wrapper kept is compared, the candidates are the same.
out=$("$FMVGEN" scan -- sh -c 'make CC=gcc && rm ops.o' 2>&1)
expect_eq "deleted object: scan exit" "$?" 0
json=$("$FMVGEN" list --json)
expect_eq "deleted object: the kept copy is compared" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | "\(.name)=\(.kind)"] | sort | join(" ")')" \
  "add_arrays=vectorized floor_twice=isa hamming2=isa lowbits=isa mad=isa quantize=isa setbits=isa"
expect_eq "deleted object: no isa-unmatched note" \
  "$(printf '%s' "$json" | jq -r '[.tus[].notes[] | select(.kind=="isa-unmatched")] | length')" 0
# Without the kept copy either: a note, never a crash.
make -s clean
rm -rf .fmvgen
out=$("$FMVGEN" scan -- sh -c 'make CC=gcc && rm ops.o && find .fmvgen/records -name object.o -delete' 2>&1)
expect_eq "missing object: scan exit" "$?" 0
json=$("$FMVGEN" list --json)
expect_match "missing object: noted" "$(printf '%s' "$json" | jq -r '.tus[].notes[] | select(.kind=="isa-unmatched") | .detail')" \
  "ops.o: cannot open"

finish
