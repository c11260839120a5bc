#!/bin/bash
# test_redecl_header_use.sh - a function that a static inline function of a
# project header calls, where the header is #included above the function's
# definition (liblc3's bits.h calls lc3_get_bits_generic, which bits.c
# defines below its #include). clang 14 and 19 reject target_clones on that
# definition ("function declaration cannot become a multiversioned function
# after first usage"), and no redeclaration in the defining file can help:
# above the #include the header's prototype would follow it (clang then
# calls the plain declaration another function: "call to 'acc_sum' is
# ambiguous"). Such functions stay excluded (used-before-definition),
# naming the header, its line and the #include's; a function the header
# only declares stays a candidate. The patch (every candidate: --min-score
# 1) builds with gcc, clang 14 and clang 19 (when installed), -Werror, and
# prints the unpatched output natively and under qemu -cpu Nehalem.
source "$TESTLIB"

P="$TMP/proj"; mkdir -p "$P"; cp -a "$FIXTURES/redecl-header-use/." "$P/"
cd "$P" || exit 1
make -s CC=gcc >/dev/null && BASE=$(./prog) && make -s clean || fail "unpatched build"
"$FMVGEN" scan --root "$P" -- make -s CC=gcc >"$TMP/scan.out" 2>&1
expect_eq "scan exit" "$?" 0
json=$("$FMVGEN" list --json)
expect_eq "candidates" \
  "$(jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")' <<<"$json")" "count_bits"
reason() { jq -r --arg f "$1" '[.functions[] | select(.name == $f) | "\(.reason): \(.detail)"] | unique | join(";")' <<<"$json"; }
expect_eq "acc_sum: excluded, the header named" "$(reason acc_sum)" \
  "used-before-definition: used at line 9 of inl.h before its definition, and no redeclaration can go before that use: inl.h is #included at line 3, above the definition, and an attributed redeclaration would have to go into that header, above its own declaration of the function; fmvgen patches only the file that defines it (clang rejects target_clones on a function used before its first multi-versioned declaration)"
expect_match "bits_pop: excluded, its use's line in the header" "$(reason bits_pop)" \
  "^used-before-definition: used at line 15 of inl.h before its definition"

"$FMVGEN" patch --min-score 1 -o "$TMP/fmv.patch" 2>/dev/null
expect_eq "patch exit" "$?" 0
expect_no_match "no line for acc_sum or bits_pop" "$(grep '^+' "$TMP/fmv.patch")" "acc_sum|bits_pop"
patch -p1 -s <"$TMP/fmv.patch" || fail "patch -p1"
for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  make -s clean
  if make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  clones=$(nm prog | grep -c ' count_bits\.')
  [ "$clones" -ge 2 ] && pass || fail "$cc: count_bits not multi-versioned ($clones clone symbols)"
  expect_eq "$cc: same output" "$(./prog)" "$BASE"
  expect_eq "$cc: same output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
done
finish
