#!/bin/bash
# test_patch_pointer.sh - fmvgen patch --dispatch pointer: the clones
# reached through a pointer set from the CPU on the first call, with no
# IFUNC, so that musl (dynamic and -static) runs them too.
# tests/fixtures/patch-libc (kernels also called from .preinit_array and a
# constructor) is patched with --dispatch pointer and built patched and
# unpatched with musl-gcc (dynamic, -static), gcc (dynamic, -static,
# -static-pie, -fno-plt -Wl,-z,now), clang 14 and clang 19 (dynamic,
# -static). Each patched build prints what its unpatched build prints,
# natively and under qemu-x86_64 -cpu Nehalem; fmvgen inspect names every
# cloned kernel's dispatch 'pointer' (clang 14: the external ones; it gives
# static functions no clones); the musl builds hold no IRELATIVE relocation;
# gdb stops in the clone verify's dispatch map names for this CPU, so the
# musl builds run the clones, and finds the pointer already set to a clone
# when the program's first constructor runs; verify --against passes there and catches a
# build that prints nothing. tests/fixtures/patch-pointer (a
# -fvisibility=hidden library exporting what its header marks) keeps its
# exports: the hidden function stays hidden, the exported one is a plain
# FUNC, and 'scale', whose body names a member 'scale', is dispatched by
# IFUNC instead, said in the header, --json and stderr. The patched files
# compile as C89 (pedantic) and C++98.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/patch_libc.sh"
"$FMVGEN" patch --dispatch nonsense >/dev/null 2>"$TMP/bad.err"
expect_eq "--dispatch nonsense: usage error" "$?" 2
expect_eq "--dispatch nonsense: says why" "$(cat "$TMP/bad.err")" "fmvgen: --dispatch nonsense: expected auto, ifunc, pointer or cpuid"
json=$("$FMVGEN" patch --dispatch pointer --json)
expect_eq "json: dispatch" "$(printf '%s' "$json" | jq -r .dispatch)" pointer
expect_eq "json: every function through the pointer" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | .name + "=" + .dispatch] | sort | join(",")')" \
  "fill=pointer,mix=pointer,preinit=pointer,sum_sq=pointer"
expect_eq "json: no IFUNC fallback" "$(printf '%s' "$json" | jq -c .ifunc_fallback)" "[]"
expect_eq "json: default is ifunc" "$("$FMVGEN" patch --json | jq -r '.dispatch + " " + ([.functions[].dispatch] | unique | join(","))')" "ifunc ifunc"
"$FMVGEN" patch --dispatch pointer -o "$TMP/fmv.patch" 2>/dev/null
expect_match "header: the dispatch" "$(cat "$TMP/fmv.patch")" 'Dispatch: pointer \(--dispatch pointer\)'
expect_no_match "header: no IFUNC text where no function uses IFUNC" "$(cat "$TMP/fmv.patch")" 'The clones need IFUNC'
# the patch applies with patch -p1 and git apply too (whole lines only)
mkdir -p "$TMP/ga" && cp -a "$FIXTURES/patch-libc/." "$TMP/ga/"
(cd "$TMP/ga" && git init -q . && git apply "$TMP/fmv.patch")
expect_eq "git apply" "$?" 0
"$FMVGEN" patch --dispatch pointer --apply >"$TMP/patch.out" 2>&1
expect_eq "patch --apply: exit" "$?" 0
expect_eq "git apply and --apply agree" "$(cat "$TMP/ga/kernel.c")" "$(cat kernel.c)"
k=$(cat kernel.c)
expect_match "kernel.c: sum_sq renamed" "$k" $'#ifdef FMVGEN_PTR_ON\n# define sum_sq fmvgen_mv_sum_sq\n#endif\nFMVGEN_CLONES_PTR\nlong sum_sq'
expect_match "kernel.c: sum_sq's trampoline" "$k" \
  $'\n#ifdef FMVGEN_PTR_ON\n# undef sum_sq\nFMVGEN_PTR_DEF long sum_sq\\(const int \\*a, int n\\) FMVGEN_PTR_BODY\\(sum_sq, fmvgen_mv_sum_sq\\)\n#endif'
expect_match "main.c: static fill, its body's assembler name first" "$(cat main.c)" \
  $'#ifdef FMVGEN_PTR_STATIC_ON\n# define fill fmvgen_mv_fill\nstatic void fill\\(void\\) __asm__\\("fmvgen_mv_fill\\.tu[0-9a-f]{8}"\\);\n#endif\nFMVGEN_CLONES_PTR_STATIC\nstatic void fill'

patch_libc_configs " -Wall -Wextra -Werror"
add_config gcc gcc "-O3 -Wall -Wextra -Werror"

for cfg in "${configs[@]}"; do
  IFS='|' read -r name cc flags <<<"$cfg"
  if ! build "$U" "$name" "$cc" "${flags% -Wall*}"; then fail "$name: unpatched build: $(head -3 "$TMP/build-$name.log")"; continue; fi
  if ! build "$P" "$name" "$cc" "$flags"; then fail "$name: patched build: $(head -3 "$TMP/build-$name.log")"; continue; fi
  prog="$P/prog-$name"
  want=$("$U/prog-$name")
  expect_match "$name: unpatched prints" "$want" '^preinit -?[0-9]+'
  got=$("$prog"); rc=$?
  expect_eq "$name: patched exit natively" "$rc" 0
  expect_eq "$name: patched output natively" "$got" "$want"
  got=$(qemu-x86_64 -cpu Nehalem "$prog"); rc=$?
  expect_eq "$name: patched exit on Nehalem" "$rc" 0
  expect_eq "$name: patched output on Nehalem" "$got" "$want"
  kernels="fill mix preinit sum_sq"
  [ "$name" = clang-14 ] && kernels="mix sum_sq"   # clang < 18: no clones for static functions
  json=$("$FMVGEN" inspect --json "$prog")
  for fn in $kernels; do
    expect_eq "$name: $fn reached through its pointer" \
      "$(printf '%s' "$json" | jq --arg f "$fn" '[.files[0].functions[] | select(.name == $f) | .versions >= 2 and .dispatch == "pointer"] | any')" true
  done
  case "$name" in
    musl*)
      expect_eq "$name: no IRELATIVE relocation" "$(readelf -rW "$prog" | grep -c IRELATIV)" 0
      expect_eq "$name: inspect: nothing unresolved" "$(printf '%s' "$json" | jq '.files[0].ifunc_unresolved')" null
      ;;
  esac
done
[ ${#configs[@]} -ge 3 ] && pass || fail "too few builds ran: ${configs[*]}"

# musl: the clones run. verify's dispatch map names the clone each resolver
# picks here and on Nehalem; gdb stops in the native one when the program
# calls sum_sq; verify --against passes, and fails a build that prints nothing.
if [ -x "$P/prog-musl-static" ] && [ -x "$P/prog-musl" ]; then
  for name in musl musl-static; do
    vj=$("$FMVGEN" verify --json --cpu Nehalem --against "$U/prog-$name" -- "$P/prog-$name" 2>"$TMP/verify-$name.err")
    expect_eq "$name: verify --against: exit" "$?" 0
    pick=$(printf '%s' "$vj" | jq -r '.dispatch[] | select(.function == "sum_sq") | .picks.native')
    expect_match "$name: dispatch map: a sum_sq clone natively" "$pick" '^fmvgen_mv_sum_sq\.'
    expect_match "$name: dispatch map: the default clone on Nehalem" \
      "$(printf '%s' "$vj" | jq -r '.dispatch[] | select(.function == "sum_sq") | .picks.Nehalem')" '^fmvgen_mv_sum_sq\.default'
    if command -v gdb >/dev/null; then
      stop=$(gdb -nx -batch -ex "break '$pick'" -ex run -ex 'info symbol $pc' "$P/prog-$name" 2>&1 | grep -E '^fmvgen_mv_sum_sq' | head -1)
      expect_match "$name: gdb stops in $pick" "$stop" "^$pick in section"
      # the pointer holds the clone before the program's own constructors run
      # (set by the trampoline's .init_array.00101 entry), so the jump never
      # sees the init stub as a second target
      ptr=$(gdb -nx -batch -ex 'break ctor' -ex run -ex "info symbol *(void **)&'mix.fmvgen_ptr'" "$P/prog-$name" 2>&1 | tail -1)
      expect_match "$name: mix's pointer set before the constructors" "$ptr" '^fmvgen_mv_mix\.'
    fi
  done
  printf 'int main(void) { return 0; }\n' >"$TMP/silent.c" && musl-gcc -static "$TMP/silent.c" -o "$TMP/silent"
  "$FMVGEN" verify --cpu Nehalem --against "$U/prog-musl-static" -- "$TMP/silent" >"$TMP/silent.out" 2>&1
  expect_eq "verify --against: a build that prints nothing fails" "$?" 1
fi

# The patched files: C89 (pedantic) and C++98.
patch_libc_pedantic ""

# A -fvisibility=hidden library: its exports stay as written.
V=$(copy_fixture patch-pointer)
V0="$TMP/pp0"
mkdir -p "$V0" && cp -a "$FIXTURES/patch-pointer/." "$V0/"
cd "$V" || exit 1
"$FMVGEN" scan --root "$V" -- make -s CC=gcc >/dev/null 2>&1
make -s clean
pj=$("$FMVGEN" patch --dispatch pointer --json 2>/dev/null)
expect_eq "patch-pointer: json" "$(printf '%s' "$pj" | jq -r '[.functions[] | .name + "=" + .dispatch] | sort | join(",")')" \
  "dotp=pointer,hidden_sum=pointer,scale=ifunc"
expect_match "patch-pointer: json ifunc_fallback" "$(printf '%s' "$pj" | jq -r '.ifunc_fallback | join("|")')" \
  '^k.c:23 scale: its body names it too'
"$FMVGEN" patch --dispatch pointer -o "$TMP/pp.patch" 2>/dev/null
expect_match "patch-pointer: the header lists it" "$(cat "$TMP/pp.patch")" \
  $'Dispatched by IFUNC instead, FMVGEN_CLONES \\(glibc only\\) \\(1\\):\n  k.c:23 scale: its body names it too'
"$FMVGEN" patch --dispatch pointer --apply >/dev/null 2>"$TMP/pp.err"
expect_eq "patch-pointer: --apply" "$?" 0
expect_match "patch-pointer: scale left to IFUNC, said why" "$(cat "$TMP/pp.err")" \
  'k.c:23: scale is dispatched by IFUNC \(glibc only\), not through a pointer: its body names it too'
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  (cd "$V0" && make -s clean && make -s CC="$cc" >/dev/null 2>&1)
  if ! (make -s clean && make -s CC="$cc" >"$TMP/pp-$cc.log" 2>&1); then fail "patch-pointer $cc: build: $(head -3 "$TMP/pp-$cc.log")"; continue; fi
  want=$("$V0/prog")
  expect_eq "patch-pointer $cc: output" "$(./prog)" "$want"
  expect_eq "patch-pointer $cc: output on Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog)" "$want"
  dyn=$(readelf -W --dyn-syms libk.so | awk '$7 != "UND" {print $4, $5, $6, $8}')
  expect_match "patch-pointer $cc: dotp exported, a plain function" "$dyn" 'FUNC GLOBAL DEFAULT dotp'
  expect_no_match "patch-pointer $cc: hidden_sum and the renamed clones not exported" "$dyn" 'hidden_sum|fmvgen_mv'
  expect_eq "patch-pointer $cc: inspect: dotp through its pointer" \
    "$("$FMVGEN" inspect --json libk.so | jq -r '.files[0].functions[] | select(.name == "dotp") | .dispatch')" pointer
done
# -masm=intel: the trampoline's instructions are bytes, so Intel syntax
# assembles them (its AT&T text did not: gcc 'bad expression', clang
# 'unknown token in expression'); clang 14 reaches its resolver by C name
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  (cd "$V0" && make -s clean && make -s CC="$cc" >/dev/null 2>&1)
  if ! (make -s clean && make -s CC="$cc" CFLAGS="-O3 -masm=intel" >"$TMP/pp-$cc-intel.log" 2>&1); then
    fail "patch-pointer $cc -masm=intel: build: $(head -3 "$TMP/pp-$cc-intel.log")"
    continue
  fi
  want=$("$V0/prog")
  expect_eq "patch-pointer $cc -masm=intel: output" "$(./prog)" "$want"
  expect_eq "patch-pointer $cc -masm=intel: output on Nehalem" "$(qemu-x86_64 -cpu Nehalem ./prog 2>/dev/null)" "$want"
  expect_eq "patch-pointer $cc -masm=intel: output on Haswell" "$(qemu-x86_64 -cpu Haswell ./prog 2>/dev/null)" "$want"
done

finish
