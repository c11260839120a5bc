# patch_libc.sh - shared by test_patch_libc.sh and test_patch_pointer.sh
# and test_patch_cpuid.sh (sourced after $TESTLIB; not a test itself):
# tests/fixtures/patch-libc (or $PATCH_LIBC_FIXTURE) copied twice, U to
# stay unpatched and P (the current directory) scanned with gcc and
# cleaned, ready to patch; and the builds both make of each:
# musl-gcc (dynamic, -static), gcc (-static, -static-pie when libc.a
# links; -fno-plt -Wl,-z,now), clang 14 and clang 19 (dynamic; clang 19
# -static too).
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }

PATCH_LIBC_FIXTURE=${PATCH_LIBC_FIXTURE:-patch-libc}
U=$(copy_fixture "$PATCH_LIBC_FIXTURE")
P="$TMP/patched"
mkdir -p "$P" && cp -a "$FIXTURES/$PATCH_LIBC_FIXTURE/." "$P/"
cd "$P" || exit 1
"$FMVGEN" scan --root "$P" -- make -s CC=gcc >"$TMP/scan.out" 2>&1
expect_eq "scan: exit" "$?" 0
make -s clean

have() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "$1 not installed: its builds are skipped"
  return 1
}

# build DIR NAME CC CFLAGS: DIR's make with CC/CFLAGS, the program kept as
# DIR/prog-NAME
build() {
  (cd "$1" && make -s clean && make -s CC="$3" CFLAGS="$4" >"$TMP/build-$2.log" 2>&1 && mv prog "prog-$2")
}

# patch_libc_configs WARN: the builds as "NAME|CC|CFLAGS" in configs, WARN
# (warning flags, or "") added to the dynamic clang builds' -O3.
configs=()
add_config() { configs+=("$1|$2|$3"); }
patch_libc_configs() {
  if have musl-gcc; then
    add_config musl musl-gcc "-O3"
    add_config musl-static musl-gcc "-O3 -static"
  else
    fail "musl-gcc missing: scripts/setup-deps.sh installs musl-tools"
  fi
  printf 'int main(void) { return 0; }\n' >"$TMP/empty.c"
  if gcc -static "$TMP/empty.c" -o "$TMP/empty" 2>/dev/null; then
    add_config gcc-static gcc "-O3 -static"
    add_config gcc-static-pie gcc "-O3 -static-pie"
  else
    echo "gcc -static cannot link here (no libc.a): static glibc builds skipped"
  fi
  add_config gcc-noplt-now gcc "-O3 -fno-plt -Wl,-z,now"
  have clang-14 && add_config clang-14 clang-14 "-O3$1"
  if have clang-19; then
    add_config clang-19 clang-19 "-O3$1"
    add_config clang-19-static clang-19 "-O3 -static"
  fi
}

# patch_libc_pedantic CLONES: the patched kernel.c compiles as plain C89
# (pedantic) with gcc, musl-gcc and clang 14/19, and as C++98 with g++ and
# clang++ 14/19; CLONES, when not "", is what the C++ object's symbols must
# match.
patch_libc_pedantic() {
  local cc cxx out
  for cc in gcc musl-gcc clang-14 clang-19; do
    installed "$cc" || continue
    out=$("$cc" -std=c89 -pedantic-errors -Wall -Wextra -Werror -O2 -c kernel.c -o "$TMP/c89.o" 2>&1)
    expect_eq "$cc -std=c89 -pedantic-errors: clean [$out]" "$?" 0
  done
  for cxx in g++ clang++-14 clang++-19; do
    installed "$cxx" || continue
    out=$("$cxx" -x c++ -std=c++98 -pedantic-errors -Wall -Wextra -Werror -O2 -c kernel.c -o "$TMP/cxx.o" 2>&1)
    expect_eq "$cxx -std=c++98 -pedantic-errors: clean [$out]" "$?" 0
    [ -n "$1" ] && expect_match "$cxx: clones" "$(nm "$TMP/cxx.o")" "$1"
  done
}
