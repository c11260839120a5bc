#!/bin/bash
# test_inspect_cpuid.sh - `fmvgen inspect` on functions of fmvgen's
# --dispatch cpuid (tests/fixtures/inspect-cpuid, the patch's shape written
# by hand), built with gcc, clang 14 and clang 19: each function is listed
# by its own symbol, origin fmvgen, dispatch cpuid, with its resolver
# fmvgen_resolve_IDENT and its copies fmvgen_cp_IDENT_SLUG -> target (two
# files' static 'scale' each keep their own copies); the sizes agree with
# nm; the CPU detection is fmvgen_cpu_levels only (its functions and the
# resolvers holding it inlined agree with nm and objdump), and with an
# IFUNC function linked in too, both kinds, each with its bytes; a stripped
# copy says its cpuid functions cannot be seen.
source "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
SRC=$FIXTURES/inspect-cpuid
compilers="gcc clang"
if have_clang19; then compilers="$compilers clang-19"; else echo "clang-19 not installed: skipped"; fi

# nm_size FILE SYMBOL...: the sizes nm gives the symbols, summed (each address once)
nm_size() {
  local file=$1; shift
  nm -S "$file" | python3 -c '
import sys
names, seen, total = set(sys.argv[1:]), set(), 0
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and f[3] in names and f[0] not in seen:
        seen.add(f[0]); total += int(f[1], 16)
print(total)' "$@"
}
# resolvers_with_cpuid FILE: how many fmvgen_resolve_* functions hold a CPUID instruction
resolvers_with_cpuid() {
  objdump -d --no-show-raw-insn "$1" |
    awk '/^[0-9a-f]+ <fmvgen_resolve_/ {fn=$1; next} /^[0-9a-f]+ </ {fn=""} fn != "" && /\tcpuid/ && !seen[fn]++ {n++} END {print n + 0}'
}

for cc in $compilers; do
  prog=$TMP/prog.$cc both=$TMP/both.$cc
  "$cc" -O2 -Wall -Wextra -Werror "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" -o "$prog" -lm ||
    { fail "$cc: could not build the fixture"; continue; }
  "$cc" -O2 -DWITH_IFUNC "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" "$SRC/ifunc.c" -o "$both" -lm ||
    { fail "$cc: could not build the fixture with an IFUNC function"; continue; }
  expect_eq "$cc: the program runs" "$("$prog" | head -1)" "kern 281657"

  out=$("$FMVGEN" inspect "$prog" 2>&1); rc=$?
  expect_eq "$cc: exit status" "$rc" 0
  expect_match "$cc: file line" "$out" "prog\.$cc: PIE executable, 4 multiversioned functions \(0 by target_clones/target, 4 by fmvgen's cpuid copies, 0 other ifuncs\), 0 IRELATIVE relocations"
  expect_match "$cc: kern's header" "$out" '^kern  \[fmvgen, 3 versions\]  dispatch cpuid \(pointer\)  resolver fmvgen_resolve_kern @0x[0-9a-f]+, trampoline [0-9]+ bytes$'
  expect_match "$cc: kern's v3 copy and its target" "$out" '^    fmvgen_cp_kern_x86_64_v3  arch=x86-64-v3 +[0-9]+ .* ok: \+'
  expect_match "$cc: kern's default copy" "$out" '^  \* fmvgen_cp_kern_default    default '
  expect_match "$cc: CPU detection line" "$out" "      fmvgen_cpu_levels +[0-9]+  \(fmvgen's own, --dispatch cpuid"
  expect_no_match "$cc: no runtime CPU detection" "$out" "libgcc cpuinfo"

  "$FMVGEN" inspect --json "$prog" >"$TMP/$cc.json"
  j=$TMP/$cc.json
  expect_eq "$cc: functions, origin and dispatch" \
    "$(jq -r '[.files[0].functions[] | "\(.name):\(.origin):\(.dispatch)"] | join(" ")' "$j")" \
    "count_bits:fmvgen:cpuid kern:fmvgen:cpuid scale:fmvgen:cpuid scale:fmvgen:cpuid"
  expect_eq "$cc: copies -> targets" \
    "$(jq -r '[.files[0].functions[] | .name + "=" + ([.clones[] | .symbol + ">" + .target] | join(","))] | sort | join(" ")' "$j")" \
    "count_bits=fmvgen_cp_count_bits_default>default,fmvgen_cp_count_bits_x86_64_v2>arch=x86-64-v2 kern=fmvgen_cp_kern_default>default,fmvgen_cp_kern_x86_64_v3>arch=x86-64-v3,fmvgen_cp_kern_x86_64_v4>arch=x86-64-v4 scale=fmvgen_cp_scale_default>default,fmvgen_cp_scale_avx2>avx2 scale=fmvgen_cp_scale_default>default,fmvgen_cp_scale_x86_64_v3>arch=x86-64-v3"
  expect_eq "$cc: resolvers" "$(jq -r '[.files[0].functions[] | .resolver.symbol] | join(" ")' "$j")" \
    "fmvgen_resolve_count_bits fmvgen_resolve_kern fmvgen_resolve_scale fmvgen_resolve_scale"
  expect_eq "$cc: no IFUNC symbol" "$(jq -c '[.files[0].functions[].ifunc] | unique' "$j")" "[null]"
  # the two static scales: each copy belongs to the scale whose resolver loads it
  expect_eq "$cc: the static scales' default copies differ" \
    "$(jq -r '[.files[0].functions[] | select(.name == "scale") | .clones[] | select(.default) | .address] | unique | length' "$j")" 2
  # sizes: kern's copies and resolver as nm gives them
  expect_eq "$cc: kern's v3 copy size" "$(jq '.files[0].functions[] | select(.name == "kern") | .clones[] | select(.target == "arch=x86-64-v3") | .size' "$j")" \
    "$(nm_size "$prog" fmvgen_cp_kern_x86_64_v3)"
  expect_eq "$cc: kern's resolver size" "$(jq '.files[0].functions[] | select(.name == "kern") | .resolver.size' "$j")" \
    "$(nm_size "$prog" fmvgen_resolve_kern)"
  tramp=$(jq '.files[0].functions[] | select(.name == "kern") | .trampoline_bytes' "$j")
  expect_eq "$cc: kern's trampoline holds its init and ctor" \
    "$([ "$tramp" -ge "$(nm_size "$prog" kern.fmvgen_init kern.fmvgen_ctor)" ] && echo yes)" yes
  expect_eq "$cc: the account adds up" \
    "$(jq '.files[0].code_size | .text_bytes_without_clones + .clone_bytes + .resolver_bytes + .trampoline_bytes == .text_bytes and .measured_growth_bytes == .clone_bytes + .resolver_bytes + .trampoline_bytes and .functions_counted == 4' "$j")" true
  # CPU detection: fmvgen_cpu_levels only, as nm and objdump see it
  expect_eq "$cc: CPU detection kinds" "$(jq -c '.files[0].code_size.cpu_detection.kinds' "$j")" '["fmvgen_cpu_levels"]'
  expect_eq "$cc: fmvgen_cpu_levels bytes" "$(jq '.files[0].code_size.cpu_detection.fmvgen_cpu_levels_bytes' "$j")" \
    "$(nm_size "$prog" fmvgen_cpu_levels)"
  expect_eq "$cc: fmvgen_cpu_levels functions" "$(jq '.files[0].code_size.cpu_detection.fmvgen_cpu_levels_copies' "$j")" \
    "$(nm "$prog" | grep -c ' fmvgen_cpu_levels$')"
  inl=$(jq '.files[0].code_size.cpu_detection.inlined_in_resolvers' "$j")
  expect_eq "$cc: resolvers holding it inlined" "$inl" "$(resolvers_with_cpuid "$prog")"
  expect_eq "$cc: every file has its detection (3 files)" \
    "$(jq '.files[0].code_size.cpu_detection | .fmvgen_cpu_levels_copies + .inlined_in_resolvers >= 3' "$j")" true
  expect_eq "$cc: cpu_detection_bytes is fmvgen_cpu_levels'" \
    "$(jq '.files[0].code_size | .cpu_detection_bytes == .cpu_detection.fmvgen_cpu_levels_bytes and .cpu_detection.runtime == null' "$j")" true

  # both kinds in one file: libgcc's for mix (IFUNC), fmvgen_cpu_levels for the rest
  "$FMVGEN" inspect --json "$both" >"$TMP/$cc.both.json"
  b=$TMP/$cc.both.json
  expect_eq "$cc: both: mix by IFUNC beside the cpuid functions" \
    "$(jq -r '[.files[0].functions[] | "\(.name):\(.dispatch)"] | join(" ")' "$b")" \
    "count_bits:cpuid kern:cpuid mix:ifunc scale:cpuid scale:cpuid"
  expect_eq "$cc: both kinds of CPU detection" "$(jq -c '.files[0].code_size.cpu_detection.kinds | length' "$b")" 2
  expect_eq "$cc: both: the runtime's bytes" "$(jq '.files[0].code_size.cpu_detection | .runtime_bytes > 1000 and .fmvgen_cpu_levels_bytes > 0' "$b")" true
  expect_eq "$cc: both: the total is both" \
    "$(jq '.files[0].code_size | .cpu_detection_bytes == .cpu_detection.runtime_bytes + .cpu_detection.fmvgen_cpu_levels_bytes' "$b")" true
  out=$("$FMVGEN" inspect "$both" 2>&1)
  block=$(grep -E -A2 '^    of it, CPU detection +[0-9]+' <<<"$out")
  expect_match "$cc: both: text names the runtime's kind first" "$(sed -n 2p <<<"$block")" \
    "^      (libgcc cpuinfo|compiler-rt cpu_model|__cpu_indicator_init) +[0-9]+  \(the runtime's: linked in with a file's first IFUNC resolver\)"
  expect_match "$cc: both: then fmvgen's own" "$(sed -n 3p <<<"$block")" "^      fmvgen_cpu_levels +[0-9]+  \(fmvgen's own"

  # stripped: the local symbols that tell cpuid dispatch are gone, and it says so
  strip -o "$prog.stripped" "$prog"
  out=$("$FMVGEN" inspect "$prog.stripped" 2>&1)
  expect_match "$cc: stripped: nothing listed" "$out" "0 multiversioned functions"
  expect_match "$cc: stripped: says cpuid dispatch cannot be seen" "$out" "--dispatch pointer and cpuid are found by local symbols, gone here"
  # cpuid dispatch reached through IFUNC (ifn.c): dot (extern) always, twice
  # (static) with gcc only - clang's static twice keeps the trampoline -
  # beside the trampoline functions of the other files, in a program and in
  # a shared library
  progi=$TMP/progi.$cc lib=$TMP/libifn.$cc.so
  "$cc" -O2 -Wall -Wextra -Werror -DWITH_IFN "$SRC/main.c" "$SRC/kern.c" "$SRC/pop.c" "$SRC/scale2.c" "$SRC/ifn.c" \
    -o "$progi" -lm || { fail "$cc: could not build the ifunc fixture"; continue; }
  "$cc" -O2 -Wall -Wextra -Werror -shared -fPIC "$SRC/ifn.c" -o "$lib" || { fail "$cc: could not build libifn"; continue; }
  expect_eq "$cc: ifunc: the program runs" "$("$progi" | grep '^dot')" "dot 2.08021e+07 2.08021e+07"
  if [ "$cc" = gcc ]; then twice_reach=ifunc twice_ifunc=twice; else twice_reach=pointer twice_ifunc=null; fi
  "$FMVGEN" inspect --json "$progi" >"$TMP/$cc.i.json"
  i=$TMP/$cc.i.json
  expect_eq "$cc: ifunc: functions, origin, dispatch, reach" \
    "$(jq -r '[.files[0].functions[] | "\(.name):\(.origin):\(.dispatch):\(.reach)"] | join(" ")' "$i")" \
    "count_bits:fmvgen:cpuid:pointer dot:fmvgen:cpuid:ifunc kern:fmvgen:cpuid:pointer scale:fmvgen:cpuid:pointer scale:fmvgen:cpuid:pointer twice:fmvgen:cpuid:$twice_reach"
  expect_eq "$cc: ifunc: IFUNC symbols" \
    "$(jq -r '[.files[0].functions[] | select(.name == "dot" or .name == "twice") | "\(.name)=\(.ifunc.symbol)"] | join(" ")' "$i")" \
    "dot=dot twice=$twice_ifunc"
  expect_eq "$cc: ifunc: copies -> targets" \
    "$(jq -r '[.files[0].functions[] | select(.name == "dot" or .name == "twice") | .name + "=" + ([.clones[] | .symbol + ">" + .target] | join(","))] | join(" ")' "$i")" \
    "dot=fmvgen_cp_dot_default>default,fmvgen_cp_dot_x86_64_v3>arch=x86-64-v3 twice=fmvgen_cp_twice_default>default,fmvgen_cp_twice_x86_64_v2>arch=x86-64-v2"
  resolve_dot=$(nm "$progi" | awk '$3 == "fmvgen_resolve_dot" {print $1}' | sed 's/^0*//')
  expect_eq "$cc: ifunc: dot's IFUNC is at its resolver, as nm says" \
    "$(jq -r '.files[0].functions[] | select(.name == "dot") | "\(.ifunc.address) \(.resolver.address)"' "$i")" "0x$resolve_dot 0x$resolve_dot"
  expect_eq "$cc: ifunc: dot's sizes (v3 copy, default, resolver) as nm -S, no trampoline" \
    "$(jq -r '.files[0].functions[] | select(.name == "dot") | "\(.clones[1].size) \(.clones[0].size) \(.resolver.size) \(.trampoline_bytes)"' "$i")" \
    "$(nm_size "$progi" fmvgen_cp_dot_x86_64_v3) $(nm_size "$progi" fmvgen_cp_dot_default) $(nm_size "$progi" fmvgen_resolve_dot) 0"
  expect_eq "$cc: ifunc: the account adds up (6 functions)" \
    "$(jq '.files[0].code_size | .text_bytes_without_clones + .clone_bytes + .resolver_bytes + .trampoline_bytes == .text_bytes and .functions_counted == 6' "$i")" true
  expect_eq "$cc: ifunc: trampolines only of the pointer-reached" \
    "$(jq '.files[0] | ([.functions[] | select(.reach == "pointer") | .trampoline_bytes] | add) == .code_size.trampoline_bytes' "$i")" true
  out=$("$FMVGEN" inspect "$progi" 2>&1)
  expect_match "$cc: ifunc: dot's header" "$out" \
    '^dot  \[fmvgen, 2 versions\]  dispatch cpuid \(ifunc\)  resolver fmvgen_resolve_dot @0x[0-9a-f]+, ifunc dot$'
  expect_match "$cc: ifunc: twice's header" "$out" "^twice  \\[fmvgen, 2 versions\\]  dispatch cpuid \\($twice_reach\\)  resolver fmvgen_resolve_twice @0x[0-9a-f]+"
  expect_match "$cc: ifunc: IRELATIVE relocations" "$out" \
    "progi\.$cc: PIE executable, 6 multiversioned functions \(0 by target_clones/target, 6 by fmvgen's cpuid copies, 0 other ifuncs\), $([ "$cc" = gcc ] && echo '2 IRELATIVE relocations' || echo '1 IRELATIVE relocation')$"

  # the library: dot exported (an IFUNC in .dynsym too)
  "$FMVGEN" inspect --json "$lib" >"$TMP/$cc.l.json"
  expect_eq "$cc: lib: functions" \
    "$(jq -r '[.files[0].functions[] | "\(.name):\(.origin):\(.dispatch):\(.reach)"] | join(" ")' "$TMP/$cc.l.json")" \
    "dot:fmvgen:cpuid:ifunc twice:fmvgen:cpuid:$twice_reach"
  expect_eq "$cc: lib: dot's v3 copy size" \
    "$(jq '.files[0].functions[] | select(.name == "dot") | .clones[] | select(.target == "arch=x86-64-v3") | .size' "$TMP/$cc.l.json")" \
    "$(nm_size "$lib" fmvgen_cp_dot_x86_64_v3)"
  # the copies hold the body built for their target, dot called in its file
  # or not (not: clang 14 leaves fmvgen_mv_dot out of line, called from each
  # copy as baseline code, unless the resolver is `used`)
  "$cc" -O2 -shared -fPIC -DFMVGEN_TEST_NO_CALL "$SRC/ifn.c" -o "$lib.nocall.so" || fail "$cc: could not build libifn without run_dot"
  for l in "$lib" "$lib.nocall.so"; do
    expect_eq "$cc: lib${l#$lib}: the copies' verdicts" \
      "$("$FMVGEN" inspect --json "$l" | jq -r '[.files[0].functions[] | .clones[] | select(.default | not) | .symbol + ":" + .verdict] | join(" ")')" \
      "fmvgen_cp_dot_x86_64_v3:useful fmvgen_cp_twice_x86_64_v2:useful"
    expect_eq "$cc: lib${l#$lib}: no out-of-line body" "$(nm "$l" | grep -c fmvgen_mv_)" 0
  done
  # stripped, it is an ifunc like any other, and the note says so
  strip -o "$lib.stripped" "$lib"
  "$FMVGEN" inspect --json "$lib.stripped" >"$TMP/$cc.ls.json"
  expect_eq "$cc: lib stripped: dot is an ifunc of unknown origin" \
    "$(jq -r '[.files[0].functions[] | select(.name == "dot") | "\(.origin):\(.dispatch):\(.versions)"] | join(" ")' "$TMP/$cc.ls.json")" "ifunc:ifunc:2"
  expect_match "$cc: lib stripped: the note says what cpuid dispatch still shows" "$(jq -r '.files[0].note' "$TMP/$cc.ls.json")" \
    "fmvgen's --dispatch cpuid reached through an ifunc is listed as such an ifunc \(origin ifunc"
done
finish
