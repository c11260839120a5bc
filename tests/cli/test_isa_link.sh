#!/bin/bash
# The ISA comparison (issue 9, parts 1 and 2) on builds that compile and
# link in one command, leaving no object (SciMark2's Makefile: `cc -O2 -o
# bin/fft src/*.c src/fft/kernel.c`; `cc -O2 -o t t.c`): the wrapper's
# records-only compile keeps an object of each source, the comparison reads
# it. With gcc, clang and clang-19 (when installed):
#   - tests/fixtures/isa-o2 as `cc -o prog-link ops.c main.c` (two sources):
#     the same isa candidates as its -c build, none "not compared";
#   - tests/fixtures/isa-inlined as `cc -O2 -g -o prog-link kernels.c` (one
#     source, -g: the kept object has the inline frames): each static
#     kernel inlined into main is a candidate;
#   - the build's output is what a plain build writes (same output printed);
#   - -flto: no object is kept (the records-only compile's code would not be
#     the link's), and the note says the code is not compared.
. "$TESTLIB"

check_compiler() {
  local cc=$1 dir out json
  dir=$(copy_fixture isa-o2)
  mv "$dir" "$TMP/link-$cc"
  dir="$TMP/link-$cc"
  cd "$dir" || { fail "cd $dir"; return 1; }
  out=$("$FMVGEN" scan -- make CC="$cc" prog-link 2>&1)
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: candidate set (two sources, one command)" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(" ")')" \
    "add_arrays floor_twice hamming2 lowbits mad quantize setbits"
  expect_eq "$cc: hamming2 is an isa candidate" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="hamming2") | .kind')" isa
  expect_no_match "$cc: every source compared" "$("$FMVGEN" list)" "not an x86-64 relocatable object|is not compared"
  expect_eq "$cc: the build's program runs" "$(./prog-link)" "$(make -s CC="$cc" prog >/dev/null 2>&1 && ./prog)"

  dir=$(copy_fixture isa-inlined)
  mv "$dir" "$TMP/linkinl-$cc"
  dir="$TMP/linkinl-$cc"
  cd "$dir" || { fail "cd $dir"; return 1; }
  out=$("$FMVGEN" scan -- make CC="$cc" prog-link 2>&1)
  expect_eq "$cc: inlined: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: inlined: candidate set (one source, compile and link)" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | .name] | sort | join(" ")')" \
    "kernel_bits kernel_fma kernel_round"
  expect_eq "$cc: inlined: kernel_fma inlined into main" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name=="kernel_fma") | .notes[] | select(.kind=="inlined-into") | .hosts[].name')" main
  cd "$TMP" || { fail "cd $TMP"; return 1; }
}

check_compiler gcc
check_compiler clang
if have_clang19; then check_compiler clang-19; else echo "clang-19 not installed: skipped"; fi

# -flto: the code is the link's; nothing kept, and said.
dir=$(copy_fixture isa-o2)
cd "$dir" || exit 1
"$FMVGEN" scan -- make CC=gcc CFLAGS="-O2 -flto" prog-link >/dev/null 2>&1
expect_eq "-flto: no object kept" "$(find .fmvgen -name object.o | wc -l)" 0
expect_match "-flto: the code is not compared, and said" "$("$FMVGEN" list)" \
  "prog-link: not an x86-64 relocatable object; its code at .* is not compared"

finish
