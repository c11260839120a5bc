#!/bin/bash
# test_patch_lto.sh - fmvgen patch --dispatch pointer and cpuid on
# tests/fixtures/patch-lto-static, two files with a static `scale` each,
# built with link-time optimization: gcc -O2 -flto, clang 14 and clang 19
# -O2 -flto. LTO puts both files' code into one assembler file, where the
# trampolines' labels (SYM.fmvgen_ptr, .fmvgen_init, .fmvgen_ctor) and the
# renamed definitions' clones and resolvers would be defined twice or
# renamed by the compiler: a static function's labels are named by its
# compiler symbol ("%c1", STATIC_BODY) and, with pointer dispatch, its
# renamed definition gets an assembler name of its file's
# (fmvgen_mv_scale.tuXXXXXXXX). Each build links, prints what the unpatched
# program prints, and inspect finds both functions with their dispatch
# (clang 14 gives static functions no pointer dispatch: none there).
source "$TESTLIB"

ccs=(gcc clang-14)
have_clang19 && ccs+=(clang-19)

U=$(copy_fixture patch-lto-static)
mv "$U" "$TMP/lto-unpatched"
U="$TMP/lto-unpatched"
(cd "$U" && make -s CC=gcc CFLAGS="-O2 -flto" >/dev/null 2>&1) || fail "unpatched gcc -flto build failed"
want=$("$U/prog")
expect_match "unpatched prints" "$want" '^[0-9]+\.[0-9]$'

for d in pointer cpuid; do
  P=$(copy_fixture patch-lto-static)
  mv "$P" "$TMP/lto-$d"
  P="$TMP/lto-$d"
  (cd "$P" && "$FMVGEN" scan -- make >/dev/null 2>&1) || fail "$d: scan failed"
  (cd "$P" && "$FMVGEN" patch --dispatch "$d" --min-score 1 --apply >/dev/null 2>"$TMP/patch-$d.err") ||
    fail "$d: patch failed: $(cat "$TMP/patch-$d.err")"
  body=STATIC_BODY
  [ "$d" = pointer ] && m=PTR || m=CPU
  for f in one two; do
    expect_match "$d: $f.c: the trampoline's labels by its compiler symbol" "$(cat "$P/$f.c")" \
      "FMVGEN_${m}_${body}\\(scale, fmvgen_(mv|resolve)_scale\\)"
  done
  if [ "$d" = pointer ]; then
    a=$(grep -o 'fmvgen_mv_scale\.tu[0-9a-f]\{8\}' "$P/one.c" | head -1)
    b=$(grep -o 'fmvgen_mv_scale\.tu[0-9a-f]\{8\}' "$P/two.c" | head -1)
    expect_match "pointer: one.c's renamed scale named for its file" "$a" '^fmvgen_mv_scale\.tu[0-9a-f]{8}$'
    expect_match "pointer: two.c's too" "$b" '^fmvgen_mv_scale\.tu[0-9a-f]{8}$'
    [ -n "$a" ] && [ "$a" != "$b" ] && pass || fail "pointer: the two files' names differ: [$a] [$b]"
  fi
  for cc in "${ccs[@]}"; do
    (cd "$P" && make -s clean && make -s CC="$cc" CFLAGS="-O2 -flto") >"$TMP/build-$d-$cc.log" 2>&1
    if [ $? -ne 0 ]; then
      fail "$d: $cc -flto: build failed: $(grep -m3 -E 'rror' "$TMP/build-$d-$cc.log")"
      continue
    fi
    expect_eq "$d: $cc -flto: prints what the unpatched program prints" "$("$P/prog")" "$want"
    ins=$("$FMVGEN" inspect --json "$P/prog" 2>/dev/null | jq -c ".files[0]")
    n=2
    [ "$d" = pointer ] && [ "$cc" = clang-14 ] && n=0
    expect_eq "$d: $cc -flto: both scales dispatched by $d" \
      "$(jq -r "[.functions[] | select(.dispatch == \"$d\") | select(.name | startswith(\"scale\"))] | length" <<<"$ins")" "$n"
    expect_eq "$d: $cc -flto: 3 versions each" \
      "$(jq -r "[.functions[] | select(.dispatch == \"$d\") | .versions] | unique | join(\",\")" <<<"$ins")" \
      "$([ "$n" = 0 ] || echo 3)"
  done
done

finish
