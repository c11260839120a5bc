#!/bin/bash
# test_patch_cpuid_eof.sh - a candidate that ends its file on its closing
# brace with no newline after it (SciMark2's src/*/kernel.c): --dispatch
# cpuid and --dispatch pointer take it (their lines after it start with the
# newline the file lacks), instead of falling back to IFUNC (which links
# libgcc's CPU detection, ~4.6 KB per file: the growth budget of a small
# program). So do they a candidate whose closing brace a comment follows
# ("} /* count */", libsamplerate's style, also a block comment that closes
# on a later line): the lines after it start after the comment's line.
# The patch applies with patch -p1 and builds and prints the unpatched
# output with gcc, clang and clang-19 (when installed).
source "$TESTLIB"

check() {   # CC DISPATCH [TAIL: the text after the closing brace; none: the file ends there]
  local cc=$1 mode=$2 tail=${3-} P json
  P="$TMP/$cc-$mode-${#tail}"
  mkdir -p "$P"
  cat >"$P/main.c" <<'C'
#include <stdio.h>
long count(const unsigned long long *w, int n);
int main(void)
{
    static unsigned long long w[256];
    for (int i = 0; i < 256; i++) w[i] = (unsigned long long)i * 2654435761u;
    printf("%ld\n", count(w, 256));
    return 0;
}
C
  printf 'long count(const unsigned long long *w, int n)\n{\n    long s = 0;\n    for (int i = 0; i < n; i++) s += __builtin_popcountll(w[i]);\n    return s;\n}%s' "$tail" >"$P/k.c"
  printf 'prog: k.c main.c\n\t$(CC) -O2 -o prog k.c main.c\n' >"$P/Makefile"
  cd "$P" || { fail "cd $P"; return 1; }
  make -s CC="$cc" >/dev/null 2>&1 && ./prog >expected && rm -f prog || { fail "$cc: unpatched build"; return 1; }
  "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1
  rm -f prog
  json=$("$FMVGEN" patch --dispatch "$mode" --min-score 0 --json 2>/dev/null)
  expect_eq "$cc $mode: count by its own dispatch" "$(jq -r '[.functions[] | .name + "=" + .dispatch] | join(",")' <<<"$json")" \
    "count=$mode"
  expect_eq "$cc $mode: no IFUNC fallback" "$(jq -c '.ifunc_fallback // []' <<<"$json")" "[]"
  "$FMVGEN" patch --dispatch "$mode" --min-score 0 -o fmv.patch 2>/dev/null
  patch -s -p1 <fmv.patch
  expect_eq "$cc $mode: patch -p1" "$?" 0
  expect_match "$cc $mode: the closing brace keeps its line, the lines after it follow" "$(cat k.c)" \
    $'\n}'"$(sed 's/[*]/\\*/g' <<<"${tail%$'\n'}")"$'\n#ifdef FMVGEN_(CPU|PTR)_ON\n'
  make -s CC="$cc" >/dev/null 2>"$TMP/build.err"
  expect_eq "$cc $mode: patched build" "$?" 0
  expect_eq "$cc $mode: same output" "$(./prog)" "$(cat expected)"
  [ "$mode" = cpuid ] && expect_no_match "$cc $mode: no libgcc CPU detection" "$(nm prog)" "__cpu_indicator_init|__cpu_model"
  cd "$TMP" || return 1
}

for mode in cpuid pointer; do
  check gcc $mode
  check clang $mode
  if have_clang19; then check clang-19 $mode; fi
done
for tail in $' /* count */\n' $'  /* count:\n   popcount */ // sum\n'; do
  check gcc cpuid "$tail"
  check clang cpuid "$tail"
  if have_clang19; then check clang-19 cpuid "$tail"; fi
done
finish
