# CLI test of `fmvgen inspect`: the inspect-clones fixture compiled here by
# gcc, clang and clang-19 (when present) as a PIE program, a shared library,
# a static program and stripped copies; asserts the functions and clones
# found, the ISA verdicts (cross-checked against objdump -d), sizes, the
# useless verdict, the JSON shape, each function's dispatch kind (ifunc, or
# none for clones no IFUNC/IRELATIVE reaches, and for ifuncs in a musl
# program, which nothing resolves), and the errors for bad files.
. "$TESTLIB"
SRC=$FIXTURES/inspect-clones

compilers="gcc clang"
if have_clang19; then compilers="$compilers clang-19"; else echo "clang-19 not installed: skipped"; fi

# JSON helper: prints "function:target" for every clone, sorted.
clone_set() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted(f["name"] + ":" + c["target"] for fl in d["files"] for f in fl["functions"] for c in f["clones"])))
' "$1"
}

# Widest vector register class objdump shows in one symbol's disassembly.
objdump_regs() {  # FILE SYMBOL
  local body
  body=$(objdump -d --no-show-raw-insn "$1" | awk -v s="<$2>:" '$2 == s {on=1; next} on && NF == 0 {exit} on')
  if printf '%s' "$body" | grep -q '%zmm'; then echo zmm
  elif printf '%s' "$body" | grep -q '%ymm'; then echo ymm
  elif printf '%s' "$body" | grep -q '%xmm'; then echo xmm
  else echo none; fi
}

for cc in $compilers; do
  prog=$TMP/prog.$cc lib=$TMP/libscale.$cc.so
  "$cc" -O3 "$SRC/prog.c" -o "$prog" || { fail "$cc could not build prog.c"; continue; }
  "$cc" -O3 -fPIC -shared "$SRC/lib.c" -o "$lib" || { fail "$cc could not build lib.c"; continue; }
  case $cc in gcc) v4=arch_x86_64_v4 origin=gcc ;; *) v4=arch_x86-64-v4 origin=clang ;; esac

  out=$("$FMVGEN" inspect "$prog" "$lib" 2>&1); rc=$?
  expect_eq "$cc: exit status" "$rc" 0
  expect_match "$cc: program kind" "$out" "prog\.$cc: PIE executable, 2 multiversioned functions"
  expect_match "$cc: library kind" "$out" "libscale\.$cc\.so: shared library, 1 multiversioned function"
  expect_match "$cc: add_arrays header" "$out" "add_arrays  \[$origin, 3 versions\]  dispatch ifunc  resolver add_arrays\.resolver"
  # the avx2 clone of the integer loop needs AVX2 on ymm; of collatz, nothing
  expect_match "$cc: avx2 clone needs AVX2 on ymm" "$(printf '%s\n' "$out" | grep -E '^    add_arrays\.avx2')" " ymm +AVX AVX2 .* ok: \+AVX AVX2, wider vectors"
  expect_match "$cc: useless clone" "$(printf '%s\n' "$out" | grep -E '^    collatz_steps\.avx2')" "USELESS: needs nothing beyond the default clone"
  expect_match "$cc: v4 clone is AVX-512" "$(printf '%s\n' "$out" | grep -E "^    add_arrays\.$v4")" "AVX512F"
  expect_match "$cc: formula shown" "$out" "formula \(1-R\)\*C \+ R\*C\*N"

  "$FMVGEN" inspect "$prog" "$lib" --json >"$TMP/$cc.json"; rc=$?  # options may follow the files
  expect_eq "$cc: --json exit status" "$rc" 0
  if command -v python3 >/dev/null 2>&1; then
    expect_eq "$cc: clone set" "$(clone_set "$TMP/$cc.json")" \
      "$(printf '%s\n' add_arrays:default add_arrays:avx2 "add_arrays:$v4" collatz_steps:default collatz_steps:avx2 \
          scale_floats:default scale_floats:avx2 "scale_floats:$v4" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
    # JSON shape, sizes, verdicts, and the size account adding up
    shape=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["files"][0]
assert p["kind"] == "PIE executable" and p["stripped"] is False, p["kind"]
fn = {f["name"]: f for f in p["functions"]}
for f in fn.values():
    assert f["resolver"]["symbol"].endswith(".resolver") and f["resolver"]["address"].startswith("0x")
    assert f["ifunc"] is not None and f["versions"] == len(f["clones"])
    for c in f["clones"]:
        assert c["size"] > 0 and c["analyzed"] and c["address"].startswith("0x"), c
v = {c["target"]: c for c in fn["collatz_steps"]["clones"]}
assert v["avx2"]["verdict"] == "useless" and v["avx2"]["isa_beyond_default"] == [], v
a = {c["target"][:4]: c for c in fn["add_arrays"]["clones"]}
assert a["avx2"]["verdict"] == "useful" and "AVX2" in a["avx2"]["isa"] and a["avx2"]["vector_registers"] == "ymm"
assert a["arch"]["vector_registers"] == "zmm" or "AVX512VL" in a["arch"]["isa"], a["arch"]
assert a["defa"]["default"] and a["defa"]["verdict"] is None
s = p["code_size"]
assert s["text_bytes_without_clones"] + s["clone_bytes"] + s["resolver_bytes"] == s["text_bytes"], s
assert s["measured_growth_bytes"] == s["clone_bytes"] + s["resolver_bytes"] and s["functions_counted"] == 2
assert s["predicted_growth_bytes"] == sum(c["size"] * (f["versions"] - 1) for f in fn.values() for c in f["clones"] if c["default"])
assert s["N"] is None and d["files"][1]["code_size"]["N"] == 3
# the CPU detection a resolver links in: __cpu_indicator_init and its helpers
assert s["cpu_detection_bytes"] > 1000 and s["cpu_detection_bytes"] < s["text_bytes_without_clones"], s
print("ok")
' "$TMP/$cc.json" 2>&1)
    expect_eq "$cc: JSON shape and values" "$shape" ok

    # cross-check: inspect's register class of every clone == objdump -d's
    python3 -c '
import json, sys
for fl in json.load(open(sys.argv[1]))["files"]:
    for f in fl["functions"]:
        for c in f["clones"]:
            print(fl["file"], c["symbol"], c["vector_registers"])
' "$TMP/$cc.json" >"$TMP/$cc.regs"
    while read -r file sym regs; do
      expect_eq "$cc: $sym registers vs objdump" "$regs" "$(objdump_regs "$file" "$sym")"
    done <"$TMP/$cc.regs"
  fi

  # cross-check the ISA verdicts with objdump: the avx2 clone adds integer
  # ymm vectors (vpaddd on %ymm is AVX2); collatz' avx2 clone has no VEX
  # instruction at all, as the default, hence useless
  sym=$(printf '%s\n' "$out" | grep -oE '^    add_arrays\.avx2[.0-9]*' | tr -d ' ')
  body=$(objdump -d --no-show-raw-insn "$prog" | awk -v s="<$sym>:" '$2 == s {on=1; next} on && NF == 0 {exit} on')
  expect_match "$cc: objdump shows AVX2 in $sym" "$body" "vpaddd .*%ymm"
  sym=$(printf '%s\n' "$out" | grep -oE '^    collatz_steps\.avx2[.0-9]*' | tr -d ' ')
  body=$(objdump -d --no-show-raw-insn "$prog" | awk -v s="<$sym>:" '$2 == s {on=1; next} on && NF == 0 {exit} on')
  expect_match "$cc: objdump of $sym is not empty" "$body" "ret"
  expect_no_match "$cc: objdump shows no vector instruction in $sym" "$body" "%[xyz]mm|[[:space:]]v[a-z]+ "

  # stripped copies: the PIE says what is left; the library still exports its ifunc
  strip -o "$prog.stripped" "$prog" && strip -o "$lib.stripped" "$lib"
  out=$("$FMVGEN" inspect "$prog.stripped" "$lib.stripped" 2>&1); rc=$?
  expect_eq "$cc: stripped exit status" "$rc" 0
  expect_match "$cc: stripped note" "$out" "note: stripped \(no \.symtab\).*2 IRELATIVE relocations.*strip --strip-debug"
  expect_match "$cc: stripped library keeps its ifunc" "$out" "scale_floats  \[$origin, 3 versions\]"
  # the PIE's two functions are still found through their IRELATIVE relocations
  expect_match "$cc: stripped PIE functions" "$(printf '%s\n' "$out" | grep -E '^ifunc@0x' | sed -E 's/^ifunc@0x[0-9a-f]+ +//' | sort | tr '\n' ' ')" \
    "^\[ifunc, 2 versions\]  dispatch ifunc.*\[ifunc, 3 versions\]  dispatch ifunc"
  # versions of a stripped file: ISA from their reachable code, default inferred
  expect_match "$cc: stripped avx2 version still analyzed" "$out" "0x[0-9a-f]+ +- +~[0-9]+ +ymm +AVX AVX2"
  if [ "$cc" = gcc ]; then
    expect_match "$cc: stripped default inferred" "$out" "\? 0x[0-9a-f]+ +- +~[0-9]+ +xmm .*default \(inferred"
  fi
done

# a stripped file without any ifunc: stripping hid nothing, and it says so
printf 'int plain(int x) { return x + 1; }\n' >"$TMP/plain.c"
gcc -O2 -fPIC -shared "$TMP/plain.c" -o "$TMP/libplain.so" && strip "$TMP/libplain.so"
out=$("$FMVGEN" inspect "$TMP/libplain.so" 2>&1); rc=$?
expect_eq "no ifunc: exit" "$rc" 0
expect_match "no ifunc: nothing hidden" "$out" "0 multiversioned functions .*0 IRELATIVE relocations"
expect_match "no ifunc: note" "$out" "stripped \(no \.symtab\): with no IFUNC symbol .* no function of this file is dispatched by an ifunc"
# fmvgen's own dispatch leaves no trace in .dynsym: said, not claimed absent
expect_match "no ifunc: pointer and cpuid dispatch cannot be told" "$out" "--dispatch pointer and cpuid are found by local symbols, gone here"

# a static program: our clones among glibc's own ifuncs; IRELATIVE as readelf counts
gcc -O3 -static "$SRC/prog.c" -o "$TMP/prog.static" 2>/dev/null
if [ -x "$TMP/prog.static" ]; then
  out=$("$FMVGEN" inspect "$TMP/prog.static" 2>&1); rc=$?
  expect_eq "static: exit status" "$rc" 0
  nirel=$(readelf -rW "$TMP/prog.static" | grep -c IRELATIV)
  expect_match "static: kind and IRELATIVE count" "$out" "prog\.static: static executable, .*, $nirel IRELATIVE relocations"
  expect_match "static: add_arrays" "$out" "add_arrays  \[gcc, 3 versions\]"
  expect_match "static: collatz useless" "$(printf '%s\n' "$out" | grep -E '^    collatz_steps\.avx2')" USELESS
  expect_match "static: glibc memcpy is an ifunc" "$out" "memcpy  \[ifunc, [0-9]+ versions\]  dispatch ifunc  resolver"
  expect_match "static: add_arrays dispatched by ifunc" "$out" "add_arrays  \[gcc, 3 versions\]  dispatch ifunc  resolver"
  expect_eq "static: every function dispatched by ifunc (JSON), glibc resolves them" \
    "$("$FMVGEN" inspect --json "$TMP/prog.static" | jq -c '[([.files[0].functions[].dispatch] | unique), .files[0].ifunc_unresolved]')" '[["ifunc"],null]'
  strip -o "$TMP/prog.static.stripped" "$TMP/prog.static"
  out=$("$FMVGEN" inspect "$TMP/prog.static.stripped" 2>&1)
  expect_match "static stripped: one function per IRELATIVE" "$out" "static executable, $nirel multiversioned functions .*, $nirel IRELATIVE"
  expect_match "static stripped: note" "$out" "note: stripped \(no \.symtab\): a static file has no \.dynsym either"
else
  echo "no static libc: static case skipped"
fi

# two static functions of the same name, each with its own resolver and
# clones (also renamed by LTO): each resolver keeps only its own clones.
# Not clang 14: it makes the resolver of a static function global, so the
# two files do not link.
DUP=$FIXTURES/inspect-static-dup
variants="gcc gcc-lto"
if have_clang19; then variants="$variants clang-19"; fi
for variant in $variants; do
  case $variant in gcc-lto) set -- gcc -flto ;; *) set -- "$variant" ;; esac
  if "$@" -O3 "$DUP/one.c" "$DUP/two.c" -o "$TMP/dup.$variant"; then
    out=$("$FMVGEN" inspect "$TMP/dup.$variant" 2>&1)
    expect_match "$variant dup: two functions" "$out" "dup\.$variant: PIE executable, 2 multiversioned functions"
    expect_eq "$variant dup: versions per resolver" \
      "$(printf '%s\n' "$out" | sed -nE 's/^helper  \[[a-z]+, ([0-9]) versions\].*/\1/p' | sort | tr '\n' ' ')" "2 3 "
    expect_eq "$variant dup: one default each" "$(printf '%s\n' "$out" | grep -cE '^  \* helper\.default')" 2
  else
    fail "$variant could not build the inspect-static-dup fixture"
  fi
done

# multiversioning by hand: a free-named ifunc (versions found in its
# resolver's code) and symbols named like older GCC clones ("x.avx2.0")
for cc in $compilers; do
  if "$cc" -O3 "$FIXTURES/inspect-ifunc/handmade.c" -o "$TMP/handmade.$cc"; then
    out=$("$FMVGEN" inspect "$TMP/handmade.$cc" 2>&1)
    expect_match "$cc handmade: ifunc" "$out" "sum  \[ifunc, 2 versions\]  dispatch ifunc  resolver pick_sum @0x[0-9a-f]+, ifunc sum"
    expect_match "$cc handmade: generic version is the inferred default" "$out" "\? sum_generic +- +[0-9]+ +xmm +SSE2 +default \(inferred"
    expect_match "$cc handmade: avx2 version" "$out" "  sum_avx2 +- +[0-9]+ +ymm +AVX AVX2 +ok: \+AVX AVX2, wider vectors"
    expect_match "$cc handmade: old GCC names" "$out" "legacy  \[gcc, 2 versions\]"
    expect_match "$cc handmade: legacy.avx2.0 targets avx2" "$out" "  legacy\.avx2\.0 +avx2 +[0-9]+ +ymm"
  else
    fail "$cc could not build handmade.c"
  fi
done

# clones with no dispatcher (no resolver, no IFUNC, no IRELATIVE): found by
# their names, dispatch "none", in text and JSON
for cc in $compilers; do
  if "$cc" -O2 "$FIXTURES/inspect-ifunc/nodispatch.c" -o "$TMP/nodispatch.$cc"; then
    out=$("$FMVGEN" inspect "$TMP/nodispatch.$cc" 2>&1)
    expect_match "$cc nodispatch: dispatch none" "$out" "^kern  \[gcc, 2 versions\]  dispatch none$"
    expect_match "$cc nodispatch: why" "$out" "^    \(no IFUNC symbol and no IRELATIVE relocation: nothing picks"
    expect_eq "$cc nodispatch: JSON" \
      "$("$FMVGEN" inspect --json "$TMP/nodispatch.$cc" | jq -c '.files[0].functions[] | [.name, .dispatch, .resolver.symbol, (.clones | map(.target))]')" \
      '["kern","none",null,["default","arch_x86_64_v3"]]'
  else
    fail "$cc could not build nodispatch.c"
  fi
done

# target_clones linked with musl, which resolves no IFUNC: the ifuncs are
# there, but nothing picks among the clones (dispatch none, and why)
if command -v musl-gcc >/dev/null; then
  for mode in dynamic static; do
    flag=; [ "$mode" = static ] && flag=-static
    # shellcheck disable=SC2086
    musl-gcc -O2 $flag -DFMV "$FIXTURES/verify-fmv/checksum.c" -o "$TMP/musl-$mode" || { fail "musl-gcc $mode build"; continue; }
    json=$("$FMVGEN" inspect --json "$TMP/musl-$mode")
    expect_eq "musl $mode: mix found, dispatch none" \
      "$(printf '%s' "$json" | jq -c '[.files[0].functions[] | select(.name == "mix") | [.dispatch, .ifunc.symbol]]')" '[["none","mix"]]'
    expect_match "musl $mode: why" "$(printf '%s' "$json" | jq -r '.files[0].ifunc_unresolved')" \
      "$( [ "$mode" = static ] && echo '^a static program linked with musl' || echo '^its interpreter /lib/ld-musl-x86_64.so.1 is musl')"
    expect_match "musl $mode: text note" "$("$FMVGEN" inspect "$TMP/musl-$mode")" \
      '  note: nothing resolves these ifuncs at run time - .*; every function.s dispatch is none'
  done
else
  fail "musl-gcc missing: scripts/setup-deps.sh installs musl-tools"
fi

# GCC's C++ target() overloads: the default keeps the plain mangled name
if g++ -O3 "$SRC/overload.cc" -o "$TMP/overload"; then
  out=$("$FMVGEN" inspect "$TMP/overload" 2>&1)
  expect_match "overload: found" "$out" "_Z8checksumPKhm  \[gcc, 2 versions\]"
  expect_match "overload: default is the plain name" "$out" "\* _Z8checksumPKhm +default"
else
  fail "g++ could not build overload.cc"
fi

# errors: one line naming the file, non-zero exit; good files still reported
printf 'not an elf\n' >"$TMP/notes.txt"
out=$("$FMVGEN" inspect "$TMP/notes.txt" 2>&1); rc=$?
expect_eq "non-ELF: error line" "$out" "fmvgen: $TMP/notes.txt: not an ELF file"
expect_eq "non-ELF: exit" "$rc" 1
# a minimal ELF64 header for AArch64: e_type 2, e_machine 183, e_version 1
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\267\000\001\000\000\000' >"$TMP/arm.elf"
head -c 40 /dev/zero >>"$TMP/arm.elf"
out=$("$FMVGEN" inspect "$TMP/arm.elf" 2>&1); rc=$?
expect_eq "foreign arch: error line" "$out" "fmvgen: $TMP/arm.elf: an ELF file for AArch64, not x86-64"
expect_eq "foreign arch: exit" "$rc" 1
for f in /usr/lib/aarch64-linux-gnu/libc.so.6 /usr/aarch64-linux-gnu/lib/libc.so.6; do
  if [ -f "$f" ]; then
    expect_match "real foreign file" "$("$FMVGEN" inspect "$f" 2>&1)" "not x86-64"
    break
  fi
done
out=$("$FMVGEN" inspect "$TMP/missing" 2>&1); rc=$?
expect_eq "missing: error line" "$out" "fmvgen: $TMP/missing: No such file or directory"
expect_eq "missing: exit" "$rc" 1
head -c 3000 "$TMP/prog.gcc" >"$TMP/truncated"
out=$("$FMVGEN" inspect "$TMP/truncated" 2>&1); rc=$?
expect_eq "truncated: error line" "$out" "fmvgen: $TMP/truncated: truncated or corrupt ELF file (its header tables run past the end of the file)"
expect_eq "truncated: exit" "$rc" 1
gcc -c "$SRC/lib.c" -o "$TMP/lib.o"
out=$("$FMVGEN" inspect "$TMP/lib.o" 2>&1); rc=$?
expect_match "object file: error line" "$out" "^fmvgen: $TMP/lib\.o: a relocatable object file"
out=$("$FMVGEN" inspect "$TMP/notes.txt" "$TMP/prog.gcc" 2>/dev/null); rc=$?
expect_eq "mixed: exit" "$rc" 1
expect_match "mixed: good file still reported" "$out" "prog\.gcc: PIE executable"
"$FMVGEN" inspect >/dev/null 2>&1; rc=$?
expect_eq "no file: usage error" "$rc" 2

finish
