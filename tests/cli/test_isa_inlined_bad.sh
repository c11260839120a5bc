#!/bin/bash
# Inlined callees as bad input (issue 9): each is a note, never a crash.
# Per compiler (gcc, clang 14, clang 19; g++, clang++ 14, clang++ 19):
#   tests/fixtures/isa-inlined-multi (C): quant is inlined into main and
#     into logf_all (variadic): two excluded hosts, one candidate quant
#     naming both, its evidence each host's share (clang 14 keeps no inline
#     frame on main's vroundss: main then says its dropped calls go to no
#     candidate); bits is inlined into
#     main and into count_bits, a candidate: bits names main as host and
#     count_bits as "also inlined into"; mix_sse (intrinsics) gets one note
#     for the <xmmintrin.h> functions it inlined, naming the header, not its
#     path; the patched tree builds and prints the same;
#   tests/fixtures/isa-inlined-cxx (C++): inline frames name C++ callees by
#     short, template or mangled names; the anonymous-namespace quant is a
#     candidate under its symbol (hosts mix and main), the template snap
#     and the in-class method Bits::count are named but no candidates
#     (template, inline), the two scale overloads share a frame name: a note
#     on main says which share no candidate takes and why; patch
#     --min-score 0 clones quant and the tree builds and prints the same.
. "$TESTLIB"

j() { printf '%s' "$json" | jq -r "$@"; }

# scan_fixture FIXTURE VAR COMPILER: a copy of its own, built plainly
# (expected: its output), cleaned, scanned (json: list --json); in it.
scan_fixture() {
  local dir
  dir=$(copy_fixture "$1")
  mv "$dir" "$TMP/$1-$3"
  cd "$TMP/$1-$3" || { fail "cd $TMP/$1-$3"; return 1; }
  expected=$(make -s "$2=$3" >/dev/null 2>&1 && ./prog)
  make -s clean
  "$FMVGEN" scan -- make "$2=$3" >/dev/null 2>&1
  expect_eq "$3: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
}

check_multi() {
  local cc=$1 expected json
  scan_fixture isa-inlined-multi CC "$cc" || return
  expect_eq "$cc: candidates" "$(j '[.functions[] | select(.status=="candidate") | .name] | sort | join(" ")')" \
    "bits count_bits quant"
  local hosts
  hosts=$(j '.functions[] | select(.name=="quant") | .notes[] | select(.kind=="inlined-into") | [.hosts[] | .name + "/" + .reason] | join(" ")')
  if [ "$cc" = clang ] && [ "$hosts" = logf_all/variadic ]; then
    # clang 14 keeps no inline frame on the vroundss that replaces main's
    # inlined floorf/ceilf: main's share is lost, and main says so
    expect_match "$cc: main's dropped calls credited to no callee, said" \
      "$(j '.functions[] | select(.name=="main") | .notes[] | select(.kind=="isa-unattributed") | .detail')" \
      "^main's code at the target no longer calls floorf, ceilf, and no callee it inlined is credited with that"
  else
    expect_eq "$cc: quant's hosts, both excluded" "$hosts" "logf_all/variadic main/main"
    expect_match "$cc: quant's evidence names each host's share" "$(j '.functions[] | select(.name=="quant") | .evidence')" \
      "^inlined into logf_all: .+; inlined into main: .+$"
    expect_match "$cc: quant's note: one call more from them" \
      "$(j '.functions[] | select(.name=="quant") | .notes[] | select(.kind=="inlined-into") | .detail')" \
      "so the candidate is quant itself; cloned, it stays out of line: one call more at each call from them$"
  fi
  expect_eq "$cc: bits's host" \
    "$(j '.functions[] | select(.name=="bits") | .notes[] | select(.kind=="inlined-into") | [.hosts[].name] | join(" ")')" main
  expect_match "$cc: bits's note names the candidate it is also inlined into" \
    "$(j '.functions[] | select(.name=="bits") | .notes[] | select(.kind=="inlined-into") | .detail')" \
    "It was also inlined into count_bits, a candidate, whose clones call it out of line too$"
  # the intrinsics mix_sse inlines: one note, naming headers, not paths
  expect_eq "$cc: mix_sse excluded, one isa-unattributed note" \
    "$(j '.functions[] | select(.name=="mix_sse") | .reason + " " + ([.notes[] | select(.kind=="isa-unattributed")] | length | tostring)')" \
    "intrinsics 1"
  expect_eq "$cc: mix_sse's notes name no header path" \
    "$(j '[.functions[] | select(.name=="mix_sse") | .notes[].detail | select(test("/usr/"))] | length')" 0
  if [ "$cc" = gcc ]; then   # clang's intrinsics are nodebug: no inline frames, no shares
    expect_match "$cc: mix_sse's intrinsics in one note" \
      "$(j '.functions[] | select(.name=="mix_sse") | .notes[] | select(.kind=="isa-unattributed") | .detail')" \
      "^mix_sse's gains at the target include the shares of [0-9]+ functions? from system headers that it inlined, which no candidate takes: _mm_[a-z0-9_]+ \\(xmmintrin\\.h\\).*; the hand-written SIMD its exclusion names$"
  fi
  if [ "$cc" != gcc ]; then
    expect_eq "$cc: quant drops (data, both shares)" "$(j '.functions[] | select(.name=="quant") | .dropped_calls | join(" ")')" \
      "floorf ceilf"
  fi
  "$FMVGEN" patch --min-score 0 -o fmv.patch >/dev/null 2>&1
  expect_eq "$cc: patch exit" "$?" 0
  expect_eq "$cc: quant and bits marked" \
    "$(grep -A1 '^+FMVGEN_CLONES_STATIC$' fmv.patch | sed -n 's/^ static [a-z ]*[ *]\([a-z_]*\)(.*/\1/p' | sort | tr '\n' ' ')" \
    "bits quant "
  patch -s -p1 <fmv.patch && make -s clean && make -s CC="$cc" >/dev/null 2>&1
  expect_eq "$cc: patched tree builds" "$?" 0
  expect_eq "$cc: patched program prints the same" "$(./prog)" "$expected"
  cd "$TMP" || { fail "cd $TMP"; return 1; }
}

check_cxx() {
  local cxx=$1 expected json
  scan_fixture isa-inlined-cxx CXX "$cxx" || return
  expect_eq "$cxx: the one candidate, by its symbol" \
    "$(j '[.functions[] | select(.status=="candidate") | .name] | join(" ")')" "_ZN12_GLOBAL__N_15quantEf"
  expect_eq "$cxx: quant's hosts (a C++ host, and main)" \
    "$(j '.functions[] | select(.name=="_ZN12_GLOBAL__N_15quantEf") | .notes[] | select(.kind=="inlined-into") | [.hosts[].name] | join(" / ")')" \
    "mix(int, ...) / main(int, char **)"
  expect_eq "$cxx: the template instance is named, no candidate" \
    "$(j '.functions[] | select(.display_name=="dsp::snap(T)") | .status + " " + .reason')" "excluded template"
  expect_match "$cxx: the template's note" \
    "$(j '.functions[] | select(.display_name=="dsp::snap(T)") | .notes[] | select(.kind=="inlined-into") | .detail')" \
    "dsp::snap\(T\) is no candidate either \(template\)$"
  expect_eq "$cxx: the method is named, no candidate" \
    "$(j '.functions[] | select(.name=="_ZN3dsp4Bits5countEy") | .status + " " + .reason')" "excluded inline"
  expect_match "$cxx: the overloads' share is said on main" \
    "$(j '.functions[] | select(.name=="main") | .notes[] | select(.kind=="isa-unattributed") | .detail')" \
    "include the share of scale, a callee it inlined .*: 2 definitions of this file are named scale .* cannot be told"
  "$FMVGEN" patch --min-score 0 -o fmv.patch >/dev/null 2>&1
  expect_eq "$cxx: patch exit" "$?" 0
  expect_eq "$cxx: quant marked, nothing else" "$(grep -A1 '^+FMVGEN_CLONES' fmv.patch | grep -v '^+FMVGEN\|^--' | tr -d '\n')" \
    " float quant(float x)"
  patch -s -p1 <fmv.patch && make -s clean && make -s CXX="$cxx" >/dev/null 2>&1
  expect_eq "$cxx: patched tree builds" "$?" 0
  expect_eq "$cxx: patched program prints the same" "$(./prog)" "$expected"
  if [ "$cxx" != clang++ ]; then   # clang 14 leaves static functions plain (the preamble's rule)
    expect_match "$cxx: quant cloned" "$(nm -C prog)" "quant.*resolver|quant.*\.default|quant\(float\) \[clone"
  fi
  cd "$TMP" || { fail "cd $TMP"; return 1; }
}

check_multi gcc
check_multi clang
check_cxx g++
check_cxx clang++
if have_clang19; then
  check_multi clang-19
  check_cxx clang++-19
else
  echo "clang-19 not installed: skipped"
fi

finish
