#!/bin/bash
# test_patch_cpuid.sh - fmvgen patch --dispatch cpuid (patch/cpuid.h): each
# C function's own target copies, chosen by the preamble's own CPUID code
# through an IFUNC where the C library is glibc (static functions: with gcc
# only) and through pointer dispatch's trampoline elsewhere, with no
# target_clones and so no libgcc CPU detection linked.
# tests/fixtures/patch-cpuid (floorf/ceilf and popcount code that gains at
# x86-64-v3; external EXPORT-visibility, static and void functions, one
# used above its definition) is patched with `patch -p1` and built
# patched and unpatched by musl-gcc (dynamic, -static), gcc (-O2 -Wall
# -Wextra -Werror, -fcf-protection, -static, -static-pie, -fno-plt), clang
# 14 and clang 19: each patched build prints what its unpatched build
# prints, natively and under qemu -cpu Nehalem, SandyBridge and Haswell;
# none links __cpu_indicator_init or __cpu_model, each has one
# fmvgen_cpu_levels (local, or hidden with -static) and the copies, the
# x86-64-v3 copy holds VEX code.
# glibc builds make each function an IFUNC whose value is its
# fmvgen_resolve_<f>, without trampoline, one IRELATIVE each - but clang's
# static snap_one, which keeps the trampoline; musl builds and
# -DFMVGEN_CPU_NO_IFUNC keep trampolines and no IRELATIVE relocation;
# -fcf-protection puts endbr64 on the resolver and on the trampoline. As a
# -fvisibility=hidden shared library it exports what the unpatched one
# does (as IFUNCs). patch-cpuid-statics: two files' static functions of
# one name link with gcc (local IFUNCs, also in the file that includes no
# header before the preamble), clang (trampolines; forced IFUNCs do not
# link) and musl. Targets it has no copy
# for are a usage error; avx2 gives one FMA-free copy. Functions it cannot
# take fall back to IFUNC with the reason (a body naming its function, C++,
# a store scanned before the params note); a candidate's helpers stay
# always_inline in its copies; patch-libc's patched file compiles as C89
# (pedantic) and C++98. Scanned again, the patched tree has no candidate.
source "$TESTLIB"
PATCH_LIBC_FIXTURE=patch-cpuid
source "$(dirname "$TESTLIB")/patch_libc.sh"

"$FMVGEN" patch --dispatch cpuid --targets arch=x86-64-v3,sse4.2 >/dev/null 2>"$TMP/bad.err"
expect_eq "unknown target: usage error" "$?" 2
expect_match "unknown target: named" "$(cat "$TMP/bad.err")" "^fmvgen: --dispatch cpuid: target 'sse4.2' has no copy"
json=$("$FMVGEN" patch --dispatch cpuid --json 2>/dev/null)
expect_eq "json: dispatch" "$(jq -r .dispatch <<<"$json")" cpuid
expect_eq "json: every function by its copies" \
  "$(jq -r '[.functions[] | .name + "=" + .dispatch] | sort | join(",")' <<<"$json")" \
  "add_scaled=cpuid,count_bits=cpuid,popcount_all=cpuid,snap_one=cpuid,snap_sum=cpuid"
expect_eq "json: no IFUNC fallback" "$(jq -c .ifunc_fallback <<<"$json")" "[]"
avx2=$("$FMVGEN" patch --dispatch cpuid --exact 2>/dev/null)
expect_match "--exact: one FMA-free copy" "$avx2" 'FMVGEN_CPU_T_AVX2 __attribute__\(\(target\("[a-z0-9.,]*avx2,bmi,bmi2,f16c,lzcnt,movbe,xsave"\), noinline FMVGEN_NO_IPA_RA_ FMVGEN_CPU_SEC_\)\)'
expect_match "--exact: chosen at level v3" "$avx2" 'l & 2u \? fmvgen_cp_snap_sum_avx2 : fmvgen_cp_snap_sum_default;'
"$FMVGEN" patch --dispatch cpuid -o "$TMP/fmv.patch" 2>/dev/null
expect_match "header: the dispatch" "$(cat "$TMP/fmv.patch")" 'Dispatch: cpuid \(--dispatch cpuid\)'
expect_no_match "header: no IFUNC text" "$(cat "$TMP/fmv.patch")" 'The clones need IFUNC|Dispatched by IFUNC'
patch -s -p1 <"$TMP/fmv.patch"
expect_eq "patch -p1" "$?" 0
k=$(cat k.c)
expect_contains "k.c: count_bits renamed" "$k" \
  $'#ifdef FMVGEN_CPU_ON\n# define count_bits fmvgen_mv_count_bits\n# pragma GCC diagnostic push\n# pragma GCC diagnostic ignored "-Wattributes"\n#endif\nFMVGEN_CLONES_CPU\nEXPORT long count_bits(const unsigned long long *w, int n)\n{'
expect_contains "k.c: count_bits' copies, resolver, IFUNC and trampoline" "$k" \
  $'}\n#ifdef FMVGEN_CPU_ON\n# undef count_bits\nstatic FMVGEN_CPU_T_X86_64_V4 EXPORT long fmvgen_cp_count_bits_x86_64_v4(const unsigned long long *w, int n) { return fmvgen_mv_count_bits(w, n); }\nstatic FMVGEN_CPU_T_X86_64_V3 EXPORT long fmvgen_cp_count_bits_x86_64_v3(const unsigned long long *w, int n) { return fmvgen_mv_count_bits(w, n); }\nstatic FMVGEN_CPU_T_DEFAULT EXPORT long fmvgen_cp_count_bits_default(const unsigned long long *w, int n) { return fmvgen_mv_count_bits(w, n); }\nstatic __attribute__((used FMVGEN_CPU_SEC_)) __typeof__(&fmvgen_mv_count_bits) fmvgen_resolve_count_bits(void) { unsigned l = fmvgen_cpu_levels(); return l & 4u ? fmvgen_cp_count_bits_x86_64_v4 : l & 2u ? fmvgen_cp_count_bits_x86_64_v3 : fmvgen_cp_count_bits_default; }\n# ifdef FMVGEN_CPU_IFUNC\nEXPORT long count_bits(const unsigned long long *w, int n) __attribute__((ifunc("fmvgen_resolve_count_bits")));\n# else\nFMVGEN_PTR_DEF EXPORT long count_bits(const unsigned long long *w, int n) FMVGEN_CPU_BODY(count_bits, fmvgen_resolve_count_bits)\n# endif\n# pragma GCC diagnostic pop\n#endif\n'
expect_contains "k.c: void add_scaled forwards without return" "$k" \
  'static FMVGEN_CPU_T_DEFAULT EXPORT void fmvgen_cp_add_scaled_default(float *y, const float *x, float k, int n) { fmvgen_mv_add_scaled(y, x, k, n); }'
expect_contains "k.c: static snap_one's body" "$k" $'#endif\nFMVGEN_CLONES_CPU_STATIC\nstatic float snap_one(const float *a, int n)\n{'
expect_contains "k.c: static snap_one's copy (no second static)" "$k" \
  $'\nFMVGEN_CPU_T_DEFAULT static float fmvgen_cp_snap_one_default(const float *a, int n) { return fmvgen_mv_snap_one(a, n); }\n'
expect_contains "k.c: static snap_one's IFUNC only where it is not clang" "$k" \
  $'\n# ifdef FMVGEN_CPU_IFUNC_STATIC\nstatic float snap_one(const float *a, int n) __attribute__((ifunc("fmvgen_resolve_snap_one")));\n# else\nFMVGEN_PTR_DEF static float snap_one('
expect_eq "k.c: popcount_all, used above its definition, needs no redeclaration" \
  "$(grep -c 'popcount_all(const unsigned long long \*w, int n);' k.c)" 0
expect_contains "k.c: snap_one's __func__ stays its name" "$k" \
  $'# define snap_one fmvgen_mv_snap_one\n# pragma push_macro("__func__")\n# undef __func__\n# define __func__ "snap_one"\n'
expect_contains "k.c: and comes back after it" "$k" $'# pragma pop_macro("__PRETTY_FUNCTION__")\n# undef snap_one\n'
expect_eq "k.c: one preamble" "$(grep -c '^#ifndef FMVGEN_CLONES_CPU_STATIC$' k.c)" 1

# sym_of SYMS NAME: "TYPE BIND VALUE" of NAME's first row in readelf -sW's SYMS
sym_of() { awk -v n="$2" '$8 == n {print $4, $5, $2; exit}' "$1"; }

patch_libc_configs " -Wall -Wextra -Werror"
add_config gcc gcc "-O2 -Wall -Wextra -Werror"
add_config gcc-cet gcc "-O2 -fcf-protection -Wall -Wextra -Werror"
add_config gcc-cet-noifunc gcc "-O2 -fcf-protection -DFMVGEN_CPU_NO_IFUNC -Wall -Wextra -Werror"
ran=0
for cfg in "${configs[@]}"; do
  IFS='|' read -r name cc flags <<<"$cfg"
  if ! build "$U" "$name" "$cc" "${flags% -Wall*}"; then fail "$name: unpatched build: $(head -3 "$TMP/build-$name.log")"; continue; fi
  if ! build "$P" "$name" "$cc" "$flags"; then fail "$name: patched build: $(head -3 "$TMP/build-$name.log")"; continue; fi
  ran=$((ran + 1))
  prog="$P/prog-$name"
  want=$("$U/prog-$name")
  expect_match "$name: unpatched prints" "$want" '^-?[0-9]+ [0-9]+ '
  expect_eq "$name: patched output natively" "$("$prog")" "$want"
  for cpu in Nehalem SandyBridge Haswell; do
    expect_eq "$name: patched output on $cpu" "$(qemu-x86_64 -cpu "$cpu" "$prog" 2>/dev/null)" "$want"
  done
  syms=$(nm "$prog")
  expect_no_match "$name: no libgcc CPU detection" "$syms" '__cpu_indicator_init|__cpu_model'
  expect_eq "$name: fmvgen_cpu_levels, once, local or hidden" \
    "$(readelf -sW "$prog" | awk '$8 ~ /^fmvgen_cpu_levels/ {print $4, ($5 == "LOCAL" || $6 == "HIDDEN"), $8}')" \
    "FUNC 1 fmvgen_cpu_levels.v1"
  for fn in add_scaled count_bits popcount_all snap_one snap_sum; do
    for slug in x86_64_v3 x86_64_v4 default; do
      expect_match "$name: $fn's $slug copy" "$syms" " t fmvgen_cp_${fn}_${slug}$"
    done
  done
  v3=$(objdump -d --no-show-raw-insn "$prog" | awk '/<fmvgen_cp_snap_sum_x86_64_v3>:/,/^$/')
  expect_match "$name: the v3 copy holds VEX code" "$v3" 'vround|vrndscale'
  # IFUNC (glibc) or trampoline (musl, -DFMVGEN_CPU_NO_IFUNC; clang's static snap_one)
  readelf -sW "$prog" >"$TMP/syms-$name"
  for fn in add_scaled count_bits popcount_all snap_sum snap_one; do
    case "$name:$fn" in
      musl*|*noifunc*|clang*:snap_one) shape=trampoline ;;
      *) shape=ifunc ;;
    esac
    is=$(sym_of "$TMP/syms-$name" "$fn")
    if [ $shape = ifunc ]; then
      expect_match "$name: $fn is an IFUNC" "$is" '^IFUNC '
      expect_eq "$name: $fn's IFUNC value is fmvgen_resolve_$fn" "${is##* }" \
        "$(sym_of "$TMP/syms-$name" "fmvgen_resolve_$fn" | awk '$1 == "FUNC" && $2 == "LOCAL" {print $3}')"
      expect_eq "$name: $fn has no trampoline" "$(grep -c " $fn\.fmvgen_\(ptr\|init\|ctor\)$" "$TMP/syms-$name")" 0
    else
      expect_match "$name: $fn is a function, not an IFUNC" "$is" '^FUNC '
      expect_eq "$name: $fn's trampoline pointer, init and ctor stubs" \
        "$(grep -c " $fn\.fmvgen_\(ptr\|init\|ctor\)$" "$TMP/syms-$name")" 3
    fi
  done
  case "$name" in
    musl*|*noifunc) expect_eq "$name: no IRELATIVE relocation" "$(readelf -rW "$prog" | grep -c IRELATIV)" 0 ;;
    gcc-static*|clang-19-static) ;;   # glibc's own IFUNCs
    clang*) expect_eq "$name: one IRELATIVE relocation per IFUNC" "$(readelf -rW "$prog" | grep -c IRELATIV)" 4 ;;
    *) expect_eq "$name: one IRELATIVE relocation per IFUNC" "$(readelf -rW "$prog" | grep -c IRELATIV)" 5 ;;
  esac
  case "$name" in
    gcc-cet) expect_match "$name: the resolver starts with endbr64" \
      "$(objdump -d --no-show-raw-insn "$prog" | grep -A1 '<fmvgen_resolve_count_bits>:' | tail -1)" 'endbr64' ;;
    gcc-cet-noifunc) expect_match "$name: the trampoline starts with endbr64" \
      "$(objdump -d --no-show-raw-insn "$prog" | grep -A1 '<count_bits>:' | tail -1)" 'endbr64' ;;
  esac
done
[ "$ran" -ge 5 ] && pass || fail "too few builds ran ($ran): ${configs[*]}"

# Scanned again, the patched tree has no candidate: its copies are fmvgen's own.
(cd "$P" && make -s clean && "$FMVGEN" scan --root "$P" -- make -s CC=gcc >/dev/null 2>&1)
rj=$(cd "$P" && "$FMVGEN" list --json)
expect_eq "rescanned: no candidate" "$(jq '[.functions[] | select(.status == "candidate")] | length' <<<"$rj")" 0
expect_match "rescanned: a default copy excluded as fmvgen's own" \
  "$(jq -r '.functions[] | select(.name == "fmvgen_cp_popcount_all_default") | .detail' <<<"$rj")" \
  "^fmvgen_cp_popcount_all_default is fmvgen's own code \(--dispatch cpuid\)$"

# A -fvisibility=hidden shared library: it exports what it exported, the
# dispatched functions as IFUNCs.
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  exports() { (cd "$1" && rm -f libk.so && make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" libk.so >/dev/null 2>&1 &&
    readelf -W --dyn-syms libk.so | awk '$7 != "UND" && $4 != "NOTYPE" && $1 ~ /:$/ {print $4, $5, $6, $8}' | sort); }
  want=$(exports "$U")
  got=$(exports "$P")
  expect_match "$cc: unpatched library exports count_bits" "$want" 'FUNC GLOBAL DEFAULT count_bits'
  expect_eq "$cc: patched library exports the same names" "$(sed 's/^IFUNC /FUNC /' <<<"$got" | sort)" "$want"
  expect_eq "$cc: patched library's IFUNCs" "$(awk '$1 == "IFUNC" {print $4}' <<<"$got" | tr '\n' ' ')" "add_scaled count_bits snap_sum "
done

# Two files' static functions of one name link: gcc makes each a local
# IFUNC; clang, which would make them global IFUNCs (forced here:
# "multiple definition"), trampolines.
S=$(copy_fixture patch-cpuid-statics)
(cd "$S" && "$FMVGEN" scan --root "$S" -- make -s CC=gcc >/dev/null 2>&1 && make -s CC=gcc && ./prog >"$TMP/s.base" &&
  make -s clean && "$FMVGEN" patch --dispatch cpuid --apply >/dev/null 2>&1) || fail "patch-cpuid-statics: scan and patch"
expect_eq "patch-cpuid-statics: both snap patched" "$(cat "$S/a.c" "$S/b.c" | grep -c '^FMVGEN_CLONES_CPU_STATIC$')" 2
for cc in gcc clang-14 clang-19 musl-gcc; do
  installed "$cc" || continue
  (cd "$S" && make -s clean && make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/s.log" 2>&1) ||
    { fail "patch-cpuid-statics $cc: build: $(head -3 "$TMP/s.log")"; continue; }
  expect_eq "patch-cpuid-statics $cc: same output" "$(cd "$S" && ./prog)" "$(cat "$TMP/s.base")"
  snaps=$(readelf -sW "$S/prog" | awk '$8 == "snap" {print $4, $5}' | sort | uniq -c | tr -s ' ')
  case "$cc" in
    gcc) expect_eq "patch-cpuid-statics $cc: two local IFUNCs" "$snaps" " 2 IFUNC LOCAL" ;;
    *) expect_eq "patch-cpuid-statics $cc: two local trampolines" "$snaps" " 2 FUNC LOCAL"
       expect_eq "patch-cpuid-statics $cc: their pointers" "$(nm "$S/prog" | grep -c ' snap\.fmvgen_ptr$')" 2 ;;
  esac
done

# b.c includes no header: the preamble's own <limits.h> tells glibc (gcc's
# two IFUNCs above); as C89 -pedantic-errors it compiles clean.
for cc in gcc musl-gcc clang-14 clang-19; do
  installed "$cc" || continue
  out=$("$cc" -std=c89 -pedantic-errors -Wall -Wextra -Werror -O2 -c "$S/b.c" -o "$TMP/b89.o" 2>&1)
  expect_eq "patch-cpuid-statics $cc: b.c as C89 -pedantic-errors [$out]" "$?" 0
done
for cc in clang-14 clang-19; do
  installed "$cc" || continue
  (cd "$S" && make -s clean && make -s CC="$cc" CFLAGS="-O2 -DFMVGEN_CPU_IFUNC_STATIC" >"$TMP/s.log" 2>&1)
  expect_match "patch-cpuid-statics $cc: static IFUNCs forced do not link" "$(cat "$TMP/s.log")" "multiple definition of .snap'"
done

# Shapes it cannot take: IFUNC instead, said why.
V=$(copy_fixture patch-pointer)
(cd "$V" && "$FMVGEN" scan --root "$V" -- make -s CC=gcc >/dev/null 2>&1 && make -s clean)
vj=$(cd "$V" && "$FMVGEN" patch --dispatch cpuid --json 2>"$TMP/v.err")
expect_eq "patch-pointer: json" "$(jq -r '[.functions[] | .name + "=" + .dispatch] | sort | join(",")' <<<"$vj")" \
  "dotp=cpuid,hidden_sum=cpuid,scale=ifunc"
expect_match "patch-pointer: scale's reason" "$(jq -r '.ifunc_fallback | join("|")' <<<"$vj")" '^k.c:23 scale: its body names it too'
expect_match "patch-pointer: said on stderr" "$(cat "$TMP/v.err")" \
  'k.c:23: scale is dispatched by IFUNC \(glibc only\), not by its own CPUID copies: its body names it too'
(cd "$V" && "$FMVGEN" patch --dispatch cpuid -o "$TMP/v.patch" 2>/dev/null)
expect_match "patch-pointer: the header lists it" "$(cat "$TMP/v.patch")" \
  $'Dispatched by IFUNC instead, FMVGEN_CLONES \\(glibc only\\) \\(1\\):\n  k.c:23 scale: its body names it too'
sqlite3 "$V/.fmvgen/store.sqlite" "UPDATE functions SET notes = '[]' WHERE name = 'dotp'"
expect_match "a store scanned before the params note: rescan" \
  "$(cd "$V" && "$FMVGEN" patch --dispatch cpuid --json 2>/dev/null | jq -r '.ifunc_fallback | join("|")')" \
  'dotp: scanned before fmvgen recorded parameter names: run fmvgen scan again'
X="$TMP/cxx" && mkdir -p "$X"
printf 'long bits(const unsigned long long *w, int n)\n{\n    long s = 0;\n    for (int i = 0; i < n; i++) s += __builtin_popcountll(w[i]);\n    return s;\n}\n' >"$X/k.cc"
(cd "$X" && "$FMVGEN" scan --root "$X" -- g++ -O2 -c k.cc -o k.o >/dev/null 2>&1)
expect_match "C++: IFUNC, said why" \
  "$(cd "$X" && "$FMVGEN" patch --dispatch cpuid --json 2>/dev/null | jq -r '.ifunc_fallback[0]')" \
  ": a C\\+\\+ function \\(fmvgen's CPUID copies are C only\\)$"

# A candidate's helpers are always_inline in its copies.
H=$(copy_fixture patch-helpers)
(cd "$H" && make -s CC=gcc >/dev/null && ./prog 300 >"$TMP/h.base" && make -s clean &&
  "$FMVGEN" scan -- make CC=gcc >/dev/null 2>&1 && make -s clean && "$FMVGEN" patch --dispatch cpuid --apply >/dev/null 2>&1) ||
  fail "patch-helpers: scan and patch"
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  (cd "$H" && make -s clean && make -s CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$TMP/h.log" 2>&1) ||
    { fail "patch-helpers $cc: build: $(head -3 "$TMP/h.log")"; continue; }
  expect_eq "patch-helpers $cc: same output" "$(cd "$H" && ./prog 300)" "$(cat "$TMP/h.base")"
  expect_no_match "patch-helpers $cc: no helper of its own" "$(nm "$H/prog")" ' t (scale|accumulate|running_sum)$'
  expect_match "patch-helpers $cc: blend's copies" "$(nm "$H/prog")" ' t fmvgen_cp_blend_x86_64_v3$'
done

# patch-libc's patched file: C89 (pedantic) and C++98.
C=$(copy_fixture patch-libc)
cd "$C" && "$FMVGEN" scan --root "$C" -- make -s CC=gcc >/dev/null 2>&1 && make -s clean
"$FMVGEN" patch --dispatch cpuid --apply >/dev/null 2>&1
expect_eq "patch-libc: cpuid lines" "$(cat kernel.c main.c | grep -c '^FMVGEN_CLONES_CPU')" 4
patch_libc_pedantic ""

finish
