#!/bin/bash
# test_select_textpad.sh - the pad before .text's functions
# (select/textpad.h, patch/textpad.h). Fixture select-textpad: three
# kernels that gain at x86-64-v3, external functions main calls: with
# --dispatch cpuid (select's default) each is an IFUNC main calls through
# its PLT, 16 bytes each before .text with GNU ld, which move all of .text,
# among them later.c's walk1-3 (no target changes them; linked before the
# kernels) and main. select measures the pad on its builds and writes it:
# in the selected build main and walk1-3 are at the offsets mod 64 they had
# in the baseline, and the pad's symbol fmvgen_text_pad.v1 holds exactly
# what the start of .text moved (mod 64); selected.patch's block and header
# and the note say how many bytes. gcc's selected build needs one (its
# baseline .text starts at 32 mod 64, the copies' pins align the selected
# one to 64). With -static (.text aligned to 64: nothing shifts) there is no
# pad: no note, no block, no symbol, and the offsets are kept.
# Built by gcc, clang (14) and clang-19. Asserts on symbols and the report,
# never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

addr() {   # FILE SYMBOL -> its address, decimal ("" when absent)
  local a
  a=$(nm "$1" | awk -v s="$2" '$3 == s {print $1; exit}')
  [ -n "$a" ] && echo $((16#$a))
}

text_start() {   # FILE -> its .text's address, decimal
  local a
  a=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" {print $3; exit}')
  echo $((16#${a:-0}))
}

# textpad_on CC TAG FLAGS PAD: PAD "yes" (a pad is expected), "no" (none),
# "any" (whatever the builds need)
textpad_on() {
  local cc=$1 tag=$2 flags=$3 want=$4 P out rc J work
  P=$(copy_fixture select-textpad)
  mv "$P" "$TMP/p-$tag"
  P="$TMP/p-$tag"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" CFLAGS="$flags" >/dev/null 2>&1) || { fail "$tag: scan failed"; return; }
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "make CC=$cc CFLAGS='$flags'" \
          --run './prog 3000' --runs 3 --seed 1 --keep 2>&1); rc=$?
  expect_eq "$tag: exit" "$rc" 0
  J="$P/.fmvgen/report.json"
  local n
  n=$(jq -r '[.functions[] | select(.selected)] | length' "$J")
  [ "${n:-0}" -ge 1 ] || { fail "$tag: nothing selected, nothing to check ($out)"; return; }
  work=$(grep -o "$TMPDIR/fmvgen-[A-Za-z0-9._-]*" <<<"$out" | head -1)
  local b="$work/baseline/prog" s="$work/selected/prog" f
  [ -f "$b" ] && [ -f "$s" ] || { fail "$tag: builds not kept"; return; }
  for f in main walk1 walk2 walk3; do
    expect_eq "$tag: $f at its baseline offset mod 64" "$(( $(addr "$s" $f) % 64 ))" "$(( $(addr "$b" $f) % 64 ))"
  done
  local tb ts k
  tb=$(text_start "$b")
  ts=$(text_start "$s")
  k=$(nm -S "$s" | awk '$4 == "fmvgen_text_pad.v1" {print $2; exit}')
  k=$((16#${k:-0}))
  expect_eq "$tag: the pad is what .text's start moved (mod 64)" "$(( ((ts + k - tb) % 64 + 64) % 64 ))" 0
  if [ "$k" -gt 0 ]; then
    expect_match "$tag: the note" "$out" "note: a pad of $k bytes before .text's functions \(fmvgen_text_pad, one per linked file\) keeps the functions the selection does not change at the offsets mod 64 they had in the baseline build, .*: prog $k"
    expect_contains "$tag: selected.patch: the block" "$(cat "$P/.fmvgen/selected.patch")" "fmvgen_text_pad.v1: .skip $k, 0xcc"
    expect_contains "$tag: selected.patch: the header" "$(cat "$P/.fmvgen/selected.patch")" "Pad before .text's functions: $k bytes"
    expect_eq "$tag: one pad in the program" "$(nm "$s" | grep -c ' fmvgen_text_pad.v1$')" 1
    expect_eq "$tag: first in .text" "$(addr "$s" fmvgen_text_pad.v1)" "$ts"
    expect_eq "$tag: not exported" "$(nm -D "$s" | grep -c fmvgen_text_pad)" 0
  else
    expect_no_match "$tag: no pad note" "$out" "a pad of [0-9]+ bytes before"
    expect_no_match "$tag: no pad in selected.patch" "$(cat "$P/.fmvgen/selected.patch")" "fmvgen_text_pad|Pad before"
  fi
  case $want in
    yes) [ "$k" -gt 0 ] && pass || fail "$tag: no pad where .text moved by $((ts - tb)) bytes" ;;
    no) expect_eq "$tag: no pad" "$k" 0
        expect_eq "$tag: .text did not move (mod 64)" "$(( (ts - tb) % 64 ))" 0 ;;
  esac
  expect_eq "$tag: the selected build prints the baseline's output" "$("$s" 3)" "$("$b" 3)"
  rm -rf "$work"
}

textpad_on gcc gcc "-O2" yes
installed clang && textpad_on clang clang "-O2" any
installed clang-19 && textpad_on clang-19 clang-19 "-O2" any
textpad_on gcc gcc-static "-O2 -static" no
finish
