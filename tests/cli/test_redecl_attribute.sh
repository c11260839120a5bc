#!/bin/bash
# test_redecl_attribute.sh - definitions that are their functions' first
# declarations and carry an attribute clang refuses beside target_clones
# there (liblc3's LC3_HOT: no_sanitize under clang only; noinline): the patch
# declares each with the attribute just above its definition, which gcc,
# clang 14 and clang 19 accept. tests/fixtures/redecl-attribute, scanned
# with gcc: round_sum (HOT) and count_bits (noinline) are candidates with a
# "redeclared" note naming the attribute. For each dispatch: IFUNC takes
# both; pointer dispatch gives both IFUNC instead (the renamed body would be
# the first declaration); cpuid gives count_bits IFUNC (noinline keeps the
# body out of its copies: candidates/params.h, for any noinline function)
# and keeps round_sum's copies, whose body
# is inlined (no fmvgen_mv_round_sum left). Each patch builds with gcc,
# clang 14 and clang 19 (when installed), -Werror, multi-versions both, and
# prints the unpatched output natively and under qemu -cpu Nehalem.
source "$TESTLIB"

P="$TMP/proj"; mkdir -p "$P"; cp -a "$FIXTURES/redecl-attribute/." "$P/"
cd "$P" || exit 1
make -s CC=gcc >/dev/null && BASE=$(./prog) && make -s clean || fail "unpatched build"
"$FMVGEN" scan --root "$P" -- make -s CC=gcc >"$TMP/scan.out" 2>&1
expect_eq "scan exit" "$?" 0
json=$("$FMVGEN" list --json)
expect_eq "candidates" \
  "$(jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")' <<<"$json")" \
  "attr_run,count_bits,round_sum"
redecl() { jq -r --arg f "$1" '[.functions[] | select(.name == $f) | .notes[]? | select(.kind == "redeclared") |
  "\(.insert_line)|\(.attribute)|\(.text)"] | unique | join(";")' <<<"$json"; }
expect_eq "round_sum: redeclared for no_sanitize" "$(redecl round_sum)" "14|no_sanitize|float round_sum(const float *x, int n);"
expect_eq "count_bits: redeclared for noinline" "$(redecl count_bits)" \
  "21|noinline|unsigned long count_bits(const unsigned long long *w, int n);"
expect_match "the note says why" "$("$FMVGEN" list)" \
  "carries __attribute__\(\(noinline\)\), which clang cannot combine with target_clones on a function's first declaration: the patch declares it with the attribute at line 21, above its definition"

for d in ifunc pointer cpuid; do
  "$FMVGEN" patch --min-score 1 --dispatch "$d" -o "$TMP/$d.patch" 2>/dev/null
  expect_eq "$d: patch exit" "$?" 0
  fallback=$("$FMVGEN" patch --min-score 1 --dispatch "$d" --json 2>/dev/null |
    jq -r '[.ifunc_fallback[] | split(" ")[1] | rtrimstr(":")] | join(",")')
  case $d in
    ifunc) want="" ;;
    pointer) want="round_sum,count_bits" ;;
    cpuid) want="count_bits" ;;
  esac
  expect_eq "$d: dispatched by IFUNC instead" "$fallback" "$want"
  if [ "$d" = cpuid ]; then
    expect_match "$d: why count_bits is not copied" \
      "$("$FMVGEN" patch --min-score 1 --dispatch cpuid --json 2>/dev/null | jq -r '.ifunc_fallback[]')" \
      "count_bits: it carries __attribute__\(\(noinline\)\), which keeps its body out of its copies \(clang would call one body, compiled for the baseline, from each\)"
  fi
  text=$(tr '\n' '~' <"$TMP/$d.patch")
  if [ "$d" = cpuid ]; then   # its copies instead: no target_clones anywhere
    expect_no_match "$d: no redeclaration of round_sum" "$text" 'FMVGEN_CLONES\(round_sum\)'
  else
    expect_match "$d: the redeclaration above round_sum's definition" "$text" \
      '~\+FMVGEN_CLONES\(round_sum\) float round_sum\(const float \*x, int n\);~\+#pragma GCC diagnostic pop~(\+[^~]*~)*( |\+)HOT float round_sum\('
  fi
  expect_match "$d: the redeclaration above count_bits' definition" "$text" \
    '~\+FMVGEN_CLONES\(count_bits\) unsigned long count_bits\(const unsigned long long \*w, int n\);~\+#pragma GCC diagnostic pop~\+FMVGEN_CLONES\(count_bits\)~ __attribute__\(\(noinline\)\) unsigned long count_bits\('
  for cc in gcc clang-14 clang-19; do
    if ! command -v "$cc" >/dev/null; then
      [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
      fail "$cc missing"; continue
    fi
    B="$TMP/$d-$cc"; cp -a "$P" "$B"; rm -rf "$B/.fmvgen"
    (cd "$B" && make -s clean && patch -p1 -s <"$TMP/$d.patch") || { fail "$d, $cc: patch -p1"; continue; }
    if (cd "$B" && make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/build-$d-$cc" 2>&1); then pass; else
      fail "$d, $cc: patched build: $(grep -m1 error "$TMP/build-$d-$cc")"; continue
    fi
    syms=$(nm "$B/prog")
    expect_match "$d, $cc: count_bits cloned" "$syms" " count_bits\.(arch_x86|avx2)"
    if [ "$d" = cpuid ]; then
      expect_match "$d, $cc: round_sum's copies" "$syms" " fmvgen_cp_round_sum_x86_64_v3$"
      expect_no_match "$d, $cc: round_sum's body inlined into them" "$syms" " fmvgen_mv_round_sum$"
    else
      expect_match "$d, $cc: round_sum cloned" "$syms" " round_sum\.(arch_x86|avx2)"
    fi
    expect_eq "$d, $cc: same output" "$("$B/prog")" "$BASE"
    expect_eq "$d, $cc: same output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem "$B/prog")" "$BASE"
  done
done
finish
