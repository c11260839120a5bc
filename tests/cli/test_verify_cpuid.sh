#!/bin/bash
# test_verify_cpuid.sh - `fmvgen verify` on functions of fmvgen's --dispatch
# cpuid (tests/fixtures/inspect-cpuid, the patch's shape written by hand),
# built with gcc, clang 14 and clang 19: the preloaded helper calls each
# resolver fmvgen_resolve_IDENT natively and under qemu, and the map names
# the copy and target picked: default on qemu64, Nehalem and SandyBridge
# (count_bits' x86-64-v2 copy from Nehalem up), the x86-64-v3 or avx2 copy
# on Haswell, natively the copy of this CPU's level (x86-64-v4 on an AVX-512
# host); a static program's resolvers, called through gdb, the same. A
# resolver that returns a function that is none of its copies, or a copy
# beyond the CPU, fails that CPU with an error line naming both. The same
# for functions reached through IFUNC (ifn.c: dot, and twice with gcc),
# in the program, from a shared library, and in the static program.
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }
SRC=$FIXTURES/inspect-cpuid
cd "$TMP" || exit 1
compilers="gcc clang"
if have_clang19; then compilers="$compilers clang-19"; else echo "clang-19 not installed: skipped"; fi

# pick JSON FUNCTION TARGET-OR-EMPTY CPU: the copy symbol a function's entry picked
# (the scale whose copies include TARGET, when given)
pick() {
  jq -r --arg f "$2" --arg t "$3" --arg c "$4" \
    '[.dispatch[] | select(.function == $f) | select($t == "" or ([.clones[] | endswith($t)] | any)) | .picks[$c]] | join(",")' "$1"
}

for cc in $compilers; do
  prog=./prog-$cc
  "$cc" -O2 "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" -o "$prog" -lm ||
    { fail "$cc: could not build the fixture"; continue; }
  "$FMVGEN" verify --json -- "$prog" >"$cc.json" 2>"$cc.err"; rc=$?
  j=$cc.json
  expect_eq "$cc: exit status" "$rc" 0
  expect_eq "$cc: no error line" "$(cat "$cc.err")" ""
  expect_eq "$cc: runs everywhere, same output" "$(jq -r '[.cpus[] | .result] | unique | join(",")' "$j")" ok
  expect_eq "$cc: no dispatch error" "$(jq -c '[.cpus[].dispatch_errors[]]' "$j")" "[]"
  expect_eq "$cc: the map's functions" "$(jq -r '[.dispatch[] | "\(.function):\(.dispatch):\(.resolver)"] | join(" ")' "$j")" \
    "count_bits:cpuid:fmvgen_resolve_count_bits kern:cpuid:fmvgen_resolve_kern scale:cpuid:fmvgen_resolve_scale scale:cpuid:fmvgen_resolve_scale"
  for cpu in qemu64 Nehalem SandyBridge; do
    expect_eq "$cc: kern on $cpu" "$(pick "$j" kern "" "$cpu")" fmvgen_cp_kern_default
    expect_eq "$cc: scale (avx2) on $cpu" "$(pick "$j" scale _avx2 "$cpu")" fmvgen_cp_scale_default
    expect_eq "$cc: scale (v3) on $cpu" "$(pick "$j" scale _x86_64_v3 "$cpu")" fmvgen_cp_scale_default
  done
  expect_eq "$cc: count_bits on qemu64" "$(pick "$j" count_bits "" qemu64)" fmvgen_cp_count_bits_default
  for cpu in Nehalem SandyBridge Haswell native; do
    expect_eq "$cc: count_bits on $cpu" "$(pick "$j" count_bits "" "$cpu")" fmvgen_cp_count_bits_x86_64_v2
  done
  expect_eq "$cc: kern on Haswell" "$(pick "$j" kern "" Haswell)" fmvgen_cp_kern_x86_64_v3
  expect_eq "$cc: kern's target on Haswell" "$(jq -r '.dispatch[] | select(.function == "kern") | .targets.Haswell' "$j")" arch=x86-64-v3
  expect_eq "$cc: scale (avx2) on Haswell" "$(pick "$j" scale _avx2 Haswell)" fmvgen_cp_scale_avx2
  expect_eq "$cc: scale (v3) on Haswell" "$(pick "$j" scale _x86_64_v3 Haswell)" fmvgen_cp_scale_x86_64_v3
  native=$(jq -r '.cpus[0].level' "$j")
  case $native in
    x86-64-v4) expect_eq "$cc: kern natively (AVX-512)" "$(pick "$j" kern "" native)" fmvgen_cp_kern_x86_64_v4 ;;
    x86-64-v3) expect_eq "$cc: kern natively (v3)" "$(pick "$j" kern "" native)" fmvgen_cp_kern_x86_64_v3 ;;
    *) echo "native CPU is $native: its kern pick is not asserted" ;;
  esac

  # reached through IFUNC (ifn.c): dot always, twice with gcc (clang's static
  # twice keeps the trampoline); in the program, then from a shared library
  progi=./progi-$cc
  "$cc" -O2 -DWITH_IFN "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" "$SRC/ifn.c" -o "$progi" -lm ||
    { fail "$cc: could not build the ifunc fixture"; continue; }
  if [ "$cc" = gcc ]; then twice_reach=ifunc; else twice_reach=pointer; fi
  "$FMVGEN" verify --json --cpu qemu64,Nehalem,Haswell -- "$progi" >"$cc.i.json" 2>"$cc.i.err"; rc=$?
  ji=$cc.i.json
  expect_eq "$cc: ifunc: exit status, no error line" "$rc $(cat "$cc.i.err")" "0 "
  expect_eq "$cc: ifunc: runs everywhere, no dispatch error" \
    "$(jq -r '([.cpus[] | .result] | unique | join(",")), ([.cpus[].dispatch_errors[]] | length)' "$ji" | paste -sd' ')" "ok 0"
  expect_eq "$cc: ifunc: the map's dot and twice" \
    "$(jq -r '[.dispatch[] | select(.function == "dot" or .function == "twice") | "\(.function):\(.dispatch):\(.reach):\(.resolver)"] | join(" ")' "$ji")" \
    "dot:cpuid:ifunc:fmvgen_resolve_dot twice:cpuid:$twice_reach:fmvgen_resolve_twice"
  expect_eq "$cc: ifunc: dot on qemu64/Nehalem/Haswell" \
    "$(pick "$ji" dot "" qemu64),$(pick "$ji" dot "" Nehalem),$(pick "$ji" dot "" Haswell)" \
    fmvgen_cp_dot_default,fmvgen_cp_dot_default,fmvgen_cp_dot_x86_64_v3
  expect_eq "$cc: ifunc: twice on qemu64/Nehalem/Haswell" \
    "$(pick "$ji" twice "" qemu64),$(pick "$ji" twice "" Nehalem),$(pick "$ji" twice "" Haswell)" \
    fmvgen_cp_twice_default,fmvgen_cp_twice_x86_64_v2,fmvgen_cp_twice_x86_64_v2
  expect_eq "$cc: ifunc: the trampoline functions beside them still" "$(pick "$ji" kern "" Haswell)" fmvgen_cp_kern_x86_64_v3
  mkdir -p "lib-$cc"
  "$cc" -O2 -shared -fPIC "$SRC/ifn.c" -o "lib-$cc/libifn.so" &&
    "$cc" -O2 -DWITH_IFN "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" -L"lib-$cc" -lifn \
      -Wl,-rpath,"$PWD/lib-$cc" -o "./progl-$cc" -lm || { fail "$cc: could not build the library variant"; continue; }
  "$FMVGEN" verify --json --cpu Nehalem,Haswell -- "./progl-$cc" >"$cc.l.json" 2>"$cc.l.err"; rc=$?
  expect_eq "$cc: lib: exit status, no error line" "$rc $(cat "$cc.l.err")" "0 "
  expect_eq "$cc: lib: dot in the library, its picks" \
    "$(jq -r '.dispatch[] | select(.function == "dot") | "\(.object | split("/") | last):\(.main):\(.reach):\(.picks.Nehalem):\(.picks.Haswell)"' "$cc.l.json")" \
    "libifn.so:false:ifunc:fmvgen_cp_dot_default:fmvgen_cp_dot_x86_64_v3"
  table=$("$FMVGEN" verify --cpu Nehalem,Haswell -- "$prog" 2>&1)
  expect_match "$cc: table row" "$table" '^kern +prog-'"$cc"' +arch=x86-64-v[34] +default +arch=x86-64-v3$'
  expect_match "$cc: table result" "$table" "Result: OK on all 3 CPUs"
done

# A static program takes no preloaded helper: gdb calls the same resolvers.
if command -v gdb >/dev/null && gcc -O2 -static -DWITH_IFN "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" "$SRC/ifn.c" -o static -lm 2>/dev/null; then
  "$FMVGEN" verify --json --cpu Nehalem,Haswell -- ./static >static.json; rc=$?
  expect_eq "static: exit status" "$rc" 0
  expect_eq "static: the cpuid functions' targets on Nehalem/Haswell" \
    "$(jq -r '[.dispatch[] | select(.dispatch == "cpuid") | .function + ":" + .targets.Nehalem + "/" + .targets.Haswell] | join(" ")' static.json)" \
    "count_bits:arch=x86-64-v2/arch=x86-64-v2 dot:default/arch=x86-64-v3 kern:default/arch=x86-64-v3 scale:default/avx2 scale:default/arch=x86-64-v3 twice:arch=x86-64-v2/arch=x86-64-v2"
  expect_eq "static: reached through IFUNC (dot, twice) and the pointer" \
    "$(jq -r '[.dispatch[] | select(.dispatch == "cpuid") | .reach] | join(" ")' static.json)" "pointer ifunc pointer pointer pointer ifunc"
else
  echo "gdb or a static libc missing: the static program is skipped"
fi

# A resolver that answers with something other than the copy for the CPU.
gcc -O2 -DFMVGEN_TEST_NOT_A_COPY -DFMVGEN_TEST_WRONG_COPY "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" -o bad -lm
"$FMVGEN" verify --json --cpu qemu64,Nehalem,Haswell -- ./bad >bad.json 2>bad.err; rc=$?
expect_eq "bad: exit status" "$rc" 1
case $(jq -r '.cpus[0].level' bad.json) in x86-64-v[34]) native_fails=native, ;; *) native_fails= ;; esac
expect_eq "bad: failing CPUs" "$(jq -r '[.cpus[] | select(.ok | not) | .cpu] | join(",")' bad.json)" "${native_fails}qemu64,Haswell"
expect_eq "bad: Nehalem is fine" "$(jq -c '.cpus[] | select(.cpu == "Nehalem") | [.ok, .dispatch_errors]' bad.json)" "[true,[]]"
expect_match "bad: not a copy, on Haswell (error line)" "$(cat bad.err)" \
  "^fmvgen: verify: Haswell: kern: fmvgen_resolve_kern returned kern_reference \(0x[0-9a-f]+\), not one of its copies \(fmvgen_cp_kern_default, fmvgen_cp_kern_x86_64_v4\)$"
expect_match "bad: not a copy is no pick" "$(jq -r '.dispatch[] | select(.function == "kern") | "\(.picks.Haswell) \(.targets.Haswell)"' bad.json)" \
  "^0x[0-9a-f]+ \(not a known clone\) null$"
expect_match "bad: a copy beyond the CPU (error line)" "$(cat bad.err)" \
  "fmvgen: verify: qemu64: count_bits: fmvgen_resolve_count_bits returned fmvgen_cp_count_bits_x86_64_v2 \(arch=x86-64-v2\) on an x86-64 CPU, which must get fmvgen_cp_count_bits_default \(default\): that copy needs more than the CPU has"
expect_eq "bad: qemu64's errors" "$(jq '.cpus[] | select(.cpu == "qemu64") | .dispatch_errors | length' bad.json)" 1
# The same through IFUNC: dot's resolver answers with dot_reference on v3
# CPUs (gcc then drops the v3 copy no path returns), twice's with its
# x86-64-v2 copy everywhere (gcc: both ifunc reach).
gcc -O2 -c -DFMVGEN_TEST_NOT_A_COPY -DFMVGEN_TEST_WRONG_COPY "$SRC/ifn.c" -o badifn.o &&
  gcc -O2 -DWITH_IFN "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" badifn.o -o badi -lm ||
  fail "could not build badi"
"$FMVGEN" verify --json --cpu qemu64,Nehalem,Haswell -- ./badi >badi.json 2>badi.err; rc=$?
expect_eq "badi: exit status" "$rc" 1
expect_eq "badi: failing CPUs" "$(jq -r '[.cpus[] | select(.ok | not) | .cpu] | join(",")' badi.json)" "${native_fails}qemu64,Haswell"
expect_match "badi: not a copy, on Haswell (error line)" "$(cat badi.err)" \
  "^fmvgen: verify: Haswell: dot: fmvgen_resolve_dot returned dot_reference \(0x[0-9a-f]+\), not one of its copies \(fmvgen_cp_dot_default\)$"
expect_match "badi: a copy beyond the CPU (error line)" "$(cat badi.err)" \
  "^fmvgen: verify: qemu64: twice: fmvgen_resolve_twice returned fmvgen_cp_twice_x86_64_v2 \(arch=x86-64-v2\) on an x86-64 CPU, which must get fmvgen_cp_twice_default \(default\): that copy needs more than the CPU has"
expect_eq "badi: one error each on qemu64 and Haswell, none on Nehalem" \
  "$(jq -r '[.cpus[] | select(.cpu != "native") | "\(.cpu)=\(.dispatch_errors | length)"] | join(" ")' badi.json)" "qemu64=1 Nehalem=0 Haswell=1"
expect_eq "badi: the wrong ones are ifunc-reached" \
  "$(jq -r '[.dispatch[] | select(.function == "dot" or .function == "twice") | .reach] | join(" ")' badi.json)" "ifunc ifunc"

table=$("$FMVGEN" verify --cpu Haswell -- ./bad 2>/dev/null); rc=$?
expect_eq "bad: table exit status" "$rc" 1
expect_match "bad: table says it" "$table" "  Haswell: WRONG: kern: fmvgen_resolve_kern returned kern_reference"
expect_match "bad: table result" "$table" "Result: FAILED: (native \(wrong dispatch\), )?Haswell \(wrong dispatch\)"
finish
