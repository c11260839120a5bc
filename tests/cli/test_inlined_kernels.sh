#!/bin/bash
# test_inlined_kernels.sh - a numeric-kernel suite (tests/fixtures/
# inlined-kernels): static kernels each called once from main, which GCC and
# clang inline into main, so every loop record names main (excluded). The
# kernels whose loops vectorized must be the candidates, each with a note
# saying it was inlined into main and stays out of line once cloned;
# shared_kernel, inlined into main and the variadic checksum_all, is one
# candidate whose note names both; axpy_inline (declared inline) stays
# excluded; kernel_late, defined below main, is also redeclared above it;
# row_op, kernel_rows' own helper, is no candidate but FMVGEN_CLONES_INLINE;
# list shows no ISA score for a kernel with no code of its own to score.
# For gcc, clang-14 and clang-19 (when installed): the candidates,
# the notes, the patch builds with -Werror, applies with git apply and
# patch -p1, and prints the unpatched output natively and under qemu -cpu
# Nehalem; the kernels are multi-versioned (not with clang 14, whose
# FMVGEN_CLONES_STATIC is empty: static functions get no clones there).
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/inlined-kernels/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"
  expect_no_match "$cc: the build inlines every kernel into main" "$(make -s CC="$cc" && nm prog)" ' kernel_'
  make -s clean

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  # clang 14 vectorizes no loop of kernel_stencil
  want="kernel_axpy,kernel_dot,kernel_late,kernel_rows,kernel_stencil,shared_kernel"
  [ "$cc" = clang-14 ] && want="kernel_axpy,kernel_dot,kernel_late,kernel_rows,shared_kernel"
  expect_eq "$cc: the kernels are the candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | sort | join(",")')" "$want"
  expect_eq "$cc: main stays excluded" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "main") | .reason] | join(",")')" "main"
  expect_eq "$cc: a kernel declared inline stays excluded" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "axpy_inline") | .reason] | join(",")')" "inline"
  note() {   # NAME -> its inlined-into note's hosts and detail
    printf '%s' "$json" | jq -r --arg f "$1" '[.functions[] | select(.name == $f) | .notes[]? |
      select(.kind == "inlined-into") | ([.hosts[].name] | join("+")) + ": " + .detail] | join(";")'
  }
  expect_match "$cc: kernel_axpy's note" "$(note kernel_axpy)" \
    '^main: its loops \(line 18\) were compiled inlined into main \(excluded: main\), so the candidate is kernel_axpy itself; cloned, it stays out of line: one call more at each call from main$'
  expect_match "$cc: shared_kernel inlined into two excluded functions: one note" "$(note shared_kernel)" \
    '^checksum_all\+main: .*inlined into checksum_all \(excluded: variadic\) and main \(excluded: main\)'
  expect_match "$cc: list shows the note" "$("$FMVGEN" list --candidates)" 'note: inlined-into: its loops'
  # the ISA score shows only where there is one: a kernel whose code was
  # compiled only inlined into main has none ("score 0" read as "no gain")
  ks=$(printf '%s' "$json" | jq -r '.functions[] | select(.name == "kernel_axpy") | .score')
  if [ "$ks" = 0 ]; then
    expect_match "$cc: list: kernel_axpy's kind, no score" "$("$FMVGEN" list --candidates)" ' kernel_axpy  \(vectorized\)$'
  else
    expect_match "$cc: list: kernel_axpy's kind and score" "$("$FMVGEN" list --candidates)" " kernel_axpy  \\(vectorized, score $ks\\)\$"
  fi
  expect_eq "$cc: kernel_late, defined below main, is redeclared above it" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_late") | .notes[]? |
      select(.kind == "redeclared") | "\(.insert_line): \(.text)"] | join(";")')" \
    "58: static void kernel_late(int *a, int n);"

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  expect_match "$cc: the redeclaration above main" "$(cat "$TMP/fmv-$cc.patch")" \
    '\+FMVGEN_CLONES_STATIC static void kernel_late\(int \*a, int n\);'
  expect_match "$cc: row_op, kernel_rows' own helper, stays inlined into its clones" \
    "$(tr '\n' '~' <"$TMP/fmv-$cc.patch")" '~\+FMVGEN_CLONES_INLINE~ static void row_op\('
  expect_eq "$cc: one attribute line per kernel, none on main" \
    "$(grep -c '^+FMVGEN_CLONES_STATIC$' "$TMP/fmv-$cc.patch")" "$(printf '%s' "$want" | awk -F, '{print NF}')"
  attr_lines=$(grep -A1 '^+FMVGEN_CLONES[A-Z_]*\(([a-z_]*)\)\?$' "$TMP/fmv-$cc.patch")
  expect_match "$cc: the attribute lines are found" "$attr_lines" 'kernel_'
  expect_no_match "$cc: main not patched" "$attr_lines" 'int main'
  cp -a "$P" "$TMP/check-$cc"
  (cd "$TMP/check-$cc" && git init -q && git apply --check "$TMP/fmv-$cc.patch") || fail "$cc: git apply --check"
  (cd "$TMP/check-$cc" && patch -p1 --dry-run <"$TMP/fmv-$cc.patch" >/dev/null) || fail "$cc: patch -p1 --dry-run"
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  make -s clean
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Wextra -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  multi=$("$FMVGEN" inspect --json prog | jq -r '[.files[].functions[] | select(.versions >= 3) | .name] | sort | join(",")')
  [ "$cc" = clang-14 ] && want=""
  expect_eq "$cc: the kernels are multi-versioned" "$multi" "$want"
  expect_no_match "$cc: row_op has no symbol (inlined)" "$(nm prog)" ' row_op'
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
done

finish
