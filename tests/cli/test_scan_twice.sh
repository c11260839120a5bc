#!/bin/bash
# test_scan_twice.sh - one source compiled twice (tests/fixtures/scan-twice:
# k.c into libk.a's k.o and libk.so's k.pic.o), with gcc and clang: the
# store keeps both compiles, `list` shows each function ONCE with both
# objects noted (text and --json), and the patch carries one attribute per
# function and applies.
source "$TESTLIB"

for cc in gcc clang; do
  P=$(copy_fixture scan-twice); mv "$P" "$TMP/$cc"; P="$TMP/$cc"
  out=$(cd "$P" && CC=$cc "$FMVGEN" scan --no-probe -- make -s 2>&1); rc=$?
  expect_eq "$cc: scan exit" "$rc" 0
  # the scan's summary counts definitions, as list does (lz4: 181 vs 78)
  expect_match "$cc: scan summary: two candidates" "$out" "candidates: +2$"
  DB="$P/.fmvgen/store.sqlite"
  expect_eq "$cc: two compiles of k.c" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE source='$P/k.c'")" 2
  expect_eq "$cc: a function row per compile" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM functions WHERE name='scale_add' AND status='candidate'")" 2

  out=$(cd "$P" && "$FMVGEN" list 2>&1); rc=$?
  expect_eq "$cc: list exit" "$rc" 0
  expect_match "$cc: list: two candidates" "$out" "^Candidates \(2\)"
  expect_eq "$cc: list: scale_add once" "$(printf '%s\n' "$out" | grep -c '  k.c:[0-9]*  scale_add')" 1
  expect_eq "$cc: list: both compiles noted" "$(printf '%s\n' "$out" | grep -c 'compiled 2 times, into: k.o, k.pic.o')" 2
  expect_match "$cc: list: summary" "$out" "2 candidates, 0 excluded; 2 compiles"
  json=$(cd "$P" && "$FMVGEN" list --json)
  expect_eq "$cc: list --json: candidates" "$(printf '%s' "$json" | jq '.candidates')" 2
  expect_eq "$cc: list --json: outputs" \
    "$(printf '%s' "$json" | jq -c '.functions[] | select(.name=="scale_add") | .outputs')" '["k.o","k.pic.o"]'

  out=$(cd "$P" && "$FMVGEN" patch -o "$TMP/$cc.patch" 2>&1); rc=$?
  expect_eq "$cc: patch exit" "$rc" 0
  expect_eq "$cc: patch: one attribute for scale_add" "$(grep -c '^+FMVGEN_CLONES(scale_add)$' "$TMP/$cc.patch")" 1
  expect_eq "$cc: patch: one attribute for sum_ints" "$(grep -c '^+FMVGEN_CLONES(sum_ints)$' "$TMP/$cc.patch")" 1
  (cd "$P" && patch -p1 --dry-run -s < "$TMP/$cc.patch" >/dev/null 2>&1); expect_eq "$cc: patch applies" "$?" 0
done

finish
