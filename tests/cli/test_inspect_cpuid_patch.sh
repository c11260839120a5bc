#!/bin/bash
# test_inspect_cpuid_patch.sh - `fmvgen inspect` and `fmvgen verify` on
# what `fmvgen patch --dispatch cpuid` generates (tests/fixtures/patch-cpuid
# scanned with gcc, patched, then built with gcc, clang 14 and clang 19, as
# a program and as a -fvisibility=hidden shared library): every patched
# function is listed by its own symbol with dispatch cpuid, its copies
# fmvgen_cp_NAME_SLUG standing for the patch's targets, the CPU detection is
# fmvgen_cpu_levels alone (no libgcc cpuinfo), IRELATIVE relocations for
# the IFUNCs glibc builds get (not for clang's static snap_one, which keeps
# the trampoline, nor for the library's exported ones); verify's map,
# from the resolvers run natively and under qemu, gives default on qemu64,
# Nehalem and SandyBridge, the x86-64-v3 copy on Haswell and this CPU's
# level's copy natively, in the program and through the library.
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }
P=$(copy_fixture patch-cpuid)
cd "$P" || exit 1
"$FMVGEN" scan --root "$P" -- make -s CC=gcc prog libk.so >"$TMP/scan.out" 2>&1
expect_eq "scan: exit" "$?" 0
make -s clean
"$FMVGEN" patch --dispatch cpuid --apply >"$TMP/patch.out" 2>&1
expect_eq "patch --dispatch cpuid: exit" "$?" 0
want=$(grep -oE 'targets: .*' "$TMP/patch.out")
expect_eq "patch: the targets asserted below" "$want" "targets: arch=x86-64-v3 arch=x86-64-v4 default"
fns="add_scaled count_bits popcount_all snap_one snap_sum"

compilers="gcc clang"
if have_clang19; then compilers="$compilers clang-19"; else echo "clang-19 not installed: skipped"; fi
for cc in $compilers; do
  make -s clean
  if ! make -s CC="$cc" prog libk.so >"$TMP/build-$cc.log" 2>&1; then fail "$cc: patched build: $(head -3 "$TMP/build-$cc.log")"; continue; fi
  mv prog "prog-$cc" && mv libk.so "libk-$cc.so"
  "$FMVGEN" inspect --json "prog-$cc" "libk-$cc.so" >"$TMP/$cc.json"
  expect_eq "$cc: inspect exit" "$?" 0
  for k in 0 1; do
    f=$(jq -r ".files[$k].file" "$TMP/$cc.json")
    expect_eq "$cc: $f: functions by cpuid" \
      "$(jq -r ".files[$k].functions | map(.name + \":\" + .origin + \":\" + .dispatch) | join(\" \")" "$TMP/$cc.json")" \
      "$(for n in $fns; do printf '%s:fmvgen:cpuid ' "$n"; done | sed 's/ $//')"
    expect_eq "$cc: $f: copies stand for the patch's targets" \
      "$(jq -r ".files[$k].functions | map([.clones[] | .symbol + \">\" + .target] | join(\",\")) | unique | length" "$TMP/$cc.json")" 5
    expect_eq "$cc: $f: snap_sum's copies" \
      "$(jq -r ".files[$k].functions[] | select(.name == \"snap_sum\") | [.clones[] | .symbol + \">\" + .target] | join(\",\")" "$TMP/$cc.json")" \
      "fmvgen_cp_snap_sum_default>default,fmvgen_cp_snap_sum_x86_64_v3>arch=x86-64-v3,fmvgen_cp_snap_sum_x86_64_v4>arch=x86-64-v4"
    expect_eq "$cc: $f: CPU detection is fmvgen_cpu_levels alone" \
      "$(jq -c ".files[$k].code_size.cpu_detection | [.kinds, .runtime_bytes, .fmvgen_cpu_levels_bytes + .inlined_in_resolvers > 0]" "$TMP/$cc.json")" \
      '[["fmvgen_cpu_levels"],0,true]'
    # glibc: an IFUNC each (clang's static snap_one: the trampoline); an
    # IRELATIVE relocation for each the file binds itself (the library's
    # exported three bind by symbol)
    case "$cc:$k" in gcc:0) n=5 ;; gcc:1) n=2 ;; *:0) n=4 ;; *) n=1 ;; esac
    expect_eq "$cc: $f: IRELATIVE per IFUNC bound locally" "$(jq ".files[$k].irelative_relocations" "$TMP/$cc.json")" "$n"
  done

  "$FMVGEN" verify --json -- "./prog-$cc" >"$TMP/$cc.verify.json" 2>"$TMP/$cc.verify.err"; rc=$?
  v=$TMP/$cc.verify.json
  expect_eq "$cc: verify exit" "$rc" 0
  expect_eq "$cc: verify: no error line" "$(cat "$TMP/$cc.verify.err")" ""
  expect_eq "$cc: verify: every function mapped" "$(jq -r '[.dispatch[] | .function + ":" + .dispatch] | join(" ")' "$v")" \
    "$(for n in $fns; do printf '%s:cpuid ' "$n"; done | sed 's/ $//')"
  for cpu in qemu64 Nehalem SandyBridge; do
    expect_eq "$cc: default copies on $cpu" "$(jq -r --arg c "$cpu" '[.dispatch[].targets[$c]] | unique | join(",")' "$v")" default
  done
  expect_eq "$cc: x86-64-v3 copies on Haswell" "$(jq -r '[.dispatch[].picks.Haswell | sub("^fmvgen_cp_[a-z_]+_x86_64_v3$"; "v3")] | unique | join(",")' "$v")" v3
  case $(jq -r '.cpus[0].level' "$v") in
    x86-64-v4) expect_eq "$cc: x86-64-v4 copies natively" "$(jq -r '[.dispatch[].targets.native] | unique | join(",")' "$v")" arch=x86-64-v4 ;;
    x86-64-v3) expect_eq "$cc: x86-64-v3 copies natively" "$(jq -r '[.dispatch[].targets.native] | unique | join(",")' "$v")" arch=x86-64-v3 ;;
  esac
done

# through the shared library: the map reads libk.so's resolvers
cp libk-gcc.so libk.so
gcc -O2 main.c -L. -lk -Wl,-rpath,'$ORIGIN' -o prog-lib
"$FMVGEN" verify --json --cpu Nehalem,Haswell -- ./prog-lib >"$TMP/lib.json"
expect_eq "lib: verify exit" "$?" 0
expect_eq "lib: functions from libk.so" "$(jq -r '[.dispatch[] | (.object | split("/") | last) + ":" + .function] | join(" ")' "$TMP/lib.json")" \
  "$(for n in $fns; do printf 'libk.so:%s ' "$n"; done | sed 's/ $//')"
expect_eq "lib: Nehalem default, Haswell x86-64-v3" \
  "$(jq -r '[.dispatch[] | .targets.Nehalem + "/" + .targets.Haswell] | unique | join(",")' "$TMP/lib.json")" "default/arch=x86-64-v3"
finish
