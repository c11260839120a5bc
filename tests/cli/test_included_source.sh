#!/bin/bash
# test_included_source.sh - a source file compiled only through wrapper TUs
# that #include it (libjpeg-turbo 3's jcdctmgr-8.c: '#include
# "../jcdctmgr.c"'). Fixture included-source: kernel.c, included by wrap_a.c
# and wrap_b.c with different #defines; wrap_b.c renames the external
# functions by macro and calls kernel_dot before its #include.
# For gcc, clang-14 and clang-19 (when installed):
#   - candidates: kernel_sum (kernel_sum_b in wrap_b.c, renamed through a
#     chain of two plain #defines: both symbols known, one entry per
#     compiled name), the static kernel_mix, kernel_dot_twice,
#     and kernel_acc, used above its definition and declared above that use
#     with a type each wrapper #defines differently: the patch redeclares it
#     from that declaration's own text (note redeclared), one line for both;
#   - kernel_dot is excluded everywhere (used before its definition in
#     wrap_b.c, named in the reason); kernel_add_a/_b (named by a
#     function-like macro) excluded as 'macro', "renamed by macro in TU";
#   - other.c's other_scale, static through a macro (LOCAL(void), as
#     libjpeg-turbo writes it), gets FMVGEN_CLONES_STATIC (note static-macro);
#   - extra.def (included by wrap_a.c, neither header nor source) stays
#     excluded as 'header';
#   - the patch puts one attribute line per definition into kernel.c, the
#     renamed function's spelled as written (FMVGEN_CLONES(kernel_sum));
#     `patch -p1 --dry-run` is clean;
#   - the patched project builds (-Werror), both TUs' copies are cloned
#     (clang 14: not the static one), output unchanged, also under
#     qemu -cpu Nehalem.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/included-source/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" >/dev/null && BASE=$(./prog) && make -s clean || fail "$cc: unpatched build"

  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: candidates" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")')" \
    "kernel_acc,kernel_dot_twice,kernel_mix,kernel_sum,kernel_sum_b,other_scale"
  expect_eq "$cc: kernel_sum knows both TUs' symbols" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_sum") | .notes[]
        | select(.kind == "included-source") | .symbols[]] | join(",")')" "kernel_sum,kernel_sum_b"
  expect_eq "$cc: kernel_sum's TUs" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_sum_b") | .notes[]
        | select(.kind == "included-source") | .tus[] | (.source | split("/") | last) + "=" + .symbol] | join(",")')" \
    "wrap_a.c=kernel_sum,wrap_b.c=kernel_sum_b"
  expect_eq "$cc: kernel_mix compiled by both wrappers" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_mix") | .notes[]
        | select(.kind == "included-source") | .tus[] | .output | split("/") | last] | join(",")')" \
    "wrap_a.o,wrap_b.o"
  expect_eq "$cc: kernel_dot excluded in both TUs" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_dot" or .name == "kernel_dot_b") | .reason] | unique | join(",")')" \
    "used-before-definition"
  expect_match "$cc: the reason names the TU that uses it early" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name == "kernel_dot") | .detail')" \
    '^in TU wrap_b.c, which also compiles kernel.c: used at line 15 of wrap_b.c'
  expect_eq "$cc: kernel_acc's redeclaration copies its declaration's text" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_acc") | .notes[]
        | select(.kind == "redeclared") | .text] | unique | join("|")')" \
    "static void kernel_acc(KERNEL_ACC *restrict acc, const unsigned *restrict src, int n);"
  expect_match "$cc: kernel_acc compiled by both wrappers" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "kernel_acc") | .notes[]
        | select(.kind == "included-source") | .tus[] | .output | split("/") | last] | join(",")')" \
    "wrap_a.o,wrap_b.o"
  expect_match "$cc: function-like rename excluded" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name == "kernel_add_a") | .reason + ": " + .detail')" \
    "^macro: renamed by macro in TU wrap_a.c \\(to kernel_add_a\\): its name is written KERNEL_NAME"
  expect_no_match "$cc: no header exclusion of kernel.c" "$("$FMVGEN" list --excluded)" 'kernel.c, which the TU includes'
  expect_match "$cc: a .def file the TU includes stays excluded" \
    "$(printf '%s' "$json" | jq -r '.functions[] | select(.name == "extra_fill") | .reason + ": " + .detail')" \
    '^header: defined in .*/extra.def, which the TU includes and which is neither a header nor a C/C\+\+ source'

  "$FMVGEN" patch -o "$TMP/fmv-$cc.patch" 2>/dev/null
  expect_eq "$cc: patch exit" "$?" 0
  added=$(grep -E '^\+FMVGEN_CLONES(_STATIC|\([a-z_]+\))$' "$TMP/fmv-$cc.patch" | sort | tr '\n' ' ')
  expect_eq "$cc: one attribute line per definition" "$added" \
    "+FMVGEN_CLONES(kernel_dot_twice) +FMVGEN_CLONES(kernel_sum) +FMVGEN_CLONES_STATIC +FMVGEN_CLONES_STATIC +FMVGEN_CLONES_STATIC "
  expect_eq "$cc: one redeclaration line, above the use, in kernel.c" \
    "$(awk '/^--- a\/kernel.c/{f=1;next} /^--- /{f=0} f && /^\+FMVGEN_CLONES_STATIC static/' "$TMP/fmv-$cc.patch")" \
    "+FMVGEN_CLONES_STATIC static void kernel_acc(KERNEL_ACC *restrict acc, const unsigned *restrict src, int n);"
  expect_match "$cc: a static hidden by a macro is marked static" "$(cat "$TMP/fmv-$cc.patch")" \
    $'\\+FMVGEN_CLONES_STATIC\n LOCAL\\(void\\)\n other_scale\\('
  expect_match "$cc: list says why" "$("$FMVGEN" list)" 'static-macro: internal linkage through the macro LOCAL' 
  expect_eq "$cc: kernel.c's attribute lines" \
    "$(awk '/^--- a\/kernel.c/{f=1;next} /^--- /{f=0} f && /^\+FMVGEN_CLONES/' "$TMP/fmv-$cc.patch" | tr '\n' ' ')" \
    "+FMVGEN_CLONES_STATIC static void kernel_acc(KERNEL_ACC *restrict acc, const unsigned *restrict src, int n); +FMVGEN_CLONES(kernel_sum) +FMVGEN_CLONES_STATIC +FMVGEN_CLONES_STATIC "
  make -s clean
  patch -p1 --dry-run <"$TMP/fmv-$cc.patch" >"$TMP/dry-$cc" 2>&1
  expect_eq "$cc: patch -p1 --dry-run exit" "$?" 0
  expect_eq "$cc: patch -p1 --dry-run says nothing but the files" "$(grep -v '^checking file' "$TMP/dry-$cc")" ""
  patch -p1 -s <"$TMP/fmv-$cc.patch" || fail "$cc: patch -p1"
  if make -s CC="$cc" CFLAGS="-O3 -Wall -Werror" >"$TMP/build-$cc" 2>&1; then pass; else
    fail "$cc: patched build: $(grep -m1 error "$TMP/build-$cc")"; continue
  fi
  syms=$(nm prog)
  for fn in kernel_sum kernel_sum_b kernel_dot_twice; do
    expect_match "$cc: nm shows clones of $fn" "$syms" "[tT] $fn\\.(arch_x86|avx)"
    expect_match "$cc: $fn is a dispatched (ifunc) symbol" "$syms" "[iI] $fn\$"
  done
  if [ "$cc" = clang-14 ]; then
    expect_no_match "clang-14: static functions get no clones" "$syms" "(kernel_mix|other_scale|kernel_acc)\\.(arch_x86|avx)"
  else
    expect_eq "$cc: both TUs' kernel_mix are cloned" \
      "$(printf '%s\n' "$syms" | grep -cE '[tT] kernel_mix\.(arch_x86-64-v3|arch_x86_64_v3)')" 2
    expect_eq "$cc: both TUs' kernel_acc are cloned" \
      "$(printf '%s\n' "$syms" | grep -cE '[tT] kernel_acc\.(arch_x86-64-v3|arch_x86_64_v3)')" 2
  fi
  expect_no_match "$cc: no clones of an excluded function" "$syms" "kernel_dot\\.(arch_x86|avx)"
  expect_eq "$cc: patched output" "$(./prog)" "$BASE"
  expect_eq "$cc: output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$BASE"
done

finish
