#!/bin/bash
# test_outside_used_early.sh - functions used in their file before their
# definition (a forward-declared static helper called by an earlier
# function, a public function called through its header prototype, a
# function whose address an earlier initializer or a static table takes, one
# taking a function pointer). clang 14 and 19 reject target_clones on such a
# definition ("function declaration cannot become a multiversioned function
# after first usage"; found on lz4's lz4frame.c) unless a declaration with
# the attribute comes first: the patch inserts one above the first use.
# acc_add cannot get one (its signature names acc_t, declared below its
# first use) and stays excluded, saying so.
# For gcc, clang-14 and clang-19 (when installed): scan the fixture, check the
# candidates, the notes and the patch's lines (order at one offset: the
# redeclarations, each between pragmas for -Wredundant-decls, then the
# definition's own line), that git apply and patch -p1 accept the patch,
# that the patched project builds with that compiler (-Wredundant-decls
# -Werror), is multi-versioned (inspect), and prints the unpatched
# output natively and under qemu -cpu Nehalem.
source "$TESTLIB"

CANDIDATES="acc_first,add_after,add_public,add_static,run_all,scale_by_pointer,scale_with,sub_half,sum_rows"
for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/outside-used-early/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: candidates, those used before their definition among them" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')" \
    "$CANDIDATES"
  expect_eq "$cc: acc_add excluded as used-before-definition" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "acc_add") | .reason] | unique | join(",")')" \
    "used-before-definition"
  expect_match "$cc: list says why acc_add gets no redeclaration" "$("$FMVGEN" list --excluded)" \
    'used at line 35 before its definition, and no redeclaration can go before that use: its signature names acc_t, declared at line 69 below line 33 where the redeclaration would go'
  redecl() {   # NAME -> "insert_line|use_line|text" of its redeclared note
    printf '%s' "$json" | jq -r --arg f "$1" '[.functions[] | select(.name == $f) | .notes[]? |
      select(.kind == "redeclared") | "\(.insert_line)|\(.use_line)|\(.text)"] | unique | join(";")'
  }
  expect_eq "$cc: add_static (called early)" "$(redecl add_static)" \
    "21|23|static void add_static(int *a, const int *b, int n);"
  expect_eq "$cc: add_public (called through its header prototype)" "$(redecl add_public)" \
    "21|24|void add_public(int *a, const int *b, int n);"
  expect_eq "$cc: scale_by_pointer (address taken by an initializer)" "$(redecl scale_by_pointer)" \
    "17|17|void scale_by_pointer(int *a, int k, int n);"
  expect_eq "$cc: scale_with (a function-pointer parameter)" "$(redecl scale_with)" \
    "21|25|void scale_with(int *a, int n, int (*pick)(int));"
  expect_eq "$cc: sub_half (address taken by a static table)" "$(redecl sub_half)" \
    "31|31|static void sub_half(int *a, const int *b, int n);"
  expect_eq "$cc: no redeclaration for a function used after its definition" "$(redecl add_after)" ""

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  # At line 21: the three redeclarations, each between pragmas that keep
  # -Wredundant-decls quiet (each repeats an earlier declaration), then
  # sum_rows' own line, then it.
  Q='~\+#pragma GCC diagnostic push~\+#pragma GCC diagnostic ignored "-Wredundant-decls"'
  U='~\+#pragma GCC diagnostic pop'
  expect_match "$cc: redeclarations above sum_rows, its own line last" "$(tr '\n' '~' <"$TMP/fmv-$cc.patch")" \
    "$Q"'~\+FMVGEN_CLONES_STATIC static void add_static\(int \*a, const int \*b, int n\);'"$U$Q"'~\+FMVGEN_CLONES\(add_public\) void add_public\(int \*a, const int \*b, int n\);'"$U$Q"'~\+FMVGEN_CLONES\(scale_with\) void scale_with\(int \*a, int n, int \(\*pick\)\(int\)\);'"$U"'~\+FMVGEN_CLONES\(sum_rows\)~ void sum_rows\('
  # The preamble comes before the first redeclaration (line 17).
  expect_match "$cc: preamble above the first redeclaration" "$(tr '\n' '~' <"$TMP/fmv-$cc.patch")" \
    '#ifndef FMVGEN_CLONES_STATIC~.*'"$Q"'~\+FMVGEN_CLONES\(scale_by_pointer\) void scale_by_pointer\(int \*a, int k, int n\);'"$U"'~ void \(\*const scale_ptr\)'
  expect_no_match "$cc: no redeclaration of acc_add" "$(cat "$TMP/fmv-$cc.patch")" 'void acc_add\(acc_t'

  make -s clean
  cp -a "$P" "$TMP/check-$cc"
  (cd "$TMP/check-$cc" && git init -q && git apply --check "$TMP/fmv-$cc.patch") || fail "$cc: git apply --check"
  (cd "$TMP/check-$cc" && patch -p1 --dry-run <"$TMP/fmv-$cc.patch" >/dev/null) || fail "$cc: patch -p1 --dry-run"
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  # -Wredundant-decls (xz's default warnings): the redeclarations repeat
  # declarations, and their pragmas keep GCC quiet about it.
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Wredundant-decls -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  multi=$("$FMVGEN" inspect --json prog | jq -r '[.files[].functions[] | select(.versions >= 3) | .name] | unique | join(",")')
  # clang < 18 gives static functions no clones (FMVGEN_CLONES_STATIC is
  # empty there: their resolvers would be global symbols).
  want=$CANDIDATES
  [ "$cc" = clang-14 ] && want="acc_first,add_after,add_public,run_all,scale_by_pointer,scale_with,sum_rows"
  expect_eq "$cc: multi-versioned in the binary" "$multi" "$want"
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"

  # A rescan of the patched tree: every patched function is left alone,
  # and a redeclaration line does not mark the definition below it.
  make -s clean
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/rescan-$cc.out" 2>&1
  expect_eq "$cc: rescan exit" "$?" 0
  expect_eq "$cc: no candidate left after the patch" \
    "$("$FMVGEN" list --json | jq -r '[.functions[] | select(.status == "candidate") | .name] | join(",")')" ""
  expect_match "$cc: second patch has nothing to do" "$("$FMVGEN" patch -o "$TMP/again-$cc.patch" 2>&1)" \
    'nothing to do'
  expect_eq "$cc: no second patch" "$([ -e "$TMP/again-$cc.patch" ] && echo written)" ""
done

finish
