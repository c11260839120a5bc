#!/bin/bash
# test_patch.sh - `fmvgen patch` end to end on tests/fixtures/patch-basic:
# a store filled by hand (sqlite3) with the fixture's candidates, then the
# patch is checked the way a user and the issue check it: it applies with
# patch -p1, git apply and quilt; the patched project builds with gcc,
# clang 14, clang 19 (when installed), with -std=c89 -pedantic-errors, and
# with tcc (a compiler without __has_attribute/target_clones); nm shows the
# clones each compiler spells; the program runs under qemu -cpu Nehalem with
# the original output; --exact output is bit-identical; unknown targets and
# stale sources are refused with nothing written.
source "$TESTLIB"

P=$(copy_fixture patch-basic)
B="$P/build"
mkdir -p "$B/.fmvgen"
DB="$B/.fmvgen/store.sqlite"
sq() { sqlite3 "$DB" "$@"; }

# hash_file_hex of lib/util: FNV-1a 64 (fmvgen's basis) and the length.
fnv() {
  local h=1469598103934665603 b n=0
  for b in $(od -An -v -tu1 "$1"); do h=$(( (h ^ b) * 1099511628211 )); n=$((n + 1)); done
  printf '%016x-%d' "$h" "$n"
}

# An empty database: fmvgen creates the schema when it opens it.
sq 'PRAGMA user_version=0;'
out=$("$FMVGEN" -C "$B" patch 2>&1); rc=$?
expect_eq "no root: exit" "$rc" 1
expect_match "no root: message" "$out" "^fmvgen: .*no project root recorded"
sq "INSERT INTO meta(key,value) VALUES('root','$P')"
out=$("$FMVGEN" -C "$B" patch 2>&1); rc=$?
expect_eq "empty store: exit" "$rc" 0
expect_match "empty store: nothing to do" "$out" "nothing to do"

GCC=$(command -v gcc); GXX=$(command -v g++)
sq "INSERT INTO compiles(id,directory,argv,compiler,compiler_kind,compiler_version,source,output,language,exit_status)
    VALUES(1,'$P','[\"gcc\",\"-O3\",\"-c\",\"kernels.c\"]','$GCC','gcc','12.2.0','$P/kernels.c','$P/kernels.o','c',0),
          (2,'$P','[\"g++\",\"-O3\",\"-c\",\"ops.cpp\"]','$GXX','gcc','12.2.0','$P/ops.cpp','$P/ops.o','c++',0)"

# add_fn COMPILE NAME FILE REGEX: a candidate starting on the first line of
# FILE matching REGEX (grep -b gives the byte offset of that line).
add_fn() {
  local m line rest off
  m=$(grep -bn -m1 -- "$4" "$P/$3") || { fail "fixture: no line /$4/ in $3"; return; }
  line=${m%%:*}; rest=${m#*:}; off=${rest%%:*}
  sq "INSERT INTO functions(compile_id,name,display_name,file,line,insert_offset,insert_line,status,notes,source_hash)
      VALUES($1,'$2','$2','$P/$3',$line,$off,$line,'candidate','[]','$(fnv "$P/$3")')"
}
add_fn 1 scale kernels.c '^void scale('
add_fn 1 saxpy kernels.c '^void saxpy('
add_fn 1 mul_add kernels.c '^static void$'
add_fn 1 sum_products kernels.c '^long sum_products('
add_fn 1 add_crlf crlf.c '^void add_crlf('
add_fn 1 add_tail tail.c '^void add_tail('
add_fn 1 shift_left "with space é.c" '^void shift_left('
add_fn 2 _ZN7fixture5twiceEPfi ops.cpp '^    void twice('
add_fn 1 which which.c '^void \*which('
sq "INSERT INTO loops(compile_id,variant,function,file,line,kind,vector_bytes)
    VALUES(1,'build','saxpy','kernels.c',20,'loop',16), (1,'probe:arch=x86-64-v4','saxpy','kernels.c',20,'loop',64),
          (1,'probe:arch=x86-64-v4','sum_products','kernels.c',38,'loop',64)"
ORIG=$(cd "$P" && cat kernels.c crlf.c tail.c "with space é.c" ops.cpp | cksum)

# ---- usage
out=$("$FMVGEN" patch --help); expect_eq "--help: exit" "$?" 0
expect_match "--help: documents --exact" "$out" "--exact +FMA-free targets"
"$FMVGEN" -C "$B" patch --bogus >/dev/null 2>&1; expect_eq "unknown option: exit" "$?" 2
out=$("$FMVGEN" -C "$B" patch --apply -o "$P/x.patch" 2>&1); expect_eq "--apply with -o: exit" "$?" 2
expect_match "--apply with -o: says why" "$out" "exclude each other"

# ---- unknown targets: one line naming the target, exit 2, nothing written
out=$("$FMVGEN" -C "$B" patch --targets avx2,avx9000 -o "$P/bad.patch" 2>&1); rc=$?
expect_eq "unknown target: exit" "$rc" 2
expect_match "unknown target: names it" "$out" "^fmvgen: avx9000: unknown target"
expect_eq "unknown target: one line" "$(printf '%s\n' "$out" | wc -l)" 1
expect_eq "unknown target: nothing written" "$(ls "$P/bad.patch" 2>/dev/null)" ""
# gcc 12 knows no znver4: the test compile with the project's compiler says so
if ! "$GCC" -march=znver4 -E -x c /dev/null >/dev/null 2>&1; then
  out=$("$FMVGEN" -C "$B" patch --targets arch=znver4 -o "$P/bad.patch" 2>&1); rc=$?
  expect_eq "target the compiler rejects: exit" "$rc" 2
  expect_match "target the compiler rejects: names it and the compiler" "$out" "^fmvgen: arch=znver4: target not accepted by gcc"
  expect_eq "rejected target: nothing written" "$(ls "$P/bad.patch" 2>/dev/null)" ""
fi
# --compiler: the targets are checked with that compiler instead
out=$("$FMVGEN" -C "$B" patch --compiler clang-14 --targets arch=znver4 -o "$P/bad.patch" 2>&1); rc=$?
expect_eq "--compiler clang-14 rejecting a target: exit" "$rc" 2
expect_match "--compiler clang-14: names target and compiler" "$out" "^fmvgen: arch=znver4: target not accepted by clang 14 \(clang-14\): error: "
expect_no_match "--compiler: no temp file names in the error" "$out" "probe\.c"
out=$("$FMVGEN" -C "$B" patch --compiler tcc -o "$P/bad.patch" 2>&1); rc=$?
expect_eq "--compiler tcc: exit" "$rc" 2
expect_match "--compiler tcc: not GCC or Clang" "$out" "^fmvgen: tcc: not GCC or Clang"
expect_eq "rejected compilers: nothing written" "$(ls "$P/bad.patch" 2>/dev/null)" ""
out=$("$FMVGEN" -C "$B" patch --exact --targets avx512f 2>&1); rc=$?
expect_eq "--exact with an FMA target: exit" "$rc" 2
expect_match "--exact with an FMA target: says why" "$out" "avx512f: enables FMA"

# ---- the patch text
"$FMVGEN" -C "$B" patch -o "$P/fmv.patch" 2>"$TMP/err"; rc=$?
expect_eq "patch -o: exit" "$rc" 0
PATCH=$(cat "$P/fmv.patch")
HEADER=$(sed -n '1,/^--- a\//p' "$P/fmv.patch" | sed '$d')
expect_match "header: version" "$HEADER" "^fmvgen [0-9]+\.[0-9]+"
expect_match "header: targets" "$HEADER" "Targets: arch=x86-64-v3, arch=x86-64-v4, default"
expect_match "header: a function and why" "$HEADER" "kernels.c:16 saxpy: 1 loop vectorized in the build \(16-byte vectors\); 1 at arch=x86-64-v4 \(64-byte vectors\)"
expect_match "header: probe-only function" "$HEADER" "sum_products: vectorizes only at arch=x86-64-v4"
expect_match "header: FMA warning" "$HEADER" "FMA WARNING"
expect_match "header: bit-exact tests" "$HEADER" "breaks bit-exact tests"
expect_match "header: --exact offered" "$HEADER" "fmvgen patch --exact"
expect_eq "files sorted" "$(grep '^--- a/' "$P/fmv.patch" | tr -d '\t' | tr '\n' ' ')" \
  "--- a/crlf.c --- a/kernels.c --- a/ops.cpp --- a/tail.c --- a/which.c --- a/with space é.c "
expect_match "return type on its own line: attribute before it" "$PATCH" $'\n\\+FMVGEN_CLONES_STATIC\n static void\n mul_add\\('
expect_match "no-newline marker" "$PATCH" 'No newline at end of file'
expect_match "fma note on stderr" "$(cat "$TMP/err")" "^fmvgen: note: some targets enable FMA \\(the patch header says with which compilers\\)"
expect_eq "patch -o modifies no source" "$(cd "$P" && cat kernels.c crlf.c tail.c "with space é.c" ops.cpp | cksum)" "$ORIG"

# ---- it applies with patch -p1, git apply and quilt
fresh() { rm -rf "$TMP/$1"; cp -a "$FIXTURES/patch-basic" "$TMP/$1"; printf '%s' "$TMP/$1"; }
A=$(fresh by-patch)
(cd "$A" && patch -p1 --dry-run <"$P/fmv.patch" >/dev/null); expect_eq "patch -p1 --dry-run" "$?" 0
(cd "$A" && patch -p1 <"$P/fmv.patch" >/dev/null); expect_eq "patch -p1" "$?" 0
G=$(fresh by-git)
(cd "$G" && git apply --check "$P/fmv.patch"); expect_eq "git apply --check" "$?" 0
(cd "$G" && git apply "$P/fmv.patch"); expect_eq "git apply" "$?" 0
expect_eq "git apply = patch -p1" "$(diff -r "$A" "$G" >/dev/null; echo $?)" 0
if command -v quilt >/dev/null; then
  Q=$(fresh by-quilt)
  (cd "$Q" && quilt import "$P/fmv.patch" >/dev/null 2>&1 && quilt push >/dev/null 2>&1); expect_eq "quilt import + push" "$?" 0
  expect_eq "quilt = patch -p1" "$(diff -r -x .pc -x patches "$A" "$Q" >/dev/null; echo $?)" 0
else
  fail "quilt is not installed (scripts/setup-deps.sh installs it)"
fi

# ---- the patched sources
expect_eq "CRLF file: every line still CRLF" "$(grep -c $'\r$' "$A/crlf.c")" "$(wc -l <"$A/crlf.c")"
expect_match "CRLF file: attribute line" "$(cat "$A/crlf.c")" $'FMVGEN_CLONES\\(add_crlf\\)\r'
expect_eq "no-newline file still ends without newline" "$(tail -c1 "$A/tail.c" | od -An -c | tr -d ' ')" "}"
expect_eq "indented C++ candidate keeps the indentation" "$(grep -c '^    FMVGEN_CLONES' "$A/ops.cpp")" 1
expect_eq "one attribute per candidate" "$(cat "$A"/*.c "$A/ops.cpp" | grep -cE $'^ *FMVGEN_CLONES(_STATIC|\\([A-Za-z0-9_]+\\))\r?$')" 9
expect_eq "C++ candidate named by its symbol" "$(grep -c '^    FMVGEN_CLONES(_ZN7fixture5twiceEPfi)$' "$A/ops.cpp")" 1
expect_eq "static function gets FMVGEN_CLONES_STATIC" "$(grep -c '^FMVGEN_CLONES_STATIC$' "$A/kernels.c")" 1

SRCS=(kernels.c crlf.c tail.c "with space é.c")
build() {  # build DIR OUT CC FLAGS...
  local dir=$1 out=$2 cc=$3; shift 3
  (cd "$dir" && "$cc" "$@" "${SRCS[@]}" main.c -o "$out")
}
U=$(fresh unpatched)
build "$U" "$TMP/base" gcc -O2 || fail "unpatched build"
BASE=$("$TMP/base")

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  if build "$A" "$TMP/fmv-$cc" "$cc" -O3 -Wall -Wextra -Werror 2>"$TMP/err-$cc"; then pass; else fail "$cc: patched build: $(head -3 "$TMP/err-$cc")"; continue; fi
  syms=$(nm "$TMP/fmv-$cc")
  case $cc in
    gcc) want='saxpy\.arch_x86_64_v3 saxpy\.arch_x86_64_v4 mul_add\.arch_x86_64_v4 add_tail\.arch_x86_64_v3 shift_left\.arch_x86_64_v4 add_crlf\.arch_x86_64_v3' ;;
    # clang 14: feature names; the dispatcher of an external function is
    # SYMBOL.ifunc there, and the preamble's alias makes SYMBOL an ifunc too.
    # clang < 18 also makes a static function's resolver global, so the
    # preamble clones no static function there: mul_add gets no clones.
    clang-14) want='saxpy\.avx2 saxpy\.avx512f add_tail\.avx2 shift_left\.avx512f add_crlf\.avx2'
              expect_no_match "clang-14: static mul_add not cloned" "$syms" 'mul_add\.'
              expect_match "clang-14: saxpy is an ifunc (callable from main.c)" "$syms" '[iI] saxpy$' ;;
    clang-19) want='saxpy\.arch_x86-64-v3 saxpy\.arch_x86-64-v4 mul_add\.arch_x86-64-v4 add_tail\.arch_x86-64-v3' ;;
  esac
  for w in $want; do expect_match "$cc: nm shows clone $w" "$syms" "[tT] $w"; done
  # The default clone is the original code: on an old CPU, the old output.
  out=$(qemu-x86_64 -cpu Nehalem "$TMP/fmv-$cc" 2>/dev/null); rc=$?
  expect_eq "$cc: runs under qemu -cpu Nehalem" "$rc" 0
  [ "$out" = "$(qemu-x86_64 -cpu Nehalem "$TMP/base" 2>/dev/null)" ] && pass || fail "$cc: Nehalem output differs from the unpatched build"
done

# ---- dispatch: the spelling each compiler gets picks the right clone
# (which() returns an address inside the clone that ran; nm names it).
clone_at() {
  local a=$((16#$2)) s=? v t n
  while read -r v t n; do
    if [ $((16#$v)) -le $a ]; then s=$n; else break; fi
  done < <(nm -n "$1" | grep -E '^[0-9a-f]+ [tT] ')
  printf '%s' "$s"
}
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  bin="$TMP/which-$cc"
  (cd "$A" && "$cc" -O2 -fno-optimize-sibling-calls -no-pie which.c dispatch.c -o "$bin") || { fail "$cc: dispatch build"; continue; }
  case $cc in
    gcc) v3='arch_x86_64_v3' v4='arch_x86_64_v4' ;;
    clang-14) v3='avx2' v4='avx512f' ;;   # arch=x86-64-vN would always run default there
    clang-19) v3='arch_x86-64-v3' v4='arch_x86-64-v4' ;;
  esac
  expect_match "$cc: Nehalem runs the default clone" "$(clone_at "$bin" "$(qemu-x86_64 -cpu Nehalem "$bin" 2>/dev/null)")" '^which\.default(\.[0-9]+)?$'
  expect_match "$cc: Haswell runs the x86-64-v3 clone" "$(clone_at "$bin" "$(qemu-x86_64 -cpu Haswell "$bin" 2>/dev/null)")" "^which\\.$v3(\\.[0-9]+)?\$"
  if grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then
    expect_match "$cc: this AVX-512 CPU runs the x86-64-v4 clone" "$(clone_at "$bin" "$("$bin")")" "^which\\.$v4(\\.[0-9]+)?\$"
  else
    echo "$cc: this CPU has no AVX-512BW/VL: its x86-64-v4 clone is not run natively"
  fi
done

# C89 and a compiler without target_clones (tcc has no __has_attribute).
(cd "$A" && for f in kernels.c crlf.c tail.c "with space é.c"; do gcc -std=c89 -pedantic-errors -Wall -Wextra -Werror -O2 -c "$f" -o "$TMP/c89.o" || exit 1; done) 2>"$TMP/err"
expect_eq "gcc -std=c89 -pedantic-errors builds the patched files" "$?" 0
# (tail.c is left out for clang: its missing final newline is a C89 pedantic
# error in the original already)
(cd "$A" && for f in kernels.c crlf.c "with space é.c"; do clang -std=c89 -pedantic-errors -Wall -Wextra -Werror -O2 -c "$f" -o "$TMP/c89.o" || exit 1; done) 2>"$TMP/err"
expect_eq "clang -std=c89 -pedantic-errors builds the patched files" "$?" 0
if command -v tcc >/dev/null; then
  build "$A" "$TMP/fmv-tcc" tcc 2>"$TMP/err"; rc=$?
  expect_eq "tcc (no target_clones) builds the patched project" "$rc" 0
  [ "$rc" = 0 ] && { out=$("$TMP/fmv-tcc" | tail -1); expect_eq "tcc build: integer results unchanged" "$out" "$(printf '%s\n' "$BASE" | tail -1)"; }
  expect_eq "tcc: the attribute macros expand to nothing" "$(cd "$A" && tcc -E kernels.c | grep -c 'target_clones\|FMVGEN_CLONES')" 0
else
  fail "tcc is not installed (scripts/setup-deps.sh installs it)"
fi
# -DFMVGEN_NO_CLONES turns the clones off; the candidate inside #ifndef
# FIXTURE_NO_SCALE does not take the preamble away from the others.
(cd "$A" && gcc -O2 -Werror -DFMVGEN_NO_CLONES -c kernels.c -o "$TMP/off.o"); expect_eq "-DFMVGEN_NO_CLONES builds" "$?" 0
expect_eq "-DFMVGEN_NO_CLONES: no clones" "$(nm "$TMP/off.o" | grep -c 'arch_x86')" 0
(cd "$A" && gcc -O2 -Werror -DFIXTURE_NO_SCALE -c kernels.c -o "$TMP/noscale.o"); expect_eq "-DFIXTURE_NO_SCALE builds" "$?" 0
expect_match "-DFIXTURE_NO_SCALE: saxpy still cloned" "$(nm "$TMP/noscale.o")" "saxpy\.arch_x86_64_v3"
# Two patched files in one TU: the preamble is not redefined.
printf '#include "kernels.c"\n#include "tail.c"\n' >"$A/unity.c"
(cd "$A" && gcc -O2 -Wall -Werror -c unity.c -o "$TMP/unity.o" && clang -O2 -Wall -Werror -c unity.c -o "$TMP/unity.o") 2>"$TMP/err"
expect_eq "two patched files in one TU" "$?" 0
# C++: g++ and clang++ clone the indented namespace member.
for cxx in g++ clang++-14 clang++-19; do
  installed "$cxx" || continue
  (cd "$A" && "$cxx" -O3 -Wall -Werror -c ops.cpp -o "$TMP/ops.o") 2>"$TMP/err"; expect_eq "$cxx: patched ops.cpp builds" "$?" 0
  expect_match "$cxx: C++ clones" "$(nm "$TMP/ops.o")" "_ZN7fixture5twiceEPfi\.(arch_x86|avx)"
  expect_match "$cxx: C++ dispatcher under the plain symbol" "$(nm "$TMP/ops.o")" "[iI] _ZN7fixture5twiceEPfi$"
done

# ---- --exact: FMA-free clones compute the unpatched results bit for bit
"$FMVGEN" -C "$B" patch --exact -o "$P/exact.patch" 2>"$TMP/err"; expect_eq "--exact: exit" "$?" 0
expect_no_match "--exact: no FMA warning" "$(cat "$P/exact.patch")" "FMA WARNING"
expect_match "--exact: avx2 clones" "$(cat "$P/exact.patch")" 'target_clones\("avx2", "default"\)'
X=$(fresh exact)
(cd "$X" && patch -p1 <"$P/exact.patch" >/dev/null); expect_eq "--exact patch applies" "$?" 0
build "$U" "$TMP/base3" gcc -O3 || fail "unpatched -O3 build"
build "$X" "$TMP/exact-bin" gcc -O3 || fail "--exact build"
expect_match "--exact: nm shows avx2 clones" "$(nm "$TMP/exact-bin")" "saxpy\.avx2"
expect_eq "--exact: output bit-identical (native)" "$("$TMP/exact-bin" | cksum)" "$("$TMP/base3" | cksum)"
expect_eq "--exact: output bit-identical (Haswell, avx2 clones run)" \
  "$(qemu-x86_64 -cpu Haswell "$TMP/exact-bin" 2>/dev/null | cksum)" "$("$TMP/base3" | cksum)"
# ... while the FMA clones do change the last bits on Haswell: what the
# header warns about (so the comparison above can fail).
build "$A" "$TMP/fma" gcc -O3 || fail "FMA build"
[ "$(qemu-x86_64 -cpu Haswell "$TMP/fma" 2>/dev/null | cksum)" != "$("$TMP/base3" | cksum)" ] && pass \
  || fail "the x86-64-v3 clones gave bit-identical floats: the FMA fixture does not exercise FMA"

# ---- --json
J=$("$FMVGEN" -C "$B" patch --json 2>/dev/null); expect_eq "--json: exit" "$?" 0
expect_match "--json: fma" "$J" '"fma": true'
expect_match "--json: a file" "$J" '"file": "with space é.c"'
expect_match "--json: a function" "$J" '"name": "mul_add"'
expect_match "--json: the patch text" "$J" '"patch": "fmvgen '
J=$("$FMVGEN" -C "$B" patch --exact --json -o "$P/e2.patch" 2>/dev/null)
expect_match "--exact --json: no fma" "$J" '"fma": false'
expect_no_match "--json -o: no patch text inline" "$J" '"patch":'

# ---- --apply: refused when a source changed since the scan, nothing modified
printf '\n/* edited after the scan */\n' >>"$P/tail.c"
BEFORE=$(cd "$P" && cat kernels.c crlf.c tail.c "with space é.c" ops.cpp | cksum)
out=$("$FMVGEN" -C "$B" patch --apply 2>&1); rc=$?
expect_eq "--apply on a changed source: exit" "$rc" 1
expect_match "--apply on a changed source: names it" "$out" "^fmvgen: $P/tail.c: changed since the scan"
expect_eq "--apply refused: nothing modified" "$(cd "$P" && cat kernels.c crlf.c tail.c "with space é.c" ops.cpp | cksum)" "$BEFORE"
expect_eq "--apply refused: no temp files" "$(ls -A "$P" | grep -c fmvgen)" 0
cp "$FIXTURES/patch-basic/tail.c" "$P/tail.c"
out=$("$FMVGEN" -C "$B" patch --apply 2>&1); rc=$?
expect_eq "--apply: exit" "$rc" 0
expect_match "--apply: summary" "$out" "patched 9 functions in 6 files"
for f in kernels.c crlf.c tail.c "with space é.c" ops.cpp which.c; do
  cmp -s "$P/$f" "$A/$f" && pass || fail "--apply: $f differs from patch -p1's result"
done
expect_eq "--apply: no temp files" "$(ls -A "$P" | grep -c fmvgen)" 0
out=$("$FMVGEN" -C "$B" patch --apply 2>&1); rc=$?
expect_eq "--apply twice: refused" "$rc" 1

finish
