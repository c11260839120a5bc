#!/bin/bash
# test_later_decl.sh - functions declared again below their definition
# (tests/fixtures/later-decl): clang 14 and 19 take a plain declaration
# after a multi-versioned definition for another function ("call to
# 'sb_add' is ambiguous"; for a static one's block-scope declaration,
# clang 19: "different linkage"), gcc builds it. The patch puts the
# definition's attribute line above each such declaration in the defining
# file - a later prototype, one with attributes of its own, a static's
# block-scope one - and leaves alone what every compiler takes (an
# external function's block-scope declaration, a later use). Where no line
# can go there (a header #included below, the project's or a system one;
# a declaration of two names, one a macro writes, one after other code on
# its line) the function's note says why ("plain", naming the
# declaration's file and line) and the patch reaches it through a pointer
# under IFUNC dispatch too, so those declarations declare a plain
# function; one that no pointer can take (its body names it) is left out,
# said why. The patch of every dispatch (IFUNC, cpuid, pointer) applies
# with git apply and patch -p1 and builds, -Werror, with gcc, clang 14 and
# clang 19 (when installed): the redeclared and the pointer-reached
# functions multi-versioned, the unpatched output natively and under qemu
# -cpu Nehalem.
source "$TESTLIB"

P="$TMP/proj"; mkdir -p "$P"; cp -a "$FIXTURES/later-decl/." "$P/"
cd "$P" || exit 1
W="-O3 -Wall -Wextra -Werror"
make -s CC=gcc CFLAGS="$W" >/dev/null && BASE=$(./prog) && make -s clean || fail "unpatched build"
"$FMVGEN" scan --root "$P" -- make -s CC=gcc CFLAGS="$W" >"$TMP/scan.out" 2>&1
expect_eq "scan exit" "$?" 0
json=$("$FMVGEN" list --json)
plain() { jq -r --arg f "$1" '[.functions[] | select(.name == $f) | "\(.status): \([.notes[]? | select(.kind == "declared-later") | .plain // empty] | join(";"))"] | unique | join(";")' <<<"$json"; }
lines() { jq -r --arg f "$1" '[.functions[] | select(.name == $f) | .status + " " + ([.notes[]? | select(.kind == "declared-later") | .lines[] | "\(.line)\(if .block then "b" else "" end)"] | join(","))] | unique | join(";")' <<<"$json"; }
expect_eq "candidates" \
  "$(jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")' <<<"$json")" \
  "memfrob,sa_add,sa_run,sb_add,sb_run,sbs_add,sc_add,sc_run,scs_add,sd_add,sd_run,sdh_add,sdh_run,sdv_add,sdv_run,se_add,se_run,sf_add,sf_run,sfl_add,sfm_add,sfr_add"
expect_eq "sb_add: its later prototype takes the line" "$(lines sb_add)" "candidate 5"
expect_eq "sbs_add: the static's too" "$(lines sbs_add)" "candidate 9"
expect_eq "scs_add: the static's block-scope declaration too" "$(lines scs_add)" "candidate 16b"
expect_eq "sc_add: an external's block-scope declaration is left alone" "$(lines sc_add)" "candidate "
expect_eq "sd_add, sdh_add, sdv_add: with their own attributes" "$(lines sd_add) $(lines sdh_add) $(lines sdv_add)" \
  "candidate 5 candidate 9 candidate 13"
expect_eq "se_add: a later use needs nothing" "$(lines se_add)" "candidate "
expect_eq "sa_add: plain, the header and line named" "$(plain sa_add)" \
  "candidate: declared again at line 5 of api.h, below its definition (line 6), and no attribute line can go above that declaration: api.h, #included at line 15 below the definition, is not the file that defines it, and fmvgen patches only that file"
expect_match "memfrob: plain, a system header" "$(plain memfrob)" \
  "^candidate: declared again at line [0-9]+ of string.h, below its definition \(line 8\), and no attribute line can go above that declaration: string.h, #included at line 14 below the definition, is a system header, which no patch can change$"
expect_match "sf_add: two names" "$(plain sf_add)" "^candidate: declared again at line 17 of f.c, .*: it declares more than one name$"
expect_match "sfm_add: a macro's" "$(plain sfm_add)" "^candidate: declared again at line 18 of f.c, .*: a macro writes it"
expect_match "sfl_add: code before it" "$(plain sfl_add)" "^candidate: declared again at line 20 of f.c, .*: other code comes before it on its line$"
expect_match "sfr_add: a macro's" "$(plain sfr_add)" "^candidate: declared again at line 19 of f.c, .*: a macro writes it"
expect_eq "sb_add: no plain" "$(plain sb_add)" "candidate: "

REDECLARED="sb_add sbs_add scs_add sd_add sdh_add sdv_add"
PLAIN="sa_add memfrob sf_add sfm_add sfl_add"
for d in ifunc cpuid pointer; do
  opt=(); [ "$d" != ifunc ] && opt=(--dispatch "$d")
  "$FMVGEN" patch --min-score 1 "${opt[@]}" -o "$TMP/$d.patch" 2>"$TMP/$d.err"
  expect_eq "$d: patch exit" "$?" 0
  expect_match "$d: sfr_add left out, said why" "$(cat "$TMP/$d.err")" \
    "f.c:12: sfr_add not patched: declared again at line 19 of f.c, .*, and it cannot be reached through a pointer: its body names it"
  expect_no_match "$d: no line for sfr_add" "$(grep '^+' "$TMP/$d.patch")" "sfr_add"
  added=$(grep -c -E '^\+ *FMVGEN_CLONES(\((sb_add|sd_add|sdh_add|sdv_add)\)|_STATIC)$' "$TMP/$d.patch")
  renamed=$(grep -c -E '^\+# define (sa_add|memfrob|sf_add|sfm_add|sfl_add) fmvgen_mv_' "$TMP/$d.patch")
  if [ "$d" = ifunc ]; then
    # each definition's line and each later declaration's: 2 x 6
    expect_eq "$d: the attribute lines of the definitions and of the later declarations" "$added" 12
    expect_match "$d: above the later prototype" "$(grep -A1 '^+FMVGEN_CLONES(sb_add)$' "$TMP/$d.patch" | tail -1)" \
      '^ void sb_add\(int \*a, const int \*b, int n\);$'
    expect_match "$d: above the block-scope declaration, indented" \
      "$(grep -A1 '^+    FMVGEN_CLONES_STATIC$' "$TMP/$d.patch" | tail -1)" '^     void scs_add\(int \*, const int \*, int\);$'
    expect_eq "$d: the plain ones reached through a pointer" "$renamed" 5
    expect_eq "$d: the header lists them" \
      "$(sed -n '/^Reached through a pointer/,/^$/p' "$TMP/$d.patch" | grep -cE '^  [a-z]\.c:[0-9]+ (sa_add|memfrob|sf_add|sfm_add|sfl_add): declared again at line')" 5
  else
    expect_eq "$d: no line above the later declarations (the trampoline's)" \
      "$(grep -c -E '^\+ *FMVGEN_CLONES(\(s[a-z]*_add\)|_STATIC)$' "$TMP/$d.patch")" 0
    expect_eq "$d: the plain ones renamed like any" "$renamed" 5
  fi
  C="$TMP/check-$d"; cp -a "$FIXTURES/later-decl" "$C"
  (cd "$C" && git init -q && git apply --check "$TMP/$d.patch") || fail "$d: git apply --check"
  (cd "$C" && patch -p1 -s <"$TMP/$d.patch") || fail "$d: patch -p1"
  for cc in gcc clang-14 clang-19; do
    if ! command -v "$cc" >/dev/null; then
      [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
      fail "$cc missing"; continue
    fi
    (cd "$C" && make -s clean && make -s CC="$cc" CFLAGS="$W" >"$TMP/build-$d-$cc" 2>&1)
    if [ $? -eq 0 ]; then pass; else
      fail "$d $cc: patched build: $(grep -m1 error "$TMP/build-$d-$cc")"; continue
    fi
    fns=$PLAIN; [ "$d" = ifunc ] && fns="$REDECLARED $PLAIN"
    for fn in $fns; do
      # clang < 18 clones no static function (patch/preamble.h)
      [ "$cc" = clang-14 ] && case $fn in sbs_add|scs_add) continue;; esac
      if [ "$d" = cpuid ]; then
        clones=$(nm "$C/prog" | grep -c " fmvgen_cp_${fn}_")
      else
        clones=$(nm "$C/prog" | grep -cE " (fmvgen_mv_)?$fn\.")
      fi
      [ "$clones" -ge 3 ] && pass || fail "$d $cc: $fn not multi-versioned ($clones clone symbols)"
    done
    expect_eq "$d $cc: same output" "$(cd "$C" && ./prog)" "$BASE"
    expect_eq "$d $cc: same output under qemu -cpu Nehalem" "$(cd "$C" && qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
  done
done
finish
